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

from .blocktext import (
    NO_REF_KINDS,
    BeginBlocks,
    begin_name,
    content_paragraphs,
    directive,
    fence_lines,
    front_matter,
    lines_matching,
    timestamp_start,
)
from .blocktext import split_property_list as split_property_list
from .inline import _HICCUP, _LABEL_TEXT, _hiccup_end, _inline_matches, _logseq_refs, html_end
from .outline import COMMA_PROPERTIES as COMMA_PROPERTIES
from .outline import TASK_MARKERS as TASK_MARKERS
from .outline import Block as Block
from .outline import Builder, close_outline, line_count, trim_end
from .outline import Outline as Outline
from .outline import Ref as Ref
from .outline import decode as decode
from .patterns import longest_first, regex
from .properties import PROPERTY_LINE, record_property
from .wiki import scan_wiki, wiki_code_spans, wiki_label, wiki_refs

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from .outline import RefKind as RefKind
    from .outline import Syntax as Syntax

# ---------------------------------------------------------------------------------------------
# block structure

# mldoc: a block line is a '-' bullet, or a line of '#'s then white space (a heading block), at
# any indentation; a heading's '#'s (on a bullet), a task marker and a priority may follow.
_MARKER = (
    r"(?:#+[ \t]+)?"  # "- ## text": a bullet that is also a heading
    "(?:(?P<m>" + "|".join(longest_first(TASK_MARKERS)) + ") +)?"
    r"(?:\[#(?P<p>[!-\\^-~])\] *)?"  # a priority: one ASCII character, [#A] by convention
)
_MARKER_RE = regex(_MARKER)
_BLOCK_LINE = (
    r"(?P<indent>[ \t]*)(?P<text>(?:-|(?P<h>#+))(?=[ \t]|$)[ \t]*" + _MARKER + r"(?P<title>.*))"
)
_LOGSEQ_ITEM = regex(_BLOCK_LINE, re.M)  # the line at the position is a block line
_NEXT_LOGSEQ_ITEM = regex("\n" + _BLOCK_LINE, re.M)  # the next one ("\n" is quick to find)


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


