"""The summary's side file: what patching the status summary needs beyond the summary itself.

Written beside the summary when it is built (`remember`) and kept up to date by each patch
(`summary_patch`): every page file in listing order with its stat and its *head* (what it
gives the registry besides the names it references), where each name as written in a folder
lands (topic positions), each ordinary page's undated mentions, which file titles each page
without a file, and the property keys and aliases the vault uses. A derived cache, marshalled,
what a journal edit leaves alone in a base file of its own (`cachedir.save_with_base`); one of
another shape or format is never read (the summary is rebuilt).
"""

from __future__ import annotations

import functools
import marshal
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate

from . import walk
from .buckets import bucket_of, split
from .cachedir import Base, Read, load_with_base, save_with_base
from .digests import blake2b
from .facts import PageFacts
from .flavors import Flavor, parsed_first
from .records import NamedTuple, Record
from .segments import FIELDS, cut, decode, encode, joined, paths_between, relisted, sizes_of
from .summary import FORMAT, MAX_PARTS, Summary

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

    from .queries import Graph
    from .vault import Vault
    from .walk import Stat

#: More changed files than this share of the vault (and this many): a rebuild, which reuses the
#: index for the rest, is as quick (measured on the 20k-page bench vault: 100 patched 0.5 s over a
#: warm run, a rebuild 3.5 s; 1000 about even).
MAX_SHARE, MAX_CHANGED = 1 / 40, 64


Landings = dict[str, dict[str, tuple[int, ...]]]


class Targets:
    """Per folder of the linking file ("" where the flavor resolves names the same from
    everywhere), where each name as written lands: the topics (positions) it counts in.

    Kept in buckets of names by a stable hash, each decoded when a name in it is first looked
    up (`get`): a patch looks up the few names its pages use, and decoding every name costs
    25 ms at 100,000 pages. What walks or changes them all (`whole`) decodes them all. Stored as
    chunks (`chunks`): the buckets, then the names added since, a chunk per patch that added
    some (a new topic), so that the side file's base is not written again for them. A bucket
    or chunk that does not decode raises `Unreadable` (the caller rebuilds)."""

    __slots__ = ("_parts", "_read", "_whole", "_added", "_stored", "_new", "changed")

    def __init__(self, whole: Landings | None, parts: dict[str, tuple[bytes, ...]] | None = None):
        self._whole = whole
        self._parts = parts or {}  # folder -> its buckets, as stored
        self._read: dict[tuple[str, int], dict[str, tuple[int, ...]]] = {}  # buckets decoded
        self._added: Landings = {}  # `set` while not `whole`, and read from later chunks
        self._stored: tuple[bytes, ...] = ()  # the chunks as read (`stored`) or last stored
        self._new: Landings = {}  # `set` since, while not `whole`
        self.changed = whole is not None  # to be stored anew (`chunks`)

    @classmethod
    def stored(cls, chunks: object) -> Targets:
        """The targets stored as ``chunks`` (`chunks`)."""
        if type(chunks) is not tuple or not chunks or not all(type(c) is bytes for c in chunks):
            raise Unreadable("targets")
        parts = _decoded(chunks[0])
        if not all(
            type(f) is str and type(b) is tuple and all(type(p) is bytes for p in b)
            for f, b in parts.items()
        ):
            raise Unreadable("targets")
        found = cls(None, parts)
        for chunk in chunks[1:]:
            for folder, names in _decoded(chunk).items():
                if type(names) is not dict:
                    raise Unreadable("targets")
                found._added.setdefault(folder, {}).update(names)
        found._stored = chunks
        return found

    def get(self, folder: str, name: str) -> tuple[int, ...] | None:
        """Where ``name``, written in a file of ``folder``, lands; None if it was not seen."""
        if self._whole is not None:
            return self._whole.get(folder, {}).get(name)
        added = self._added.get(folder)
        if added and name in added:
            return added[name]
        buckets = self._parts.get(folder)
        return self._bucket(folder, bucket_of(name, len(buckets))).get(name) if buckets else None

    def set(self, folder: str, name: str, found: tuple[int, ...]) -> None:
        """``name``, written in a file of ``folder``, lands on ``found``."""
        into = self._added if self._whole is None else self._whole
        into.setdefault(folder, {})[name] = found
        if self._whole is None:
            self._new.setdefault(folder, {})[name] = found
        self.changed = True

    def whole(self) -> Landings:
        """Every folder's names and where they land, all decoded (one that changes them marks
        them `changed`)."""
        if self._whole is None:
            self._whole = {
                folder: {
                    k: v for n in range(len(parts)) for k, v in self._bucket(folder, n).items()
                }
                for folder, parts in self._parts.items()
            }
            for folder, added in self._added.items():
                self._whole.setdefault(folder, {}).update(added)
            self._added = {}
        return self._whole

    def chunks(self, limit: int) -> tuple[bytes, ...]:
        """The targets to store: as read unless `changed`; where names were only added since,
        those read and one chunk more with those names (up to ``limit`` chunks); else the
        buckets anew, in one."""
        if self.changed or not self._stored:
            if self._whole is None and 0 < len(self._stored) < limit:
                self._stored = (*self._stored, marshal.dumps(self._new))
            else:
                self._stored = (marshal.dumps(self._parts_now()),)
            self._new, self.changed = {}, False
        return self._stored

    def _parts_now(self) -> dict[str, tuple[bytes, ...]]:
        """The buckets with every name added: as read unless `changed`; where names were only
        added, only the buckets they fall in are made anew."""
        if self.changed and self._whole is not None:
            self._parts = {folder: _buckets(memo) for folder, memo in self._whole.items()}
        elif self.changed:
            for folder, added in self._added.items():
                buckets = list(self._parts.get(folder, ()))
                if not buckets:
                    self._parts[folder] = _buckets(added)
                    continue
                for n in {bucket_of(name, len(buckets)) for name in added}:
                    memo = self._bucket(folder, n)
                    memo.update((k, v) for k, v in added.items() if bucket_of(k, len(buckets)) == n)
                    buckets[n] = marshal.dumps(memo)
                self._parts[folder] = tuple(buckets)
            self._added = {}  # in the buckets decoded now
        self.changed = False
        return self._parts

    def _bucket(self, folder: str, n: int) -> dict[str, tuple[int, ...]]:
        memo = self._read.get((folder, n))
        if memo is None:
            memo = self._read[folder, n] = _decoded(self._parts[folder][n])
        return memo


