"""The wiki scanner: Obsidian and plain-Markdown pages → an `Outline`.

List items (``-``, ``*``, ``+``, ``1.``) and ATX headings are blocks; YAML front matter holds the
page properties. References: ``[[X]]``, ``[[X|label]]``, ``[[X#Heading]]``, ``![[X]]``, Markdown
links to ``X.md`` or ``X`` (not to an attachment or a URL), links in front-matter values;
``#tag`` is recorded as a tag (Obsidian does not count it as a backlink).
Code (inline, fenced, indented), math (``$…$``, ``$$…$$``) and comments (``%%…%%``,
``<!--…-->``), over lines too, never yield references.
"""

from __future__ import annotations

import re

from .outline import Block, Builder, Outline, Ref, close_outline, preamble, trim_end
from .patterns import regex
from .records import NamedTuple

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

    from .outline import RefKind

# Obsidian and plain Markdown.
# A Markdown link, by CommonMark's grammar: a destination in <...> (spaces allowed), or one
# without spaces whose parentheses are escaped or balanced (one level deep here), then an
# optional title in "...", '...' or (...); backslash escapes anywhere.
_MD_DEST = r"(?!<)(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))+"
_MD_TITLE = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))"""
_MD_LINK = (
    r"(?P<mdlink>(?P<mbang>!?)\[(?:\\.|[^\[\]\\]|\[(?:\\.|[^\[\]\\])*\])*\]\([ \t]*"
    rf"(?:<(?P<mdest_a>(?:[^<>\n\\]|\\.)*)>|(?P<mdest>{_MD_DEST}))(?:[ \t]+{_MD_TITLE})?[ \t]*\))"
)
_CODE = r"(?P<code>(?P<bt>`+)(?!`).*?(?<!`)(?P=bt)(?!`))"
_WIKI_INLINE = regex(
    "|".join(
        [
            _CODE,
            r"(?P<esc>\\.)",
            r"(?P<comment>%%.*?%%|<!--.*?-->)",
            # math: $$...$$, and $...$ with no space inside its dollars, nor a digit after it
            # (so "$5 and $10" is text)
            r"(?P<math>\$\$.+?\$\$|\$(?=[^\s$])(?:\\.|[^\\$])+?(?<=\S)\$(?!\d))",
            r"(?P<open>%%|<!--|\$\$)",  # a comment or math that does not close on its line
            r"(?P<url>\b[A-Za-z][A-Za-z0-9+.\-]{1,30}://[^\s<>\[\]()]*)",
            r"(?P<wiki>(?P<bang>!?)\[\[(?P<wtarget>[^\[\]|#^]*)(?P<wsub>[#^][^\[\]|]*)?"
            r"(?:\|[^\[\]]*)?\]\])",
            _MD_LINK,
            r"(?P<tag>(?<![\w#&])#(?P<tbody>[^\s!-,.:-@\[-^`{-~]*[^\W\d][^\s!-,.:-@\[-^`{-~]*))",
        ]
    )
)
_SCHEME_RE = regex(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_ESCAPED = regex(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation
#: Files Obsidian opens as no note ("Accepted file formats", and its canvases and bases): a
#: Markdown link to one links no note. Any other name resolves as ``[[name]]`` would.
_ATTACHMENT = regex(
    r"\.(?:avif|bmp|gif|jpe?g|png|svg|webp|flac|m4a|mp3|ogg|wav|webm|3gp|mkv|mov|mp4|ogv|pdf"
    r"|canvas|base)$",
    re.IGNORECASE,
)
_FENCE_RE = regex(r"^(?P<fence>`{3,}|~{3,})")
_QUOTE = regex(r"(?:>[ \t]*)+")  # a block quote's markers
_WIKI_ITEM = regex(
    r"^(?P<indent>[ \t]*)(?:(?P<marker>[-*+]|\d{1,9}[.)])(?:[ \t]|$)|(?P<h>#{1,6})(?:[ \t]|$))"
)


def wiki_refs(line: str, lineno: int, out: list[Ref], tags: bool = True, col: int = 0) -> None:
    """Append the references of one line of Obsidian / plain-Markdown text (starting at column
    ``col`` of line ``lineno``) to ``out``. A comment or ``$$`` not closed on the line is text."""
    pos = 0
    while (opened := _line_refs(line, lineno, out, tags, col, pos)) is not None:
        pos = opened + len(_opener(line, opened))


def wiki_opens_comment(line: str) -> bool:
    """Whether one line of text opens a ``%%`` comment it does not close (outside code): on a
    page, that comment would hide everything up to the next ``%%``, list items and all."""
    pos = 0
    while (at := _line_refs(line, 0, [], False, 0, pos)) is not None:
        if line.startswith("%%", at):
            return True
        pos = at + len(_opener(line, at))
    return False


def _line_refs(
    line: str, lineno: int, out: list[Ref], tags: bool, col: int, pos: int
) -> int | None:
    """`wiki_refs` from position ``pos`` of the line, up to a comment that does not close on it:
    where that starts (None if there is none)."""
    for m in _WIKI_INLINE.finditer(line, pos):
        group = m.lastgroup
        if group == "wiki":
            # in a table the label's | is written \| ("Advanced formatting syntax": tables)
            target = m.group("wtarget").strip().removesuffix("\\")
            if target:
                kind: RefKind = "embed" if m.group("bang") else "link"
                out.append(Ref(_strip_md(target), kind, lineno, col + m.start(), col + m.end()))
        elif group == "mdlink":
            dest = m.group("mdest_a") or m.group("mdest") or ""
            target = _markdown_link_target(dest)
            if target:
                out.append(Ref(target, "markdown", lineno, col + m.start(), col + m.end()))
        elif group == "tag" and tags:
            out.append(Ref(m.group("tbody"), "tag", lineno, col + m.start(), col + m.end()))
        elif group == "open":
            return m.start()
    return None


_WIKI_LABEL = regex(
    r"!?\[\[(?P<target>[^\[\]|#^]*)(?:[#^][^\[\]|]*)?(?:\|(?P<label>[^\[\]]*))?\]\]"
    r"|!?\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]\("
)


def wiki_label(construct: str) -> str:
    """What a reader sees of a wiki reference construct: the label of ``[[X|label]]`` and
    ``[text](X.md)``, else the note's name (``[[X#Heading]]`` shows X); a #tag's name."""
    if construct.startswith("#"):
        return construct[1:]
    m = _WIKI_LABEL.match(construct)
    if m is None:
        return construct
    if m.group("text") is not None:
        return m.group("text")
    return m.group("label") or m.group("target").strip()


def wiki_code_spans(line: str) -> list[tuple[int, int]]:
    """The inline code spans of one line of Obsidian / plain-Markdown text."""
    if "`" not in line:
        return []
    return [m.span() for m in _WIKI_INLINE.finditer(line) if m.lastgroup == "code"]


def _strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


def _markdown_link_target(dest: str) -> str | None:
    """The note a Markdown link ``[t](dest)`` points at: a local path, URL-encoded, with or
    without ``.md`` (Obsidian resolves ``[t](Note)`` as ``[[Note]]``) and without its
    ``#heading``; none for a URL (``scheme:``) or an attachment (`_ATTACHMENT`)."""
    dest = _ESCAPED.sub(r"\1", dest)
    if _SCHEME_RE.match(dest):
        return None
    path = dest.split("#", 1)[0]
    if "%" in path:  # `unquote` changes nothing else: its module (and `ipaddress`) only then
        from urllib.parse import unquote

        path = unquote(path)
    while path.startswith("./"):
        path = path[2:]
    if path.lower().endswith(".md"):
        return path[:-3] or None
    if _ATTACHMENT.search(path):
        return None
    return path or None


