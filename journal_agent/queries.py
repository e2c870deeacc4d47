"""Queries of the read path: derived status, stale threads, timelines, related topics.

Status is never stored: it is derived, as of a day D, from the newest *dated* mention of a topic
(a mention standing on a journal page, dated by that page):

* ``resolved``    the newest dated mention is a resolution (DONE/CANCELED task, ``[x]``,
                  ``Resolved:``); within one day the last in page order is the newest;
* ``active``      the newest dated mention is at most N days before D;
* ``stale``       it is more than N days before D;
* ``unmentioned`` no dated mention: a reference page, not a thread.

Mentions dated after D are ignored, so ``--as-of`` makes every answer reproducible. Mentions on
other pages are undated backlinks: they show in a timeline, and neither move recency nor count
in ``mentions`` (the dated mentions up to D: so `stale` needs the journal pages and the page
heads, never every page's body). A page's references to itself do not count.

Every page has backlinks (a timeline and a status answer for it, journal pages included: their
Linked References are what Logseq shows on them), but `all_topics` (``topics``, ``stale``) lists
only the pages that are topics (`registry.Page.listed`): not journal pages, not aliases, and
unless asked not Logseq's built-in pages nor the pages it makes of property keys, task markers
and priorities.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from operator import itemgetter

from .derived import DEFAULT_DAYS as DEFAULT_DAYS
from .derived import lowered, recency, status_object, status_of
from .errors import AmbiguousPage, not_a_page
from .index import Index, load_index, paused_gc
from .records import NamedTuple, Record
from .registry import Page, PageRegistry, build_registry

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .derived import Status
    from .vault import PageFile, Vault


class Backlink(NamedTuple):
    """One block that mentions a topic."""

    date: dt.date | None  # the journal day, or None on a non-journal page
    page: str  # title of the page it stands on
    path: str  # vault-relative file
    line: int  # 0-based first line of the block
    text: str
    resolution: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "date": self.date.isoformat() if self.date else None,
            "page": self.page,
            "path": self.path,
            "line": self.line,
            "text": self.text,
            "resolution": self.resolution,
        }

    @staticmethod
    def encoder() -> Callable[[Backlink], str]:
        """`to_json` as ``json.dumps(…, ensure_ascii=False)`` writes it, by one format: a hot
        topic's timeline has thousands of entries (see `derived.status_encoder`)."""
        from functools import cache

        from .render import json_quoter

        quoted = json_quoter()
        day = cache(lambda d: "null" if d is None else f'"{d.isoformat()}"')

        def encode(b: Backlink) -> str:
            date, page, path, line, text, resolution = b
            return (
                f'{{"date": {day(date)}, "page": {quoted(page)}, "path": {quoted(path)}, '
                f'"line": {line}, "text": {quoted(text)}, '
                f'"resolution": {"true" if resolution else "false"}}}'
            )

        return encode


class Topic(Record):
    """A page and its backlinks, with its derived status as of a day."""

    __slots__ = ("page", "backlinks", "status", "last", "days_silent", "mentions", "warnings")

    def __init__(
        self,
        page: Page,
        backlinks: list[Backlink] | None = None,
        status: Status = "unmentioned",
        last: Backlink | None = None,  # the newest dated mention up to the as-of day
        days_silent: int | None = None,
        mentions: int = 0,  # dated mentions up to the as-of day (undated ones show in the timeline)
        warnings: list[str] | None = None,  # pages that could not be read
    ) -> None:
        self.page = page
        self.backlinks = [] if backlinks is None else backlinks
        self.status = status
        self.last = last
        self.days_silent = days_silent
        self.mentions = mentions
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        """The contract's status object."""
        day = self.last.date if self.last else None
        last = day.isoformat() if day else None
        page = self.page
        return status_object(
            page.title, page.path, self.status, last, self.days_silent, self.mentions
        )


def vault_graph(
    vault: Vault,
    use_cache: bool = True,
    listed: tuple[list[PageFile], list[str]] | None = None,
    only: str | None = None,
) -> Graph:
    """The vault's backlink graph, from its index (cached per file), without the pages its own
    config excludes; ``listed``: its files, listed just now; ``only``: of one topic (`Graph`)."""
    index = load_index(vault, use_cache=use_cache, progress=True, files=listed)
    return Graph(index, exclude=vault.excluded, only=only)


