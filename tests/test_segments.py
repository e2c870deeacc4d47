"""The side file's per-file tables in segments (`journal_agent.segments`): the sizes follow the
pages that come and go, the paths and tables read back as they were written, and a segment
that did not change encodes to the same bytes."""

from __future__ import annotations

import bisect
import itertools
import random
from array import array
from itertools import accumulate, pairwise
from typing import cast

import pytest

from journal_agent import segments, sidecar, walk


@pytest.mark.parametrize("seed", range(8))
def test_sizes_follow_the_files_that_came_and_went(seed: int) -> None:
    """`resized`, given where files went (in the listing before) and came (in the listing
    after, inserted in turn): every file stays in the segment it was in, each new file goes
    into the segment of the file before it (the first segment at the very start), and the
    sizes add up to the new listing."""
    rng = random.Random(seed)
    for _ in range(200):
        sizes = [rng.randint(1, 5) for _ in range(rng.randint(0, 6))]
        before = [(k, n) for k, size in enumerate(sizes) for n in range(size)]  # (segment, n)
        went = sorted(rng.sample(range(len(before)), rng.randint(0, len(before))))
        after = [f for i, f in enumerate(before) if i not in went]
        came: list[int] = []
        for _ in range(rng.randint(0, 4)):
            at = rng.randint(0, len(after))
            after.insert(at, (after[at - 1][0] if at else 0, -1) if after or sizes else (0, -1))
            came = [c + (c >= at) for c in came] + [at]
        got = segments.resized(sizes, went, came)
        want = [0] * max(len(sizes), 1 if after else 0)
        for k, _n in after:
            want[k] += 1
        assert got[: len(want)] == want and sum(got) == len(after)


def test_cut_drops_empty_segments_and_cuts_big_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(segments, "SEGMENT", 4)
    assert segments.cut([]) == [] and segments.cut([0]) == []
    assert segments.cut([3, 0, 8, 9, 1]) == [3, 8, 4, 5, 1]
    assert segments.cut([20]) == [4, 4, 4, 4, 4] and segments.cut([23]) == [4, 4, 4, 4, 7]