class Unreadable(Exception):
    """A part of the side file that does not decode (the caller rebuilds the summary)."""


def _decoded(part: bytes) -> dict[Any, Any]:
    """A bucket or a chunk of `Targets` (a marshalled dict), or `Unreadable`."""
    try:
        memo = marshal.loads(part)
    except (ValueError, EOFError, TypeError) as exc:
        raise Unreadable("targets") from exc
    if type(memo) is not dict:
        raise Unreadable("targets")
    return memo


def _buckets(memo: dict[str, tuple[int, ...]]) -> tuple[bytes, ...]:
    """``memo`` in buckets (`buckets.split`), marshalled."""
    return tuple(map(marshal.dumps, split(memo)))


class Sidecar(Record):
    """What patching a summary needs beyond the summary itself."""

    _cached = ("as_read", "_rels", "sizes")  # the base file read; the paths split out
    __slots__ = (
        "base",
        "stamp",
        "segments",
        "stats",
        "blocks",
        "targets",
        "by_folder",
        "aliases",
        "titled",
        "marked",
        "meta",
        "heads",
        "own",
        "counts",
        "pairs",
        "as_read",
        "_rels",
        "sizes",
    )

    def __init__(
        self,
        base: str,  # the settings and exclusions the summary was built for
        stamp: str,  # the summary it belongs to
        #: every page file, in `Vault.page_files` order: the paths of each segment of the
        #: listing (`segments`) joined by NULs, so a patch compares only the paths of the
        #: blocks whose digest changed (`same_rels`), and the whole list is split out only
        #: where it is used (`rels`)
        segments: list[str],
        stats: array[int],  # and its changed_ns, size, inode, three numbers a file
        blocks: list[bytes],  # `walk.blocks` of them: which blocks of files changed (`stats_now`)
        targets: Targets,  # where each name as written lands
        by_folder: bool,
        #: the keys of every alias (a title that is one is ambiguous) and, in Logseq, of every
        #: page that declares one (a name of such a page lands on its whole alias group)
        aliases: frozenset[str],
        #: topics without a file (they exist by being referenced, or are built in) -> the file
        #: whose spelling titles them: the first, in Logseq's parse order, that names them (""
        #: if none)
        titled: dict[int, str],
        marked: frozenset[str],  # journal files with an alias, a title or a tombstone
        meta: frozenset[str],  # the keys of every property key any file uses (each is a page)
        heads: bytes,  # `head` of every file, HEAD bytes each, in ``rels`` order
        own: array[int],  # per file, the position of the topic it is (-1: none listed)
        #: per file, how many (position, count) pairs of its undated mentions `pairs` holds,
        #: in file order (a count, not where they start: a page that comes or goes moves
        #: no other file's, `pairs_at`)
        counts: array[int],
        pairs: array[int],
        as_read: Read | None = None,  # the base file read (`load_side`)
    ) -> None:
        self.base = base
        self.stamp = stamp
        self.segments = segments
        self.stats = stats
        self.blocks = blocks
        self.targets = targets
        self.by_folder = by_folder
        self.aliases = aliases
        self.titled = titled
        self.marked = marked
        self.meta = meta
        self.heads = heads
        self.own = own
        self.counts = counts
        self.pairs = pairs
        self.as_read = as_read
        self._rels: list[str] | None = None
        self.sizes = sizes_of(segments)  # files per segment (`relist` keeps them with `rels`)

    def spans(self) -> array[int]:
        """Where each file's pairs start in `pairs` (and the last ends): a timeline's look-up
        of one topic's pairs finds the files they are in (`backlinks`)."""
        return array("i", accumulate(self.counts, initial=0))

    def pairs_at(self, n: int) -> tuple[int, int]:
        """Where file ``n``'s pairs start and end in `pairs` (counted in pairs: a sum in C, a
        millisecond at 100,000 files, where a running table shifted for each file that came
        cost five times that)."""
        lo = sum(self.counts[:n])
        return lo, lo + self.counts[n]

    def set_pairs(self, n: int, pairs: array[int]) -> None:
        """File ``n``'s pairs replaced by ``pairs``."""
        lo, hi = self.pairs_at(n)
        self.pairs[2 * lo : 2 * hi] = pairs
        self.counts[n] = len(pairs) // 2

    @property
    def rels(self) -> list[str]:
        """Every page file, in listing order (split from `segments` when first asked for)."""
        if self._rels is None:
            self._rels = [rel for segment in self.segments for rel in segment.split("\0")]
        return self._rels

    def same_rels(self, files: Sequence[Stat]) -> bool:
        """Whether the listing ``files`` holds exactly `rels`, in order: the paths of the
        blocks whose digest (`walk.blocks`: paths and stats) differs are compared, the others
        are the same by their digest."""
        if self._rels is not None:
            return self._rels == [f[0] for f in files]
        now, size = walk.blocks(files), walk.BLOCK
        if len(files) != sum(self.sizes):
            return False
        for b, (digest, was) in enumerate(zip(now, self.blocks, strict=True)):
            if digest != was:
                lo, hi = b * size, min((b + 1) * size, len(files))
                paths = [f[0] for f in files[lo:hi]]
                if paths != paths_between(self.segments, self.sizes, lo, hi):
                    return False
        return True

    def head_of(self, n: int) -> bytes:
        """File ``n``'s head (`head`, `journal_head`)."""
        return self.heads[n * HEAD : (n + 1) * HEAD]

    def set_head(self, n: int, digest: bytes) -> None:
        self.heads = self.heads[: n * HEAD] + digest + self.heads[(n + 1) * HEAD :]


