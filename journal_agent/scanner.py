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
* ``"wiki"`` — Obsidian and plain Markdown, read by `journal_agent.wiki`.

The scanner never changes text: `Outline.text` is the decoded file, and line numbers index
``text.split("\\n")`` so that a writer can insert lines byte-exactly.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

from .outline import COMMA_PROPERTIES as COMMA_PROPERTIES
from .outline import TASK_MARKERS as TASK_MARKERS
from .outline import Block as Block
from .outline import Builder, close_outline, line_count, preamble, trim_end
from .outline import Outline as Outline
from .outline import Ref as Ref
from .outline import RefKind as RefKind
from .outline import Syntax as Syntax
from .outline import decode as decode
from .wiki import scan_wiki, wiki_code_spans, wiki_label, wiki_refs

#: Built-in Logseq properties whose values are never references.
_NO_REF_PROPERTIES = frozenset({"id", "collapsed", "title", "filters", "public", "icon"})

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
_TOKEN = r"(?<![^ \t\n\r\f\\_^\[\]*~`=$#)}])"
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
_URL = (  # a host, then to white space, brackets balanced
    r"(?P<url>[A-Za-z0-9]+://[^ \t\n\r\f\[\]<>{}()/?#]+(?:[/?#](?:[^ \t\n\r\f()\[\]]"
    r"|\([^ \t\n\r\f()]*\)?|\[(?:[^ \t\n\r\f\[\]]|\[[^ \t\n\r\f\[\]]*\]?)*\]?)*)?)"
)
_MACRO = r"(?P<macro>\{\{(?P<brace>\{?)(?P<mname>[^ }(]+)(?P<margs>[^}\n]*)\}\}(?P=brace))"
# A link's label: text, code spans and escapes, [[page refs]] and [balanced] brackets. An image's
# "!" starts it only where a construct may start (see _TOKEN), and never inside emphasis.
_LABEL_TEXT = r"(?:\\.|`[^`\n]+`|[^\[\]\\`]|`(?![^`\n]+`)|\[\[[^\[\]]*\]\]|\[[^\[\]]*\])*"
_IMAGE = rf"(?:{_TOKEN}!)?"
_NESTED = r"(?P<nested>\[\[(?P<outer>[^\[\]]*\[\[(?P<inner>[^\[\]]+)\]\][^\[\]]*)\]\])"
# A page ref is "[[", the shortest run of characters on the line, then "]]": it may hold single
# brackets and even "[[" ("[[a]([[b]])" is the page "a]([[b").
_TAGREF = r"(?P<tagref>#\[\[(?!\]\])(?P<tname>[^\n]+?)\]\])"
_REF = r"(?P<ref>\[\[(?!\]\])(?P<name>[^\n]+?)\]\])"
_LABELED = (  # [label]([[X]]), [label]([[X]] "title"), [label](((uuid)))
    rf"(?P<labeled>{{image}}\[{_LABEL_TEXT}\]\((?:\[\[(?P<lname>[^\n]+?)\]\]"
    rf'|\(\((?P<luuid>{_UUID})\)\))(?:[ \t]+"[^"\n]+")?[ \t]*\))'
)
_MDLINK = (
    rf"(?P<mdlink>{{image}}\[(?P<mlabel>{_LABEL_TEXT})\]"
    r"\((?P<murl>(?:[^()\n]|\([^()\n]*\))*)\))"
)
_LINK_TITLE = re.compile(r'[ \t]+"[^"\n]*"$')
# A block ref hides whatever it holds; only a UUID is a reference.
_BLOCK_REF = r"(?P<bref>\(\((?P<bid>[^)]+)\)\))"
# Emphasis opens before a non-space character that does not start its delimiter again, and
# closes at its first delimiter that follows a non-space character, or that follows a space and
# is followed by the end of the text or another delimiter character; '_' emphasis also wants
# punctuation or space around it. A code span inside is opaque.
_NONSPACE = r"[^ \t\n\r\f]"  # mldoc's white space is ASCII: a no-break space is text
# (A backtick that starts a code span is never text on its own: mldoc does not backtrack.)
_EM_TEXT = r"(?:`[^`\n]+`|``.*?``|[^`]|`(?![^`\n]+`|`.*?``))+?"
_PUNCT = r" \t\n\r\f!-/:-@\[-`{-~"
_EM = (
    rf"(?P<em>(?P<emd>\*\*\*|\*\*|\*|~~|\^\^|==)(?={_NONSPACE})(?!(?P=emd))(?P<emt>{_EM_TEXT})"
    rf"(?:(?<={_NONSPACE})(?P=emd)|(?P=emd)(?=[*~^=]|\Z)))"
)
_UNDERSCORE_EM = (
    rf"(?<![^{_PUNCT}])(?P<uem>(?P<emu>___|__|_)(?={_NONSPACE})(?!(?P=emu))(?P<emv>{_EM_TEXT})"
    rf"(?:(?<={_NONSPACE})(?P=emu)|(?P=emu)(?=_|\Z)))(?![^{_PUNCT}])"
)
# A #tag runs to white space or one of !"#',:? and takes page refs whole ("#[[a b]]c" is one tag
# of the page "[[a b]]c", and it references "a b" too); trailing "." and ";" are not part of it.
_TAG = r"(?P<tag>#(?P<tbody>(?:\[\[[^\n]+?\]\]|[^ \t\n!\"#',:?])+))"
_TAG_LINK = re.compile(r"\[\[([^\n]+?)\]\]")
# A tag's trailing "." and ";" are punctuation when only punctuation follows up to white space.
_TAG_TRAIL = re.compile(r"[!\"#',.:;?]*(?:[ \t\n\r\f]|$)")
_LOGSEQ_PIECES = (  # (the characters it can start with, its pattern), in mldoc's order
    ("`", _CODE_SPAN),
    ("\\", _ESCAPE),
    ("<", _TOKEN + _HTML),
    ("$", _LATEX),
    ("", _TOKEN + _URL),
    ("{", _TOKEN + _MACRO),
    ("[", _NESTED),
    ("#", _TAG),
    ("[", _REF),
    ("![", _LABELED.replace("{image}", _IMAGE)),
    ("![", _MDLINK.replace("{image}", _IMAGE)),
    ("(", _TOKEN + _BLOCK_REF),
    ("*~^=", _EM),
    ("_", _UNDERSCORE_EM),
)
_LOGSEQ_INLINE = re.compile(
    # A cheap first test of where a construct may start; it halves the scanning time.
    rf"(?=[`\\$\[*~^=_!#]|{_TOKEN}[A-Za-z0-9(<{{])(?:"
    + "|".join(pattern for _, pattern in _LOGSEQ_PIECES)
    + ")"
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
    "|".join(
        [
            *(_CODE_SPAN, _ESCAPE, _NESTED, _TAGREF, _REF),
            *(_LABELED.replace("{image}", ""), _MDLINK.replace("{image}", ""), _EM, _UNDERSCORE_EM),
        ]
    )
)
# HTML at the start of a line is a block of its own: the rest of the line starts a new paragraph.
_BLOCK_HTML = re.compile(_HTML)