class _Segment(NamedTuple):
    """A piece of one line that may hold references (not code), and where it stands."""

    line: int
    col: int  # where the text starts in its line
    text: str
    block: Block
    indent: int  # the line's indentation, in columns (a tab to the next multiple of 4)
    container: int  # the content column of the list item the text is in (0: none)


def scan_wiki(text: str, tail: int) -> Outline:
    """Blocks and references of an Obsidian / Markdown page; open subtrees end at ``tail``.
    The lines are read first (blocks, code, and the pieces of text that may hold references),
    then the references, since a comment may run over many lines (`_segment_refs`)."""
    lines = text.split("\n")
    outline = Outline("", [], {}, [])
    scan = _WikiLines(outline)
    for lineno in range(_front_matter(lines, outline), len(lines)):
        scan.line(lineno, lines[lineno].removesuffix("\r"))
    if not scan.fence:
        outline.open_fence = -1
    _segment_refs(scan.segments)
    for block in outline.blocks:
        block.end = trim_end(block.end, block.line, tail)
    return close_outline(outline, scan.builder, tail)


class _WikiLines:
    """The line-by-line pass of `scan_wiki`: blocks, fences, and the text segments."""

    def __init__(self, outline: Outline) -> None:
        self.outline = outline
        self.builder = Builder(outline)
        self.current: Block | None = None
        self.fence = ""
        self.fence_indent = 0  # a fence inside a list item ends with the item (CommonMark)
        self.fence_quote = 0  # how deep in block quotes the open fence stands
        self.items: list[int] = []  # the content columns of the open list items
        self.code = -1  # in an indented code block: the column its lines are indented from
        self.may_code = True  # no paragraph goes on here: an indented line would be code
        self.segments: list[_Segment] = []

    def line(self, lineno: int, line: str) -> None:
        body = line.lstrip(" \t")
        if self.fence and self.in_fence(line, body):
            return
        indent = len(line[: len(line) - len(body)].expandtabs(4))
        if not body:
            self.may_code = True
        elif self.in_code(indent):
            self.text_line(lineno)
            return
        m = _WIKI_ITEM.match(line) if body[:1] in "-*+#0123456789" and body else None
        if m is not None:
            self.item(lineno, line, m, indent)
            self.may_code = bool(m.group("h"))
            return
        current = self.text_line(lineno)
        quote = _QUOTE.match(body) if body.startswith(">") else None
        self.fence = _wiki_fence(body[quote.end() :] if quote else body)
        self.fence_quote = quote.group().count(">") if quote and self.fence else 0
        self.fence_indent, self.outline.open_fence = len(line) - len(body), lineno
        if self.fence_quote:  # the quote ends at a line without ">", and its fence with it
            self.outline.open_fence = -1
        if body:
            self.may_code = False
        if not self.fence and body:
            self.segments.append(_Segment(lineno, 0, line, current, indent, self.container(indent)))

    def text_line(self, lineno: int) -> Block:
        """A line that is no list item nor heading: the current block's text."""
        current = self.current
        if current is None:
            current = self.current = preamble(self.outline, lineno)
        current.end = lineno + 1
        return current

    def in_fence(self, line: str, body: str) -> bool:
        """Whether a line is part of the open fence (its closing line too)."""
        if body and self.fence_indent and len(line) - len(body) < self.fence_indent:
            self.fence = ""  # a less indented line ends the item, and the fence in it
            return False
        if self.fence_quote:
            quote = _QUOTE.match(body)
            if quote is None or quote.group().count(">") < self.fence_quote:
                self.fence = ""  # the block quote has ended, and the fence in it
                return False
            body = body[quote.end() :]
        if body.startswith(self.fence) and not body.strip(self.fence[0]).strip():
            self.fence, self.may_code = "", True
        return True

    def in_code(self, indent: int) -> bool:
        """Whether a line (not blank) is in an indented code block (CommonMark): one indented 4
        columns past the content of the list item it stands in, where no paragraph goes on (after
        a blank line, a heading, a fence, or at the start); and the lines after it indented so."""
        if self.may_code:  # after a blank line, a list item goes on only at its content column
            while self.items and self.items[-1] > indent:
                self.items.pop()
        if self.code >= 0:
            if indent - self.code >= 4:
                return True
            self.code = -1
        start = self.items[-1] if self.items else 0
        if self.may_code and indent - start >= 4:
            self.code = start
            return True
        return False

    def item(self, lineno: int, line: str, m: re.Match[str], indent: int) -> None:
        """A list item or a heading line."""
        self.current = current = _wiki_item(self.builder, lineno, line, m)
        while self.items and self.items[-1] > indent:
            self.items.pop()
        content = line[m.end() :]
        if not m.group("h"):
            self.items.append(_content_column(line, m, indent))
        self.fence, self.fence_quote = _wiki_fence(content.lstrip(" \t")), 0
        self.fence_indent, self.outline.open_fence = m.end(), lineno
        if not self.fence:
            column = self.items[-1] if self.items and not m.group("h") else self.container(indent)
            self.segments.append(_Segment(lineno, m.end(), content, current, indent, column))

    def container(self, indent: int) -> int:
        """The content column of the innermost open list item a line so indented stands in."""
        return next((col for col in reversed(self.items) if col <= indent), 0)