HEAD = 16


def head(facts: PageFacts) -> bytes:
    """A digest of what an ordinary page gives the registry besides the names it references
    (see the module's doc): equal heads, the same page with the same names."""
    return digest(f"{facts[:4]!r}\x1e{sorted(facts.meta)!r}")  # title .. tombstone, meta names


def journal_head(facts: PageFacts, flavor: Flavor) -> bytes:
    """What a journal page gives the registry besides its mentions: the property keys it uses
    (a page without a file that is one is a property page; markers and priorities are built-in
    pages either way)."""
    return digest("\x1f".join(sorted(meta_keys(facts, flavor))))


def meta_keys(facts: PageFacts, flavor: Flavor) -> set[str]:
    """The keys of the property keys a page uses (see `journal_head`)."""
    if not facts.meta:
        return set()
    key = flavor.page_key
    return {key(n) for n in facts.meta} - _built_in_keys(flavor)


@functools.cache
def _built_in_keys(flavor: Flavor) -> frozenset[str]:
    return frozenset(flavor.page_key(n) for n in flavor.built_in_pages)


def digest(text: str) -> bytes:
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=HEAD).digest()


NO_KEYS = digest("")  # `journal_head` of a journal page that uses no property key


def file_stats(files: Sequence[Stat]) -> array[int]:
    """Each file's change time, size and inode as unsigned 64-bit numbers (an inode may use the
    top bit, as overlayfs's and NFS's do; a time before 1970 is negative, kept as its two's
    complement). Made a column at a time in C: a Python step per number cost 25 ms at 20,000
    files."""
    out = array("Q", bytes(24 * len(files)))
    if files:
        _rels, changed, sizes, inodes = zip(*files, strict=True)
        out[0::3] = array("Q", array("q", changed).tobytes())
        out[1::3], out[2::3] = array("Q", sizes), array("Q", inodes)
    return out