_PROPERTY_RE = re.compile(r"^[ \t]*(?P<key>[^\s:][^\s]*?)::(?:[ \t]+(?P<value>.*?))?[ \t]*$")


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


def _may_refer(text: str) -> bool:
    """Whether Logseq inline text may hold a reference: every one holds one of these (the test
    saves most of the scanning time of pages with little markup)."""
    return "[[" in text or "#" in text or "((" in text or "](" in text or "{{" in text


def _logseq_refs(
    text: str, lineno: int, out: list[Ref], kind: RefKind | None = None, col: int = 0
) -> None:
    """Append the references of Logseq inline text (a paragraph, a first line or a property
    value, as ``kind``) to ``out``; the text starts at column ``col`` of line ``lineno``."""
    if _may_refer(text):
        _inline_refs(text, lineno, out, kind, col)


def _inline_refs(text: str, lineno: int, out: list[Ref], kind: RefKind | None, col: int) -> None:
    """`_logseq_refs` once `_may_refer` holds (the hot path: one call per block title)."""
    lines = "\n" in text
    for m in _inline_matches(text):
        group, start = m.lastgroup, m.start()
        if lines and (nl := text.rfind("\n", 0, start)) >= 0:
            line, at = lineno + text.count("\n", 0, start), start - nl - 1
        else:
            line, at = lineno, col + start
        if group == "ref":
            out.append(Ref(m.group("name"), kind or "link", line, at, at + m.end() - start))
        elif group == "tag":
            body = m.group("tbody")
            if "[[" in body or body.endswith((".", ";")):
                _tag_refs(body, (line, at), out, kind, text, m.end())
            else:
                out.append(Ref(body, kind or "tag", line, at, at + 1 + len(body)))
        elif group in ("em", "uem") and kind is None:  # a property keeps its top-level refs only
            inner = "emt" if group == "em" else "emv"
            _emphasis_refs(m.group(inner), line, out, at + m.start(inner) - start)
        elif group == "macro" and kind == "property":  # mldoc skips macros in properties
            _logseq_refs(m.group()[2:-2], line, out, kind, at + 2)
        elif group == "macro" and m.group("mname") == "embed":
            _embed_refs(m.group("margs"), out, (line, at, at + m.end() - start))
        else:
            _link_ref(m, (line, at, at + m.end() - start), out, kind)


