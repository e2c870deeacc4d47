"""Page facts: what one page file contributes to the registry and the backlink graph.

A scanned page (`outline.Outline`) is reduced to a small, cacheable record: its title (from the
file name, or ``title::`` where the flavor reads one), its day if it is a journal page, its
aliases, a human-set tombstone (``superseded-by::``), the block ids it defines, the Logseq
templates it defines, and its *mentions*. A mention is a block that references a page name:
through a link in its text, and in Logseq also through its property keys, task marker and
priority (`flavors.Flavor.meta_pages`), the namespace parents of each name as written
(`flavors.Flavor.with_namespaces`), and the names its ancestor blocks reference (path-refs,
`flavors.Flavor.path_refs`): a ``DONE`` child under a bullet about ``[[X]]`` is part of X's
linked references. Logseq shows such a block only under an ancestor that refers to the page
itself; where it shows blocks under other parents than their levels give (`outline.Builder`),
only the names the block or one of those shown ancestors refers to count. Which reference
kinds are backlinks, and how aliases are written, are the flavor's rules too.
"""

from __future__ import annotations

import datetime as dt
import marshal
import re
import struct
from collections import Counter
from itertools import repeat

from .blocktext import split_property_list
from .flavors import Flavor, Settings
from .outline import Block, Outline
from .patterns import regex
from .records import NamedTuple
from .vault import Vault

RESOLUTION_MARKERS = frozenset({"DONE", "CANCELED", "CANCELLED"})
#: A resolution's first line starts with "Resolved:" (any case) or a checked box "[x] ".
RESOLUTION_TEXT = regex(r"(?:resolved:|\[[xX]\](?=\s|$))", re.IGNORECASE)

#: One block of a page that references a page name: (the name as written, the block's first
#: line number, whether the block is a resolution, the block's first line). A plain tuple, not a
#: NamedTuple: the index caches them marshalled (`facts_bytes`), which takes plain tuples only.
Mention = tuple[str, int, bool, str]


class PageFacts(NamedTuple):
    """What one page file contributes to the vault's registry and backlink graph."""

    title: str  # file-name title, or ``title::``, or the journal title
    date: dt.date | None  # the day, for a journal page
    aliases: tuple[str, ...]
    superseded_by: str | None
    block_ids: tuple[str, ...]
    templates: tuple[str, ...]  # names of Logseq templates defined on the page
    mentions: tuple[Mention, ...]
    #: Names the page refers to as property keys, task markers or priorities (Logseq makes
    #: pages of them; `topics` leaves such pages out unless asked).
    meta: tuple[str, ...] = ()
    #: Of each page the blocks name in two spellings or more (Logseq), the one they name it by
    #: last (`logseq_pages._spellings`: where this file titles a page without a file, that
    #: spelling does); a block's names are its own, not those its ancestors pass on.
    spelled: tuple[str, ...] = ()


#: The size of what `facts_bytes` encodes before the mentions.
_HEAD_SIZE = struct.Struct("<I")
#: The fields before the mentions (the day as an ordinal), as a page without them has them:
#: `facts_bytes` leaves out those at the end, most pages' (3% of the benchmark vault's facts).
_HEAD_EMPTY = ("", None, (), None, (), (), (), ())


def facts_bytes(facts: PageFacts) -> bytes:
    """The facts as the index caches them: marshalled one file at a time (a date as its
    ordinal), so a query that needs a few thousand files' facts decodes only those, and a
    changed file re-encodes only its own. The mentions come last, after the size of what comes
    before them: a pass that needs only the rest (`firstpass`, of the pages beside the journals)
    decodes them in a fifth of the time."""
    day = facts.date.toordinal() if facts.date is not None else None
    head = (facts.title, day, *facts[2:6], *facts[7:])
    end = len(head)
    while end > 2 and head[end - 1] == _HEAD_EMPTY[end - 1]:
        end -= 1
    data = marshal.dumps(head[:end])
    return _HEAD_SIZE.pack(len(data)) + data + marshal.dumps(facts.mentions)


