"""A Logseq block's text beside its inline text, as Logseq's parser (mldoc 1.5) reads it.

Why: these constructs change a page's block structure or its page properties, and the writer,
the registry and the backlinks must all see them as Logseq does (each checked against mldoc and
Logseq's graph parser; tests/test_mldoc_conformance.py, tests/test_logseq_graph_oracle.py):

* code fences: a line starting with ```` ``` ```` or ``~~~`` opens one, the next such line (of
  either kind) closes it; without one there is no fence. Lines inside are never blocks.

* ``#+BEGIN_NAME`` … ``#+END_NAME`` (any name, any case, at any indentation, the END line being
  the first one after the BEGIN that starts with ``#+END_NAME`` then white space or its end): one
  piece of the enclosing block's text. Lines inside are never blocks (``- x`` there is text),
  and a fence inside does not hide the END. ``SRC``, ``EXAMPLE``, ``COMMENT`` and ``EXPORT``
  hold raw text and ``QUERY`` is skipped by the graph parser (``block.cljs`` ``with-page-refs``),
  so those hold no references; any other kind (``QUOTE``, ``NOTE``, ``TIP`` …) is read as text. A
  BEGIN without its END is plain text (``#+BEGIN_QUOTE`` then reads as a tag).
* YAML front matter: ``---`` on the first line, ``key: value`` lines, ``---``. Every line must be
  ``key: value`` (else the block holds no property at all); the keys are page properties
  (``title:`` names the page, ``alias:`` gives aliases), like ``#+TITLE: x`` directives.
* ``#+KEY: value`` directives: page properties (``mldoc.cljc`` ``collect-page-properties``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from .patterns import regex

#: Kinds of #+BEGIN blocks whose content holds no page reference.
NO_REF_KINDS = frozenset({"src", "example", "comment", "export", "query"})
_FENCE_LINE = regex(r"^[ \t]*(?:```|~~~)", re.M)
_BEGIN_END = regex(r"^[ \t]*#\+(?P<be>begin|end)_(?P<name>\S+)", re.M | re.I)
_BEGIN = regex(r"#\+begin_(?P<name>\S+)", re.I)
_DIRECTIVE = regex(r"#\+(?P<key>[^:\s][^:]*):[ \t]*(?P<value>.*?)[ \t]*$")
_FRONT_LINE = regex(r"(?P<key>[^:\n]+):[ \t]*(?P<value>.*?)[ \t]*$")

Property = tuple[str, str, int]  # key as written, value, 0-based line


class BeginBlocks:
    """Where the ``#+BEGIN_``/``#+END_`` lines of one text are (found on first use: most pages
    have none), and which END closes a BEGIN."""

    __slots__ = ("lines", "after", "ends")

    def __init__(self, text: str) -> None:
        self.lines: list[int] = []  # line numbers of END lines
        self.after: list[int] = []  # where the line after each starts
        self.ends: list[str] = []  # each END line's name, lower-cased
        lineno, pos = 0, 0
        for m in _BEGIN_END.finditer(text):
            lineno, pos = lineno + text.count("\n", pos, m.start()), m.start()
            if m.group("be").lower() == "end":
                end = text.find("\n", m.end())
                self.lines.append(lineno)
                self.after.append(len(text) + 1 if end < 0 else end + 1)
                self.ends.append(m.group("name").lower())

    def end_of(self, lineno: int, name: str) -> tuple[int, int] | None:
        """The END line closing a BEGIN of ``name`` on ``lineno`` and where the line after it
        starts, or None if none follows (the BEGIN is then plain text)."""
        name = name.lower()
        for i in range(bisect.bisect_right(self.lines, lineno), len(self.lines)):
            if self.ends[i] == name:
                return self.lines[i], self.after[i]
        return None


def begin_name(body: str) -> str | None:
    """The name of the #+BEGIN block a line (without its indentation) opens, if it is one."""
    m = _BEGIN.match(body)
    return m.group("name") if m else None


def directive(body: str) -> tuple[str, str] | None:
    """``(key, value)`` of a ``#+KEY: value`` line (without its indentation), or None."""
    m = _DIRECTIVE.match(body)
    return (m.group("key"), m.group("value")) if m else None


def front_matter(lines: list[str]) -> tuple[list[Property], int] | None:
    """The properties of YAML front matter at the top of a Logseq page and the number of its
    lines (both ``---`` included), or None when the page has none."""
    if not lines or lines[0] != "---":
        return None
    try:
        end = lines.index("---", 1)
    except ValueError:
        return None
    found = [_FRONT_LINE.fullmatch(line) for line in lines[1:end]]
    if not all(found):
        return [], end + 1
    props = [(m.group("key"), m.group("value"), i) for i, m in enumerate(found, 1) if m]
    return props, end + 1


def fence_lines(text: str) -> tuple[list[int], list[int]]:
    """The lines that may open or close a code fence, and where the line after each starts."""
    return lines_matching(_FENCE_LINE, text)