def _tag_refs(
    body: str, at: tuple[int, int], out: list[Ref], kind: RefKind | None, text: str, end: int
) -> None:
    """A #tag's page, as Logseq names it (the whole tag, unbracketed when it is all one
    ``[[X]]``), and each page ref inside it. The tag stands in ``text`` up to ``end``."""
    name = body
    if body.endswith((".", ";")) and _TAG_TRAIL.match(text, end):
        name = body.rstrip(".;")
    if not name:
        return
    line, start = at
    span = (line, start, start + 1 + len(name))
    whole = name[2:-2] if name.startswith("[[") and name.endswith("]]") else name
    if whole:
        out.append(Ref(whole, kind or "tag", *span))
    if "[[" in name:
        for m in _TAG_LINK.finditer(name):
            if m.group(1) != whole:
                out.append(Ref(m.group(1), kind or "link", *span))


def _link_ref(
    m: re.Match[str], span: tuple[int, int, int], out: list[Ref], kind: RefKind | None
) -> None:
    """The page or block that a [[link]], #[[tag]], [label]([[link]]) or ((ref)) points at."""
    group = m.lastgroup
    if group == "ref":
        out.append(Ref(m.group("name"), kind or "link", *span))
    elif group == "tagref":
        out.append(Ref(m.group("tname"), kind or "tag", *span))
    elif group == "labeled" and m.group("lname"):
        out.append(Ref(m.group("lname"), kind or "labeled", *span))
    elif group == "labeled":
        out.append(Ref(m.group("luuid").lower(), "block", *span))
    elif group == "nested":
        out.append(Ref(m.group("outer"), kind or "link", *span))
        line, col, _ = span
        inner = col + m.start("inner") - m.start()
        out.append(
            Ref(
                m.group("inner"), kind or "link", line, inner - 2, inner + 2 + len(m.group("inner"))
            )
        )
    elif group == "bref" and _UUID_RE.fullmatch(m.group("bid")):
        out.append(Ref(m.group("bid").lower(), "block", *span))
    elif group == "mdlink" and kind is None:  # a property value keeps its page refs only
        _markdown_link_ref(m, span, out, kind)


def _emphasis_refs(inner: str, lineno: int, out: list[Ref], col: int) -> None:
    """Inside **emphasis** mldoc still links pages (``#[[X]]`` becomes a plain link) but sees no
    #tag, ((ref)) or macro."""
    if "[[" not in inner and "((" not in inner and "](" not in inner:
        return  # every reference there holds one of them
    for m in _LOGSEQ_IN_EMPHASIS.finditer(inner):
        group, start = m.lastgroup, m.start()
        if (nl := inner.rfind("\n", 0, start)) >= 0:
            line, at = lineno + inner.count("\n", 0, start), start - nl - 1
        else:
            line, at = lineno, col + start
        if group in ("em", "uem"):
            sub = "emt" if group == "em" else "emv"
            _emphasis_refs(m.group(sub), line, out, at + m.start(sub) - start)
        elif group == "tagref":
            out.append(Ref(m.group("tname"), "link", line, at, at + m.end() - start))
        elif group in ("ref", "nested", "labeled", "mdlink"):
            _link_ref(m, (line, at, at + m.end() - start), out, None)


def _embed_refs(args: str, out: list[Ref], span: tuple[int, int, int]) -> None:
    """``{{embed [[X]]}}`` references page X and ``{{embed ((uuid))}}`` a block; Logseq takes any
    other argument for a page name too, as written."""
    args = args.lstrip(" \t")
    stripped = args.rstrip(" \t")
    if stripped.startswith("[[") and stripped.endswith("]]"):
        out.append(Ref(stripped[2:-2], "embed", *span))
    elif stripped.startswith("((") and _UUID_RE.fullmatch(stripped[2:-2]):
        out.append(Ref(stripped[2:-2].lower(), "block", *span))
    elif stripped and "," not in args:  # (mldoc splits arguments at commas its own way)
        out.append(Ref(args, "embed", *span))