class Graph:
    """Every page of an indexed vault with its backlinks (built once per query)."""

    def __init__(
        self,
        index: Index,
        registry: PageRegistry | None = None,
        exclude: frozenset[str] = frozenset(),
        only: str | None = None,
    ) -> None:
        """``exclude``: page names (keys) never to answer for; ``only``: collect the backlinks
        of this one page (a name, or a path where notes share a name), not of every page."""
        self.index = index
        self.registry = registry = registry or build_registry(index)
        self.topics: dict[str, Topic] = {}
        #: Per folder: each name as written -> where it lands (`_collect`; the sidecar's).
        self.resolved: dict[str, dict[str, list[tuple[str, Topic]]]] = {}
        wanted = self.page_named(only) if only is not None else None
        with paused_gc():  # every topic and backlink built here lives until the answer
            topics = self.topics
            for page, key, identity in registry.keyed():
                if only is not None and page is not wanted:
                    continue
                if (not exclude or key not in exclude) and identity not in topics:
                    topics[identity] = Topic(page)
            if topics:  # none where ``only`` names no page (a typo): nothing to collect
                self._collect()

    def _collect(self) -> None:
        registry, topics = self.registry, self.topics
        by_folder = registry.wiki  # Obsidian resolves a name from the linking note's folder
        memos = self.resolved
        made = tuple.__new__  # a backlink made in C: a large vault has hundreds of thousands
        for rel, facts in self.index.files.items():
            memo = memos.setdefault(rel.rpartition("/")[0] if by_folder else "", {})
            if not facts.mentions:
                continue
            own = registry.file_identity(rel, facts)  # a page's references to itself do not count
            day, title = facts.date, facts.title
            for target, line, resolution, text in facts.mentions:
                found = memo.get(target)
                if found is None:
                    keys = registry.targets(target, rel)
                    found = memo[target] = [(k, topics[k]) for k in keys if k in topics]
                for key, topic in found:
                    if key != own:
                        backlink = (day, title, rel, line, text, resolution)
                        topic.backlinks.append(made(Backlink, backlink))
        for topic in topics.values():
            if len(topic.backlinks) > 1:
                topic.backlinks = _dedupe(topic.backlinks)

    def page_named(self, name: str) -> Page | None:
        """The page a topic name given on its own means; `AmbiguousPage` if several notes share
        it (Obsidian), which their paths then tell apart."""
        found = self.registry.candidates(name)
        if len(found) > 1:
            paths = [p.path or p.title for p in found]
            raise AmbiguousPage(
                f"{name!r} names {len(found)} notes: {', '.join(paths)}; give the path of the "
                "one you mean",
                paths,
            )
        return found[0] if found else None

    def topic(self, name: str) -> Topic:
        """The page ``name`` resolves to, with its backlinks, or `PageNotFound` with the
        closest names (`AmbiguousPage` where several notes share the name)."""
        page = self.page_named(name)
        topic = self.topics.get(self.registry.identity(page)) if page else None
        if topic is None:
            raise not_a_page(name, self.registry.suggest(name))
        return topic

    def listed(self, all_pages: bool = False) -> list[Topic]:
        """The topics `topics` and `stale` list (`registry.Page.listed`)."""
        return [t for t in self.topics.values() if t.page.listed(all_pages)]


def _dedupe(backlinks: list[Backlink]) -> list[Backlink]:
    """One backlink per block (a block naming a page twice, or by alias and title, is one)."""
    seen: dict[tuple[str, int], Backlink] = {}
    for b in backlinks:
        seen.setdefault((b.path, b.line), b)
    return list(seen.values())


#: A backlink's place, newest last: by day, then page order (the last block of a day is its
#: newest): ``(date, path, line)``, taken in C (a hot topic has tens of thousands).
_order: Callable[[Backlink], tuple[dt.date | None, str, int]] = itemgetter(0, 2, 3)


def derive(topic: Topic, as_of: dt.date, days: int) -> Topic:
    """Fill in ``topic``'s status, newest mention, silence and dated mentions as of ``as_of``."""
    dated = [b for b in topic.backlinks if b.date is not None and b.date <= as_of]
    topic.mentions = len(dated)
    topic.last = max(dated, key=_order) if dated else None
    topic.days_silent = (as_of - topic.last.date).days if topic.last and topic.last.date else None
    topic.status = status_of(topic.days_silent, bool(topic.last and topic.last.resolution), days)
    return topic