# A drawer (:LOGBOOK: ... :END:): its opening line, its end, and a property in a :PROPERTIES: one
_DRAWER = regex(r"^:([^\s:]+):[ \t]*$")
_DRAWER_END = regex(r"^[ \t]*:END:[ \t]*$", re.M | re.I)
_DRAWER_PROPERTY = regex(r"[ \t]*:(?P<key>[^\s:]+):(?:[ \t]+(?P<value>.*?))?[ \t]*$")


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
        "begins",
        "drawer_done",
        "drawer_rest",
        "late_head",
        "drawers",
        "keys",
        "directive_keys",
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
        self.begins: BeginBlocks | None = None  # see `open_begin`
        self.drawer_done = False  # the current block's first property drawer has ended
        self.drawer_rest = ""  # the white space after a property drawer's :END:
        self.late_head = False  # the page's properties stand after other lines
        self.drawers: tuple[list[int], list[int]] | None = None  # the :END: lines, and after
        self.keys: dict[str, int] = {}  # the page's property keys, by line (`record_property`)
        self.directive_keys: dict[str, int] = {}  # the same for front matter and #+KEY: lines

    def run(self) -> Outline:
        """Take every line of the page: block lines here, the lines between them in `body`."""
        text, blocks, match = self.text, self.blocks, _LOGSEQ_ITEM.match
        pos, lineno, size = 0, 0, len(text)  # pos: where line number lineno starts
        if text.startswith("---\n"):
            pos, lineno = self.front_matter()
        while pos <= size:
            m = match(text, pos)
            if m is None:
                if pos == size and blocks:  # the empty line after a final newline
                    return self.finish(lineno + 1)  # changes nothing but the line count
                m = _NEXT_LOGSEQ_ITEM.search(text, pos)
                lineno = self.body(text, pos, size if m is None else m.start(), lineno)
                if m is None:
                    break
                if lineno <= self.fence_end:  # the block line stands in a code fence
                    pos, lineno = self.resume, self.fence_end + 1
                    continue
            if self.paragraph:
                self.flush()
            if blocks:
                blocks[-1].end = lineno
            indent, rest, hashes, marker, priority, title = m.groups()
            block = self.open(
                lineno,
                1 if hashes else len(indent) + 1,  # a heading without a bullet is at level 1,
                indent,  # however indented (Logseq's graph parser: block.cljs construct-block)
                "heading" if hashes else "bullet",
                (rest if hashes else rest[1:]).strip(),
                marker,
            )  # after a '-'
            self.in_props, self.drawer_done = True, False
            if priority:
                block.priority = priority
            if "::" in title and (prop := PROPERTY_LINE.match(title)) is not None:
                # mldoc: a first line (after the marker and priority) that is a property line
                # opens the block's property drawer, and the block has no title of its own
                # (``- template:: Daily``, ``- tags:: a, b``, ``- TODO k:: v``)
                key, value = prop.group("key", "value")
                record_property(
                    key, value or "", lineno, block, self.outline, self.comma_properties, self.keys
                )
            elif not title.startswith(("<", "```", "~~~", "#+", "\\")):
                if (  # see `_logseq_refs`: a reference holds one of these
                    "[[" in title
                    or "#" in title
                    or "((" in title
                    or ".md" in title
                    or ".MD" in title
                    or ".markdown" in title
                ):
                    _logseq_refs(title, lineno, block.refs)
            elif self.title(title, lineno, m.start("title")):
                pos, lineno = self.resume, self.fence_end + 1  # the title opens a fence, a
                continue  # #+BEGIN block, or HTML or a LaTeX environment that spans lines
            pos, lineno = m.end() + 1, lineno + 1
        return self.finish(lineno)

    def title(self, title: str, lineno: int, at: int) -> bool:
        """A first line (at offset ``at``) that may start with HTML, a LaTeX environment, a code
        fence or a #+BEGIN block: False unless lines after it are skipped."""
        if title.startswith(("<", "\\")) and self.raw_block(lineno, at):
            return True
        elif title.startswith(("```", "~~~")) and self.open_fence(lineno):
            return True
        elif title.startswith("#+") and self.open_begin(lineno, title):
            return True
        else:
            _logseq_refs(title, lineno, self.blocks[-1].refs)
        return False

    def body(self, text: str, start: int, end: int, lineno: int) -> int:
        """Lines that are not block lines, ``text[start:end]`` (a code fence's are the block's
        text only); return the number of the line after them."""
        lines = text[start:end].split("\n")
        for i, line in enumerate(lines, lineno):
            if i > self.fence_end:
                self.text_line(i, line, start)
            start += len(line) + 1
        return lineno + len(lines)

    def text_line(self, lineno: int, line: str, at: int) -> None:
        """A line inside a block (or before the first one), at offset ``at``: property, fence,
        HTML, LaTeX environment or paragraph text."""
        if not self.blocks:
            self.pre_block(lineno)
        block, body = self.blocks[-1], line.lstrip(" \t")
        if body and "::" in body and self.property_line(lineno, body, block):
            return
        if body.startswith("#+") and self.hash_plus(lineno, body, block):
            return
        joins = self.in_props  # a :PROPERTIES: drawer right after property lines joins them
        if self.in_props:
            self.end_properties(block)
        if (
            body.startswith(("```", "~~~"))
            and self.open_fence(lineno)
            or body.startswith(":")
            and (drawer := _DRAWER.match(body)) is not None
            and self.open_drawer(lineno, drawer.group(1), block, joins)
        ):
            self.flush()
            if self.drawer_rest:  # (mldoc's property drawer leaves it: `open_drawer`)
                self.paragraph, self.paragraph_start = [self.drawer_rest], self.fence_end
                self.drawer_rest = ""
        elif body.startswith(("<", "\\")) and self.raw_block(lineno, at + len(line) - len(body)):
            pass  # its lines are taken
        elif self.paragraph and not (body[:1] in _OWN_FIRST and own_block(body)):
            self.paragraph.append(line)
        else:  # a paragraph starts (after the one a block of its own ends: `own_block`)
            self.flush()
            self.paragraph, self.paragraph_start = [line], lineno
            if body[:1] in "-*_|" and _WHOLE_LINE.match(body):
                self.flush()  # a rule or a table row: the next line starts anew
            elif body[:1] in "$[" and (end := _leading_end(body)) is not None:
                rest = body[end:]  # hiccup or displayed math: the rest of the line starts one
                self.paragraph = [rest] if rest else []

    def raw_block(self, lineno: int, at: int) -> bool:
        """Whether HTML or a LaTeX environment starts at offset ``at`` of line ``lineno``: mldoc
        reads it as a block of its own to its end, across lines, bullets and all (the lines are
        skipped like a fence's), and the rest of its last line starts a new paragraph."""
        text = self.text
        found = raw_run(text, at)
        if found is None:
            return False
        end, rest = found
        self.flush()
        self.fence_end = lineno + text.count("\n", at, end)
        self.resume = end + len(rest) + 1
        # mldoc's HTML block takes the line break after it; a LaTeX environment leaves it
        self.paragraph = [rest] if rest or text[end - 1] != ">" else []
        self.paragraph_start = self.fence_end
        return True

    def open_fence(self, lineno: int) -> bool:
        """Whether a fence line opens a code fence. mldoc closes it at the next line that starts
        with ``` or ~~~ (either kind); without such a line there is no fence at all."""
        if self.fences is None:
            self.fences = fence_lines(self.text)
        lines, after_lines = self.fences
        after = bisect.bisect_right(lines, lineno)
        if after == len(lines):
            return False
        self.fence_end, self.resume = lines[after], after_lines[after]
        return True

    def open_drawer(self, lineno: int, name: str, block: Block, joins: bool) -> bool:
        """Whether a ``:NAME:`` line opens a drawer: mldoc runs one to the next ``:END:`` line,
        bullets and all (without such a line it is text), and its lines hold no references. A
        ``:PROPERTIES:`` drawer of ``:key: value`` lines only is a property drawer: the block's
        (the page's, before the first block) unless it has had one; right after property lines
        (``joins``) it is part of theirs."""
        if self.drawers is None:
            self.drawers = lines_matching(_DRAWER_END, self.text)
        ends, after = self.drawers
        k = bisect.bisect_right(ends, lineno)
        if k == len(ends):
            return False
        self.fence_end, self.resume = ends[k], after[k]
        if name.upper() == "PROPERTIES":
            lines = self.text.split("\n", self.fence_end + 1)
            found = [_DRAWER_PROPERTY.match(line) for line in lines[lineno + 1 : self.fence_end]]
            properties = all(found)
            if properties:  # a property drawer: white space after its :END: starts a paragraph
                end = lines[self.fence_end]
                self.drawer_rest = end[len(end.rstrip(" \t")) :]
            if properties and (joins or not self.drawer_done):
                self.late_head = self.late_head or (block.kind == "preamble" and lineno > 0)
                for j, prop in enumerate(found, lineno + 1):
                    assert prop is not None
                    key, value = prop.group("key", "value")
                    if not (self.late_head and key.lower() == "title"):
                        record_property(
                            key,
                            value or "",
                            j,
                            block,
                            self.outline,
                            self.comma_properties,
                            self.keys,
                        )
                self.in_props = True  # ``key:: value`` lines right after it join it
        return True

    def property_line(self, lineno: int, body: str, block: Block) -> bool:
        """A ``key:: value`` line. mldoc makes a property drawer of such lines anywhere in a
        block's text, and Logseq's graph parser keeps the block's first drawer only (a later
        one holds no reference: block.cljs extract-blocks). The page's properties are the first
        drawer before the first block, after text or blank lines too; but a ``title::`` names
        the page only in a drawer that opens the page (extract.cljc get-page-name reads the
        first node of the page)."""
        if not self.in_props and self.drawer_done:
            if PROPERTY_LINE.match(body) is None:
                return False
            self.flush()  # a later drawer: its lines are no text, and no references
            return True
        found = PROPERTY_LINE.match(body)
        if found is None:
            return False
        key, value = found.group("key", "value")
        if block.kind == "preamble" and not self.in_props:
            self.late_head = True  # the page's drawer does not open the page
        if not (self.late_head and key.lower() == "title"):
            record_property(
                key, value or "", lineno, block, self.outline, self.comma_properties, self.keys
            )
        self.flush()  # the rest of a line after an HTML block, or text, ends at a property
        self.in_props = True
        return True

    def end_properties(self, block: Block) -> None:
        """A line that is no property: the block's first property drawer, if any, has ended."""
        if self.in_props:
            self.in_props = False
            kept = self.outline.page_properties if block.kind == "preamble" else block.properties
            self.drawer_done = self.drawer_done or bool(kept)

    def hash_plus(self, lineno: int, body: str, block: Block) -> bool:
        """A ``#+`` line: a #+BEGIN block that opens, or a directive before the first block (a
        page property); False if it is text."""
        if self.open_begin(lineno, body):
            self.end_properties(block)
            return True
        found = directive(body) if block.kind == "preamble" else None
        if found is None:
            return False
        self.flush()
        props = self.comma_properties
        record_property(*found, lineno, block, self.outline, props, self.directive_keys)
        return True

    def open_begin(self, lineno: int, body: str) -> bool:
        """Whether a line opens a #+BEGIN block (one whose END follows): its lines are then the
        block's text, skipped like a fence's, and their references scanned unless its kind holds
        none (`directives.NO_REF_KINDS`)."""
        name = begin_name(body)
        if name is None:
            return False
        if self.begins is None:
            self.begins = BeginBlocks(self.text)
        found = self.begins.end_of(lineno, name)
        if found is None:
            return False
        self.flush()
        self.fence_end, self.resume = found
        if name.lower() not in NO_REF_KINDS:
            lines = self.text.split("\n", self.fence_end)[lineno + 1 : self.fence_end]
            block = self.blocks[-1]
            content_paragraphs(
                lines, lineno + 1, lambda t, n: _logseq_refs(t, n, block.refs), raw_run
            )
        return True

    def front_matter(self) -> tuple[int, int]:
        """Read YAML front matter into the page properties; return where the line after it starts
        and its number."""
        lines = self.text.split("\n")
        found = front_matter(lines)
        if found is None:
            return 0, 0
        props, nlines = found
        block = self.pre_block(0)
        for key, value, lineno in props:  # a key given again keeps its last value (a map)
            record_property(
                key, value, lineno, block, self.outline, self.comma_properties, self.directive_keys
            )
        block.end = nlines
        return sum(len(line) + 1 for line in lines[:nlines]), nlines

    def flush(self) -> None:
        """Scan the waiting paragraph as a whole, as mldoc does (emphasis may span its lines).
        One that starts with a timestamp is the block's schedule to Logseq's graph parser,
        which keeps no reference of it (block.cljs ``paragraph-timestamp-block?``)."""
        if self.paragraph:
            text = "\n".join(self.paragraph).rstrip()
            if not timestamp_first(text) or self.after_blank_title() or own_block(text.lstrip()):
                _logseq_refs(text, self.paragraph_start, self.blocks[-1].refs)
        self.paragraph = []

    def after_blank_title(self) -> bool:
        """Whether the waiting paragraph follows a bullet of white space only (``- ``): mldoc
        starts the paragraph with that space, so nothing can come first in it."""
        block = self.blocks[-1]
        if block.text or block.kind != "bullet" or self.paragraph_start != block.line + 1:
            return False
        line = self.text.split("\n", block.line + 1)[block.line].lstrip(" \t")
        return len(line) > 1 and not line[1:].strip()

    def finish(self, nlines: int) -> Outline:
        """Scan the last paragraph; end the last block, and every open subtree at ``tail``."""
        self.flush()
        last = self.blocks[-1]  # every page has a line, so a block
        last.end = trim_end(nlines, last.line, nlines - self.text.endswith("\n"))
        return close_outline(self.outline, self, self.tail)