def stats_now(files: Sequence[Stat], side: Sidecar, relisted: bool = False) -> array[int]:
    """`file_stats` of the listing ``files``, made only for the blocks of files whose digest
    (`walk.blocks`) differs from the side file's, or where pages came or went (``relisted``:
    its tables follow the listing, `relist`, so only stats can differ) whose stats differ
    from the side file's as they now fall in blocks: compared as bytes, with the columns the
    listing's digests were made of (`walk.block_stats`; converting every number of a hundred
    thousand files costs 50 ms, digesting them again 10 ms)."""
    now, size = walk.blocks(files), walk.BLOCK
    if not relisted and len(now) != len(side.blocks):
        return file_stats(files)
    out = array("Q", side.stats)
    for b, digest in enumerate(now):
        if not relisted and digest == side.blocks[b]:
            continue
        lo, hi = b * size, min(len(files), (b + 1) * size)
        columns = walk.block_stats(files, b)
        block = array("Q", bytes(24 * (hi - lo)))
        for k, column in enumerate(columns):
            block[k::3] = array("Q", column)
        if block != side.stats[3 * lo : 3 * hi]:
            out[3 * lo : 3 * hi] = block
    return out


def stat_of(side: Sidecar, n: int) -> tuple[int, int, int]:
    """File ``n``'s change time, size and inode as `_stats` keeps them."""
    when, size, inode = side.stats[3 * n : 3 * n + 3]
    return (when - (1 << 64) if when >> 63 else when), size, inode