def facts_from(data: bytes, mentions: bool = True) -> PageFacts:
    """`facts_bytes` read back (without ``mentions``: none of them); ValueError for anything
    else (a corrupt cache)."""
    try:
        (size,) = _HEAD_SIZE.unpack_from(data)
        view = memoryview(data)[_HEAD_SIZE.size :]
        fields = marshal.loads(view)  # what follows the head is not read
        found = marshal.loads(view[size:]) if mentions else ()
        if type(fields) is not tuple or len(fields) < 2 or type(found) is not tuple:
            raise ValueError("not page facts")
        fields += _HEAD_EMPTY[len(fields) :]
        title, day, aliases, tombstone, ids, templates, meta, spelled = fields  # or ValueError
        date = None if day is None else dt.date.fromordinal(day)
        return PageFacts(title, date, aliases, tombstone, ids, templates, found, meta, spelled)
    except (EOFError, TypeError, OverflowError, struct.error) as exc:
        raise ValueError("not page facts") from exc


def is_resolution(block: Block) -> bool:
    """A block that closes a thread: a DONE/CANCELED task, a checked box, or "Resolved:"."""
    if block.marker in RESOLUTION_MARKERS:
        return True
    return RESOLUTION_TEXT.match(block.text) is not None


def page_facts(vault: Vault, rel: str, outline: Outline, mentions: bool = True) -> PageFacts:
    """Reduce a scanned page to the facts the registry and the queries need (``mentions``:
    False for none, only the names of `PageFacts.meta`, e.g. of a page's head, `firstpass`)."""
    flavor = vault.flavor
    title, day, aliases, tombstone = page_names(vault, rel, outline.page_properties)
    ids = tuple(b.properties["id"].strip().lower() for b in outline.blocks if "id" in b.properties)
    templates = tuple(
        b.properties["template"].strip() for b in outline.blocks if "template" in b.properties
    )
    spelled: tuple[str, ...] = ()
    if mentions:
        found, meta, spelled = _mentions(outline, flavor, vault.settings)
    else:
        names = (_meta_names(outline, b, flavor, vault.settings) for b in outline.blocks)
        found, meta = [], tuple(dict.fromkeys(n for some in names for n in some))
    return PageFacts(title, day, aliases, tombstone, ids, templates, tuple(found), meta, spelled)


def page_names(
    vault: Vault, rel: str, props: dict[str, object]
) -> tuple[str, dt.date | None, tuple[str, ...], str | None]:
    """What a page's own properties make of its names: its title and day (`Vault.describe`), its
    aliases (other than its title) and its tombstone."""
    flavor = vault.flavor
    title, day = vault.describe(rel, flavor.title_from_properties(props))
    key = flavor.page_key(title)
    aliases = tuple(a for a in flavor.aliases_of(props) if flavor.page_key(a) != key)
    return title, day, aliases, tombstone_of(props)


def tombstone_of(props: dict[str, object]) -> str | None:
    """The page a human marked this one as superseded by (``superseded-by:: [[New]]``)."""
    value = props.get("superseded-by", props.get("superseded_by"))
    if isinstance(value, list):
        value = value[0] if value else None
    names = split_property_list(str(value)) if value else []
    return names[0] if names else None


