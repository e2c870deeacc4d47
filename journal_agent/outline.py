"""The outline model: what the scanner makes of one page file, shared by both syntaxes.

A page is a list of blocks (line span, level, depth, parent, first line, marker, properties,
references) plus its page properties. Line numbers index ``Outline.text.split("\\n")``, the
decoded file, so that a writer can insert lines byte-exactly.
"""

from __future__ import annotations

from .errors import UnreadablePage
from .records import NamedTuple, Record

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, Literal

    Syntax = Literal["logseq", "wiki"]
    RefKind = Literal["link", "tag", "labeled", "embed", "property", "markdown", "block"]


#: Properties whose comma-separated values are each a page reference (Logseq; the graph's
#: ``:property/separated-by-commas`` adds more).
COMMA_PROPERTIES = frozenset({"alias", "tags"})
TASK_MARKERS = frozenset(
    {
        "TODO",
        "DOING",
        "DONE",
        "LATER",
        "NOW",
        "WAITING",
        "WAIT",
        "CANCELED",
        "CANCELLED",
        "STARTED",
        "IN-PROGRESS",
    }
)


class Ref(NamedTuple):
    """A reference from a block to a page (or to a block, kind ``"block"``), with the span of
    the construct that makes it, so that a caller can rewrite or render exactly that text with
    the scanner's own grammar. (A named tuple: a page scan makes one per reference, and a tuple
    is the cheapest to make.)"""

    target: str  # the page name as written, without brackets, label, heading or ``.md``
    kind: RefKind
    line: int  # 0-based line of the file where it stands
    # Columns of the whole construct (``#tag``, ``[label]([[X]])``, ``{{embed [[X]]}}`` ...) in
    # that line: offsets into the text for a one-line text; a construct running over more
    # lines ends at ``start + its length``. Front-matter refs: offsets into the YAML value.
    start: int = 0
    end: int = 0


class Block(Record):
    """One block of an outline: a bullet, a top-level heading, or the page's leading text."""

    __slots__ = (
        "line",
        "end",
        "level",
        "depth",
        "parent",
        "kind",
        "text",
        "marker",
        "properties",
        "refs",
        "subtree_end",
        "priority",
        "tags",
        "shown_parent",
    )

    def __init__(
        self,
        line: int,  # first line (0-based)
        end: int,  # one past the last line of this block's own text (children excluded)
        #: Logseq's level: 1 + indent width for a bullet (mldoc's level), 1 for a heading
        #: without a bullet however indented (the graph parser's) and for the page's leading
        #: text in Logseq (`Builder.pre_block`; 0 in Obsidian); it decides the block's parent.
        level: int,
        depth: int,  # depth in the tree: 0 for a top-level block
        parent: int,  # index of the parent block in `Outline.blocks`, -1 at top level
        kind: Literal["bullet", "heading", "preamble"],
        text: str,  # the first line after the bullet marker, task marker included
        marker: str | None = None,  # Logseq task marker (TODO, DONE, ...) if any
        properties: dict[str, str] | None = None,
        refs: list[Ref] | None = None,
        subtree_end: int = -1,  # one past the last line of the block and all its descendants
        priority: str | None = None,  # Logseq priority letter of ``[#A]``, if any
        tags: tuple[str, ...] = (),  # org-mode headline tags (``* Title :a:b:``)
        #: The parent Logseq shows the block under (`Builder`), where it is not ``parent``
        #: (-2: it is): after the indentation outdents to a level no open block has.
        shown_parent: int = -2,
    ) -> None:
        self.line = line
        self.end = end
        self.level = level
        self.depth = depth
        self.parent = parent
        self.kind = kind
        self.text = text
        self.marker = marker
        self.properties = {} if properties is None else properties
        self.refs = [] if refs is None else refs
        self.subtree_end = subtree_end
        self.priority = priority
        self.tags = tags
        self.shown_parent = shown_parent


