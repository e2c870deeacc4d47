"""The side file's per-file tables as stored: in segments of the listing, so that a page that
comes or goes rewrites its own segment only.

Why: the tables (each page file's path, head, topic and undated mentions: `sidecar.Sidecar`)
are indexed by the file's place in the listing, so a file added shifts every later one. Kept
whole in the side file's base (`cachedir.save_with_base`), every new page and every new day's
journal page wrote the base again: 2 MB at 20,000 pages, 10 MB at 100,000. Stored as a chunk
per segment of about `SEGMENT` files, a file that comes or goes changes one chunk, which the
cache file holds beside the base (`cachedir`: replaced chunks). A chunk is plain bytes (its
fields' lengths, then the fields), so a segment that did not change encodes to the same bytes.
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_right
from itertools import accumulate
from operator import sub

TYPE_CHECKING = False  # not typing's: a patch loads this module
if TYPE_CHECKING:
    from .sidecar import Sidecar

    #: The per-file tables as `decode` gives them back: the paths of each segment joined by
    #: NULs, then `Sidecar.heads`, ``own``, ``spans`` and ``pairs``.
    Tables = tuple[list[str], bytes, array[int], array[int], array[int]]

#: Files a segment holds when the tables are cut (`cut`): some 20 KB, so that the segments of
#: several pages added fit in the share of the base a cache file may hold (`cachedir`) before
#: the base is written anew. One that grew past twice this is cut again (every later segment
#: moves: the base is written anew, once a segment has taken this many more files).
SEGMENT = 256
#: A chunk's head: the byte lengths of its paths, heads, topics, counts and pairs.
_HEADER = struct.Struct("<5I")


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


def paths_between(segments: list[str], sizes: list[int], lo: int, hi: int) -> list[str]:
    """The paths at places ``lo`` to ``hi`` of the listing, split from their segments only."""
    starts = list(accumulate(sizes, initial=0))
    hi = min(hi, starts[-1])
    if lo >= hi:
        return []
    first, last = bisect_right(starts, lo) - 1, bisect_right(starts, hi - 1)
    paths = "\0".join(segments[first:last]).split("\0")
    return paths[lo - starts[first] : hi - starts[first]]


def encode(side: Sidecar, sizes: list[int]) -> tuple[bytes, ...]:
    """A chunk per segment of ``sizes``: its paths, then its files' heads, topics, counts of
    undated mentions (not the running `Sidecar.spans`, which a page added shifts) and pairs."""
    from .sidecar import HEAD

    chunks, lo = [], 0
    spans, width = side.spans, HEAD
    for segment, size in zip(side.segments, sizes, strict=True):
        hi = lo + size
        fields = (
            segment.encode("utf-8", "surrogatepass"),
            side.heads[lo * width : hi * width],
            side.own[lo:hi].tobytes(),
            array("i", map(sub, spans[lo + 1 : hi + 1], spans[lo:hi])).tobytes(),
            side.pairs[2 * spans[lo] : 2 * spans[hi]].tobytes(),
        )
        chunks.append(_HEADER.pack(*map(len, fields)) + b"".join(fields))
        lo = hi
    return tuple(chunks)


def decode(chunks: object) -> Tables:
    """The tables `encode` stored; ValueError if ``chunks`` are not such."""
    if type(chunks) is not tuple or not all(type(c) is bytes for c in chunks):
        raise ValueError("not segments")
    segments: list[str] = []
    fields: list[list[bytes]] = [[], [], [], []]
    for chunk in chunks:
        lengths = _HEADER.unpack_from(chunk)
        at = _HEADER.size
        if at + sum(lengths) != len(chunk):
            raise ValueError("a segment of another length")
        ends = list(accumulate(lengths, initial=at))
        segments.append(chunk[ends[0] : ends[1]].decode("utf-8", "surrogatepass"))
        for k in range(4):
            fields[k].append(chunk[ends[k + 1] : ends[k + 2]])
    own, counts, pairs = array("i"), array("i"), array("i")
    own.frombytes(b"".join(fields[1]))
    counts.frombytes(b"".join(fields[2]))
    pairs.frombytes(b"".join(fields[3]))
    spans = array("i", accumulate(counts, initial=0))
    return segments, b"".join(fields[0]), own, spans, pairs


def came_and_gone(
    before: list[str], after: list[str], run: int = 1024
) -> tuple[list[str], list[str]]:
    """The paths only ``after`` holds and those only ``before`` holds, of two listings in path
    order: their common head and tail are compared ``run`` paths at a time, in C, and sets are
    made of what lies between (sets of every path cost 50 ms at 100,000 files)."""
    head, room = 0, min(len(before), len(after))
    while head < room and before[head : head + run] == after[head : head + run]:
        head += run
    while head < room and before[head] == after[head]:
        head += 1
    tail, b, a = 0, len(before), len(after)
    while tail < room - head:
        k = min(run, room - head - tail)
        if before[b - tail - k : b - tail] != after[a - tail - k : a - tail]:
            break
        tail += k
    while tail < room - head and before[b - 1 - tail] == after[a - 1 - tail]:
        tail += 1
    was, now = set(before[head : b - tail]), set(after[head : a - tail])
    return sorted(now - was), sorted(was - now)
