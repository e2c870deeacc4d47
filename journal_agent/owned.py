"""The owned block: the one top-level bullet per agent and day that holds the agent's bullets.

Its first line is the owner header (``"<agent> log"``); it holds no link, tag or property, so it
mints nothing. New bullets go at the end of its subtree, indented like its last child (a deeper
indent would nest them under that child: Logseq parents a block to the nearest block above with a
smaller level); with no owned block on the page, a new one goes after the page's last text.
Every other byte of the page stays as it was.
"""

from __future__ import annotations

from .outline import Outline


def owner_header(agent: str) -> str:
    """The default owned-block header for an agent: its name followed by `` log``."""
    if not agent.strip():
        from .errors import BadAgentName

        raise BadAgentName("the agent name is empty")
    return f"{agent.strip()} log"


def owned_blocks(outline: Outline, header: str) -> list[int]:
    """Indexes of the top-level bullets whose text is exactly the owner header."""
    return [
        i
        for i, b in enumerate(outline.blocks)
        if b.kind == "bullet" and b.depth == 0 and b.text == header
    ]


def owned_subtrees(outline: Outline, header: str) -> tuple[list[int], set[int]]:
    """The owned blocks of ``header`` and every block inside their subtrees: an agent bullet a
    person indented under another is still in the block."""
    heads = owned_blocks(outline, header)
    inside: set[int] = set()
    for h in heads:
        end = outline.blocks[h].subtree_end
        for i in range(h + 1, len(outline.blocks)):
            if outline.blocks[i].line >= end:
                break
            inside.add(i)
    return heads, inside


def children_texts(outline: Outline, header: str) -> list[str]:
    """The first lines of the bullets directly under any of the owned blocks on this page."""
    owned = set(owned_blocks(outline, header))
    return [block.text for block in outline.blocks if block.parent in owned]


def plan_insert(outline: Outline, header: str, texts: list[str], indent: str) -> tuple[int, str]:
    """Where to insert (a character offset into ``outline.text``) and the text to insert: at the
    end of the last owned block's subtree, else a new owned block after the page's last text.
    ``indent`` is one level of indentation when the page has none to copy."""
    lines = outline.text.split("\n")
    owned = owned_blocks(outline, header)
    if owned:
        block = outline.blocks[owned[-1]]
        unit = _child_indent(outline, lines, owned[-1], indent)
        new = [f"{unit}- {t}" for t in texts]
        last = _last_text_line(lines, block.line, block.subtree_end)
    else:
        unit = outline.indent_unit or indent
        new = [f"- {header}"] + [f"{unit}- {t}" for t in texts]
        last = _last_text_line(lines, 0, len(lines))
    return _insert_after(outline.text, lines, last, new, outline.newline)


def _last_text_line(lines: list[str], start: int, end: int) -> int:
    """The last line in ``[start, end)`` that is not blank (``start - 1`` if all are)."""
    for i in range(end - 1, start - 1, -1):
        if lines[i].strip(" \t\r"):
            return i
    return start - 1


def _insert_after(
    text: str, lines: list[str], last: int, new: list[str], nl: str
) -> tuple[int, str]:
    """Insert ``new`` lines after line ``last``, keeping the file's final newline or its absence."""
    offset = sum(len(line) + 1 for line in lines[: last + 1]) if last >= 0 else len(text)
    if offset > len(text) or (last < 0 and text and not text.endswith("\n")):
        return len(text), nl + nl.join(new)
    return offset, "".join(line + nl for line in new)


def _child_indent(outline: Outline, lines: list[str], owner: int, default: str) -> str:
    """Indent new children like the owned block's last child, else one unit deeper than the
    owned block, the unit taken from the page or the vault."""
    last_child = None
    for i in range(owner + 1, len(outline.blocks)):
        if outline.blocks[i].depth <= outline.blocks[owner].depth:
            break
        if outline.blocks[i].parent == owner:
            last_child = i
    if last_child is not None:
        return _indent_of(lines[outline.blocks[last_child].line])
    return _indent_of(lines[outline.blocks[owner].line]) + (outline.indent_unit or default)


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]