def _content_column(line: str, m: re.Match[str], indent: int) -> int:
    """The column a list item's content starts at (CommonMark): after its marker and the 1 to
    4 spaces that follow it (1 if there are more, or none). ``indent``: the marker's column."""
    end = m.end("marker")
    if line[end : end + 1] == " " and line[end + 1 : end + 2] not in ("", " ", "\t"):
        return indent + end - m.end("indent") + 1  # the usual "- text"
    head, rest = line[:end], line[end:]
    text = rest.lstrip(" \t")
    marker = len(head.expandtabs(4))
    gap = len((head + rest[: len(rest) - len(text)]).expandtabs(4)) - marker
    return marker + (gap if 1 <= gap <= 4 and text else 1)


#: What closes a comment or math that runs past its line
_CLOSERS = {"%%": "%%", "<!--": "-->", "$$": "$$"}


def _segment_refs(segments: list[_Segment]) -> None:
    """The references of the text segments, in order, each to its block. A comment opened and
    not closed on its line hides everything up to its closer, found on a later line: an Obsidian
    ``%%`` comment anywhere later (its help: "block comments can span multiple lines", blank ones
    too; it is Obsidian's own syntax, so list items do not stop it either); an HTML comment in
    the same paragraph, or, where it starts a line (an HTML block), up to the end of the list
    item it stands in; ``$$`` math within its paragraph. Without a closer the opener is text, as
    on one line."""
    i, pos = 0, 0
    while i < len(segments):
        seg = segments[i]
        at = _line_refs(seg.text, seg.line, seg.block.refs, True, seg.col, pos)
        if at is None:
            i, pos = i + 1, 0
            continue
        closed = _closer(segments, i, at)
        if closed is None:
            pos = at + len(_opener(seg.text, at))  # the opener is text
        else:
            i, pos = closed


