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
    topic.backlinks = [summary.backlink(k) for k in range(summary.starts[i], summary.starts[i + 1])]
    counts = _undated_counts(side.pairs, side.spans, i)
    rels = side.rels
    files = [PageFile(rels[n], *stat_of(side, n)) for n in counts]
    facts = facts_of(vault, files)
    # where each name as written lands: looked up by name in the few buckets a small topic's
    # files need, or from every name decoded at once for a topic hundreds of files mention
    every = side.targets.whole() if len(files) > MANY_FILES else None
    lands: dict[tuple[str, str], bool] = {}  # (folder, name as written) -> whether it lands on i
    for (n, count), file in zip(counts.items(), files, strict=True):
        found = facts[file.rel]
        if isinstance(found, str):
            return None  # it was readable when the summary was built
        folder = file.rel.rpartition("/")[0] if side.by_folder else ""
        names = every.get(folder, {}) if every is not None else None
        lines: dict[int, Backlink] = {}
        for target, line, resolution, text in found.mentions:
            here = lands.get((folder, target))
            if here is None:
                landing = (
                    names.get(target) if names is not None else side.targets.get(folder, target)
                )
                here = lands[folder, target] = i in (landing or ())
            if here and line not in lines and i != side.own[n]:
                lines[line] = Backlink(None, found.title, file.rel, line, text, resolution)
        if len(lines) != count:
            return None
        topic.backlinks += lines.values()
    return topic


#: Above this many files with undated mentions of the topic, every name's landing is decoded at
#: once (25 ms at 100,000 pages) rather than looked up one by one (a tenth of a second for the
#: 29,000 names of the 22,000 files that mention the benchmark's hottest topic).
MANY_FILES = 256


def _undated_counts(pairs: array[int], spans: array[int], i: int) -> dict[int, int]:
    """File by file, in listing order, how many undated mentions of topic ``i`` the side file
    counts: its (topic, count) pairs searched in C (a Python step per pair cost 60 ms at
    100,000 pages)."""
    topics, k = pairs[0::2], -1
    counts: dict[int, int] = {}
    while True:
        try:
            k = topics.index(i, k + 1)
        except ValueError:
            return counts
        counts[bisect.bisect_right(spans, k) - 1] = pairs[2 * k + 1]