def timeline(topic: Topic, as_of: dt.date) -> list[Backlink]:
    """The topic's backlinks, newest first: dated ones up to ``as_of``, then undated ones."""
    dated = [b for b in topic.backlinks if b.date is not None and b.date <= as_of]
    undated = [b for b in topic.backlinks if b.date is None]
    dated.sort(key=_order, reverse=True)
    return dated + undated_order(undated)


def undated_order(backlinks: list[Backlink]) -> list[Backlink]:
    """Undated backlinks as a timeline lists them: by page title lower-cased, then line (ties
    in their order), sorted in C: a hot topic has tens of thousands."""
    found = sorted(backlinks, key=itemgetter(3))  # by line, then (stable) by page
    pages = lowered(list(map(itemgetter(1), found)))
    return [found[k] for k in sorted(range(len(found)), key=pages.__getitem__)]


def encoded_timeline(topic: Topic, entries: list[Backlink], more: str = "") -> dict[str, Any]:
    """A timeline's JSON object, its entries already encoded (`render.json_listing` prints it):
    `api.TimelineResult.encoded`, and the warm path's, which loads no `api`. ``more``: entries
    after those, encoded and joined by ", " already (`backlinks.Memo.entries`)."""
    entries_json = list(map(Backlink.encoder(), entries))
    if more:
        entries_json.append(more)  # `json_listing` joins the items by ", " too
    return {"topic": topic.page.title, "path": topic.page.path, "entries": entries_json}


def all_topics(graph: Graph, as_of: dt.date, days: int, all_pages: bool = False) -> list[Topic]:
    """Every topic with its derived status, most recently mentioned first (``all_pages``:
    Logseq's built-in, property-key, marker and priority pages too)."""
    return by_recency([derive(t, as_of, days) for t in graph.listed(all_pages)])


def by_recency(topics: list[Topic]) -> list[Topic]:
    """Most recently mentioned first, then by title; unmentioned topics last."""
    return sorted(
        topics,
        key=lambda t: recency(
            t.last.date.toordinal() if t.last and t.last.date else None, t.page.title
        ),
    )


def related(
    graph: Graph, topic: Topic, as_of: dt.date, days: int, limit: int = 10
) -> list[tuple[Topic, float]]:
    """The topics most co-mentioned with ``topic`` (same block), weighted by recency."""
    weights = co_mention_weights(graph, as_of, days)
    key = graph.registry.identity(topic.page)
    pairs = [(graph.topics[other], w) for (a, other), w in weights.items() if a == key]
    pairs.sort(key=lambda p: (-p[1], p[0].page.title.lower()))
    return pairs[:limit]


def co_mention_weights(graph: Graph, as_of: dt.date, days: int) -> dict[tuple[str, str], float]:
    """Pairwise co-mention weights: each shared block counts 0.5 ** (age / window)."""
    by_block: dict[tuple[str, int], list[tuple[str, float]]] = defaultdict(list)
    for key, topic in graph.topics.items():
        if not topic.page.listed():
            continue
        for b in topic.backlinks:
            if b.date is not None and b.date > as_of:
                continue
            age = (as_of - b.date).days if b.date else 4 * days
            by_block[(b.path, b.line)].append((key, 0.5 ** (age / days)))
    weights: dict[tuple[str, str], float] = defaultdict(float)
    for members in by_block.values():
        for first, w in members:
            for second, _ in members:
                if first != second:
                    weights[(first, second)] += w
    return weights


def clusters(graph: Graph, as_of: dt.date, days: int, *, min_size: int = 2) -> list[list[Topic]]:
    """Groups of topics that move together: communities of the weighted co-mention graph."""
    import networkx as nx  # lazy: only related/clusters need it

    g = nx.Graph()
    for (a, b), w in co_mention_weights(graph, as_of, days).items():
        if a < b:
            g.add_edge(a, b, weight=w)
    groups = nx.community.louvain_communities(g, weight="weight", seed=1) if g else []
    result = [
        sorted((graph.topics[k] for k in group), key=lambda t: t.page.title.lower())
        for group in groups
        if len(group) >= min_size
    ]
    return sorted(result, key=lambda group: (-len(group), group[0].page.title.lower()))