class Outline(Record):
    """The scan of one page file."""

    __slots__ = (
        "text",
        "blocks",
        "page_properties",
        "page_refs",
        "bom",
        "newline",
        "final_newline",
        "indent_unit",
        "warnings",
        "open_fence",
        "regrouped",
    )

    def __init__(
        self,
        text: str,  # decoded text without BOM; ``text.split("\\n")`` are the file's lines
        blocks: list[Block],
        page_properties: dict[str, Any],  # Logseq first-block properties or YAML front matter
        page_refs: list[Ref],  # references made by the page properties
        bom: bool = False,
        newline: str = "\n",  # the file's line ending: "\n" or "\r\n"
        final_newline: bool = True,
        indent_unit: str | None = None,  # the indentation of the first nested bullet, if any
        warnings: list[str] | None = None,
        open_fence: int = -1,  # the line of a code fence still open at the end of the page
        regrouped: bool = False,  # some block's shown parent is not its parent (`Builder`)
    ) -> None:
        self.text = text
        self.blocks = blocks
        self.page_properties = page_properties
        self.page_refs = page_refs
        self.bom = bom
        self.newline = newline
        self.final_newline = final_newline
        self.indent_unit = indent_unit
        self.warnings = [] if warnings is None else warnings
        self.open_fence = open_fence
        self.regrouped = regrouped

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

    Raises `UnreadablePage` for binary data (a NUL byte anywhere: NUL is valid UTF-8, so past
    a first look a binary file's bytes could pass as text and be written to) or bytes that are
    not UTF-8, because guessing an encoding could make a later write corrupt the person's file.
    The search is one memchr in C, cheaper than the decoding that follows.
    """
    if b"\x00" in data:
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
# block structure, shared by the Logseq and the wiki scanner


class Builder:
    """Turns block lines into blocks with parents (the stack of open levels). A block's subtree
    ends where the next block at its level or above starts.

    Logseq's graph parser places blocks twice: its path-refs follow the levels as above
    (``block.cljs`` ``with-path-refs``), but the parent it shows a block under follows
    ``with-parent-and-left``, which differs after an outdent to a level no open block has: the
    block then goes under the last shallower block, at the level of the first deeper one, and
    so do the blocks after it (``Block.shown_parent``)."""

    __slots__ = ("outline", "blocks", "stack", "shown")

    def __init__(self, outline: Outline) -> None:
        self.outline = outline
        self.blocks = outline.blocks
        self.stack: list[int] = []  # indexes of open blocks, shallowest first
        #: Logseq's stack of (block, level, its parent) for the shown parents, from the first
        #: outdent to a level no open block has; until then it is ``stack``
        self.shown: list[tuple[int, int, int]] | None = None

    def open(
        self,
        lineno: int,
        level: int,
        indent: str,
        kind: Literal["bullet", "heading"],
        text: str,
        marker: str | None,
    ) -> Block:
        blocks, stack = self.blocks, self.stack
        if stack and blocks[stack[-1]].level > level and self.shown is None:
            if all(blocks[i].level != level for i in stack):  # Logseq regroups from here
                self.shown = [(-1, 0, -1)] + [(i, blocks[i].level, blocks[i].parent) for i in stack]
        while stack and blocks[stack[-1]].level >= level:
            blocks[stack.pop()].subtree_end = lineno
        depth = len(stack)
        if depth == 1 and self.outline.indent_unit is None:
            self.outline.indent_unit = indent
        parent = stack[-1] if stack else -1
        block = Block(
            lineno, lineno + 1, level, depth, parent, kind, text, marker, {}, []
        )  # (literals are quicker than the default factories)
        if self.shown is not None:
            shown_parent = _shown_parent(self.shown, len(blocks), level)
            if shown_parent != parent:
                block.shown_parent = shown_parent
                self.outline.regrouped = True
        stack.append(len(blocks))
        blocks.append(block)
        return block

    def pre_block(self, lineno: int) -> Block:
        """The page's leading text (its properties most often), which Logseq's graph parser
        makes a block at level 1, the *pre-block*: the indented blocks before the page's first
        block at level 1 are its children, and inherit its references (``tags:: X`` on a journal
        page, then a tab-indented ``- note``: the note is in X's linked references)."""
        block = preamble(self.outline, lineno)
        block.level = 1
        self.stack.append(len(self.blocks) - 1)
        return block

    def close(self, lineno: int) -> None:
        """End every open subtree at ``lineno``."""
        for i in self.stack:
            self.blocks[i].subtree_end = lineno
        self.stack.clear()


def _shown_parent(shown: list[tuple[int, int, int]], index: int, level: int) -> int:
    """The parent Logseq shows block ``index`` (at ``level``) under, as ``with-parent-and-left``
    (``graph_parser/block.cljs``) finds it on its stack ``shown`` of (block, level, parent)."""
    while True:
        last, spaces, last_parent = shown[-1]
        if level == spaces:  # a sibling of the last block
            shown[-1] = (index, level, last_parent)
            return last_parent
        if level > spaces:  # its child
            shown.append((index, level, last))
            return last
        if any(s == level for _, s, _ in shown):  # back to an open level: a sibling there
            while shown[-1][1] > level:
                shown.pop()
            continue
        deeper = next(i for i, (_, s, _) in enumerate(shown) if s > level)
        parent, spaces = shown[deeper - 1][0], shown[deeper][1]
        del shown[deeper:]
        shown.append((index, spaces, parent))
        return parent


def preamble(outline: Outline, lineno: int) -> Block:
    block = Block(lineno, lineno + 1, 0, 0, -1, "preamble", "")
    outline.blocks.append(block)
    return block


def line_count(text: str) -> int:
    """The number of lines, without the empty one that a final newline leaves."""
    return text.count("\n") + (not text.endswith("\n"))


def trim_end(end: int, start: int, tail: int) -> int:
    """Exclude the trailing empty line that a final newline leaves after the last block."""
    return end - 1 if end > tail and end > start + 1 else end


def close_outline(outline: Outline, builder: Builder, tail: int) -> Outline:
    """End the page's leading text where it ends, and every open subtree at ``tail``."""
    if outline.blocks and outline.blocks[0].kind == "preamble":
        outline.blocks[0].subtree_end = outline.blocks[0].end
    builder.close(tail)
    return outline
