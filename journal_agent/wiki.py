"""The wiki scanner: Obsidian and plain-Markdown pages → an `Outline`.

List items (``-``, ``*``, ``+``, ``1.``) and ATX headings are blocks; YAML front matter holds the
page properties. References: ``[[X]]``, ``[[X|label]]``, ``[[X#Heading]]``, ``![[X]]``, Markdown
links to ``X.md`` or ``X`` (not to an attachment or a URL), links in front-matter values;
``#tag`` is recorded as a tag (Obsidian does not count it as a backlink).
Fenced code, inline code and ``%%comments%%`` never yield references.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from .outline import Block, Builder, Outline, Ref, RefKind, close_outline, preamble, trim_end

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
_WIKI_INLINE = re.compile(
    "|".join(
        [
            _CODE,
            r"(?P<esc>\\.)",
            r"(?P<comment>%%.*?%%|<!--.*?-->)",
            r"(?P<url>\b[A-Za-z][A-Za-z0-9+.\-]{1,30}://[^\s<>\[\]()]*)",
            r"(?P<wiki>(?P<bang>!?)\[\[(?P<wtarget>[^\[\]|#^]*)(?P<wsub>[#^][^\[\]|]*)?"
            r"(?:\|[^\[\]]*)?\]\])",
            _MD_LINK,
            r"(?P<tag>(?<![\w#&])#(?P<tbody>[^\s!-,.:-@\[-^`{-~]*[^\W\d][^\s!-,.:-@\[-^`{-~]*))",
        ]
    )
)
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation
#: Files Obsidian opens as no note ("Accepted file formats", and its canvases and bases): a
#: Markdown link to one links no note. Any other name resolves as ``[[name]]`` would.
_ATTACHMENT = re.compile(
    r"\.(?:avif|bmp|gif|jpe?g|png|svg|webp|flac|m4a|mp3|ogg|wav|webm|3gp|mkv|mov|mp4|ogv|pdf"
    r"|canvas|base)$",
    re.IGNORECASE,
)
_FENCE_RE = re.compile(r"^(?P<fence>`{3,}|~{3,})")
_WIKI_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|(?P<h>#{1,6})(?:[ \t]|$))"
)


def wiki_refs(line: str, lineno: int, out: list[Ref], tags: bool = True, col: int = 0) -> None:
    """Append the references of one line of Obsidian / plain-Markdown text (starting at column
    ``col`` of line ``lineno``) to ``out``."""
    for m in _WIKI_INLINE.finditer(line):
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


_WIKI_LABEL = re.compile(
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
    path = unquote(dest.split("#", 1)[0])
    while path.startswith("./"):
        path = path[2:]
    if path.lower().endswith(".md"):
        return path[:-3] or None
    if _ATTACHMENT.search(path):
        return None
    return path or None


def scan_wiki(text: str, tail: int) -> Outline:
    """Blocks and references of an Obsidian / Markdown page; open subtrees end at ``tail``."""
    lines = text.split("\n")
    outline = Outline("", [], {}, [])
    builder = Builder(outline)
    current: Block | None = None
    fence = ""
    fence_indent = 0  # a fence inside a list item ends with the item (CommonMark)
    for lineno in range(_front_matter(lines, outline), len(lines)):
        line = lines[lineno].removesuffix("\r")
        body = line.lstrip(" \t")
        if fence:
            if body and fence_indent and len(line) - len(body) < fence_indent:
                fence = ""  # a less indented line ends the item, and the fence in it
            elif body.startswith(fence) and not body.strip(fence[0]).strip():
                fence = ""
                continue
            else:
                continue
        m = _WIKI_ITEM.match(line) if body[:1] in "-*+#0123456789" and body else None
        if m is not None:
            current = _wiki_item(builder, lineno, line, m)
            content = line[m.end() :]
            fence = _wiki_fence(content.lstrip(" \t"))
            fence_indent, outline.open_fence = m.end(), lineno
            if not fence:
                wiki_refs(content, lineno, current.refs, True, m.end())
            continue
        if current is None:
            current = preamble(outline, lineno)
        current.end = lineno + 1
        fence = _wiki_fence(body)
        fence_indent, outline.open_fence = len(line) - len(body), lineno
        if not fence and body:
            wiki_refs(line, lineno, current.refs)
    if not fence:
        outline.open_fence = -1
    for block in outline.blocks:
        block.end = trim_end(block.end, block.line, tail)
    return close_outline(outline, builder, tail)


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
    for key, value in data.items():
        for item in _yaml_strings(value):
            wiki_refs(item, 1 + _find_line(lines, str(key), end), outline.page_refs, tags=False)
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