#: A line inside a block that mldoc reads as a block of its own (a quote, a list item,
#: displayed math, hiccup, a horizontal rule, a table row), so that it ends the paragraph
#: before it: one a schedule line starts hides none of its references (Logseq's graph parser
#: lists a block's ``> [[X]]``, ``1. [[X]]`` or ``| [[X]] |`` after its ``SCHEDULED:``). A
#: rule or a table row is all of its line, and the next line starts anew (`_WHOLE_LINE`);
#: after hiccup or displayed math, the rest of the line starts a paragraph (`_leading_end`),
#: which a timestamp can make a schedule. Not a definition (``: text``): it makes the line
#: before it its term, which is left as it was.
_OWN_BLOCK = regex(r"(?:>[ \t]*\S|[*+][ \t]+\S|[0-9]+\.[ \t]+\S)")
_WHOLE_LINE = regex(r"(?:-{3,}|\*{3,}|_{3,}|\|.*\|)[ \t]*$")
_DISPLAYED_MATH = regex(r"\$\$.*?\$\$")
_HICCUP_START = regex(_HICCUP)
#: The first characters of those lines: most lines are none of them, and cost no match.
_OWN_FIRST = frozenset(">*+$[-_|0123456789")


def own_block(body: str) -> bool:
    """Whether a line (without its indentation) starts a block of its own (`_OWN_BLOCK`)."""
    return bool(_OWN_BLOCK.match(body) or _WHOLE_LINE.match(body)) or _leading_end(body) is not None


