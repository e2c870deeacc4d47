"""The org-mode scanner: a Logseq graph's ``.org`` pages → an `Outline`, as Logseq reads them.

Why: Logseq reads org-mode pages like Markdown ones (its parser, mldoc, in its Org mode), so their
references show in Linked References, their ``#+TITLE:`` names them and org journals are
journal days. Checked against mldoc and Logseq's graph parser (tests/test_org.py,
tests/test_logseq_graph_oracle.py). What differs from Markdown:

* blocks are headlines: ``*`` at the start of a line then a space or the line's end, the level
  being the number of stars; after them a task marker, a priority ``[#A]``, the title, and tags
  ``:a:b:`` ending the line after a space or a link (each a reference). ``- `` lines are list
  text, not blocks;
* a drawer is a ``:NAME:`` line up to the next ``:END:`` line (headlines inside are no blocks); a
  block's properties are its first ``:PROPERTIES:`` drawer (``:key: value``); before the first
  headline a drawer is the page's (its ``title`` only if it opens the page);
* ``#+KEY: value`` lines anywhere are the page's properties (``mldoc.cljc``
  ``collect-page-properties``: ``#+TITLE:``, ``#+ALIAS:``, also ``#+NAME:`` under a headline),
  never text; if a page has any, they replace its drawer's. Those right after a
  ``:PROPERTIES:`` drawer (blank lines between) join that drawer, and an indented one in a list
  item is the item's text;
* ``=verbatim=`` and ``~code~`` hide references where mldoc opens them (`_VERBATIM`; backticks
  do not: org has no code spans); so do other drawers, fixed-width text (a line starting with
  ``:`` that opens no drawer, and the lines starting with ``:`` after it), ``# `` comments and
  ``#+BEGIN_SRC``/``EXAMPLE``/``COMMENT``/``EXPORT``/``QUERY`` blocks;
* a paragraph whose first or second inline piece is a timestamp is its block's schedule, with
  no references (`schedule`). A list (items at the start of a line, each with the indented
  lines under it) is no part of a paragraph; #+BEGIN blocks, comments, fixed-width text and
  ``#+KEY:`` lines take the blank lines after them, a list one;
* ``[[page][label]]`` links the page, ``[[file:x.org][Label]]`` the page named by its label, and
  ``[[https://…][x]]`` nothing: with a label, a url holding ``:`` is a URL (without one, a page);
  a label holds balanced ``[brackets]``.

Everything else (``[[X]]``, ``#tag``, ``#[[X]]``, ``{{embed}}``, ``((uuid))``, emphasis) is read
with the Markdown inline grammar (`scanner`), on the text with the org-only constructs blanked.
"""

from __future__ import annotations

import bisect
import re

from .blocktext import NO_REF_KINDS, BeginBlocks, begin_name, directive, timestamp_start
from .outline import TASK_MARKERS, Block, Builder, Outline, Ref, close_outline, trim_end
from .patterns import longest_first, regex
from .properties import comma_names, property_refs, record_property
from .records import NamedTuple
from .scanner import logseq_inline_refs, raw_run, timestamp_first

