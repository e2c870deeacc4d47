"""Outline scanner: one page file's text → blocks and references, the way the outliner sees them.

This is the hot path of every query (it runs over every file of a vault on a cold index), so it
is a line scanner driven by compiled regular expressions, not a Markdown parse. It is
code-aware: fenced code blocks and inline code spans never yield references.

Two syntaxes are understood:

* ``"logseq"`` — Logseq's Markdown as its parser (mldoc) reads it: a block is a ``-`` bullet
  or a ``#`` heading line; every other line continues the block above it; ``key:: value``
  lines right after a block's first line are its properties, and those before the first block are
  the page's properties. References: ``[[X]]``, ``#X``, ``#[[X]]``, ``[label]([[X]])``,
  ``{{embed [[X]]}}``, ``((uuid))`` and page refs in property values, as mldoc 1.5 (what
  Logseq 0.10 uses) finds them; tests/test_mldoc_conformance.py holds us to mldoc's answers.
* ``"wiki"`` — Obsidian and plain Markdown: list items (``-``, ``*``, ``+``, ``1.``) and ATX headings
  are blocks; YAML front matter holds the page properties. References: ``[[X]]``, ``[[X|label]]``,
  ``[[X#Heading]]``, ``![[X]]``, Markdown links to ``X.md``; ``#tag`` is recorded as a tag (Obsidian
  does not count it as a backlink).

The scanner never changes text: `Outline.text` is the decoded file, and line numbers index
``text.split("\\n")`` so that a writer can insert lines byte-exactly.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote

from .errors import UnreadablePage

Syntax = Literal["logseq", "wiki"]
RefKind = Literal["link", "tag", "labeled", "embed", "property", "markdown", "block"]

#: Properties whose comma-separated values are each a page reference (Logseq; the graph's
#: ``:property/separated-by-commas`` adds more).
COMMA_PROPERTIES = frozenset({"alias", "tags"})
#: Built-in Logseq properties whose values are never references.
_NO_REF_PROPERTIES = frozenset({"id", "collapsed", "title", "filters", "public", "icon"})
TASK_MARKERS = frozenset(
    {"TODO", "DOING", "DONE", "LATER", "NOW", "WAITING", "WAIT", "CANCELED", "CANCELLED",
     "STARTED", "IN-PROGRESS"}
)


@dataclass(frozen=True, slots=True)
class Ref:
    """A reference from a block to a page (or to a block, kind ``"block"``)."""

    target: str  # the page name as written, without brackets, label, heading or ``.md``
    kind: RefKind
    line: int  # 0-based line of the file where it stands


@dataclass(slots=True)
class Block:
    """One block of an outline: a bullet, a top-level heading, or the page's leading text."""

    line: int  # first line (0-based)
    end: int  # one past the last line of this block's own text (children excluded)
    level: int  # indentation as the outliner counts it: 1 + indent width (mldoc's level)
    depth: int  # depth in the tree: 0 for a top-level block
    parent: int  # index of the parent block in `Outline.blocks`, -1 at top level
    kind: Literal["bullet", "heading", "preamble"]
    text: str  # the first line after the bullet marker, task marker included
    marker: str | None = None  # Logseq task marker (TODO, DONE, ...) if any
    properties: dict[str, str] = field(default_factory=dict)
    refs: list[Ref] = field(default_factory=list)
    subtree_end: int = -1  # one past the last line of the block and all its descendants


@dataclass(slots=True)
class Outline:
    """The scan of one page file."""

    text: str  # decoded text without BOM; ``text.split("\\n")`` are the file's lines
    blocks: list[Block]
    page_properties: dict[str, Any]  # Logseq first-block properties or YAML front matter
    page_refs: list[Ref]  # references made by the page properties
    bom: bool = False
    newline: str = "\n"  # the file's line ending: "\n" or "\r\n"
    final_newline: bool = True
    indent_unit: str | None = None  # the indentation of the first nested bullet, if any
    warnings: list[str] = field(default_factory=list)

    def refs(self) -> list[Ref]:
        """Every reference on the page: page properties first, then blocks in order."""
        out = list(self.page_refs)
        for block in self.blocks:
            out.extend(block.refs)
        return out


