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
def test_segments_follow_the_files_that_came_and_went(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`relisted`, for listings in path order that differ anywhere (first, last, inside a
    segment, between two, every file, none): the paths that came and went are what sets of
    every path say, each one that went with its place before; the segments hold the new
    listing, cut as `cut` cuts, and each segment in whose range no file came or went is the
    very one given (not split, not joined again), as are the segments before the first."""
    monkeypatch.setattr(segments, "SEGMENT", 3)
    rng = random.Random(seed)
    for _ in range(300):
        pool = sorted({f"p/{rng.randrange(300):03}.md" for _ in range(rng.randrange(40))})
        before = [p for p in pool if rng.random() < 0.7]
        cuts = sorted(rng.sample(range(1, len(before)), max(0, rng.randint(-1, len(before) - 1))))
        sizes = [b - a for a, b in pairwise([0, *cuts, len(before)])] if before else []
        parts = segments.joined(before, sizes)
        after = sorted(p for p in pool if (p in before) != (rng.random() < 0.15))
        out, sizes, came, gone = segments.relisted(parts, segments.sizes_of(parts), after)
        assert came == sorted(set(after) - set(before))
        assert [rel for _n, rel in gone] == sorted(set(before) - set(after))
        assert all(before[n] == rel for n, rel in gone)
        assert segments.sizes_of(out) == sizes and all(n > 0 for n in sizes)
        made = [n for o, n in zip(out, sizes, strict=True) if not any(o is p for p in parts)]
        assert all(n <= 6 for n in made)  # cut as `cut` cuts
        assert "\0".join(out) == "\0".join(after) and sum(sizes) == len(after)
        firsts = [part.partition("\0")[0] for part in parts]
        for k, part in enumerate(parts):
            upto = firsts[k + 1] if k + 1 < len(parts) else None
            since = firsts[k] if k else ""
            mine = [p for p in after if since <= p and (upto is None or p < upto)]
            if mine == part.split("\0"):
                assert any(o is part for o in out), k


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
    counts = array("i", [rng.randint(0, 3) for _ in paths])
    starts = list(accumulate(sizes, initial=0))
    return sidecar.Sidecar(
        "", "", ["\0".join(paths[a:b]) for a, b in pairwise(starts)],
        sidecar.file_stats([(p, rng.randint(-(2**62), 2**62), rng.randint(0, 9), 2**64 - 1 - n)
                            for n, p in enumerate(paths)]),
        walk.blocks([]), sidecar.Targets({}),
        False, frozenset(), {}, frozenset(), frozenset(), rng.randbytes(sidecar.HEAD * len(paths)),
        array("i", (rng.randint(-1, 50) for _ in paths)), counts,
        array("i", (rng.randint(0, 50) for _ in range(2 * sum(counts)))),
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
    """``side`` stored and read back, as `sidecar.load_side` makes it."""
    stored = segments.encode(side, sizes)
    paths, stats, heads, own, counts, pairs = segments.decode(stored)  # type: ignore[arg-type]
    return sidecar.Sidecar(
        "", "", paths, stats, side.blocks, side.targets, False, frozenset(), {}, frozenset(),
        frozenset(), heads, own, counts, pairs, ("token", dict(stored), dict(stored)),
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_tables_read_back_as_written_and_an_unchanged_segment_is_the_same_bytes(
    seed: int,
) -> None:
    """`encode` then `decode` gives the tables back (paths with any characters a file name may
    hold, surrogates of undecodable bytes too; stats before 1970, inodes with the top bit); a
    segment whose files and tables did not change encodes to the very chunks read while a file
    of another is edited or a page is added to another; tables that are not these (counts that
    do not count the pairs too) are refused."""
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
        assert (side.segments, side.stats, side.heads, side.own, side.counts, side.pairs) == (
            made.segments, made.stats, made.heads, made.own, made.counts, made.pairs
        )  # fmt: skip
        chunks = segments.encode(side, sizes)
        assert chunks == segments.encode(made, sizes)
        assert side.as_read is not None
        read = cast("dict[str, tuple[bytes, ...]]", side.as_read[1])
        assert all(a is b for n in chunks for a, b in zip(chunks[n], read[n], strict=True))
        n = rng.randrange(len(paths))  # a file edited: its stat changes, in its segment only
        side.stats[3 * n] += 1
        k = bisect.bisect_right(list(itertools.accumulate(sizes)), n)
        assert _changed(chunks, segments.encode(side, sizes)) == {k}
        side = _read(side, sizes)
        chunks = segments.encode(side, sizes)
        n = rng.randrange(len(paths))  # an ordinary page edited: one more undated mention
        side.stats[3 * n] += 1
        lo, hi = side.pairs_at(n)
        side.set_pairs(n, side.pairs[2 * lo : 2 * hi] + array("i", [3, 2]))
        k = bisect.bisect_right(list(itertools.accumulate(sizes)), n)
        assert _changed(chunks, segments.encode(side, sizes)) == {k}
        counts, pairs = side.counts, side.pairs
        side = _read(side, sizes)
        assert (side.counts, side.pairs) == (counts, pairs)
        assert side.spans() == array("i", accumulate(counts, initial=0))
        chunks = segments.encode(side, sizes)
        k = rng.randrange(len(sizes))  # a page and its mentions added to segment k
        at = sum(sizes[:k]) + rng.randint(0, sizes[k])
        side._rels = [*side.rels[:at], "p/new.md", *side.rels[at:]]
        width = sidecar.HEAD
        side.heads = side.heads[: width * at] + bytes(width) + side.heads[width * at :]
        side.own.insert(at, -1)
        side.stats[3 * at : 3 * at] = array("Q", [5, 6, 7])
        side.counts.insert(at, 0)
        side.set_pairs(at, array("i", [7, 1]))
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
        {**chunks, "pairs": (*chunks["pairs"][:-1], chunks["pairs"][-1] + bytes(8))},
    ):
        with pytest.raises(ValueError):
            segments.decode(broken)  # type: ignore[arg-type]
