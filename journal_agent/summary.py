"""The status summary: a compact, cached projection of the backlink graph for status queries.

``stale``, ``topics`` and ``status`` need, per topic, only its dated mentions in order and how
many undated ones it has. Building the graph from the index costs about a second on a
five-year vault; this table is the graph reduced to a few integer columns per mention, so a run
whose files have not changed since the last one loads it (milliseconds) instead of the index
and the graph. It is derived and deletable like the index: it is trusted only while the
settings and every file's stat are exactly those it was built from (`index.stamp`); `current`
is that policy.
"""

from __future__ import annotations

import bisect
import datetime as dt
import pickle
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .cachedir import write_atomic
from .errors import AmbiguousPage, JournalAgentError
from .index import (
    RACY_NS,
    _fingerprint,
    cache_path,
    paused_gc,
    racy_digests,
    stamp,
    still_same,
)
from .queries import Backlink, Graph, Status, Topic, _order, status_of
from .registry import Page
from .vault import PageFile, Vault

#: The shape of the summary and of its side file (`summary_patch.Sidecar`), bumped together: a
#: summary still valid by its stamp is trusted without reading the side file, so one written by
#: another version must not be kept beside it (point lookups and patches would fall back for good).
FORMAT = 7


@dataclass
class Summary:
    """Per topic, its dated mentions sorted oldest first, in columns; and its undated count."""

    stamp: str
    titles: list[str] = field(default_factory=list)
    paths: list[str | None] = field(default_factory=list)
    #: 1 for a page listed only with ``all_pages`` (Logseq's built-in and property-key pages)
    extra: array[int] = field(default_factory=lambda: array("b"))
    starts: array[int] = field(default_factory=lambda: array("i", [0]))
    undated: array[int] = field(default_factory=lambda: array("i"))
    days: array[int] = field(default_factory=lambda: array("i"))  # date ordinals
    sources: array[int] = field(default_factory=lambda: array("i"))  # into `files`
    lines: array[int] = field(default_factory=lambda: array("i"))
    resolutions: array[int] = field(default_factory=lambda: array("b"))
    texts: array[int] = field(default_factory=lambda: array("i"))  # into `strings`
    files: list[tuple[str, str]] = field(default_factory=list)  # (path, page title)
    strings: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # the pages that could not be read
    #: a topic name's `PageRegistry.query_key` -> the position of the listed topic it names,
    #: for the title, aliases and path of every listed topic that name it for certain
    names: dict[str, int] = field(default_factory=dict)
    racy: dict[str, bytes] = field(default_factory=dict)  # `index.racy_digests` when built

    @classmethod
    def of(cls, graph: Graph, stamp: str) -> Summary:
        """The summary of a graph."""
        s = cls(stamp, warnings=list(graph.index.warnings))
        file_ids: dict[str, int] = {}
        string_ids: dict[str, int] = {}
        days, sources, lines, resolutions, texts, starts, extra = [], [], [], [], [], [0], []
        listed = graph.listed(all_pages=True)
        s.names = _names(graph, listed)
        for topic in listed:
            s.titles.append(topic.page.title)
            s.paths.append(topic.page.path)
            extra.append(not topic.page.listed())
            dated = [b for b in topic.backlinks if b.date is not None]
            dated.sort(key=_order)
            s.undated.append(len(topic.backlinks) - len(dated))
            for day, page, path, line, text, resolution in dated:
                assert day is not None
                days.append(day.toordinal())
                if path not in file_ids:
                    file_ids[path] = len(s.files)
                    s.files.append((path, page))
                sources.append(file_ids[path])
                lines.append(line)
                resolutions.append(resolution)
                if text not in string_ids:
                    string_ids[text] = len(s.strings)
                    s.strings.append(text)
                texts.append(string_ids[text])
            starts.append(len(days))
        s.days, s.sources, s.lines = array("i", days), array("i", sources), array("i", lines)
        s.resolutions, s.texts = array("b", resolutions), array("i", texts)
        s.starts, s.extra = array("i", starts), array("b", extra)
        return s

    def find(self, key: str) -> int | None:
        """The position of the topic a name with this `PageRegistry.query_key` names, when
        the summary knows it for certain."""
        return self.names.get(key)

    def topics(
        self, as_of: dt.date, days: int, only: str | None = None, all_pages: bool = False
    ) -> list[Topic]:
        """Every topic (or those with status ``only``) with its status as of ``as_of``, as
        `queries.derive` would give it (``all_pages``: Logseq's built-in and property-key,
        marker and priority pages too)."""
        limit, days_, starts, undated = as_of.toordinal(), self.days, self.starts, self.undated
        out = []
        for i, title in enumerate(self.titles):
            if self.extra[i] and not all_pages:
                continue
            lo, hi = starts[i], starts[i + 1]
            end = bisect.bisect_right(days_, limit, lo, hi) if hi > lo else lo
            silent = limit - days_[end - 1] if end > lo else None
            status = status_of(silent, end > lo and bool(self.resolutions[end - 1]), days)
            if only is not None and status != only:
                continue
            topic = Topic(Page(title, self.paths[i]), status=status, days_silent=silent)
            topic.mentions = end - lo + undated[i]
            if end > lo:
                topic.last = self._backlink(end - 1)
            out.append(topic)
        return out

    def statuses(self, as_of: dt.date, days: int) -> list[tuple[Status, int]]:
        """Every topic's status as of ``as_of`` and the position one past its newest dated
        mention (its `topics` entry without building it: a projection that prints a few dozen
        of twenty thousand topics builds only those, with `topic`)."""
        limit, days_, starts, resolutions = (
            as_of.toordinal(),
            self.days,
            self.starts,
            self.resolutions,
        )
        out: list[tuple[Status, int]] = []
        for i in range(len(self.titles)):
            lo, hi = starts[i], starts[i + 1]
            end = bisect.bisect_right(days_, limit, lo, hi) if hi > lo else lo
            silent = limit - days_[end - 1] if end > lo else None
            out.append((status_of(silent, end > lo and bool(resolutions[end - 1]), days), end))
        return out

    def topic(self, i: int, as_of: dt.date, days: int) -> Topic:
        """Topic ``i`` as `topics` gives it."""
        lo, hi = self.starts[i], self.starts[i + 1]
        limit = as_of.toordinal()
        end = bisect.bisect_right(self.days, limit, lo, hi) if hi > lo else lo
        silent = limit - self.days[end - 1] if end > lo else None
        status = status_of(silent, end > lo and bool(self.resolutions[end - 1]), days)
        topic = Topic(Page(self.titles[i], self.paths[i]), status=status, days_silent=silent)
        topic.mentions = end - lo + self.undated[i]
        if end > lo:
            topic.last = self._backlink(end - 1)
        return topic

    def dated(self, i: int, as_of: dt.date, since: dt.date | None = None) -> range:
        """Positions of topic ``i``'s dated mentions up to ``as_of`` (and from ``since``),
        oldest first: read one with `backlink`. The projection fetches texts only this way,
        for the topics it prints."""
        lo, hi = self.starts[i], self.starts[i + 1]
        end = bisect.bisect_right(self.days, as_of.toordinal(), lo, hi)
        if since is not None:
            lo = bisect.bisect_left(self.days, since.toordinal(), lo, end)
        return range(lo, end)

    def backlink(self, k: int) -> Backlink:
        """The dated mention at position ``k`` (see `dated`)."""
        return self._backlink(k)

    def _backlink(self, k: int) -> Backlink:
        path, page = self.files[self.sources[k]]
        day = dt.date.fromordinal(self.days[k])
        text = self.strings[self.texts[k]]
        return Backlink(day, page, path, self.lines[k], text, bool(self.resolutions[k]))


