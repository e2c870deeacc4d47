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
* ``"wiki"`` — Obsidian and plain Markdown: list items (``-``, ``*``, ``+``, ``1.``) and ATX
  headings are blocks; YAML front matter holds the page properties. References: ``[[X]]``,
  ``[[X|label]]``, ``[[X#Heading]]``, ``![[X]]``, Markdown links to ``X.md``; ``#tag`` is recorded
  as a tag (Obsidian does not count it as a backlink).

The scanner never changes text: `Outline.text` is the decoded file, and line numbers index
``text.split("\\n")`` so that a writer can insert lines byte-exactly.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
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
# body and each property value with one inline grammar. At each position it takes the first of
# the constructs below (_LOGSEQ_PIECES, in order) that matches there; a construct that yields no
# reference (code, a URL, ...) still hides the text it spans.
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
_CODE_SPAN = r"(?P<code>`[^`\n]+`|``.*?``)"
_ESCAPE = r"(?P<esc>\\.)"
_LATEX = r"(?P<latex>\$\$[^$\n]*\$\$|\$[^ $\n](?:[^$\n]*[^$\n (\[{])?\$)"
_URL = (  # to white space, brackets balanced
    r"(?P<url>[A-Za-z0-9]+://[^\s\[\]<>{}()/?#]*"
    r"(?:[/?#](?:[^\s()\[\]]|\([^\s()]*\)?|\[(?:[^\s\[\]]|\[[^\s\[\]]*\]?)*\]?)*)?)"
)
_MACRO = r"(?P<macro>\{\{(?P<mname>[^ }(]+)(?P<margs>[^}\n]*)\}\})"
_LABEL = r"!?\[(?:[^\[\]]|\[\[[^\[\]]*\]\]|\[[^\[\]]*\])*\]"
_NESTED = r"(?P<nested>\[\[(?P<outer>[^\[\]]*\[\[(?P<inner>[^\[\]]+)\]\][^\[\]]*)\]\])"
_TAGREF = r"(?P<tagref>#\[\[(?P<tname>(?:[^\[\]]|\[(?!\[)|\](?!\]))+?)\]\])"
_REF = r"(?P<ref>\[\[(?P<name>(?:[^\[\]]|\[(?!\[)|\](?!\]))+?)\]\])"
_LABELED = rf"(?P<labeled>{_LABEL}\((?:\[\[(?P<lname>[^\[\]]+?)\]\]|\(\((?P<luuid>{_UUID})\)\))\))"
_MDLINK = rf"(?P<mdlink>{_LABEL}\((?:[^()\n]|\([^()\n]*\))*\))"
_BLOCK_REF = rf"(?P<bref>\(\((?P<uuid>{_UUID})\)\))"
# Emphasis closes at its first delimiter that follows a non-space character, or that follows a
# space and is followed by the end of the text or another delimiter character; '_' emphasis also
# wants punctuation or space around it. A code span inside is opaque.
_EM_TEXT = r"(?:`[^`\n]+`|[\s\S])+?"
_PUNCT = r"\s!-/:-@\[-`{-~"
_EM = (
    rf"(?P<em>(?P<emd>\*\*\*|\*\*|\*|~~|\^\^|==)(?=\S)(?P<emt>{_EM_TEXT})"
    r"(?:(?<=\S)(?P=emd)|(?P=emd)(?=[*~^=]|\Z)))"
)
_UNDERSCORE_EM = (
    rf"(?<![^{_PUNCT}])(?P<uem>(?P<emu>___|__|_)(?=\S)(?P<emv>{_EM_TEXT})"
    rf"(?:(?<=\S)(?P=emu)|(?P=emu)(?=_|\Z)))(?![^{_PUNCT}])"
)
_TAG = r"(?P<tag>#(?P<tbody>(?:[^ \t\n!\"#',:?\[]|\[(?!\[))+))"
_LOGSEQ_PIECES = (  # (the characters it can start with, its pattern), in mldoc's order
    ("`", _CODE_SPAN), ("\\", _ESCAPE), ("<", _TOKEN + _HTML), ("$", _LATEX), ("", _TOKEN + _URL),
    ("{", _TOKEN + _MACRO), ("[", _NESTED), ("#", _TAGREF), ("[", _REF), ("![", _LABELED),
    ("![", _MDLINK), ("(", _TOKEN + _BLOCK_REF), ("*~^=", _EM), ("_", _UNDERSCORE_EM), ("#", _TAG),
)
_LOGSEQ_INLINE = re.compile(
    # A cheap first test of where a construct may start; it halves the scanning time.
    rf"(?=[`\\$\[*~^=_!#]|{_TOKEN}[A-Za-z0-9(<{{])(?:"
    + "|".join(pattern for _, pattern in _LOGSEQ_PIECES) + ")"
)
# Without "://" in the text no URL starts (the only construct that starts with a letter or a
# digit), so a construct can only start where _INLINE_START matches, and there only those that
# start with that character (_LOGSEQ_AT). Every alternative of _INLINE_START starts with a literal,
# so `re` finds those places with a quick scan in C; trying _LOGSEQ_INLINE at every position
# instead is many times slower.
_INLINE_START = re.compile(r"`|\\|<|\$|\{\{|\[|#|!\[|\(\(|\*|~~|\^\^|==|_")
_LOGSEQ_AT = {
    char: re.compile("|".join(pattern for chars, pattern in _LOGSEQ_PIECES if char in chars))
    for char in "`\\<${[#!(*~^=_"
}
_LOGSEQ_IN_EMPHASIS = re.compile(  # all mldoc sees inside emphasis
    "|".join([_CODE_SPAN, _ESCAPE, _NESTED, _TAGREF, _REF, _LABELED, _MDLINK, _EM, _UNDERSCORE_EM])
)
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

_PROPERTY_RE = re.compile(r"^[ \t]*(?P<key>[^\s:][^\s]*?)::(?:[ \t]+(?P<value>.*?))?[ \t]*$")
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _inline_matches(text: str) -> Iterable[re.Match[str]]:
    """What ``_LOGSEQ_INLINE.finditer(text)`` yields, found faster (see `_INLINE_START`)."""
    if "://" in text:
        return _LOGSEQ_INLINE.finditer(text)
    matches = []
    pos = 0
    while (start := _INLINE_START.search(text, pos)) is not None:
        pos = start.start()
        m = _LOGSEQ_AT[text[pos]].match(text, pos)
        if m is None:
            pos += 1
        else:
            matches.append(m)
            pos = m.end()
    return matches


def _logseq_refs(text: str, lineno: int, out: list[Ref], kind: RefKind | None = None) -> None:
    """Append the references of Logseq inline text (a paragraph, a first line or a property
    value, as ``kind``) to ``out``."""
    if "[[" not in text and "#" not in text and "((" not in text:
        return  # every reference holds one of them
    for m in _inline_matches(text):
        group, line = m.lastgroup, lineno + text.count("\n", 0, m.start())
        if group == "ref":
            out.append(Ref(m.group("name"), kind or "link", line))
        elif group == "tag":
            name = m.group("tbody").rstrip(".;")
            if name:
                out.append(Ref(name, kind or "tag", line))
        elif group in ("em", "uem") and kind is None:  # a property keeps its top-level refs only
            _emphasis_refs(m.group("emt" if group == "em" else "emv"), line, out)
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
    if "[[" not in inner and "((" not in inner:
        return  # every reference there holds one of them
    for m in _LOGSEQ_IN_EMPHASIS.finditer(inner):
        group, line = m.lastgroup, lineno + inner.count("\n", 0, m.start())
        if group in ("em", "uem"):
            _emphasis_refs(m.group("emt" if group == "em" else "emv"), line, out)
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

_FENCE_RE = re.compile(r"^(?P<fence>`{3,}|~{3,})")
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)  # mldoc: may open or close a code fence
# mldoc: a block line is a '-' bullet, or a line of '#'s then white space (a heading block), at
# any indentation; a heading's '#'s (on a bullet), a task marker and a priority may follow.
_MARKER = (
    r"(?:#+[ \t]+)?"  # "- ## text": a bullet that is also a heading
    "(?:(?P<m>" + "|".join(sorted(TASK_MARKERS, key=len, reverse=True)) + ") +)?"
    r"(?:\[#[!-\\^-~]\] *)?"  # a priority: one ASCII character, [#A] by convention
)
_MARKER_RE = re.compile(_MARKER)
_BLOCK_LINE = (
    r"(?P<indent>[ \t]*)(?P<text>(?:-|(?P<h>#+))(?=[ \t]|$)[ \t]*" + _MARKER + r"(?P<title>.*))"
)
_LOGSEQ_ITEM = re.compile(_BLOCK_LINE, re.M)  # the line at the position is a block line
_NEXT_LOGSEQ_ITEM = re.compile("\n" + _BLOCK_LINE, re.M)  # the next one ("\n" is quick to find)
_WIKI_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|(?P<h>#{1,6})(?:[ \t]|$))"
)


class _Builder:
    """Turns block lines into blocks with parents (the stack of open levels). A block's subtree
    ends where the next block at its level or above starts."""

    __slots__ = ("outline", "blocks", "stack")

    def __init__(self, outline: Outline) -> None:
        self.outline = outline
        self.blocks = outline.blocks
        self.stack: list[int] = []  # indexes of open blocks, shallowest first

    def open(self, lineno: int, level: int, indent: str, kind: Literal["bullet", "heading"],
             text: str, marker: str | None) -> Block:
        blocks, stack = self.blocks, self.stack
        while stack and blocks[stack[-1]].level >= level:
            blocks[stack.pop()].subtree_end = lineno
        depth = len(stack)
        if depth == 1 and self.outline.indent_unit is None:
            self.outline.indent_unit = indent
        block = Block(lineno, lineno + 1, level, depth, stack[-1] if stack else -1, kind, text,
                      marker, {}, [])  # (literals are quicker than the default factories)
        stack.append(len(blocks))
        blocks.append(block)
        return block

    def close(self, lineno: int) -> None:
        """End every open subtree at ``lineno``."""
        for i in self.stack:
            self.blocks[i].subtree_end = lineno
        self.stack.clear()


def _preamble(outline: Outline, lineno: int) -> Block:
    block = Block(lineno, lineno + 1, 0, 0, -1, "preamble", "")
    outline.blocks.append(block)
    return block


def _after_marker(content: str) -> str:
    """The first line without its task marker and priority, which are not references."""
    content = content.lstrip(" \t")
    m = _MARKER_RE.match(content)
    assert m is not None  # every part of the pattern is optional
    return content[m.end():]


def _tail(text: str) -> int:
    """The number of lines, without the empty one that a final newline leaves."""
    return text.count("\n") + (not text.endswith("\n"))


def _trim_end(end: int, start: int, tail: int) -> int:
    """Exclude the trailing empty line that a final newline leaves after the last block."""
    return end - 1 if end > tail and end > start + 1 else end


def _close_outline(outline: Outline, builder: _Builder, tail: int) -> Outline:
    """End the page's leading text where it ends, and every open subtree at ``tail``."""
    if outline.blocks and outline.blocks[0].kind == "preamble":
        outline.blocks[0].subtree_end = outline.blocks[0].end
    builder.close(tail)
    return outline


# ---------------------------------------------------------------------------------------------
# scanning


def scan(text: str, syntax: Syntax, *, comma_properties: frozenset[str] = COMMA_PROPERTIES,
         bom: bool = False) -> Outline:
    """Scan one page's decoded text into an `Outline`."""
    if syntax == "logseq":
        outline = _LogseqScan(text, comma_properties).run()
    else:
        outline = _scan_wiki(text, _tail(text))
    first = text.find("\n")  # the file's line ending is the first line's
    outline.text = text
    outline.bom = bom
    outline.newline = "\r\n" if text.endswith("\r", 0, None if first < 0 else first) else "\n"
    outline.final_newline = text.endswith("\n")
    return outline


_DRAWER = re.compile(r"^:[A-Za-z][\w-]*:[ \t]*$")  # :LOGBOOK: ... :END: (no refs, ends a paragraph)


class _LogseqScan(_Builder):
    """One pass over a Logseq page: whether the last block's properties may still follow, an open
    code fence, and the lines of the open paragraph, which mldoc reads as one inline text
    (emphasis and HTML may span its lines). Each block line is found with one regex search; only
    the lines between block lines are looked at one by one."""

    __slots__ = ("text", "tail", "comma_properties", "in_props", "fences", "fence_end", "resume",
                 "paragraph", "paragraph_start")

    def __init__(self, text: str, comma_properties: frozenset[str]) -> None:
        super().__init__(Outline("", [], {}, []))
        self.tail = _tail(text)  # where the open subtrees end, in the file's own lines
        if "\r" in text:  # mldoc reads "\r\n" as one line break; line numbers stay
            text = "\n".join(line.removesuffix("\r") for line in text.split("\n"))
        self.text = text
        self.comma_properties = comma_properties
        self.in_props = True
        self.fences: tuple[list[int], list[int]] | None = None  # see `open_fence`
        self.fence_end = -1  # the closing line of the open code fence
        self.resume = 0  # where the line after it starts
        self.paragraph: list[str] = []  # lines of the body text not yet scanned
        self.paragraph_start = 0

    def run(self) -> Outline:
        """Take every line of the page: block lines here, the lines between them in `body`."""
        text, blocks, match = self.text, self.blocks, _LOGSEQ_ITEM.match
        pos, lineno, size = 0, 0, len(text)  # pos: where line number lineno starts
        while pos <= size:
            m = match(text, pos)
            if m is None:
                if pos == size and blocks:  # the empty line after a final newline
                    return self.finish(lineno + 1)  # changes nothing but the line count
                m = _NEXT_LOGSEQ_ITEM.search(text, pos)
                lineno = self.body(text[pos : size if m is None else m.start()], lineno)
                if m is None:
                    break
                if lineno <= self.fence_end:  # the block line stands in a code fence
                    pos, lineno = self.resume, self.fence_end + 1
                    continue
            if self.paragraph:
                self.flush()
            if blocks:
                blocks[-1].end = lineno
            indent, rest, hashes, marker, title = m.groups()
            block = self.open(lineno, len(indent) + 1, indent, "heading" if hashes else "bullet",
                              (rest if hashes else rest[1:]).strip(), marker)  # after a '-'
            self.in_props = True
            if not title.startswith(("<", "```", "~~~")):
                if "[[" in title or "#" in title or "((" in title:  # see `_logseq_refs`
                    _logseq_refs(title, lineno, block.refs)
            elif self.title(title, lineno):
                pos, lineno = self.resume, self.fence_end + 1  # the title opens a code fence
                continue
            pos, lineno = m.end() + 1, lineno + 1
        return self.finish(lineno)

    def title(self, title: str, lineno: int) -> bool:
        """A first line that may start with HTML or a code fence: False unless a fence opens."""
        if title.startswith("<") and (rest := _after_html(title)) is not None:
            self.paragraph, self.paragraph_start = [rest], lineno
        elif title.startswith(("```", "~~~")) and self.open_fence(lineno):
            return True
        else:
            _logseq_refs(title, lineno, self.blocks[-1].refs)
        return False

    def body(self, text: str, lineno: int) -> int:
        """Lines that are not block lines (a code fence's are the block's text only); return the
        number of the line after them."""
        lines = text.split("\n")
        for i, line in enumerate(lines, lineno):
            if i > self.fence_end:
                self.text_line(i, line)
        return lineno + len(lines)

    def text_line(self, lineno: int, line: str) -> None:
        """A line inside a block (or before the first one): property, fence or paragraph text."""
        if not self.blocks:
            _preamble(self.outline, lineno)
        block, body = self.blocks[-1], line.lstrip(" \t")
        if self.in_props and body and _read_property(
            body, lineno, block, self.outline, self.comma_properties
        ):
            if self.paragraph:  # the rest of a line after an HTML block ends at a property
                self.flush()
            return
        self.in_props = False
        if (body.startswith(("```", "~~~")) and self.open_fence(lineno)
                or body.startswith(":") and _DRAWER.match(body)):
            self.flush()
        elif body.startswith("<") and (rest := _after_html(body)) is not None:
            self.flush()
            self.paragraph, self.paragraph_start = [rest], lineno
        elif not self.paragraph:
            self.paragraph, self.paragraph_start = [line], lineno
        else:
            self.paragraph.append(line)

    def open_fence(self, lineno: int) -> bool:
        """Whether a fence line opens a code fence. mldoc closes it at the next line that starts
        with ``` or ~~~ (either kind); without such a line there is no fence at all."""
        if self.fences is None:
            self.fences = _fence_lines(self.text)
        lines, after_lines = self.fences
        after = bisect.bisect_right(lines, lineno)
        if after == len(lines):
            return False
        self.fence_end, self.resume = lines[after], after_lines[after]
        return True

    def flush(self) -> None:
        """Scan the waiting paragraph as a whole, as mldoc does (emphasis may span its lines)."""
        if self.paragraph:
            text = "\n".join(self.paragraph).rstrip()
            _logseq_refs(text, self.paragraph_start, self.blocks[-1].refs)
        self.paragraph = []

    def finish(self, nlines: int) -> Outline:
        """Scan the last paragraph; end the last block, and every open subtree at ``tail``."""
        self.flush()
        last = self.blocks[-1]  # every page has a line, so a block
        last.end = _trim_end(nlines, last.line, nlines - self.text.endswith("\n"))
        return _close_outline(self.outline, self, self.tail)


def _fence_lines(text: str) -> tuple[list[int], list[int]]:
    """The lines that may open or close a code fence, and where the line after each starts."""
    lines: list[int] = []
    after: list[int] = []
    lineno, pos = 0, 0
    for m in _FENCE_LINE.finditer(text):
        lineno, pos = lineno + text.count("\n", pos, m.start()), m.start()
        end = text.find("\n", m.end())
        lines.append(lineno)
        after.append(len(text) + 1 if end < 0 else end + 1)
    return lines, after


def _after_html(text: str) -> str | None:
    """What follows the HTML a line starts with (mldoc reads it as a new paragraph), or None."""
    rest = None
    while (m := _BLOCK_HTML.match(text)) is not None:
        rest = text[m.end():]
        text = rest.lstrip(" \t")
    return rest


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


def _scan_wiki(text: str, tail: int) -> Outline:
    """Blocks and references of an Obsidian / Markdown page; open subtrees end at ``tail``."""
    lines = text.split("\n")
    outline = Outline("", [], {}, [])
    builder = _Builder(outline)
    current: Block | None = None
    fence = ""
    for lineno in range(_front_matter(lines, outline), len(lines)):
        line = lines[lineno].removesuffix("\r")
        body = line.lstrip(" \t")
        if fence:
            if body.startswith(fence) and not body.strip(fence[0]).strip():
                fence = ""
            continue
        m = _WIKI_ITEM.match(line) if body[:1] in "-*+#0123456789" and body else None
        if m is not None:
            current = _wiki_item(builder, lineno, line, m)
            content = line[m.end():]
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
    for block in outline.blocks:
        block.end = _trim_end(block.end, block.line, tail)
    return _close_outline(outline, builder, tail)


def _wiki_item(builder: _Builder, lineno: int, line: str, m: re.Match[str]) -> Block:
    """A list item or a heading; a heading starts a new tree. Markdown renderers expand a tab
    to 4 columns (mldoc counts every tab or space as one level)."""
    content = line[m.end():].strip()
    if m.group("h"):
        builder.close(lineno)
        return builder.open(lineno, 1, "", "heading", content, None)
    indent = m.group("indent")
    return builder.open(lineno, len(indent.expandtabs(4)) + 1, indent, "bullet", content, None)


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