def _markdown_link_ref(
    m: re.Match[str], span: tuple[int, int, int], out: list[Ref], kind: RefKind | None
) -> None:
    """What Logseq links for a Markdown link that is not ``[label]([[X]])``: the page named by
    its label when it points at a .md file, the page of a whole ``[[X]]`` target (``<[[X]]>``)."""
    url = m.group("murl").strip()
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1].strip()
    else:
        url = _LINK_TITLE.sub("", url)
    if "://" in url:
        return
    if len(url) > 3 and url.lower().endswith((".md", ".markdown")):
        if m.group("mlabel"):
            out.append(Ref(m.group("mlabel"), kind or "markdown", *span))
    elif url.startswith("[[") and url.endswith("]]") and len(url) > 4:
        out.append(Ref(url[2:-2], kind or "labeled", *span))


# ---------------------------------------------------------------------------------------------
# block structure

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


def _after_marker(content: str) -> str:
    """The first line without its task marker and priority, which are not references."""
    content = content.lstrip(" \t")
    m = _MARKER_RE.match(content)
    assert m is not None  # every part of the pattern is optional
    return content[m.end() :]


# ---------------------------------------------------------------------------------------------
# scanning


def scan(
    text: str,
    syntax: Syntax,
    *,
    comma_properties: frozenset[str] = COMMA_PROPERTIES,
    bom: bool = False,
) -> Outline:
    """Scan one page's decoded text into an `Outline`."""
    if syntax == "logseq":
        outline = _LogseqScan(text, comma_properties).run()
    else:
        outline = scan_wiki(text, line_count(text))
    first = text.find("\n")  # the file's line ending is the first line's
    outline.text = text
    outline.bom = bom
    outline.newline = "\r\n" if text.endswith("\r", 0, None if first < 0 else first) else "\n"
    outline.final_newline = text.endswith("\n")
    return outline


_DRAWER = re.compile(r"^:[A-Za-z][\w-]*:[ \t]*$")  # :LOGBOOK: ... :END: (no refs, ends a paragraph)


class _LogseqScan(Builder):
    """One pass over a Logseq page: whether the last block's properties may still follow, an open
    code fence, and the lines of the open paragraph, which mldoc reads as one inline text
    (emphasis and HTML may span its lines). Each block line is found with one regex search; only
    the lines between block lines are looked at one by one."""

    __slots__ = (
        "text",
        "tail",
        "comma_properties",
        "in_props",
        "fences",
        "fence_end",
        "resume",
        "paragraph",
        "paragraph_start",
        "paragraph_col",
    )

    def __init__(self, text: str, comma_properties: frozenset[str]) -> None:
        super().__init__(Outline("", [], {}, []))
        self.tail = line_count(text)  # where the open subtrees end, in the file's own lines
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
        self.paragraph_col = 0  # the column its first line starts at

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
            block = self.open(
                lineno,
                len(indent) + 1,
                indent,
                "heading" if hashes else "bullet",
                (rest if hashes else rest[1:]).strip(),
                marker,
            )  # after a '-'
            self.in_props = True
            if not title.startswith(("<", "```", "~~~")):
                if "[[" in title or "#" in title or "((" in title or "](" in title or "{{" in title:
                    _inline_refs(title, lineno, block.refs, None, m.start(5) - m.start(1))
            elif self.title(title, lineno, m.start(5) - m.start(1)):
                pos, lineno = self.resume, self.fence_end + 1  # the title opens a code fence
                continue
            pos, lineno = m.end() + 1, lineno + 1
        return self.finish(lineno)

    def title(self, title: str, lineno: int, col: int) -> bool:
        """A first line (at column ``col``) that may start with HTML or a code fence: False
        unless a fence opens."""
        if title.startswith("<") and (rest := _after_html(title)) is not None:
            self.paragraph, self.paragraph_start = [rest], lineno
            self.paragraph_col = col + len(title) - len(rest)
        elif title.startswith(("```", "~~~")) and self.open_fence(lineno):
            return True
        else:
            _logseq_refs(title, lineno, self.blocks[-1].refs, None, col)
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
            preamble(self.outline, lineno)
        block, body = self.blocks[-1], line.lstrip(" \t")
        if (
            self.in_props
            and body
            and _read_property(
                body, (lineno, len(line) - len(body)), block, self.outline, self.comma_properties
            )
        ):
            if self.paragraph:  # the rest of a line after an HTML block ends at a property
                self.flush()
            return
        self.in_props = False
        if (
            body.startswith(("```", "~~~"))
            and self.open_fence(lineno)
            or body.startswith(":")
            and _DRAWER.match(body)
        ):
            self.flush()
        elif body.startswith("<") and (rest := _after_html(body)) is not None:
            self.flush()
            self.paragraph, self.paragraph_start = [rest], lineno
            self.paragraph_col = len(line) - len(rest)
        elif not self.paragraph:
            self.paragraph, self.paragraph_start, self.paragraph_col = [line], lineno, 0
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
            _logseq_refs(text, self.paragraph_start, self.blocks[-1].refs, None, self.paragraph_col)
        self.paragraph = []

    def finish(self, nlines: int) -> Outline:
        """Scan the last paragraph; end the last block, and every open subtree at ``tail``."""
        self.flush()
        last = self.blocks[-1]  # every page has a line, so a block
        last.end = trim_end(nlines, last.line, nlines - self.text.endswith("\n"))
        return close_outline(self.outline, self, self.tail)


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
        rest = text[m.end() :]
        text = rest.lstrip(" \t")
    return rest


