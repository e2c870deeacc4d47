"""One topic's backlinks without building the graph: what a warm `timeline` needs.

The status summary holds each topic's dated mentions with their texts; its side file
(`sidecar.Sidecar`) says which files hold the undated ones, how many, and where each name
as written in a file lands. So one topic's backlinks are its summary column plus the mentions
of those few files, read from the cached index (or scanned, for a handful) and resolved through
the side file: no registry, no pass over every page. Anything uncertain (a name the summary
does not know for certain, a side file of another summary, a file whose count differs) returns
None, and the caller builds the graph.
"""

from __future__ import annotations

import bisect
from array import array
from operator import itemgetter

from .queries import Backlink, Topic
from .registry import Page, query_keys
from .summary import Summary, summary_path
from .vault import PageFile, Vault


def topic_backlinks(vault: Vault, summary: Summary, name: str) -> Topic | None:
    """The topic ``name`` names with every backlink the graph would give it, or None."""
    from .sidecar import Unreadable

    try:
        return _backlinks(vault, summary, name)
    except Unreadable:  # a side file that reads only in part: the graph answers
        return None


def _backlinks(vault: Vault, summary: Summary, name: str) -> Topic | None:
    from .index import facts_of
    from .sidecar import load_side, stat_of

    i = summary.find(query_keys(vault)(name))
    side = load_side(summary_path(vault)) if i is not None else None
    if i is None or side is None or side.stamp != summary.stamp:
        return None
    topic = Topic(Page(summary.titles[i], summary.paths[i]))
    topic.backlinks = summary.backlinks(range(summary.starts[i], summary.starts[i + 1]))
    counts = _undated_counts(side.pairs, side.spans, i)
    rels = side.rels
    files = [PageFile(rels[n], *stat_of(side, n)) for n in counts]
    facts = facts_of(vault, files)
    # per folder, the names as written seen so far, and those of them that land on topic i:
    # a hot topic's files hold hundreds of thousands of mentions, each tested in C
    seen: dict[str, tuple[set[str], set[str]]] = {}
    for (n, count), file in zip(counts.items(), files, strict=True):
        found = facts[file.rel]
        if isinstance(found, str):
            return None  # it was readable when the summary was built
        if i == side.own[n]:
            return None  # the side file counts no mention of a page on itself
        folder = file.rel.rpartition("/")[0] if side.by_folder else ""
        known, lands = seen.setdefault(folder, (set(), set()))
        names = set(map(itemgetter(0), found.mentions))
        for name in names - known:
            if i in (side.targets.get(folder, name) or ()):
                lands.add(name)
        known |= names
        lines: dict[int, Backlink] = {}
        for _, line, resolution, text in [m for m in found.mentions if m[0] in lands]:
            if line not in lines:
                lines[line] = Backlink(None, found.title, file.rel, line, text, resolution)
        if len(lines) != count:
            return None
        topic.backlinks += lines.values()
    return topic


def _undated_counts(pairs: array[int], spans: array[int], i: int) -> dict[int, int]:
    """File by file, in listing order, how many undated mentions of topic ``i`` the side file
    counts: its (topic, count) pairs' topics searched as bytes (a Python step per pair cost
    40 ms at 100,000 pages, whichever the topic)."""
    topics, width = pairs[0::2].tobytes(), pairs.itemsize
    needle = array(pairs.typecode, [i]).tobytes()
    counts: dict[int, int] = {}
    at = topics.find(needle)
    while at >= 0:
        if at % width:  # across two numbers
            at = topics.find(needle, at + 1)
            continue
        k = at // width
        counts[bisect.bisect_right(spans, k) - 1] = pairs[2 * k + 1]
        at = topics.find(needle, at + width)
    return counts