def _opener(text: str, at: int) -> str:
    return text[at : at + 2] if text.startswith(("%%", "$$"), at) else "<!--"


def _closer(segments: list[_Segment], i: int, at: int) -> tuple[int, int] | None:
    """Where the comment opened at ``at`` in segment ``i`` ends: the segment, and the position
    after its closer; None if it does not close."""
    seg = segments[i]
    opener = _opener(seg.text, at)
    # an HTML block starts a line (indented less than code, or in a list item's first line)
    block = not seg.text[:at].strip() and (seg.col > 0 or seg.indent - seg.container < 4)
    prev = seg
    for j in range(i + 1, len(segments)):
        nxt = segments[j]
        if opener != "%%" and not _goes_on(seg, prev, nxt, block and opener == "<!--"):
            return None
        end = nxt.text.find(_CLOSERS[opener])
        if end >= 0:
            return j, end + len(_CLOSERS[opener])
        prev = nxt
    return None


def _goes_on(seg: _Segment, prev: _Segment, nxt: _Segment, block: bool) -> bool:
    """Whether an HTML comment or math opened in ``seg`` may still close in ``nxt`` (after
    ``prev``): an HTML block runs to the end of the list item it stands in, an inline comment
    and math to the end of their paragraph."""
    if block:
        return not seg.container or nxt.indent >= seg.container
    return nxt.block is seg.block and nxt.line == prev.line + 1


def _wiki_item(builder: Builder, lineno: int, line: str, m: re.Match[str]) -> Block:
    """A list item or a heading; a heading starts a new tree. Markdown renderers expand a tab
    to 4 columns (mldoc counts every tab or space as one level)."""
    content = line[m.end() :].strip()
    if m.group("h"):
        builder.close(lineno)
        return builder.open(lineno, 1, "", "heading", content, None)
    indent = m.group("indent")
    return builder.open(lineno, len(indent.expandtabs(4)) + 1, indent, "bullet", content, None)


def _wiki_fence(body: str) -> str:
    m = _FENCE_RE.match(body)
    if m is None or (m.group("fence")[0] == "`" and "`" in body[m.end() :]):
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
    found: list[Ref] = []
    for key, value in data.items():
        for item in _yaml_strings(value):
            wiki_refs(item, 1 + _find_line(lines, str(key), end), found, tags=False)
    # a property links by "the [[Link]] syntax" only (help, "Properties"): [t](X.md) is text
    outline.page_refs.extend(ref for ref in found if ref.kind != "markdown")
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