def _leading_end(body: str) -> int | None:
    """Where hiccup or displayed math that starts a line ends on it, if one does."""
    if body.startswith("$$"):
        math = _DISPLAYED_MATH.match(body)
        return math.end() if math else None
    found = _HICCUP_START.match(body) if body.startswith("[:") else None
    return _hiccup_end(body, found.end()) if found else None


def timestamp_first(text: str) -> bool:
    """Whether a paragraph's first or second inline piece (after its first plain text) is a
    timestamp: nothing but plain text, on its first line, comes before one."""
    start = timestamp_start(text)
    return start is not None and next(iter(_inline_matches(text[:start])), None) is None


_LATEX_BEGIN = regex(r"\\begin\{([^}]+)\}", re.I)


def raw_end(text: str, at: int) -> int | None:
    """Where HTML or a LaTeX environment starting at ``at`` ends, or None if none starts there.
    ``\\begin{name}`` runs to ``\\end{name}`` (in any case), or to the end of the page."""
    if text.startswith("<", at):
        return html_end(text, at)
    if (m := _LATEX_BEGIN.match(text, at)) is None:
        return None
    closing = r"\\end\{" + re.escape(m.group(1)) + r"\}"  # of the page's text: not `regex`'s
    end = re.compile(closing, re.I).search(text, m.end())
    return len(text) if end is None else end.end()


def raw_run(text: str, at: int) -> tuple[int, str] | None:
    """Where HTML or a LaTeX environment starting at ``at`` ends, with those that follow it on
    the line it ends on (mldoc reads them as more of the block), and the rest of that line;
    None if none starts there."""
    end = raw_end(text, at)
    if end is None:
        return None
    while True:
        line_end = text.find("\n", end) % (len(text) + 1)  # (-1: the text's end)
        rest = text[end:line_end]
        more = rest.lstrip(" \t")
        after = raw_end(text, line_end - len(more)) if more[:1] in ("<", "\\") else None
        if after is None:
            return end, rest
        end = after


def logseq_inline_refs(text: str, lineno: int, out: list[Ref]) -> None:
    """Append the references of Logseq Markdown inline text to ``out`` (for the org scanner,
    which blanks the org-only constructs first)."""
    _logseq_refs(text, lineno, out)


_LEADING_LABEL = regex(rf"!?\[(?P<label>{_LABEL_TEXT})\]\(")


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
