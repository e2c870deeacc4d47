"""The Python API: one function per CLI command, returning typed results.

Each takes ``vault=`` as a path (else ``$JOURNAL_AGENT_VAULT``) or an opened `Vault`.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from .errors import Refused
from .queries import DEFAULT_DAYS, Backlink, Graph, Topic, by_recency, clusters, derive
from .queries import related as related_topics
from .queries import timeline as topic_timeline
from .registry import Page, load_registry
from .vault import PageFile, Vault, open_vault

if TYPE_CHECKING:
    from .guard import Problem
    from .writer import AppendResult, Bullet, BulletKind

VaultArg = Union[str, "os.PathLike[str]", Vault, None]


def _vault(vault: VaultArg, use_cache: bool = True) -> Vault:
    return vault if isinstance(vault, Vault) else open_vault(vault, use_cache=use_cache)


def parse_day(value: str | dt.date | None) -> dt.date:
    """A ``YYYY-MM-DD`` argument as a date (None: today's local date)."""
    if value is None:
        return dt.date.today()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise Refused(f"date {value!r} is not a day in the form YYYY-MM-DD") from exc


@dataclass
class PagesResult:
    """Every page of a vault an agent may link, and what could not be read."""

    pages: list[Page]
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"pages": [p.to_json() for p in self.pages]}


def pages(*, vault: VaultArg = None) -> PagesResult:
    """The page registry of ``vault``: titles, files and aliases, sorted by title."""
    registry, warnings = load_registry(_vault(vault))
    return PagesResult(list(registry), warnings)


@dataclass
class LintResult:
    """What would stop each bullet from being appended (the guard's verdict, nothing written)."""

    problems: list[Problem]
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"problems": [p.to_json() for p in self.problems]}


def lint(bullets: Sequence[str] | str, *, vault: VaultArg = None) -> LintResult:
    """Check bullets against the guest rules without writing: unknown pages (with the closest
    existing names), properties, structure, block refs, superseded pages."""
    from .guard import lint as lint_bullet
    from .index import load_index
    from .registry import build_registry

    v = _vault(vault)
    index = load_index(v)
    registry = build_registry(index)
    ids = frozenset(i for facts in index.files.values() for i in facts.block_ids)
    items = [bullets] if isinstance(bullets, str) else list(bullets)
    problems = [
        p for b in items for p in lint_bullet(b.strip(), registry, v.flavor.syntax, block_ids=ids)
    ]
    return LintResult(problems, index.warnings)


@dataclass
class VaultInfo:
    """What journal-agent makes of a vault's layout and settings."""

    root: str
    flavor: str
    journal_folder: str
    journal_file_format: str
    journal_title_format: str | None
    date: str
    journal_page: str
    journal_title: str
    journal_exists: bool
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data.pop("warnings")
        return data


def info(*, vault: VaultArg = None, date: str | dt.date | None = None) -> VaultInfo:
    """Where ``date``'s journal page of ``vault`` is and how the vault is set up."""
    v = _vault(vault)
    day = parse_day(date)
    path = v.journal_path(day)
    return VaultInfo(
        root=str(v.root),
        flavor=v.flavor.name,
        journal_folder=v.settings.journal_dir or ".",
        journal_file_format=v.settings.journal_file_format,
        journal_title_format=v.settings.journal_title_format,
        date=day.isoformat(),
        journal_page=path.relative_to(v.root).as_posix(),
        journal_title=v.journal_title(day),
        journal_exists=path.is_file(),
    )


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
) -> AppendResult:
    """Append bullets under ``agent``'s owned block on a day's journal page (default today).

    Every referenced page must exist (else `BulletsRefused`, nothing written; ``unlink=True``
    writes unknown names as plain text). Bullets the agent already wrote there are skipped and
    reported in ``duplicates``.

    >>> journal_agent.append(["Fixed the flaky test in [[Flaky CI]]"], vault="~/notes",
    ...                      agent="claude", session="abc123")          # doctest: +SKIP
    """
    from .writer import Bullet
    from .writer import append as write

    items = [bullets] if isinstance(bullets, str) else list(bullets)
    wrapped = [b if isinstance(b, Bullet) else Bullet(b, kind) for b in items]
    return write(
        wrapped,
        vault=_vault(vault),
        agent=agent,
        date=parse_day(date) if date else None,
        session=session,
        header=header,
        unlink_unknown=unlink,
    )


