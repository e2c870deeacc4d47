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
from bisect import bisect_right
from itertools import accumulate, pairwise
from operator import sub

TYPE_CHECKING = False  # not typing's: a patch loads this module
if TYPE_CHECKING:
    from .cachedir import Base
    from .sidecar import Sidecar

    #: The per-file tables as `decode` gives them back: the paths of each segment joined by
    #: NULs, then `Sidecar.stats`, ``heads``, ``own`` and ``pairs``.
    Tables = tuple[list[str], array[int], bytes, array[int], array[int]]

#: Files a segment holds when the tables are cut (`cut`): its chunks some 20 KB together, so
#: that those of several changes fit in the share of the base a cache file may hold
#: (`cachedir`) before the base is written anew. One that grew past twice this is cut again
#: (every later segment moves: the base is written anew, once a segment took this many more).
SEGMENT = 256
#: The tables stored, each as a tuple of a chunk per segment: the paths joined by NULs (UTF-8),
#: the stats, heads and topics, how many undated mentions each file has (not the running
#: `Sidecar.spans`, which a page added shifts) and their pairs.
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


def resized(sizes: list[int], gone: list[int], came: list[int]) -> list[int]:
    """The segment sizes after the files at ``gone`` (places in the listing before) went and
    those at ``came`` (places in the listing after, each inserted in turn in ascending order,
    as `sidecar.relist` does) came: each goes into the segment of the file before it."""
    sizes = list(sizes)
    starts = list(accumulate(sizes, initial=0))
    for n in gone:
        sizes[bisect_right(starts, n) - 1] -= 1
    for n in sorted(came):
        if not sizes:
            sizes.append(0)
        starts = list(accumulate(sizes, initial=0))
        sizes[0 if n == 0 else bisect_right(starts, n - 1) - 1] += 1
    return sizes


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
    ):
        out[name] = _chunks(read.get(name, ()), column, [b * width for b in bounds])
    spans = side._spans
    if spans is None:  # the counts as read (`Sidecar.spans`), and each segment's pairs with them
        out["counts"] = read["counts"]
        pairs = list(accumulate(map(len, read["pairs"]), initial=0))
    else:
        out["counts"] = _counts(read, out, spans, bounds)
        pairs = [8 * spans[b] for b in bounds]
    out["pairs"] = _chunks(read.get("pairs", ()), side.pairs, pairs)
    return out


def _counts(
    read: dict[str, tuple[bytes, ...]],
    now: dict[str, tuple[bytes, ...]],
    spans: array[int],
    bounds: list[int],
) -> tuple[bytes, ...]:
    """Each segment's counts of undated mentions: those read where its paths and stats are
    the same and it has as many mentions (a file's mentions change only where it was read
    again, its stat changed, or it came or went), else made of ``spans`` (a step a file)."""
    counts, pairs = read.get("counts", ()), read.get("pairs", ())
    paths, stats = read.get("paths", ()), read.get("stats", ())
    out = []
    for k, (lo, hi) in enumerate(pairwise(bounds)):
        if (
            k < len(counts)
            and now["stats"][k] is stats[k]  # `_chunks`: the one read where equal
            and now["paths"][k] == paths[k]
            and len(pairs[k]) == 8 * (spans[hi] - spans[lo])
        ):
            out.append(counts[k])
        else:
            out.append(array("i", map(sub, spans[lo + 1 : hi + 1], spans[lo:hi])).tobytes())
    return tuple(out)


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
    paths, stats, heads, own, _counts, pairs = fields
    lengths = [sum(map(len, f)) for f in fields[1:]]
    files = lengths[0] // 24  # the paths are counted by `sidecar.Sidecar`, which checks them
    per_file = [24 * files, HEAD * files, 4 * files, 4 * files]
    if len(set(map(len, fields))) > 1 or lengths[:4] != per_file or lengths[4] % 8:
        raise ValueError("tables of other lengths")
    segments = [str(c, "utf-8", "surrogatepass") for c in paths]
    columns = array("Q"), array("i"), array("i")
    for column, chunks in zip(columns, (stats, own, pairs), strict=True):
        column.frombytes(b"".join(chunks))
    return segments, columns[0], b"".join(heads), columns[1], columns[2]
