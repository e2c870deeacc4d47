"""The Python API: one function per CLI command, returning typed results.

Each takes ``vault=`` as a path (else ``$JOURNAL_AGENT_VAULT``, else the person's config file) or
an opened `Vault`. Every error is a `JournalAgentError`.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path

from .derived import thread_object
from .errors import BadArgument, PageNotFound, translated
from .patterns import regex
from .queries import DEFAULT_DAYS, Backlink, Graph, Topic, clusters, derive, encoded_timeline
from .queries import related as related_topics
from .queries import timeline as topic_timeline
from .records import NamedTuple, Record
from .registry import Page, load_registry
from .vault import Vault, open_vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

    from .backends.base import Backend
    from .guard import Problem
    from .summary import Summary
    from .walk import Stat
    from .writer import AppendResult, Bullet, BulletKind

    VaultArg = str | os.PathLike[str] | Vault | None

_DAY = regex(r"\d{4}-\d{2}-\d{2}")


def _vault(vault: VaultArg, use_cache: bool = True) -> Vault:
    return vault if isinstance(vault, Vault) else open_vault(vault, use_cache=use_cache)


def parse_day(value: str | dt.date | None) -> dt.date:
    """A ``YYYY-MM-DD`` argument as a date (None: today's local date). Only that form: Python
    also reads ``20261129`` and ``2026-W48-1``, which a person did not mean as a day."""
    if value is None:
        return dt.date.today()
    if isinstance(value, dt.date):
        return value
    try:
        if not _DAY.fullmatch(value):
            raise ValueError(value)
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise BadArgument(f"date {value!r} is not a day in the form YYYY-MM-DD") from exc


def check_limit(limit: int) -> int:
    """``limit``, a count of results to return: refused below 1 (a slice would drop the last)."""
    if type(limit) is not int or limit < 1:
        raise BadArgument(f"the limit must be a whole number of 1 or more, not {limit!r}")
    return limit


class PagesResult(Record):
    """Every page of a vault an agent may link, and what could not be read. ``links``: where
    notes share a name (Obsidian), by path, the link text that opens each one from today's
    journal page (``[[Work/Meeting]]``); a page absent from it is linked by its title."""

    __slots__ = ("pages", "warnings", "links")

    def __init__(
        self,
        pages: list[Page],
        warnings: list[str] | None = None,
        links: dict[str, str] | None = None,
    ) -> None:
        self.pages = pages
        self.warnings = [] if warnings is None else warnings
        self.links = {} if links is None else links

    def to_json(self) -> dict[str, Any]:
        return {"pages": [self._entry(p) for p in self.pages]}

    def _entry(self, page: Page) -> dict[str, Any]:
        entry = page.to_json()
        if page.path in self.links:
            entry["link"] = self.links[page.path]
        return entry


@translated("read")
def pages(
    *, vault: VaultArg = None, search: str | None = None, limit: int | None = None
) -> PagesResult:
    """The pages of ``vault`` an agent may link: titles, files and aliases, sorted by title (an
    alias is listed with its page, not as a page of its own), the first ``limit`` of them if
    given. With ``search``, the ``limit`` (20 if not given) pages whose title or an alias
    contains it (any case), else those spelled closest to it."""
    size = None if limit is None else check_limit(limit)
    v = _vault(vault)
    registry, warnings = load_registry(v)
    if search is not None and not search.strip():
        raise BadArgument("the search is empty")
    found = registry if search is None else registry.search(search, size or 20)
    listed = [p for p in found if p.origin != "alias"][:size]
    seen = registry.seen_from(v.journal_page(dt.date.today()).path)
    links = {p.path: text for p in listed if p.path and (text := seen.link_text(p)) != p.title}
    return PagesResult(listed, warnings, links)


class LintResult(Record):
    """What would stop each bullet from being appended (the guard's verdict, nothing written)."""

    __slots__ = ("problems", "warnings")

    def __init__(
        self,
        problems: list[Problem],
        warnings: list[str] | None = None,
    ) -> None:
        self.problems = problems
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        return {"problems": [p.to_json() for p in self.problems]}


@translated("read")
def lint(bullets: Sequence[str] | str, *, vault: VaultArg = None) -> LintResult:
    """Check bullets against the guest rules without writing: unknown pages (with the closest
    existing names), properties, structure, block refs, superseded pages."""
    from .guard import lint as lint_bullet
    from .registry import KnownPages

    v = _vault(vault)
    items = [b.strip() for b in ([bullets] if isinstance(bullets, str) else bullets)]
    # what `append` would check them against: the cheap lookup, else the full registry
    known, page = KnownPages(v), v.journal_page(dt.date.today())
    registry = known.registry_for(items, not v.journal_exists(page), page.path)
    ids = known.block_ids
    problems = [p for b in items for p in lint_bullet(b, registry, v.flavor.syntax, block_ids=ids)]
    return LintResult(problems, known.warnings)


class VaultInfo(Record):
    """What journal-agent makes of a vault's layout and settings."""

    __slots__ = (
        "root",
        "flavor",
        "journal_folder",
        "journal_file_format",
        "journal_title_format",
        "date",
        "journal_page",
        "journal_title",
        "journal_exists",
        "warnings",
    )

    def __init__(
        self,
        root: str,
        flavor: str,
        journal_folder: str,
        journal_file_format: str,
        journal_title_format: str | None,
        date: str,
        journal_page: str,
        journal_title: str,
        journal_exists: bool,
        warnings: list[str] | None = None,
    ) -> None:
        self.root = root
        self.flavor = flavor
        self.journal_folder = journal_folder
        self.journal_file_format = journal_file_format
        self.journal_title_format = journal_title_format
        self.date = date
        self.journal_page = journal_page
        self.journal_title = journal_title
        self.journal_exists = journal_exists
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        data = self._asdict()
        data.pop("warnings")
        return data


@translated("read")
def info(*, vault: VaultArg = None, date: str | dt.date | None = None) -> VaultInfo:
    """Where ``date``'s journal page of ``vault`` is and how the vault is set up."""
    v = _vault(vault)
    day = parse_day(date)
    path = v.journal_path(day)
    return VaultInfo(
        root=v.where,
        flavor=v.flavor.name,
        journal_folder=v.settings.journal_dir or ".",
        journal_file_format=v.settings.journal_file_format,
        journal_title_format=v.settings.journal_title_format,
        date=day.isoformat(),
        journal_page=path.relative_to(v.root).as_posix(),
        journal_title=v.journal_title(day),
        journal_exists=path.is_file(),
    )


@translated("write")
def append(
    bullets: Sequence[str | Bullet] | str,
    *,
    vault: VaultArg = None,
    agent: str = "agent",
    date: str | dt.date | None = None,
    session: str | None = None,
    kind: BulletKind = "note",
    unlink: bool = False,
    header: str | None = None,
    wait: float | None = None,
    backend: Backend | None = None,
) -> AppendResult:
    """Append bullets under ``agent``'s owned block on a day's journal page (default today).
    Only today's page is created if it is missing; another day's must exist (`BadArgument`).

    Every referenced page must exist (else `BulletsRefused`, nothing written; ``unlink=True``
    writes unknown names as plain text). Bullets the agent already wrote there are skipped and
    reported in ``duplicates``. ``wait`` bounds, in seconds, how long a busy page is waited for
    (default 1: a session-end hook's budget); ``backend`` chooses where the page is written
    (default: its file, `backends.FileBackend`).

    >>> journal_agent.append(["Fixed the flaky test in [[Flaky CI]]"], vault="~/notes",
    ...                      agent="claude", session="abc123")          # doctest: +SKIP
    """
    from .writer import DEFAULT_WAIT, Bullet
    from .writer import append as write

    items = [bullets] if isinstance(bullets, str) else list(bullets)
    wrapped = [b if isinstance(b, Bullet) else Bullet(b, kind) for b in items]
    if wait is not None and not 0 <= wait <= 3600:
        raise BadArgument(f"wait {wait!r} must be between 0 and 3600 seconds")
    return write(
        wrapped,
        vault=_vault(vault),
        agent=agent,
        date=parse_day(date) if date else None,
        session=session,
        header=header,
        unlink_unknown=unlink,
        backend=backend,
        wait=DEFAULT_WAIT if wait is None else wait,
    )


# -- the read path --------------------------------------------------------------------------------


class Query(NamedTuple):
    """The common arguments of every query: the vault, the day, the window, the cache."""

    vault: Vault
    as_of: dt.date
    days: int
    use_cache: bool = True

    @classmethod
    def of(
        cls, vault: VaultArg, as_of: str | dt.date | None, days: int | None, use_cache: bool
    ) -> Query:
        v = _vault(vault, use_cache)
        window = days if days is not None else v.own_config.days or DEFAULT_DAYS
        if type(window) is not int or not 1 <= window <= 36500:
            raise BadArgument(f"the window must be 1 to 36500 days, not {window!r}")
        return cls(v, parse_day(as_of), window, use_cache)

    def graph(self, only: str | None = None) -> Graph:
        """The backlink graph (`queries.vault_graph`); ``only``: of one topic."""
        from . import queries  # looked up when called, as `summary_current.summary_of` does

        return queries.vault_graph(self.vault, self.use_cache, only=only)

    def statuses(
        self, only: str | None = None, all_pages: bool = False
    ) -> tuple[list[Topic], list[str]]:
        """Every topic's status (or only those with status ``only``), most recently mentioned
        first, and the unreadable pages (from the cached summary while nothing changed);
        ``all_pages``: Logseq's built-in and property-key, marker and priority pages too."""
        found = self.summary(dated_only=only == "stale")
        return found.topics(self.as_of, self.days, only, all_pages), found.warnings

    def summary(
        self,
        wait: bool = True,
        dated_only: bool = False,
        listed: tuple[list[Stat], list[str]] | None = None,
    ) -> Summary:
        """The status summary of the vault (`summary_current.summary_of`)."""
        from .summary_current import summary_of

        return summary_of(
            self.vault, use_cache=self.use_cache, wait=wait, dated_only=dated_only, listed=listed
        )

    def timeline(self, topic: str) -> TimelineResult:
        """The topic's backlinks, newest first: from the status summary and the files that
        mention it where it answers for certain (`backlinks`), else from the graph."""
        if self.use_cache:
            from .backlinks import topic_backlinks

            summary = self.summary()
            known = topic_backlinks(self.vault, summary, topic)
            if known is not None:
                found = derive(known, self.as_of, self.days)
                entries = topic_timeline(found, self.as_of)
                return TimelineResult(found, entries, list(summary.warnings))
            from .summary_topics import refuse_unknown

            refuse_unknown(self.vault, summary, topic)  # a typo, as `status`
        graph = self.graph(only=topic)
        found = derive(graph.topic(topic), self.as_of, self.days)
        return TimelineResult(found, topic_timeline(found, self.as_of), list(graph.index.warnings))


class TopicsResult(Record):
    """Topics with their derived status (``topics``, ``stale``)."""

    __slots__ = ("as_of", "days", "topics", "key", "warnings")

    def __init__(
        self,
        as_of: dt.date,
        days: int,
        topics: list[Topic],
        key: str = "topics",
        warnings: list[str] | None = None,
    ) -> None:
        self.as_of = as_of
        self.days = days
        self.topics = topics
        self.key = key
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        if self.key == "threads":
            items = [
                thread_object(t.to_json(), t.last.text if t.last else None) for t in self.topics
            ]
        else:
            items = [t.to_json() for t in self.topics]
        return {"as_of": self.as_of.isoformat(), "days": self.days, self.key: items}


@translated("read")
def topics(
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
    all_pages: bool = False,
) -> TopicsResult:
    """Every topic with its derived status (active, resolved, stale, unmentioned).

    Journal pages are not topics. Logseq makes pages of built-in names (``TODO``, ``DONE``,
    ``A``, ``Contents`` …) and of every property key, task marker and priority; they are left
    out unless ``all_pages`` (their timelines and status answer either way)."""
    q = Query.of(vault, as_of, days, use_cache)
    found, warnings = q.statuses(all_pages=all_pages)
    return TopicsResult(q.as_of, q.days, found, warnings=warnings)


@translated("read")
def stale(
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
    all_pages: bool = False,
) -> TopicsResult:
    """The threads nobody has mentioned for more than ``days`` days (default 21); ``all_pages``
    as for `topics`."""
    q = Query.of(vault, as_of, days, use_cache)
    threads, warnings = q.statuses("stale", all_pages)
    return TopicsResult(q.as_of, q.days, threads, "threads", warnings)


@translated("read")
def status(
    topic: str,
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
) -> Topic:
    """One topic's derived status (its ``warnings``: the pages that could not be read)."""
    q = Query.of(vault, as_of, days, use_cache)
    if use_cache:  # the status summary answers for a listed topic named as it knows it
        from .registry import query_keys

        summary = q.summary(dated_only=True)
        if summary.partial is not None:  # the first pass's (a cold vault): a status counts
            from .firstpass import titled_for_certain

            try:  # only dated mentions, which its graph has for every page it holds
                found = summary.partial.topic(topic)
            except PageNotFound:  # maybe a page only a page body makes: the full summary
                found = None
            if found is None or not titled_for_certain(found):
                summary = q.summary()
            else:
                found = derive(found, q.as_of, q.days)
                found.warnings = list(summary.warnings)
                return found
        i = summary.find(query_keys(q.vault)(topic))
        if i is not None:
            found = summary.topic(i, q.as_of, q.days)
            found.warnings = list(summary.warnings)
            return found
        from .summary_topics import refuse_unknown

        refuse_unknown(q.vault, summary, topic)  # a typo: no graph to refuse it
    graph = q.graph(only=topic)
    found = derive(graph.topic(topic), q.as_of, q.days)
    found.warnings = list(graph.index.warnings)
    return found


class TimelineResult(Record):
    """A topic's backlinks, newest first."""

    __slots__ = ("topic", "entries", "warnings")

    def __init__(
        self,
        topic: Topic,
        entries: list[Backlink],
        warnings: list[str] | None = None,
    ) -> None:
        self.topic = topic
        self.entries = entries
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic.page.title,
            "path": self.topic.page.path,
            "entries": [b.to_json() for b in self.entries],
        }

    def encoded(self) -> dict[str, Any]:
        """`to_json`, its entries encoded (`queries.encoded_timeline`)."""
        return encoded_timeline(self.topic, self.entries)

    def write_html(self, path: str | os.PathLike[str], vault: VaultArg = None) -> Path:
        """Write the timeline as one self-contained HTML page at ``path`` (`timeline_page`)."""
        from .timeline_page import write_timeline

        return write_timeline(self, path, _vault(vault) if vault is not None else None)


@translated("read")
def timeline(
    topic: str,
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
    limit: int | None = None,
) -> TimelineResult:
    """Every block that mentions ``topic``: dated journal mentions newest first, then pages
    (only the first ``limit`` of them, if given)."""
    size = None if limit is None else check_limit(limit)
    found = Query.of(vault, as_of, days, use_cache).timeline(topic)
    found.entries = found.entries[:size]
    return found


class RelatedResult(Record):
    """Topics co-mentioned with one topic, and the clusters of topics that move together."""

    __slots__ = ("topic", "related", "clusters", "warnings")

    def __init__(
        self,
        topic: Topic | None,
        related: list[tuple[Topic, float]],
        clusters: list[list[Topic]],
        warnings: list[str] | None = None,
    ) -> None:
        self.topic = topic
        self.related = related
        self.clusters = clusters
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.topic is not None:
            data = {
                "topic": self.topic.page.title,
                "path": self.topic.page.path,
                "related": [
                    {
                        "topic": t.page.title,
                        "path": t.page.path,
                        "status": t.status,
                        "weight": round(w, 3),
                    }
                    for t, w in self.related
                ],
            }
        data["clusters"] = [
            [{"topic": t.page.title, "path": t.page.path} for t in group] for group in self.clusters
        ]
        return data


@translated("read")
def related(
    topic: str | None = None,
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    limit: int = 10,
    use_cache: bool = True,
) -> RelatedResult:
    """The topics most co-mentioned with ``topic`` (recent blocks weigh more), and the cluster it
    belongs to; without a topic, every cluster of two or more topics."""
    check_limit(limit)
    q = Query.of(vault, as_of, days, use_cache)
    graph = q.graph()
    for t in graph.topics.values():
        derive(t, q.as_of, q.days)
    groups = clusters(graph, q.as_of, q.days)
    warnings = list(graph.index.warnings)
    if topic is None:
        return RelatedResult(None, [], groups, warnings)
    found = graph.topic(topic)
    mine = [g for g in groups if found in g]
    near = related_topics(graph, found, q.as_of, q.days, limit)
    return RelatedResult(found, near, mine, warnings)