# -- the read path --------------------------------------------------------------------------------


@dataclass
class Query:
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
        window = days if days is not None else int(v.own_config.get("days", DEFAULT_DAYS))
        if window < 1:
            raise Refused(f"--days must be at least 1, not {window}")
        return cls(v, parse_day(as_of), window, use_cache)

    def graph(
        self, listed: tuple[list[PageFile], list[str]] | None = None, only: str | None = None
    ) -> Graph:
        """The backlink graph, from the index (cached per file); ``only``: of one topic."""
        from .index import load_index

        index = load_index(self.vault, use_cache=self.use_cache, progress=True, files=listed)
        return Graph(index, exclude=self._excluded(), only=only)

    def _excluded(self) -> frozenset[str]:
        from .registry import page_key

        return frozenset(page_key(t) for t in self.vault.own_config.get("exclude", []))

    def statuses(self, only: str | None = None) -> tuple[list[Topic], list[str]]:
        """Every topic's status (or only those with status ``only``), most recently mentioned
        first, and the unreadable pages.

        A run whose files are unchanged since the last one answers from the cached summary."""
        from . import summary
        from .index import cache_path, paused_gc, stamp

        warnings: list[str] = []
        files = self.vault.page_files(warnings)
        key = stamp(self.vault, files) if self.use_cache else None
        if key is not None:
            key += repr(sorted(self._excluded()))
        path = str(cache_path(self.vault).with_suffix(".summary"))
        cached = summary.load(path, key) if key else None
        if cached is None:
            with paused_gc():  # every object built here lives until the answer is printed
                graph = self.graph((files, warnings))
                warnings = graph.index.warnings
                cached = summary.Summary.of(graph, key or "")
            if key:
                summary.save(path, cached)
        return by_recency(cached.topics(self.as_of, self.days, only)), warnings


@dataclass
class TopicsResult:
    """Topics with their derived status (``topics``, ``stale``)."""

    as_of: dt.date
    days: int
    topics: list[Topic]
    key: str = "topics"
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        if self.key == "threads":
            items = [
                dict(t.to_json(), last_text=t.last.text if t.last else None) for t in self.topics
            ]
            for item in items:
                item.pop("status")
        else:
            items = [t.to_json() for t in self.topics]
        return {"as_of": self.as_of.isoformat(), "days": self.days, self.key: items}


def topics(
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
) -> TopicsResult:
    """Every topic with its derived status (active, resolved, stale, unmentioned)."""
    q = Query.of(vault, as_of, days, use_cache)
    found, warnings = q.statuses()
    return TopicsResult(q.as_of, q.days, found, warnings=warnings)


def stale(
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
) -> TopicsResult:
    """The threads nobody has mentioned for more than ``days`` days (default 21)."""
    q = Query.of(vault, as_of, days, use_cache)
    threads, warnings = q.statuses("stale")
    return TopicsResult(q.as_of, q.days, threads, "threads", warnings)


def status(
    topic: str,
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
) -> Topic:
    """One topic's derived status."""
    q = Query.of(vault, as_of, days, use_cache)
    return derive(q.graph(only=topic).topic(topic), q.as_of, q.days)


@dataclass
class TimelineResult:
    """A topic's backlinks, newest first."""

    topic: Topic
    entries: list[Backlink]

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic.page.title,
            "path": self.topic.page.path,
            "entries": [b.to_json() for b in self.entries],
        }


def timeline(
    topic: str,
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
) -> TimelineResult:
    """Every block that mentions ``topic``: dated journal mentions newest first, then pages."""
    q = Query.of(vault, as_of, days, use_cache)
    found = derive(q.graph(only=topic).topic(topic), q.as_of, q.days)
    return TimelineResult(found, topic_timeline(found, q.as_of))


@dataclass
class RelatedResult:
    """Topics co-mentioned with one topic, and the clusters of topics that move together."""

    topic: Topic | None
    related: list[tuple[Topic, float]]
    clusters: list[list[Topic]]

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
    q = Query.of(vault, as_of, days, use_cache)
    graph = q.graph()
    for t in graph.topics.values():
        derive(t, q.as_of, q.days)
    groups = clusters(graph, q.as_of, q.days)
    if topic is None:
        return RelatedResult(None, [], groups)
    found = graph.topic(topic)
    mine = [g for g in groups if found in g]
    return RelatedResult(found, related_topics(graph, found, q.as_of, q.days, limit), mine)