def _names(graph: Graph, listed: list[Topic]) -> dict[str, int]:
    """Each listed topic's title, aliases and path, by query key, -> what `Graph.page_named`
    makes of it (which depends on nothing else of the name)."""
    registry = graph.registry
    where = {registry.identity(t.page): i for i, t in enumerate(listed)}
    names: dict[str, int] = {}
    for topic in listed:
        page = topic.page
        for name in (page.title, *page.aliases, *((page.path,) if page.path else ())):
            key = registry.query_key(name)
            if key in names:
                continue
            try:
                found = graph.page_named(name)
            except AmbiguousPage:
                found = None
            names[key] = where.get(registry.identity(found), -1) if found else -1
    return {key: i for key, i in names.items() if i >= 0}  # the rest is asked of the graph


def current(
    vault: Vault,
    *,
    use_cache: bool,
    exclude: frozenset[str],
    build: Callable[[tuple[list[PageFile], list[str]]], Graph],
) -> Summary:
    """The vault's summary: the one a running watcher keeps current; else the cached one while no
    file's stat and no setting changed since it was built (its racily clean files' bytes too);
    else the cached one patched for a few edited journal pages; else one built from ``build``
    (the graph of the listed files) and cached."""
    if use_cache:  # a running `journal-agent watch` keeps it current: no file need be listed
        from .state import StateDir
        from .watch import trusted_stamp

        try:
            trusted = trusted_stamp(StateDir.of(vault.root), _fingerprint(vault))
        except JournalAgentError:  # a state folder set wrongly: no watcher to trust
            trusted = None
        kept = load(summary_path(vault), trusted) if trusted else None
        if kept is not None and trusted and trusted.endswith(repr(sorted(exclude))):
            return kept
    warnings: list[str] = []
    files = vault.page_files(warnings)
    key = stamp(vault, files) if use_cache else None
    if key is not None:
        key += repr(sorted(exclude))
    path = summary_path(vault)
    cached = load(path, key) if key else None
    if cached is not None and still_same(vault, cached.racy):
        if cached.racy and settled(files, cached.racy):
            cached.racy = {}  # checked once more, now out of the window: the stat suffices
            save(path, cached)
        return cached
    racy = racy_digests(vault, files) if key else {}
    base = _fingerprint(vault) + repr(sorted(exclude))
    if key and cached is None:  # a few journal pages edited since: patch (summary_patch)
        from .summary_patch import refresh

        patched = refresh(vault, path, files, key, base, racy)
        if patched is not None:
            return patched
    with paused_gc():  # every object built here lives until the answer is printed
        graph = build((files, warnings))
        built = Summary.of(graph, key or "")
        built.racy = racy
        if key:
            from .summary_patch import remember

            save(path, built)
            remember(path, graph, built, files, base)
    return built


def summary_path(vault: Vault) -> str:
    """Where the summary of ``vault`` is cached (its side file beside it, `summary_patch`)."""
    return str(cache_path(vault).with_suffix(".summary"))


def settled(files: list[PageFile], racy: dict[str, bytes]) -> bool:
    """Whether every racily clean file has left the racy window: its bytes, just found the
    same, can no longer change without its stat changing (after a bulk copy or checkout every
    file is racy, and each run would read them all again)."""
    before = time.time_ns() - RACY_NS
    return all(f.mtime_ns <= before for f in files if f.rel in racy)


def load(path: str, stamp: str) -> Summary | None:
    """The cached summary if it was built from exactly these files and settings."""
    try:
        with open(path, "rb") as handle:
            data = pickle.load(handle)
        if data["format"] == FORMAT and data["summary"].stamp == stamp:
            summary: Summary = data["summary"]
            return summary
    except Exception:  # missing, foreign or corrupt: rebuilt from the index
        pass
    return None


def save(path: str, summary: Summary) -> None:
    """Write the summary atomically; a cache that cannot be written only costs speed."""
    data = {"format": FORMAT, "summary": summary}
    write_atomic(Path(path), pickle.dumps(data, pickle.HIGHEST_PROTOCOL))