_HEADLINE = regex(
    r"(?P<stars>\*+)(?:[ \t]+|$)"
    r"(?:(?P<m>" + "|".join(longest_first(TASK_MARKERS)) + r")[ \t]+)?"
    r"(?:\[#(?P<p>[!-\\^-~])\][ \t]*)?"
    r"(?P<title>.*?)"  # tags: the title's last plain text, after a space (not a tab) or a link
    r"(?:(?: +|(?<=\]\])):(?P<tags>[^\s:_#]+(?::[^\s:_#]+)*):)?[ \t]*$"
)
_DRAWER_START = regex(r"[ \t]*:(?P<name>[^\s:]+):[ \t]*$")
_DRAWER_END = regex(r"[ \t]*:END:[ \t]*$", re.IGNORECASE)
_DRAWER_PROPERTY = regex(r"[ \t]*:(?P<key>[^\s:]+):(?:[ \t]+(?P<value>.*?))?[ \t]*$")
_COLON_LINE = regex(r"[ \t]*:")
_COMMENT = regex(r"[ \t]*#(?:[ \t]|$)")
# =verbatim= and ~code~: a mark, text on one line without it, the mark again; opened only where
# mldoc's inline parser tries a construct: at the start, after white space or one of its org plain
# delimiters (its plain text runs over every other character, marks included), or after a link
_VERBATIM = regex(r"([=~])(?:(?!\1)[^\r\n])+\1")
_TRIES_AFTER = frozenset(" \t\n\r\f\\_^[*/+$#")
# [[url][label]] (mldoc's org_link_1): the url runs to the first "]" (an escaped one included);
# the label, on one line, holds balanced [brackets] and a "]" not followed by another
_LABEL_BRACKETS = r"\[(?:\\[\[\]]|[^\[\]\n]|\[[^\[\]\n]*\])*\]"
_ORG_LINK = regex(
    r"\[\[(?P<url>(?:\\\]|[^\]\n])+)\]\["
    rf"(?P<label>(?:\\[\[\]]|[^\[\]\n]|\](?!\])|{_LABEL_BRACKETS})*)\]\]"
)
_ASSET = regex(r"[./]*assets")
# a link as mldoc reads one first at a "[": [[url][label]], or a page [[name]] (one level nested)
_LINK = regex(rf"{_ORG_LINK.pattern}|\[\[(?:[^\[\]\n]|\[\[[^\[\]\n]*\]\])*\]\]")
# a line that starts an item of mldoc's org lists (at the line's start only)
_LIST_ITEM = regex(r"(?:[-+]|[0-9]+\.)[ \t]")


class _Join(NamedTuple):
    """A :PROPERTIES: drawer that the lines after it may still join, as mldoc reads them: a
    ``#+KEY:`` line after it (blank lines between), and another drawer right after it or after
    such a line (blank lines between)."""

    block: Block
    kept: bool  # its properties are kept: the block's first drawer, or the page's
    after_directive: bool  # its last line so far is a #+KEY: line
    drawer_ok: bool  # a drawer starting here joins it


def org_refs(text: str, lineno: int, out: list[Ref], kind: str | None = None) -> None:
    """Append the references of org inline text (a headline title or a paragraph) to ``out``."""
    if "=" in text or "~" in text:
        text = _blank_verbatim(text)
    if "][" in text:
        text = _ORG_LINK.sub(lambda m: _org_link(m, lineno, out), text)
    if "`" not in text:
        logseq_inline_refs(text, lineno, out)
        return
    found = len(out)  # a backtick is no code span in org: hide it from the Markdown grammar
    logseq_inline_refs(text.replace("`", "\ue000"), lineno, out)
    for k in range(found, len(out)):
        if "\ue000" in out[k].target:
            out[k] = out[k]._replace(target=out[k].target.replace("\ue000", "`"))


def _blank_verbatim(text: str, fill: str = " ") -> str:
    """``text`` with its ``=verbatim=`` and ``~code~`` blanked out (see `_VERBATIM`); none
    opens inside a link, which mldoc reads first (``[[a =b= c]]`` is page ``a =b= c``)."""
    links = [m.span() for m in _LINK.finditer(text)] if "[[" in text else []
    pieces: list[str] = []
    done, pos, end = 0, 0, -1  # end: where the last one ended (mldoc tries again there)
    while (m := _VERBATIM.search(text, pos)) is not None:
        at = m.start()
        link = next((span for span in links if span[0] < at < span[1]), None)
        if link is not None:
            pos = end = link[1]
        elif at == 0 or at == end or text[at - 1] in _TRIES_AFTER or text.endswith("]]", 0, at):
            pieces += [text[done:at], fill * (m.end() - at)]
            done = end = pos = m.end()
        else:
            pos = at + 1
    return "".join(pieces) + text[done:] if pieces else text


