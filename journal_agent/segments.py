"""The side file's per-file tables as stored: in segments of the listing, so that a file that
changes, comes or goes rewrites its own segment's pieces only.

Why: the tables (each page file's path, stat, head, topic and undated mentions:
`sidecar.Sidecar`) are indexed by the file's place in the listing, so a file added shifts every
later one. Kept whole, every new page and every new day's journal page wrote the side file's
base (`cachedir.save_with_base`) again, 2 MB at 20,000 pages and 10 MB at 100,000, and every
edit the stats, 2.4 MB at 100,000. Stored as a chunk per segment of about `SEGMENT` files and
per table (`FIELDS`), a file that changes, comes or goes changes its segment's chunks, which
the cache file holds beside the base (`cachedir`: chunks replaced in place). A chunk that did
not change is the very one read, so the base file is neither written nor compared again.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate, pairwise

TYPE_CHECKING = False  # not typing's: a patch loads this module
if TYPE_CHECKING:
    from .cachedir import Base
    from .sidecar import Sidecar

    #: The per-file tables as `decode` gives them back: the paths of each segment joined by
    #: NULs, then `Sidecar.stats`, ``heads``, ``own``, ``counts`` and ``pairs``.
    Tables = tuple[list[str], array[int], bytes, array[int], array[int], array[int]]

#: Files a segment holds when the tables are cut (`cut`): its chunks some 20 KB together, so
#: that those of several changes fit in the share of the base a cache file may hold
#: (`cachedir`) before the base is written anew. One that grew past twice this is cut again
#: (every later segment moves: the base is written anew, once a segment took this many more).
SEGMENT = 256
#: The tables stored, each as a tuple of a chunk per segment: the paths joined by NULs (UTF-8),
#: the stats, heads and topics, how many (topic, count) pairs of undated mentions each file
#: has, and those pairs.
FIELDS = ("paths", "stats", "heads", "own", "counts", "pairs")


def sizes_of(segments: list[str]) -> list[int]:
    """How many paths each segment holds."""
    return [s.count("\0") + 1 for s in segments]


def cut(sizes: list[int]) -> list[int]:
    """Segment sizes with the empty ones gone and those past twice `SEGMENT` cut in pieces of
    `SEGMENT` (the last one keeps the rest)."""
    out: list[int] = []
    for size in sizes:
        pieces = size // SEGMENT - 1
        if size > 2 * SEGMENT:
            out += [SEGMENT] * pieces + [size - SEGMENT * pieces]
        elif size:
            out.append(size)
    return out


def relisted(
    segments: list[str], sizes: list[int], rels: list[str]
) -> tuple[list[str], list[int], list[str], list[tuple[int, str]]]:
    """The segments and their sizes made to follow the listing ``rels`` (in path order, as the
    segments are), the paths that came, and the places (in the listing before) and paths of
    those that went. Each segment is compared whole with the paths of ``rels`` that fall in
    its range (from its first path to the next segment's), joined, in C; only a segment that
    differs is split into paths and made anew (splitting every path of a hundred thousand
    files cost 8 ms): its files that stay stay in it, and a file that came goes into the
    segment of the file before it (the first segment at the very start)."""
    if not segments:  # no file before: every one came
        return joined(rels, cut([len(rels)])), cut([len(rels)]), list(rels), []
    out: list[str] = []
    out_sizes: list[int] = []
    came: list[str] = []
    gone: list[tuple[int, str]] = []
    at = start = 0
    for k, (segment, size) in enumerate(zip(segments, sizes, strict=True)):
        last = k + 1 == len(segments)
        end = len(rels) if last else bisect_left(rels, segments[k + 1].partition("\0")[0], at)
        if end - at == size and "\0".join(rels[at:end]) == segment:
            out.append(segment)
            out_sizes.append(size)
        else:
            was, now = segment.split("\0"), rels[at:end]
            kept, stay = set(now), set(was)
            came += [rel for rel in now if rel not in stay]
            gone += [(start + n, rel) for n, rel in enumerate(was) if rel not in kept]
            for lo, hi in pairwise(accumulate(cut([len(now)]), initial=0)):
                out.append("\0".join(now[lo:hi]))
                out_sizes.append(hi - lo)
        at, start = end, start + size
    return out, out_sizes, came, gone


def joined(rels: list[str], sizes: list[int]) -> list[str]:
    """The paths ``rels`` as segments of ``sizes``, each joined by NULs."""
    return ["\0".join(rels[lo:hi]) for lo, hi in pairwise(accumulate(sizes, initial=0))]


def paths_between(segments: list[str], sizes: list[int], lo: int, hi: int) -> list[str]:
    """The paths at places ``lo`` to ``hi`` of the listing, split from their segments only."""
    starts = list(accumulate(sizes, initial=0))
    hi = min(hi, starts[-1])
    if lo >= hi:
        return []
    first, last = bisect_right(starts, lo) - 1, bisect_right(starts, hi - 1)
    paths = "\0".join(segments[first:last]).split("\0")
    return paths[lo - starts[first] : hi - starts[first]]


def encode(side: Sidecar, sizes: list[int]) -> dict[str, tuple[bytes, ...]]:
    """The tables as `FIELDS` chunks per segment of ``sizes``; each chunk equal to the one read
    (`Sidecar.as_read`) is that one, so `cachedir` finds it unchanged without comparing."""
    from .sidecar import HEAD

    read: dict[str, tuple[bytes, ...]] = side.as_read[1] if side.as_read else {}  # type: ignore[assignment]
    bounds = list(accumulate(sizes, initial=0))
    paths = read.get("paths") if side._rels is None else None  # never split: as read
    if paths is None:
        paths = tuple(p.encode("utf-8", "surrogatepass") for p in side.segments)
    out = {"paths": paths}
    for name, column, width in (
        ("stats", side.stats, 24),
        ("heads", side.heads, HEAD),
        ("own", side.own, 4),
        ("counts", side.counts, 4),
    ):
        out[name] = _chunks(read.get(name, ()), column, [b * width for b in bounds])
    counts = side.counts  # each segment's pairs: as many as its files count
    pairs = accumulate((8 * sum(counts[lo:hi]) for lo, hi in pairwise(bounds)), initial=0)
    out["pairs"] = _chunks(read.get("pairs", ()), side.pairs, list(pairs))
    return out


def _chunks(
    was: tuple[bytes, ...], column: bytes | array[int], bounds: list[int]
) -> tuple[bytes, ...]:
    """``column``'s bytes between each two ``bounds``, the chunk ``was`` where it is equal."""
    view = memoryview(column).cast("B")
    out = []
    for k, (lo, hi) in enumerate(pairwise(bounds)):
        piece = view[lo:hi].tobytes()  # bytes: a memoryview compares byte by byte, not in C
        out.append(was[k] if k < len(was) and piece == was[k] else piece)
    return tuple(out)


def decode(base: Base) -> Tables:
    """The tables `encode` stored in ``base``; ValueError if they are not such (another
    shape, tables of other lengths)."""
    from .sidecar import HEAD

    fields: list[tuple[bytes, ...]] = []
    for name in FIELDS:
        chunks = base.get(name)
        if type(chunks) is not tuple or not all(type(c) is bytes for c in chunks):
            raise ValueError(f"not segments: {name}")
        fields.append(chunks)
    paths, stats, heads, own, counts, pairs = fields
    lengths = [sum(map(len, f)) for f in fields[1:]]
    files = lengths[0] // 24  # the paths are counted by `sidecar.Sidecar`, which checks them
    per_file = [24 * files, HEAD * files, 4 * files, 4 * files]
    if len(set(map(len, fields))) > 1 or lengths[:4] != per_file or lengths[4] % 8:
        raise ValueError("tables of other lengths")
    segments = [str(c, "utf-8", "surrogatepass") for c in paths]
    columns = array("Q"), array("i"), array("i"), array("i")
    for column, chunks in zip(columns, (stats, own, counts, pairs), strict=True):
        column.frombytes(b"".join(chunks))
    if 2 * sum(columns[2]) != len(columns[3]) or min(columns[2], default=0) < 0:
        raise ValueError("pairs that the counts do not count")
    return segments, columns[0], b"".join(heads), columns[1], columns[2], columns[3]