def lines_matching(pattern: re.Pattern[str], text: str) -> tuple[list[int], list[int]]:
    """The lines where ``pattern`` (multi-line, anchored at a line's start) matches, and where
    the line after each starts."""
    lines: list[int] = []
    after: list[int] = []
    lineno, pos = 0, 0
    for m in pattern.finditer(text):
        lineno, pos = lineno + text.count("\n", pos, m.start()), m.start()
        end = text.find("\n", m.end())
        lines.append(lineno)
        after.append(len(text) + 1 if end < 0 else end + 1)
    return lines, after


def closing_line(lines: list[str], i: int, body: str) -> int | None:
    """The line of ``lines`` that closes a fence or a #+BEGIN block opened on line ``i``
    (``body``: that line without its indentation), or None if it opens none."""
    if body.startswith(("```", "~~~")):
        fences = (j for j in range(i + 1, len(lines)) if _FENCE_LINE.match(lines[j]))
        return next(fences, None)
    name = begin_name(body) if body.startswith("#+") else None
    if name is None:
        return None
    found = BeginBlocks("\n".join(lines)).end_of(i, name)
    return found[0] if found else None


def content_paragraphs(
    lines: list[str],
    first: int,
    read: Callable[[str, int], None],
    raw: Callable[[str, int], tuple[int, str] | None],
) -> None:
    """Hand each paragraph of a #+BEGIN block's text to ``read`` (its text, its first line's
    number; ``first``: the number of the block's first line), minus code fences, #+BEGIN
    blocks of kinds that hold no reference, and HTML or a LaTeX environment at the start of a
    line (``raw``: where one starting at an offset of the text ends, with the rest of its last
    line), all closed within the text: mldoc reads the text as a document of its own, without
    blocks. It reads the lines without the indentation of the first (as far as each has it),
    which matters to '_' emphasis: it opens after white space, not after a word and a line
    break (`inline._UNDERSCORE_OPENS`)."""
    indent = len(lines[0]) - len(lines[0].lstrip(" \t")) if lines else 0
    if indent:
        lines = [line[min(indent, len(line) - len(line.lstrip(" \t"))) :] for line in lines]
    paragraph: list[str] = []
    start, i = first, 0
    text: str | None = None  # the lines joined, once HTML may start one
    while i < len(lines):
        line = lines[i]
        body = line.lstrip(" \t")
        end = closing_line(lines, i, body)
        found = None
        if end is None and body.startswith(("<", "\\")):
            text = "\n".join(lines) if text is None else text
            at = sum(len(x) + 1 for x in lines[:i]) + len(line) - len(body)
            found = raw(text, at)
        if end is None and found is None:
            if not paragraph:
                start = first + i
            paragraph.append(line)
            i += 1
            continue
        if paragraph:
            read("\n".join(paragraph).rstrip(), start)
            paragraph = []
        if found is not None:  # the rest of its last line starts a paragraph
            assert text is not None
            stop, rest = found
            i = text.count("\n", 0, stop)
            paragraph, start = ([rest] if rest.strip() else []), first + i
            i += 1
            continue
        assert end is not None
        name = begin_name(body)
        if name is not None and name.lower() not in NO_REF_KINDS:
            content_paragraphs(lines[i + 1 : end], first + i + 1, read, raw)
        i = end + 1
    if paragraph:
        read("\n".join(paragraph).rstrip(), start)


# SCHEDULED: <2024-01-05 Fri>, <2024-01-05 Fri 10:00 +1w>, CLOCK: [2024-01-05 Fri 10:00:00]
_TIMESTAMP = regex(
    r"(?:(?:SCHEDULED|DEADLINE|CLOSED|CLOCK):[ \t]*)?[<\[][0-9]{4}-[0-9]{2}-[0-9]{2} [A-Za-z]"
)


#: An item of a comma-separated property value: ``[[…]]`` whole (commas and all), or any other
#: character but a comma.
_LIST_ITEM = regex(r"(?:\[\[.*?\]\]|[^,])+")


def timestamp_start(text: str) -> int | None:
    """Where the first timestamp of a paragraph starts, if it is on its first line."""
    if "-" not in text or (m := _TIMESTAMP.search(text)) is None or "\n" in text[: m.start()]:
        return None
    return m.start()


def split_property_list(value: str) -> list[str]:
    """The page names of a comma-separated property value (``alias:: A, [[B c]], #d``); a
    comma inside ``[[…]]`` is part of the name (``alias:: [[Smith, John]]``, ``[[Nov 21st,
    2026]]``), as Logseq reads it."""
    names = []
    for item in _LIST_ITEM.findall(value) if "[[" in value else value.split(","):
        item = item.strip()
        if item.startswith("#"):
            item = item[1:]
        if item.startswith("[[") and item.endswith("]]"):
            item = item[2:-2]
        if item.strip():
            names.append(item.strip())
    return names