def value_refs(value: str, lineno: int, comma: bool) -> list[Ref]:
    """The references of a property value in an org page, as the graph parser reads them
    (``block.cljs`` ``extract-refs-from-property-value``, ``text.cljs`` ``parse-property``)
    with mldoc's org grammar: ``=verbatim=`` and ``~code~`` hide them, a backtick is no code,
    and a ``[[url][label]]`` link refers to nothing (only page refs and tags do). A
    comma-separated one (``comma``) names each plain item around them too."""
    text = value
    if "=" in text or "~" in text:
        text = _blank_verbatim(text, ",")  # a comma: a construct parts plain items
    if "][" in text:
        text = _ORG_LINK.sub(lambda m: "," * len(m.group()), text)
    if "`" in text:
        text = text.replace("`", "\ue000")
    if comma:
        refs = [Ref(name, "property", lineno) for name in comma_names(text)]
    else:
        refs = []
        property_refs(text, lineno, refs)
    return [r._replace(target=r.target.replace("\ue000", "`")) for r in refs]


def _org_link(m: re.Match[str], lineno: int, out: list[Ref]) -> str:
    """The page an org link ``[[url][label]]`` refers to (Logseq's ``get-page-reference``), and
    the link blanked out."""
    url, label = m.group("url"), m.group("label")
    if url.startswith("file:") and len(url) > 5:  # a File link: the page of its label
        if label.strip():
            out.append(Ref(label, "labeled", lineno))
    elif (not label or ":" not in url) and not _ASSET.match(url):  # a Search link (with a
        out.append(Ref(url, "labeled", lineno))  # label, one whose url holds ":" is a URL)
    return " " * len(m.group())


def scan_org(text: str, tail: int, comma_properties: frozenset[str]) -> Outline:
    """Blocks and references of an org-mode page; open subtrees end at ``tail``."""
    scan = _OrgScan(text, comma_properties)
    return scan.run(tail)