def _mentions(
    outline: Outline, flavor: Flavor, settings: Settings
) -> tuple[list[Mention], tuple[str, ...], tuple[str, ...]]:
    """Every (block, page name) pair, a block inheriting the names its ancestors reference where
    the flavor says so; the names referred to as property keys, markers or priorities; and
    `PageFacts.spelled`."""
    kinds, inherit = flavor.backlink_kinds, flavor.path_refs
    out: list[Mention] = []
    path_refs: list[tuple[str, ...]] = []
    meta: dict[str, None] = {}
    lines: list[str] = []  # the page's lines, split on first need
    shown: list[frozenset[str] | set[str]] = []  # per block, what it or a shown ancestor names
    written: list[str] = []  # every block's own names, in order
    regrouped = outline.regrouped
    if not inherit:  # Obsidian lists a property's link as a mention, whatever the body holds
        out.extend(_property_links(outline, kinds, lines))
    for block in outline.blocks:
        own = [r.target for r in block.refs if r.kind in kinds]
        if block.kind == "preamble":  # the page properties are the first block's (pre-block)
            own = [r.target for r in outline.page_refs if r.kind in kinds] + own
        if block.tags:
            own += block.tags
        extra = _meta_names(outline, block, flavor, settings)
        if extra:
            meta.update(dict.fromkeys(extra))
            own += extra
        if not inherit:  # the links themselves: one mention per line that links
            out.extend(_link_lines(outline, block, kinds, lines))
            continue
        names = direct = flavor.with_namespaces(own) if own else ()
        written += direct
        parent = block.parent
        if parent >= 0:
            inherited = path_refs[parent]
            if direct:
                names = inherited + tuple([n for n in direct if n not in inherited])
            else:
                names = inherited
        path_refs.append(names)
        if regrouped:  # shown only under a shown ancestor that refers to them
            up = parent if block.shown_parent == -2 else block.shown_parent
            shown.append((shown[up] if up >= 0 else frozenset()) | set(direct))
            names = tuple(n for n in names if n in shown[-1])
        if names:
            resolution = is_resolution(block)
            text = block.text or _first_text(outline, block)
            out += zip(names, repeat(block.line), repeat(resolution), repeat(text))  # in C
    return out, tuple(meta), _spelled_last(written, flavor) if inherit else ()


def _spelled_last(written: list[str], flavor: Flavor) -> tuple[str, ...]:
    """`PageFacts.spelled` of a page whose blocks name ``written``, in order."""
    names = set(written)
    if len(names) < 2:
        return ()
    key = flavor.page_key  # memoised: each name is keyed again by the registry
    keys = Counter(map(key, names))
    if len(keys) == len(names):
        return ()
    last = {key(n): n for n in written}
    return tuple(n for k, n in last.items() if keys[k] > 1)


def _meta_names(outline: Outline, block: Block, flavor: Flavor, settings: Settings) -> list[str]:
    """The names ``block`` refers to by its property keys, task marker and priority (the page
    properties are the first block's, the pre-block's)."""
    props = outline.page_properties if block.kind == "preamble" else block.properties
    if props or block.marker or block.priority:
        return flavor.meta_pages(props, block.marker, block.priority, settings)
    return []


def _link_lines(
    outline: Outline, block: Block, kinds: frozenset[str], lines: list[str]
) -> list[Mention]:
    """Obsidian's backlinks are the links themselves: a mention per line of the block that
    links a page (the block's first line shows as the block's text), none inherited.
    ``lines``: the page's lines, filled on first need."""
    refs = [r for r in block.refs if r.kind in kinds]
    if not refs:
        return []
    resolution = is_resolution(block)
    out: list[Mention] = []
    for ref in refs:
        if ref.line == block.line and block.text:
            text = block.text
        else:
            text = _line_text(outline, ref.line, lines)
        out.append((ref.target, ref.line, resolution, text))
    return out


def _property_links(outline: Outline, kinds: frozenset[str], lines: list[str]) -> list[Mention]:
    """The links of the page's front matter, each a mention on its property's line (Obsidian's
    Backlinks pane lists them as it lists a body's links), never a resolution. They belong to
    no block: the body may start with a bullet or a heading, or be empty."""
    return [
        (ref.target, ref.line, False, _line_text(outline, ref.line, lines))
        for ref in outline.page_refs
        if ref.kind in kinds
    ]


def _line_text(outline: Outline, line: int, lines: list[str]) -> str:
    """Line ``line`` of the page, stripped; ``lines``: the page's lines, split on first need."""
    if not lines:
        lines.extend(outline.text.split("\n"))
    return lines[line].strip()


def _first_text(outline: Outline, block: Block) -> str:
    lines = outline.text.split("\n", block.end)[block.line : block.end]
    return next((ln.strip() for ln in lines if ln.strip()), "")