@pytest.mark.parametrize("seed", range(4))
def test_paths_between_any_places_are_the_listings(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        paths = [f"p/{n:03}.md" for n in range(rng.randint(1, 30))]
        cuts = sorted(rng.sample(range(1, len(paths)), rng.randint(0, len(paths) - 1)))
        bounds = [0, *cuts, len(paths)]
        parts = ["\0".join(paths[a:b]) for a, b in pairwise(bounds)]
        sizes = segments.sizes_of(parts)
        assert sizes == [b - a for a, b in pairwise(bounds)]
        lo = rng.randint(0, len(paths))
        hi = rng.randint(lo, len(paths) + 3)
        assert segments.paths_between(parts, sizes, lo, hi) == paths[lo:hi]


def _side(paths: list[str], rng: random.Random, sizes: list[int]) -> sidecar.Sidecar:
    counts = [rng.randint(0, 3) for _ in paths]
    spans = array("i", accumulate(counts, initial=0))
    starts = list(accumulate(sizes, initial=0))
    return sidecar.Sidecar(
        "", "", ["\0".join(paths[a:b]) for a, b in pairwise(starts)],
        sidecar.file_stats([(p, rng.randint(-(2**62), 2**62), rng.randint(0, 9), 2**64 - 1 - n)
                            for n, p in enumerate(paths)]),
        walk.blocks([]), sidecar.Targets({}),
        False, frozenset(), {}, frozenset(), frozenset(), rng.randbytes(sidecar.HEAD * len(paths)),
        array("i", (rng.randint(-1, 50) for _ in paths)), spans,
        array("i", (rng.randint(0, 50) for _ in range(2 * spans[-1]))),
    )  # fmt: skip


def _changed(before: dict[str, tuple[bytes, ...]], after: dict[str, tuple[bytes, ...]]) -> set[int]:
    """The segments any of whose chunks differ."""
    assert before.keys() == after.keys() == set(segments.FIELDS)
    return {
        k
        for name in before
        for k, (a, b) in enumerate(zip(before[name], after[name], strict=True))
        if a != b
    }


def _read(side: sidecar.Sidecar, sizes: list[int]) -> sidecar.Sidecar:
    """``side`` stored and read back, as `sidecar.load_side` makes it (its counts not yet
    made running)."""
    stored = segments.encode(side, sizes)
    paths, stats, heads, own, pairs = segments.decode(stored)  # type: ignore[arg-type]
    return sidecar.Sidecar(
        "", "", paths, stats, side.blocks, side.targets, False, frozenset(), {}, frozenset(),
        frozenset(), heads, own, None, pairs, ("token", dict(stored), dict(stored)),
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_tables_read_back_as_written_and_an_unchanged_segment_is_the_same_bytes(
    seed: int,
) -> None:
    """`encode` then `decode` gives the tables back (paths with any characters a file name may
    hold, surrogates of undecodable bytes too; stats before 1970, inodes with the top bit), the
    counts as read until they are asked for; a segment whose files and tables did not change
    encodes to the very chunks read while a file of another is edited or a page is added to
    another; tables that are not these are refused."""
    rng = random.Random(seed)
    names = ["a", "é", "日本", "x y", "\udcff", "b\u0301"]
    for _ in range(30):
        paths = sorted({f"p/{rng.choice(names)}{n}.md" for n in range(rng.randint(1, 40))})
        sizes = segments.cut([len(paths)]) if rng.random() < 0.3 else []
        if not sizes:
            cuts = sorted(rng.sample(range(1, len(paths)), rng.randint(0, len(paths) - 1)))
            sizes = [b - a for a, b in pairwise([0, *cuts, len(paths)])]
        made = _side(paths, rng, sizes)
        side = _read(made, sizes)
        assert (side.segments, side.stats, side.heads, side.own, side.pairs) == (
            made.segments, made.stats, made.heads, made.own, made.pairs
        )  # fmt: skip
        chunks = segments.encode(side, sizes)
        assert side._spans is None and chunks == segments.encode(made, sizes)
        assert side.as_read is not None
        read = cast("dict[str, tuple[bytes, ...]]", side.as_read[1])
        assert all(a is b for n in chunks for a, b in zip(chunks[n], read[n], strict=True))
        assert side.spans == made.spans and segments.encode(side, sizes) == chunks
        n = rng.randrange(len(paths))  # a file edited: its stat changes, in its segment only
        side.stats[3 * n] += 1
        k = bisect.bisect_right(list(itertools.accumulate(sizes)), n)
        assert _changed(chunks, segments.encode(side, sizes)) == {k}
        side = _read(side, sizes)
        chunks = segments.encode(side, sizes)
        n = rng.randrange(len(paths))  # an ordinary page edited: one more undated mention
        side.stats[3 * n] += 1
        lo = side.spans[n + 1]
        side.pairs[2 * lo : 2 * lo] = array("i", [3, 2])
        side.spans = array("i", [*side.spans[: n + 1], *(s + 1 for s in side.spans[n + 1 :])])
        k = bisect.bisect_right(list(itertools.accumulate(sizes)), n)
        assert _changed(chunks, segments.encode(side, sizes)) == {k}
        spans = side.spans
        side = _read(side, sizes)
        assert side.spans == spans
        chunks = segments.encode(side, sizes)
        k = rng.randrange(len(sizes))  # a page and its mentions added to segment k
        at = sum(sizes[:k]) + rng.randint(0, sizes[k])
        side._rels = [*side.rels[:at], "p/new.md", *side.rels[at:]]
        width = sidecar.HEAD
        side.heads = side.heads[: width * at] + bytes(width) + side.heads[width * at :]
        side.own.insert(at, -1)
        side.stats[3 * at : 3 * at] = array("Q", [5, 6, 7])
        lo = side.spans[at]
        side.pairs[2 * lo : 2 * lo] = array("i", [7, 1])
        side.spans = array("i", [*side.spans[: at + 1], *(s + 1 for s in side.spans[at:])])
        sizes[k] += 1
        side.segments = [
            "\0".join(side.rels[a:b]) for a, b in pairwise(accumulate(sizes, initial=0))
        ]
        assert _changed(chunks, segments.encode(side, sizes)) == {k}
    for broken in (
        {**chunks, "paths": [b"x"]},
        {**chunks, "stats": (*chunks["stats"], b"x")},
        {**chunks, "own": (chunks["own"][0] + b"xxxx", *chunks["own"][1:])},
        {name: c for name, c in chunks.items() if name != "pairs"},
    ):
        with pytest.raises(ValueError):
            segments.decode(broken)  # type: ignore[arg-type]