class _OrgScan(Builder):
    """One pass over the lines of an org page (see the module docstring)."""

    __slots__ = (
        "lines",
        "comma_properties",
        "begins",
        "paragraph",
        "start",
        "drawer_seen",
        "joins",
        "directives",
        "keys",
        "late_drawer",
        "text",
        "starts",
        "listing",
        "eat",
    )

    def __init__(self, text: str, comma_properties: frozenset[str]) -> None:
        super().__init__(Outline("", [], {}, []))
        self.lines = [line.removesuffix("\r") for line in text.split("\n")]
        self.comma_properties = comma_properties
        self.begins: BeginBlocks | None = BeginBlocks(text) if "#+" in text else None
        self.paragraph: list[str] = []
        self.start = 0
        self.drawer_seen = False  # the current block has had its properties drawer
        self.joins: _Join | None = None  # the drawer that the next line may join
        self.directives: list[tuple[str, str, int]] = []  # the page's #+KEY: lines
        self.keys: dict[str, int] = {}  # the line each page property was read on
        self.late_drawer = False  # the page's drawer is not on its first line
        self.text = ""  # the lines joined (without their CRs), made with `starts`
        self.starts: list[int] = []  # where each line starts in the text, found on first need
        self.listing = False  # in an item of a list (`item`)
        self.eat = False  # blank lines here belong to what came before (`body`)

    def run(self, tail: int) -> Outline:
        lines, i = self.lines, 0
        while i < len(lines):
            line = lines[i]
            m = _HEADLINE.match(line) if line.startswith("*") else None
            if m is not None:
                self.headline(i, m)
                i += 1
            else:
                i = self.body(i, line)
        self.flush()
        if self.directives:
            self.page_directives()
        for block in self.blocks:
            block.end = trim_end(block.end, block.line, tail)
        return close_outline(self.outline, self, tail)

    def page_directives(self) -> None:
        """The page's properties are its #+KEY: lines when it has any: the graph parser puts
        them first, so they win over a drawer (its ``extract-blocks`` keeps the first of both),
        and a key given again keeps its last value (a map)."""
        outline = self.outline
        outline.page_properties, outline.page_refs = {}, []
        page = Block(0, 1, 0, 0, -1, "preamble", "")  # (the page's, first block or not)
        keys: dict[str, int] = {}
        for key, value, lineno in self.directives:
            props = self.comma_properties
            record_property(key, value, lineno, page, outline, props, keys, value_refs)

    def headline(self, lineno: int, m: re.Match[str]) -> None:
        self.flush()
        self.joins, self.listing, self.eat = None, False, False
        title = m.group("title")
        block = self.open(lineno, len(m.group("stars")), "", "heading", title, m.group("m"))
        block.priority = m.group("p")
        if m.group("tags"):
            block.tags = tuple(m.group("tags").split(":"))
        self.drawer_seen = False
        if title:
            org_refs(title, lineno, block.refs)

    def body(self, i: int, line: str) -> int:
        """A line that is no headline; return the number of the next line to look at."""
        if not self.blocks:
            self.pre_block(i)
        block = self.blocks[-1]
        block.end = i + 1
        body = line.lstrip(" \t")
        joins, self.joins = self.joins, None
        if not body and joins is not None:  # a blank line: only a #+KEY: line's may be followed
            self.joins = joins._replace(drawer_ok=joins.after_directive)  # by a drawer
        if self.listing and (not body or line[0] not in " \t"):  # the list item has ended
            self.flush()
            self.listing = False
            if not body:
                return i + 1  # mldoc's list takes one blank line after it
        if not body and self.eat:
            return i + 1
        self.eat = False
        if body.startswith(":"):
            return self.colon(i, block, joins)
        if body.startswith("#+") and (end := self.hash_plus(i, body, block, joins)):
            return end
        if body.startswith(("<", "\\")) and (end := self.raw(i, len(line) - len(body))):
            return end
        if _LIST_ITEM.match(line) and self.item(i):
            self.flush()
            self.listing = True
        if _COMMENT.match(line):
            self.flush()
            self.eat = True
        elif not self.paragraph:
            self.paragraph, self.start = [line], i
        else:
            self.paragraph.append(line)
        return i + 1

    def hash_plus(self, i: int, body: str, block: Block, joins: _Join | None) -> int:
        """A ``#+`` line: a #+BEGIN block, or a ``#+KEY:`` directive (the page's property, or
        one more of the drawer it follows); return the line to go on from, or 0 if it is text."""
        end = self.begin(i, body, block)
        if end is not None:
            return end
        found = directive(body)
        if found is None or (joins is None and self.listing):
            return 0
        self.flush()
        self.eat = True
        if joins is None:
            self.directives.append((*found, i))
        else:  # mldoc reads it as one more property of that drawer
            self.joins = joins._replace(after_directive=True, drawer_ok=True)
            if joins.kept:
                self.drawer_property(*found, i, joins.block)
        return i + 1

    def raw(self, i: int, indent: int) -> int:
        """HTML or a LaTeX environment starting line ``i`` after its indentation, as in a
        Markdown block (`scanner`): mldoc reads it as a block of its own, to its end across
        lines, headlines and all, with no references; the rest of its last line starts a
        paragraph. Return the line to go on from, or 0 if none starts there."""
        if not self.starts:  # once a page: the lines joined, and where each starts
            self.text = "\n".join(self.lines)
            self.starts = [0]
            self.starts += [m.end() for m in re.finditer("\n", self.text)]
        text = self.text
        found = raw_run(text, self.starts[i] + indent)
        if found is None:
            return 0
        end, rest = found
        self.flush()
        last = bisect.bisect_right(self.starts, end - 1) - 1  # the line it ends on
        self.blocks[-1].end = last + 1
        # mldoc's HTML block takes the line break after it (and the blank lines after that); a
        # LaTeX environment leaves it
        if rest or text[end - 1] != ">":
            self.paragraph, self.start = [rest], last
        else:
            self.eat = True
        return last + 1

    def begin(self, i: int, body: str, block: Block) -> int | None:
        """A #+BEGIN block: its content's references, and the line after its END."""
        name = begin_name(body)
        found = self.begins.end_of(i, name) if name and self.begins else None
        if found is None or name is None:
            return None
        self.flush()
        end = found[0]
        if name.lower() not in NO_REF_KINDS:
            for j in range(i + 1, end):
                line = self.lines[j]
                body = line.lstrip(" \t")
                if not (_COMMENT.match(line) or body.startswith(":") or directive(body)):
                    org_refs(line, j, block.refs)
        block.end = end + 1
        self.eat = True
        return end + 1

    def colon(self, i: int, block: Block, joins: _Join | None) -> int:
        """A line starting with ``:``: a drawer up to the next ``:END:`` line (the first
        ``:PROPERTIES:`` drawer of a block holds its properties, and the ``#+KEY:`` lines right
        after it; any other holds no references), else fixed-width text with the ``:`` lines
        after it; return the line after them."""
        self.flush()
        lines = self.lines
        m = _DRAWER_START.match(lines[i])
        end = None
        if m is not None:
            end = next((j for j in range(i + 1, len(lines)) if _DRAWER_END.match(lines[j])), None)
        if m is None or end is None:
            j = i + 1
            while j < len(lines) and _COLON_LINE.match(lines[j]):
                j += 1
            block.end = j
            self.eat = True
            return j
        props = m.group("name").upper() == "PROPERTIES"
        if props and joins is not None and joins.drawer_ok:  # mldoc makes them one drawer
            kept = joins.kept
        else:  # the block's first
            kept = props and not self.drawer_seen
            self.late_drawer |= kept and block.kind == "preamble" and i > 0
        if kept:
            self.drawer_seen = True
            for j in range(i + 1, end):
                prop = _DRAWER_PROPERTY.match(lines[j])
                if prop:
                    self.drawer_property(prop.group("key"), prop.group("value") or "", j, block)
        self.joins = _Join(block, kept, False, True) if props else None
        block.end = end + 1
        return end + 1

    def drawer_property(self, key: str, value: str, lineno: int, block: Block) -> None:
        """Keep one property of a drawer: the page's title only from a drawer on the page's
        first line (``extract.cljc`` ``get-page-name`` reads the first AST node only)."""
        page = block.kind == "preamble"
        if page and self.late_drawer and key.lower() == "title":
            return
        keys = self.keys if page else None
        props = self.comma_properties
        record_property(key, value, lineno, block, self.outline, props, keys, value_refs)

    def item(self, i: int) -> bool:
        """Whether line ``i``, a list item's first, starts an item of mldoc's org lists: the
        item is that line and the indented lines under it, none of them an item itself (that
        makes it paragraph text). Its text is no schedule and holds no ``#+KEY:`` directive,
        and the list ends at a blank line (which it takes) or a line at the start."""
        lines = self.lines
        j = i + 1
        while j < len(lines) and lines[j].strip() and lines[j][0] in " \t":
            if _LIST_ITEM.match(lines[j].lstrip(" \t")):
                return False
            j += 1
        return True

    def flush(self) -> None:
        """Read the waiting paragraph, unless it is a schedule (`schedule`)."""
        text = "\n".join(self.paragraph).rstrip()
        if text and (self.listing or not schedule(text)):
            org_refs(text, self.start, self.blocks[-1].refs)
        self.paragraph = []


def schedule(text: str) -> bool:
    """Whether a paragraph is a block's schedule, of which the graph parser keeps no reference
    (``block.cljs`` ``paragraph-timestamp-block?``): its first or second inline piece is a
    timestamp. One empty line first is a piece of its own (a line break), so the timestamp must
    then open the next line (two empty lines put it third)."""
    if text.startswith("\n"):
        return not text.startswith("\n\n") and timestamp_start(text[1:]) == 0
    return timestamp_first(text)