def _read_property(
    body: str,
    at: tuple[int, int],
    block: Block,
    outline: Outline,
    comma_properties: frozenset[str],
) -> bool:
    """Record ``key:: value`` (``body``, at line and column ``at``) on ``block`` (and on the page
    for the preamble); False if it is not one."""
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
    lineno, col = at[0], at[1] + m.start("value")
    if key in comma_properties:
        refs.extend(
            Ref(name, "property", lineno, col + start, col + end)
            for name, start, end in property_items(value)
        )
    else:
        _property_refs(value, lineno, refs, col)
    return True


def _property_refs(value: str, lineno: int, out: list[Ref], col: int) -> None:
    """The references of a property value (mldoc sees none in a "quoted" value)."""
    if not (value.startswith('"') and value.endswith('"')):
        _logseq_refs(value, lineno, out, "property", col)


def property_items(value: str) -> list[tuple[str, int, int]]:
    """The page names of a comma-separated property value (``alias:: A, [[B c]], #d``), each
    with the span of its item."""
    items = []
    start = 0
    for item in value.split(","):
        end = start + len(item)
        name = item.strip()
        at = start + len(item) - len(item.lstrip())
        if name.startswith("#"):
            name = name[1:]
        if name.startswith("[[") and name.endswith("]]"):
            name = name[2:-2]
        if name.strip():
            items.append((name.strip(), at, at + len(item.strip())))
        start = end + 1
    return items


def split_property_list(value: str) -> list[str]:
    """The page names of a comma-separated property value (``alias:: A, [[B c]], #d``)."""
    return [name for name, _, _ in property_items(value)]


_LEADING_LABEL = re.compile(rf"!?\[(?P<label>{_LABEL_TEXT})\]\(")


def ref_label(construct: str, syntax: Syntax) -> str:
    """What a reader sees of a reference construct (a ref's span): the label of
    ``[label]([[X]])``, the name of ``[[X]]``, ``#X``, ``#[[X]]`` and ``{{embed [[X]]}}``; a
    ``#tag`` glued to more text keeps that text. For rendering a link, or writing it as text."""
    if syntax == "wiki":
        return wiki_label(construct)
    if construct.startswith("{{"):
        args = construct.strip("{}").removeprefix("embed").strip()
        return args[2:-2] if args.startswith("[[") and args.endswith("]]") else args
    if construct.startswith("#"):
        body = construct[1:]
        return body[2:-2] if body.startswith("[[") and body.endswith("]]") else body
    if construct.startswith("[[") and construct.endswith("]]"):
        return construct[2:-2]
    m = _LEADING_LABEL.match(construct)
    return m.group("label") if m else construct


def code_spans(text: str, syntax: Syntax) -> list[tuple[int, int]]:
    """The inline code spans of one line of text (a bullet), as the scanner reads them: what is
    inside them is never a reference."""
    if syntax == "wiki":
        return wiki_code_spans(text)
    if "`" not in text:
        return []
    title = _after_marker(text)
    at = len(text) - len(title)
    return [(at + m.start(), at + m.end()) for m in _inline_matches(title) if m.lastgroup == "code"]


def inline_refs(text: str, syntax: Syntax) -> list[Ref]:
    """The references of one line of text (a bullet about to be written), on line 0, with
    spans that index ``text``."""
    out: list[Ref] = []
    if syntax == "logseq":
        title = _after_marker(text)
        _logseq_refs(title, 0, out, None, len(text) - len(title))
    else:
        wiki_refs(text, 0, out)
    return out