# ---------------------------------------------------------------------------------------------
# decoding


def decode(data: bytes, where: str = "page") -> tuple[str, bool]:
    """Decode a page file's bytes strictly as UTF-8; return ``(text, had_bom)``.

    Raises `UnreadablePage` for binary data (a NUL byte) or bytes that are not UTF-8, because
    guessing an encoding could make a later write corrupt the person's file.
    """
    if b"\x00" in data[:8192]:
        raise UnreadablePage(f"{where}: binary file (NUL byte), not a text page")
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data[3 if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadablePage(
            f"{where}: not UTF-8 text (invalid byte at offset {exc.start + (3 if bom else 0)})"
        ) from exc
    return text, bom


# ---------------------------------------------------------------------------------------------
# inline references

# Logseq. mldoc (1.5.x, what Logseq 0.10 uses) reads a block's first line, each paragraph of its
# body and each property value with one inline grammar, emulated by _LOGSEQ_INLINE below.
_UUID = r"[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}"  # Logseq keeps only these ids
_UUID_RE = re.compile(_UUID)

# Constructs that begin with a character that does not end mldoc's run of plain text (a letter,
# '(', '{', '<') only start where such a run stops: after white space or one of mldoc's
# delimiters, or right after another construct (taken to be one when ] ) or } precede).
_TOKEN = r"(?<![^\s\\_^\[\]*~`=$#)}])"
_HTML_TAGS = (
    "a|abbr|address|area|article|aside|audio|b|base|bdi|bdo|blockquote|body|br|button|canvas|"
    "caption|cite|code|col|colgroup|data|datalist|dd|del|dfn|div|dl|dt|em|embed|fieldset|"
    "figcaption|figure|footer|form|h[1-6]|head|header|hr|html|i|iframe|img|input|ins|kbd|keygen|"
    "label|legend|li|link|main|map|mark|meta|meter|nav|noscript|object|ol|optgroup|option|output|"
    "p|param|pre|progress|q|rb|rp|rt|rtc|ruby|s|samp|script|section|select|small|source|span|"
    "strong|style|sub|sup|table|tbody|td|template|textarea|tfoot|th|thead|time|title|tr|track|u|"
    "ul|var|video|details|summary|wbr"
)
_HTML = (
    r"(?P<html><!--[\s\S]*?-->|<(?P<htag>(?i:" + _HTML_TAGS + r"))(?=[ \t>])"
    r"(?:[\s\S]*?</(?i:(?P=htag))>|[\s\S]*?/>))"
)
_CODE_SPAN = r"(?P<code>`[^`\n]+`|``.*?``)|(?P<esc>\\.)"
_LABEL = r"!?\[(?:[^\[\]]|\[\[[^\[\]]*\]\]|\[[^\[\]]*\])*\]"
_LINKS = (
    r"(?P<nested>\[\[(?P<outer>[^\[\]]*\[\[(?P<inner>[^\[\]]+)\]\][^\[\]]*)\]\])"
    r"|(?P<tagref>#\[\[(?P<tname>(?:[^\[\]]|\[(?!\[)|\](?!\]))+?)\]\])"
    r"|(?P<ref>\[\[(?P<name>(?:[^\[\]]|\[(?!\[)|\](?!\]))+?)\]\])"
    rf"|(?P<labeled>{_LABEL}\((?:\[\[(?P<lname>[^\[\]]+?)\]\]|\(\((?P<luuid>{_UUID})\)\))\))"
    rf"|(?P<mdlink>{_LABEL}\((?:[^()\n]|\([^()\n]*\))*\))"
)
# Emphasis closes at its first delimiter that follows a non-space character, or that follows a
# space and is followed by the end of the text or another delimiter character; '_' emphasis also
# wants punctuation or space around it. A code span inside is opaque.
_EM_TEXT = r"(?:`[^`\n]+`|[\s\S])+?"
_PUNCT = r"\s!-/:-@\[-`{-~"
_EMPHASIS = (
    rf"(?P<em>(?P<emd>\*\*\*|\*\*|\*|~~|\^\^|==)(?=\S)(?P<emt>{_EM_TEXT})"
    r"(?:(?<=\S)(?P=emd)|(?P=emd)(?=[*~^=]|\Z)))"
    rf"|(?<![^{_PUNCT}])(?P<uem>(?P<emu>___|__|_)(?=\S)(?P<emv>{_EM_TEXT})"
    rf"(?:(?<=\S)(?P=emu)|(?P=emu)(?=_|\Z)))(?![^{_PUNCT}])"
)
_URL = (  # to white space, brackets balanced
    r"(?P<url>[A-Za-z0-9]+://[^\s\[\]<>{}()/?#]*"
    r"(?:[/?#](?:[^\s()\[\]]|\([^\s()]*\)?|\[(?:[^\s\[\]]|\[[^\s\[\]]*\]?)*\]?)*)?)"
)
_LOGSEQ_INLINE = re.compile(
    # A cheap first test of where a construct may start; it halves the scanning time.
    rf"(?=[`\\$\[*~^=_!#]|{_TOKEN}[A-Za-z0-9(<{{])(?:"
    f"{_CODE_SPAN}|{_TOKEN}{_HTML}"
    r"|(?P<latex>\$\$[^$\n]*\$\$|\$[^ $\n](?:[^$\n]*[^$\n (\[{])?\$)"
    f"|{_TOKEN}{_URL}"
    rf"|{_TOKEN}(?P<macro>\{{\{{(?P<mname>[^ }}(]+)(?P<margs>[^}}\n]*)\}}\}})"
    f"|{_LINKS}"
    rf"|{_TOKEN}(?P<bref>\(\((?P<uuid>{_UUID})\)\))"
    f"|{_EMPHASIS}"
    r"|(?P<tag>#(?P<tbody>(?:[^ \t\n!\"#',:?\[]|\[(?!\[))+)))"
)
_LOGSEQ_IN_EMPHASIS = re.compile(f"{_CODE_SPAN}|{_LINKS}|{_EMPHASIS}")  # all mldoc sees there
# HTML at the start of a line is a block of its own: the rest of the line starts a new paragraph.
_BLOCK_HTML = re.compile(_HTML)

# Obsidian and plain Markdown.
_CODE = r"(?P<code>(?P<bt>`+)(?!`).*?(?<!`)(?P=bt)(?!`))"
_WIKI_INLINE = re.compile(
    "|".join(
        [
            _CODE,
            r"(?P<esc>\\.)",
            r"(?P<comment>%%.*?%%|<!--.*?-->)",
            r"(?P<url>\b[A-Za-z][A-Za-z0-9+.\-]{1,30}://[^\s<>\[\]()]*)",
            r"(?P<wiki>(?P<bang>!?)\[\[(?P<wtarget>[^\[\]|#^]*)(?P<wsub>[#^][^\[\]|]*)?"
            r"(?:\|[^\[\]]*)?\]\])",
            r"(?P<mdlink>(?P<mbang>!?)\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
            r"\((?:<(?P<mdest_a>[^<>\n]+)>|(?P<mdest>[^()\s]+))(?:\s+\"[^\"]*\")?\))",
            r"(?P<tag>(?<![\w#&])#(?P<tbody>[^\s!-,.:-@\[-^`{-~]*[^\W\d][^\s!-,.:-@\[-^`{-~]*))",
        ]
    )
)

_MARKER_RE = re.compile(
    r"(?:#+[ \t]+)?"  # "- ## text": a bullet that is also a heading
    "(?:(?P<m>" + "|".join(sorted(TASK_MARKERS, key=len, reverse=True)) + ") +)?"
    r"(?:\[#[!-\\^-~]\] *)?"  # a priority: one ASCII character, [#A] by convention
)
_PROPERTY_RE = re.compile(r"^[ \t]*(?P<key>[^\s:][^\s]*?)::(?:[ \t]+(?P<value>.*?))?[ \t]*$")
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _logseq_refs(text: str, lineno: int, out: list[Ref], kind: RefKind | None = None) -> None:
    """Append the references of Logseq inline text (a paragraph, a first line or a property
    value, as ``kind``) to ``out``."""
    for m in _LOGSEQ_INLINE.finditer(text):
        group, line = m.lastgroup, lineno + text.count("\n", 0, m.start())
        if group == "tag":
            name = m.group("tbody").rstrip(".;")
            if name:
                out.append(Ref(name, kind or "tag", line))
        elif group in ("em", "uem") and kind is None:  # a property keeps its top-level refs only
            _emphasis_refs(m.group("emt") or m.group("emv"), line, out)
        elif group == "macro" and kind == "property":  # mldoc skips macros in properties
            _logseq_refs(m.group()[2:-2], line, out, kind)
        elif group == "macro" and m.group("mname") == "embed":
            _embed_refs(m.group("margs"), line, out)
        else:
            _link_ref(m, line, out, kind)


def _link_ref(m: re.Match[str], lineno: int, out: list[Ref], kind: RefKind | None) -> None:
    """The page or block that a [[link]], #[[tag]], [label]([[link]]) or ((ref)) points at."""
    group = m.lastgroup
    if group == "ref":
        out.append(Ref(m.group("name"), kind or "link", lineno))
    elif group == "tagref":
        out.append(Ref(m.group("tname"), kind or "tag", lineno))
    elif group == "labeled" and m.group("lname"):
        out.append(Ref(m.group("lname"), kind or "labeled", lineno))
    elif group == "labeled":
        out.append(Ref(m.group("luuid").lower(), "block", lineno))
    elif group == "nested":
        out.append(Ref(m.group("outer"), kind or "link", lineno))
        out.append(Ref(m.group("inner"), kind or "link", lineno))
    elif group == "bref":
        out.append(Ref(m.group("uuid").lower(), "block", lineno))


def _emphasis_refs(inner: str, lineno: int, out: list[Ref]) -> None:
    """Inside **emphasis** mldoc still links pages (``#[[X]]`` becomes a plain link) but sees no
    #tag, ((ref)) or macro."""
    for m in _LOGSEQ_IN_EMPHASIS.finditer(inner):
        group, line = m.lastgroup, lineno + inner.count("\n", 0, m.start())
        if group in ("em", "uem"):
            _emphasis_refs(m.group("emt") or m.group("emv"), line, out)
        elif group == "tagref":
            out.append(Ref(m.group("tname"), "link", line))
        elif group in ("ref", "nested", "labeled"):
            _link_ref(m, line, out, None)


def _embed_refs(args: str, lineno: int, out: list[Ref]) -> None:
    """``{{embed [[X]]}}`` references page X; ``{{embed ((uuid))}}`` references a block."""
    args = args.strip()
    if args.startswith("[[") and args.endswith("]]"):
        out.append(Ref(args[2:-2], "embed", lineno))
    elif args.startswith("((") and args.endswith("))") and _UUID_RE.fullmatch(args[2:-2]):
        out.append(Ref(args[2:-2].lower(), "block", lineno))


def _wiki_refs(line: str, lineno: int, out: list[Ref], tags: bool = True) -> None:
    """Append the references of one line of Obsidian / plain-Markdown text to ``out``."""
    for m in _WIKI_INLINE.finditer(line):
        group = m.lastgroup
        if group == "wiki":
            target = m.group("wtarget").strip()
            if target:
                out.append(Ref(_strip_md(target), "embed" if m.group("bang") else "link", lineno))
        elif group == "mdlink":
            dest = m.group("mdest_a") or m.group("mdest") or ""
            target = _markdown_link_target(dest)
            if target:
                out.append(Ref(target, "markdown", lineno))
        elif group == "tag" and tags:
            out.append(Ref(m.group("tbody"), "tag", lineno))


def _strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


def _markdown_link_target(dest: str) -> str | None:
    """The page a Markdown link ``[t](dest)`` points at, if it is a local ``.md`` file."""
    if _SCHEME_RE.match(dest):
        return None
    path = unquote(dest.split("#", 1)[0])
    if not path.lower().endswith(".md"):
        return None
    while path.startswith("./"):
        path = path[2:]
    return path[:-3] or None


# ---------------------------------------------------------------------------------------------
# block structure


def _indent_width(indent: str, syntax: Syntax) -> int:
    # mldoc counts every tab or space as one level; Markdown renderers expand tabs to 4 columns.
    if syntax == "logseq":
        return len(indent)
    return len(indent.expandtabs(4))


_FENCE_RE = re.compile(r"^(?P<fence>`{3,}|~{3,})")
# mldoc: a '-' bullet, or a line of '#'s then white space (a heading block, at any indentation).
_LOGSEQ_ITEM = re.compile(r"^(?P<indent>[ \t]*)(?:-(?:[ \t]|$)|(?P<h>#+)(?:[ \t]|$))")
_WIKI_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|(?P<h>#{1,6})(?:[ \t]|$))"
)


class _Builder:
    """Turns classified lines into blocks with parents (the stack of open levels)."""

    def __init__(self, syntax: Syntax) -> None:
        self.syntax = syntax
        self.blocks: list[Block] = []
        self.stack: list[int] = []  # indexes of open blocks, shallowest first

    def open(self, lineno: int, indent: str, kind: Literal["bullet", "heading"], text: str) -> Block:
        level = _indent_width(indent, self.syntax) + 1
        while self.stack and self.blocks[self.stack[-1]].level >= level:
            self.stack.pop()
        parent = self.stack[-1] if self.stack else -1
        block = Block(lineno, lineno + 1, level, len(self.stack), parent, kind, text)
        self.stack.append(len(self.blocks))
        self.blocks.append(block)
        return block


def _split_marker(content: str) -> tuple[str | None, str]:
    """A first line's task marker (None if none) and its text after marker and priority."""
    content = content.lstrip(" \t")
    m = _MARKER_RE.match(content)
    assert m is not None  # every part of the pattern is optional
    return m.group("m"), content[m.end():]


def _after_marker(content: str) -> str:
    """The first line without its task marker and priority, which are not references."""
    return _split_marker(content)[1]


def _finish_subtrees(blocks: list[Block], nlines: int) -> None:
    """Fill `Block.subtree_end`: a subtree ends where the next block at its depth or above starts."""
    open_: list[int] = []
    for i, block in enumerate(blocks):
        if block.kind == "preamble":
            block.subtree_end = block.end
            continue
        while open_ and blocks[open_[-1]].depth >= block.depth:
            blocks[open_.pop()].subtree_end = block.line
        open_.append(i)
    for i in open_:
        blocks[i].subtree_end = nlines


def _trim_end(lines: list[str], start: int, end: int) -> int:
    """Exclude the trailing empty line that a final newline leaves after the last block."""
    if end == len(lines) and end > start + 1 and lines[-1] == "":
        return end - 1
    return end


# ---------------------------------------------------------------------------------------------
# scanning


def scan(text: str, syntax: Syntax, *, comma_properties: frozenset[str] = COMMA_PROPERTIES,
         bom: bool = False) -> Outline:
    """Scan one page's decoded text into an `Outline`."""
    lines = text.split("\n")
    newline = "\r\n" if lines[0].endswith("\r") else "\n"
    if syntax == "logseq":
        outline = _scan_logseq(lines, comma_properties)
    else:
        outline = _scan_wiki(lines)
    outline.text = text
    outline.bom = bom
    outline.newline = newline
    outline.final_newline = text.endswith("\n")
    nested = next((b for b in outline.blocks if b.depth == 1), None)
    if nested is not None:
        line = lines[nested.line]
        outline.indent_unit = line[: len(line) - len(line.lstrip(" \t"))]
    _finish_subtrees(outline.blocks, _trim_end(lines, 0, len(lines)))
    return outline


def _scan_logseq(lines: list[str], comma_properties: frozenset[str]) -> Outline:
    """Blocks and references of a Logseq page, line by line (see `_LogseqScan`)."""
    lines = [line.removesuffix("\r") for line in lines]
    state = _LogseqScan(lines, comma_properties)
    for lineno, line in enumerate(lines):
        state.line(lineno, line)
    state.flush()
    for block in state.builder.blocks:
        block.end = _trim_end(lines, block.line, block.end)
    return state.outline


_DRAWER = re.compile(r"^:[A-Za-z][\w-]*:[ \t]*$")  # :LOGBOOK: ... :END: (no refs, ends a paragraph)


class _LogseqScan:
    """One pass over a Logseq page: the open block, whether its properties may still follow, an
    open code fence, and the lines of the open paragraph, which mldoc reads as one inline text
    (emphasis and HTML may span its lines)."""

    def __init__(self, lines: list[str], comma_properties: frozenset[str]) -> None:
        self.builder = _Builder("logseq")
        self.outline = Outline("", self.builder.blocks, {}, [])
        self.comma_properties = comma_properties
        self.block: Block | None = None
        self.in_props = True
        self.fences = [i for i, line in enumerate(lines) if _is_fence(line.lstrip(" \t"))]
        self.fence_end = -1  # the closing line of the open code fence
        self.paragraph: list[str] = []  # lines of the body text not yet scanned
        self.paragraph_start = 0

    def line(self, lineno: int, line: str) -> None:
        """Take the next line of the page (without its line ending)."""
        if lineno <= self.fence_end:  # code: part of the block's text, never a reference
            if self.block is not None:
                self.block.end = lineno + 1
            return
        body = line.lstrip(" \t")
        m = _LOGSEQ_ITEM.match(line) if body[:1] in ("-", "#") else None
        if m is not None:
            self.open(lineno, line, m)
        else:
            self.text(lineno, line, body)

    def open(self, lineno: int, line: str, m: re.Match[str]) -> None:
        """A bullet or a heading line starts a block."""
        self.flush()
        indent, hashes = m.group("indent"), m.group("h")
        if hashes:
            content = line[len(indent) + len(hashes):]
            block = self.builder.open(lineno, indent, "heading", line[len(indent):].strip())
        else:
            content = line[m.end():]
            block = self.builder.open(lineno, indent, "bullet", content.strip())
        block.marker, title = _split_marker(content)
        self.block, self.in_props = block, True
        rest = _after_html(title)
        if rest is not None:
            self.paragraph, self.paragraph_start = [rest], lineno
        elif not self.open_fence(lineno, title):
            _logseq_refs(title, lineno, block.refs)

    def text(self, lineno: int, line: str, body: str) -> None:
        """A line inside a block (or before the first one): property, fence or paragraph text."""
        if self.block is None:
            self.block = _preamble(self.outline, lineno)
        self.block.end = lineno + 1
        if self.in_props and body and _read_property(
            body, lineno, self.block, self.outline, self.comma_properties
        ):
            self.flush()  # the rest of a line after an HTML block ends at a property
            return
        self.in_props = False
        rest = _after_html(body)
        if self.open_fence(lineno, body) or _DRAWER.match(body):
            self.flush()
        elif rest is not None:
            self.flush()
            self.paragraph, self.paragraph_start = [rest], lineno
        elif not self.paragraph:
            self.paragraph, self.paragraph_start = [line], lineno
        else:
            self.paragraph.append(line)

    def open_fence(self, lineno: int, body: str) -> bool:
        """Whether ``body`` opens a code fence. mldoc closes it at the next line that starts with
        ``` or ~~~ (either kind); without such a line there is no fence at all."""
        if not _is_fence(body):
            return False
        after = bisect.bisect_right(self.fences, lineno)
        if after == len(self.fences):
            return False
        self.fence_end = self.fences[after]
        return True

    def flush(self) -> None:
        """Scan the waiting paragraph as a whole, as mldoc does (emphasis may span its lines)."""
        if self.paragraph and self.block is not None:
            text = "\n".join(self.paragraph).rstrip()
            _logseq_refs(text, self.paragraph_start, self.block.refs)
        self.paragraph = []


def _preamble(outline: Outline, lineno: int) -> Block:
    block = Block(lineno, lineno + 1, 0, 0, -1, "preamble", "")
    outline.blocks.append(block)
    return block


def _after_html(text: str) -> str | None:
    """What follows the HTML a line starts with (mldoc reads it as a new paragraph), or None."""
    rest = None
    while (m := _BLOCK_HTML.match(text)) is not None:
        rest = text[m.end():]
        text = rest.lstrip(" \t")
    return rest


def _is_fence(body: str) -> bool:
    """Whether a line (without its indentation) may open or close an mldoc code fence."""
    return body.startswith(("```", "~~~"))


def _read_property(body: str, lineno: int, block: Block, outline: Outline,
                   comma_properties: frozenset[str]) -> bool:
    """Record ``key:: value`` on ``block`` (and on the page for the preamble); False if not one."""
    if "::" not in body:
        return False
    m = _PROPERTY_RE.match(body)
    if m is None:
        return False
    key = m.group("key").lower().replace("_", "-")
    value = m.group("value") or ""
    # Property lines before the first bullet are the page's own (Logseq's pre-block).
    page = block.kind == "preamble"
    (outline.page_properties if page else block.properties)[key] = value
    refs = outline.page_refs if page else block.refs
    if key in _NO_REF_PROPERTIES:
        return True
    if key in comma_properties:
        refs.extend(Ref(name, "property", lineno) for name in split_property_list(value))
    else:
        _property_refs(value, lineno, refs)
    return True


def _property_refs(value: str, lineno: int, out: list[Ref]) -> None:
    """The references of a property value (mldoc sees none in a "quoted" value)."""
    if not (value.startswith('"') and value.endswith('"')):
        _logseq_refs(value, lineno, out, "property")


def split_property_list(value: str) -> list[str]:
    """The page names of a comma-separated property value (``alias:: A, [[B c]], #d``)."""
    names = []
    for item in value.split(","):
        item = item.strip()
        if item.startswith("#"):
            item = item[1:]
        if item.startswith("[[") and item.endswith("]]"):
            item = item[2:-2]
        if item.strip():
            names.append(item.strip())
    return names


def _scan_wiki(lines: list[str]) -> Outline:
    builder = _Builder("wiki")
    outline = Outline("", builder.blocks, {}, [])
    start = _front_matter(lines, outline)
    current: Block | None = None
    fence = ""
    for lineno in range(start, len(lines)):
        raw = lines[lineno]
        line = raw[:-1] if raw.endswith("\r") else raw
        body = line.lstrip(" \t")
        if fence:
            if body.startswith(fence) and not body.strip(fence[0]).strip():
                fence = ""
            continue
        m = _WIKI_ITEM.match(line) if body[:1] in "-*+#0123456789" and body else None
        if m is not None:
            kind: Literal["bullet", "heading"] = "heading" if m.group("h") else "bullet"
            content = line[m.end():]
            level_indent = "" if kind == "heading" else m.group("indent")
            if kind == "heading":
                builder.stack.clear()
            current = builder.open(lineno, level_indent, kind, content.strip())
            fence = _wiki_fence(content.lstrip(" \t"))
            if not fence:
                _wiki_refs(content, lineno, current.refs)
            continue
        if current is None:
            current = _preamble(outline, lineno)
        current.end = lineno + 1
        fence = _wiki_fence(body)
        if not fence and body:
            _wiki_refs(line, lineno, current.refs)
    for block in builder.blocks:
        block.end = _trim_end(lines, block.line, block.end)
    return outline


def _wiki_fence(body: str) -> str:
    m = _FENCE_RE.match(body)
    if m is None or (m.group("fence")[0] == "`" and "`" in body[m.end():]):
        return ""
    return m.group("fence")


def _front_matter(lines: list[str], outline: Outline) -> int:
    """Read YAML front matter into the outline; return the first line after it (0 if none)."""
    if not lines or lines[0].rstrip("\r") != "---":
        return 0
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r") in ("---", "..."):
            break
    else:
        return 0
    source = "\n".join(line.rstrip("\r") for line in lines[1:end])
    data = _load_yaml(source, outline)
    outline.page_properties = data
    for key, value in data.items():
        for item in _yaml_strings(value):
            _wiki_refs(item, 1 + _find_line(lines, str(key), end), outline.page_refs, tags=False)
    return end + 1


def _load_yaml(source: str, outline: Outline) -> dict[str, Any]:
    import yaml  # lazy: only pages with front matter pay for it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(source, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        outline.warnings.append(f"front matter is not valid YAML: {str(exc).splitlines()[0]}")
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items()}


def _yaml_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _find_line(lines: list[str], key: str, end: int) -> int:
    for i in range(1, end):
        if lines[i].startswith(key + ":"):
            return i - 1
    return 0


def inline_refs(text: str, syntax: Syntax) -> list[Ref]:
    """The references of one line of text (a bullet about to be written), on line 0."""
    out: list[Ref] = []
    if syntax == "logseq":
        _logseq_refs(_after_marker(text), 0, out)
    else:
        _wiki_refs(text, 0, out)
    return out