def differing(now: array[int], then: array[int], block: int = 256) -> list[int]:
    """The files whose three numbers differ, compared a block of files at a time."""
    out = []
    width = 3 * block
    for start in range(0, len(now), width):
        if now[start : start + width] != then[start : start + width]:
            end = min(start + width, len(now))
            out += [k // 3 for k in range(start, end, 3) if now[k : k + 3] != then[k : k + 3]]
    return out


def side_path(summary_path: str) -> str:
    return summary_path + "-side"


def remember(
    summary_path: str, graph: Graph, summary: Summary, files: Sequence[Stat], base: str
) -> None:
    """Keep what a later patch of ``summary`` needs (called when it was built and saved)."""
    listed = graph.listed(all_pages=True)  # in Summary.of's order
    position = {id(t): i for i, t in enumerate(listed)}
    targets = {
        folder: {
            name: tuple(position[id(t)] for _key, t in found if id(t) in position)
            for name, found in memo.items()
        }
        for folder, memo in graph.resolved.items()
    }
    marked = frozenset(
        rel
        for rel, facts in graph.index.files.items()
        if facts.date is not None and (facts.aliases or facts.superseded_by)
    )
    undated: dict[str, dict[int, int]] = {}  # file -> topic position -> undated mentions
    for i, topic in enumerate(listed):
        for b in topic.backlinks:
            if b.date is None:
                per = undated.setdefault(b.path, {})
                per[i] = per.get(i, 0) + 1
    registry, facts = graph.registry, graph.index.files
    # every file's aliases: of two files that make one page, the page may keep one's only
    declared = [f for f in facts.values() if f.aliases]
    aliases = {registry.key(a) for p in registry for a in p.aliases}
    aliases.update(registry.key(a) for f in declared for a in f.aliases)
    if not registry.wiki:  # Logseq: a name of a page with aliases lands on its alias group
        aliases.update(registry.key(p.title) for p in registry if p.aliases)
        aliases.update(registry.key(f.title) for f in declared)
    meta = frozenset(k for f in facts.values() for k in meta_keys(f, registry.flavor))
    titled = {  # the first file, in Logseq's parse order, to name a page without a file
        i: parsed_first(b.path for b in topic.backlinks)
        for i, topic in enumerate(listed)
        if topic.page.path is None
    }
    heads, own, counts, pairs = bytearray(), array("i"), array("i"), array("i")
    rels = [f[0] for f in files]  # `PageFile`s, or the plain tuples of a listing
    for rel in rels:
        fact = facts.get(rel)
        if fact is None:
            heads += bytes(HEAD)
        else:  # a journal page is patched by its mentions (`summary_patch._fresh_mentions`)
            heads += head(fact) if fact.date is None else journal_head(fact, registry.flavor)
        mine = graph.topics.get(registry.file_identity(rel, fact)) if fact else None
        own.append(position.get(id(mine), -1))
        named = undated.get(rel, {})
        for i, n in sorted(named.items()):
            pairs.extend((i, n))
        counts.append(len(named))
    side = Sidecar(
        base,
        summary.stamp,
        joined(rels, cut([len(rels)])),
        file_stats(files),
        walk.blocks(files),
        Targets(targets),
        registry.wiki,
        frozenset(aliases),
        titled,
        marked,
        meta,
        bytes(heads),
        own,
        counts,
        pairs,
    )
    save_side(summary_path, side)


#: The side file's fields kept in its base file (`cachedir.save_with_base`), as bytes: the
#: costly ones (a tenth of a second each way at 100,000 files), which a patch changes in a
#: few places at most, so it writes neither them nor their bytes again: where names land, and
#: the per-file tables (paths, stats, heads, topics, undated mentions) a chunk per segment of
#: the listing (`segments`), of which a patch writes those it changed.
_TABLES = ("segments", "stats", "heads", "own", "counts", "pairs")
_BASE = ("targets", *FIELDS)


def save_side(summary_path: str, side: Sidecar) -> None:
    """Write the side file of the summary at ``summary_path`` (a cache: errors only cost speed)."""
    fields = side._asdict()
    read = fields.pop("as_read")
    for name in ("_rels", "sizes", "targets", *_TABLES):
        del fields[name]
    base: Base = {"targets": side.targets.chunks(MAX_PARTS), **encode(side, side.sizes)}
    save_with_base(side_path(summary_path), {"format": FORMAT, **fields}, base, read)


def load_side(summary_path: str) -> Sidecar | None:
    """The side file of the summary at ``summary_path``; None if it is missing, of another
    format or corrupt (the summary is rebuilt)."""
    found = load_with_base(side_path(summary_path))
    if found is None:
        return None
    fields, read = found
    base = read[1]
    try:
        if fields.pop("format") != FORMAT or base.keys() != set(_BASE):
            return None
        segments, stats, heads, own, counts, pairs = decode(base)
        fields.update(segments=segments, stats=stats, heads=heads, own=own, counts=counts)
        fields.update(pairs=pairs, as_read=read)
        fields["targets"] = Targets.stored(base["targets"])
        side = Sidecar(**fields)  # type: ignore[arg-type]
        if not _complete(side):
            return None
        return side
    except Exception:  # foreign or corrupt: the caller rebuilds
        return None


def _complete(side: Sidecar) -> bool:
    """Whether a side file read has every field, each of its type, and a block of paths
    per block digest (a cache written by another version must be rebuilt, never half-read)."""
    kinds = {
        "base": str,
        "stamp": str,
        "segments": list,
        "stats": array,
        "blocks": list,
        "targets": Targets,
        "by_folder": bool,
        "aliases": frozenset,
        "titled": dict,
        "marked": frozenset,
        "meta": frozenset,
        "heads": bytes,
        "own": array,
        "counts": array,
        "pairs": array,
        "as_read": tuple,
        "_rels": type(None),
        "sizes": list,
    }
    fields, files = side._asdict(), sum(side.sizes)
    return (
        fields.keys() == kinds.keys()
        and all(isinstance(fields[k], t) for k, t in kinds.items())
        and len(side.blocks) == -(-files // walk.BLOCK)  # a digest per block of files
        and len(side.stats) == 3 * files  # a path per file (`segments.decode`)
    )


class Dropped(NamedTuple):
    """An ordinary page that went, as the side file knew it."""

    rel: str
    topic: int  # its position
    head: bytes
    pairs: list[tuple[int, int]]  # the topics it named (positions) and how many times


def relist(
    vault: Vault, side: Sidecar, rels: list[str]
) -> tuple[list[str], list[str], list[Dropped]] | None:
    """The pages that came, the journal pages that went and the ordinary pages that went since
    ``side`` was written, its per-file tables made to follow the new listing ``rels`` (one that
    came reads as changed: its stat is zeros); None when a journal page that went gave the
    registry anything but its mentions (an alias, a title, a property key: `journal_head`) or
    an ordinary page that went was no topic."""
    segments, sizes, came, went = relisted(side.segments, side.sizes, rels)
    gone = [rel for _n, rel in went]
    if len(came) + len(gone) > MAX_CHANGED or any(r.endswith(".org") for r in came + gone):
        return None
    if any(rel in side.marked for rel in gone):
        return None
    heads, width, dropped = bytearray(side.heads), 3, []
    for n, rel in reversed(went):
        lo, hi = side.pairs_at(n)
        own = heads[n * HEAD : (n + 1) * HEAD]
        if vault.date_of(rel) is None:
            if side.own[n] < 0:
                return None  # an excluded page, or one whose title another file took
            pairs = [(side.pairs[2 * k], side.pairs[2 * k + 1]) for k in range(lo, hi)]
            dropped.append(Dropped(rel, side.own[n], bytes(own), pairs))
            del side.pairs[2 * lo : 2 * hi]
        elif lo != hi or own != NO_KEYS:
            return None
        del side.own[n], side.counts[n]
        del side.stats[width * n : width * (n + 1)], heads[n * HEAD : (n + 1) * HEAD]
    for n in (bisect_left(rels, rel) for rel in came):
        side.own.insert(n, -1)
        side.counts.insert(n, 0)
        side.stats[width * n : width * n] = array("Q", bytes(8 * width))
        heads[n * HEAD : n * HEAD] = NO_KEYS  # its own follows once it is read
    side.heads = bytes(heads)
    side.segments, side.sizes, side._rels = segments, sizes, rels
    journals = [rel for rel in gone if vault.date_of(rel) is not None]
    return came, journals, dropped
