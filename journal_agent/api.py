"""The Python API: one function per CLI command, returning typed results.

Each takes ``vault=`` as a path (else ``$JOURNAL_AGENT_VAULT``, else the person's config file) or
an opened `Vault`. Every error is a `JournalAgentError`.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from .errors import BadArgument, JournalAgentError, UnsafePath, os_error, translated
from .queries import DEFAULT_DAYS, Backlink, Graph, Topic, by_recency, clusters, derive
from .queries import related as related_topics
from .queries import timeline as topic_timeline
from .registry import Page, load_registry
from .vault import PageFile, Vault, open_vault

if TYPE_CHECKING:
    from .backends.base import Backend
    from .corrections import AuditResult
    from .decisions import WhyResult
    from .guard import Problem
    from .hosts.install import InstallResult
    from .pending import FlushReport, Pending, PendingStore
    from .projection import ContextResult, PendingLike
    from .summary import Summary
    from .writer import AppendResult, Bullet, BulletKind

VaultArg = Union[str, "os.PathLike[str]", Vault, None]
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


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


@dataclass
class PagesResult:
    """Every page of a vault an agent may link, and what could not be read."""

    pages: list[Page]
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"pages": [p.to_json() for p in self.pages]}


@translated("read")
def pages(*, vault: VaultArg = None, search: str | None = None, limit: int = 20) -> PagesResult:
    """The page registry of ``vault``: titles, files and aliases, sorted by title. With
    ``search``, the ``limit`` pages whose title or an alias best matches it (a part of the name,
    any case, or a close spelling), best first: what an agent may link for a name it has in
    mind."""
    registry, warnings = load_registry(_vault(vault))
    if search is None:
        return PagesResult(list(registry), warnings)
    if not search.strip():
        raise BadArgument("the search is empty")
    return PagesResult(registry.search(search, limit), warnings)


@dataclass
class LintResult:
    """What would stop each bullet from being appended (the guard's verdict, nothing written)."""

    problems: list[Problem]
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"problems": [p.to_json() for p in self.problems]}


@translated("read")
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


@translated("read")
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
        window = days if days is not None else v.own_config.days or DEFAULT_DAYS
        if type(window) is not int or not 1 <= window <= 36500:
            raise BadArgument(f"the window must be 1 to 36500 days, not {window!r}")
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

        return frozenset(page_key(t) for t in self.vault.own_config.exclude)

    def statuses(self, only: str | None = None) -> tuple[list[Topic], list[str]]:
        """Every topic's status (or only those with status ``only``), most recently mentioned
        first, and the unreadable pages (from the cached summary while nothing changed)."""
        found = self.summary()
        return by_recency(found.topics(self.as_of, self.days, only)), found.warnings

    def summary(self) -> Summary:
        """The status summary of the vault (cached while nothing changed, `summary.current`)."""
        from . import summary

        return summary.current(
            self.vault, use_cache=self.use_cache, exclude=self._excluded(), build=self.graph
        )


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


@translated("read")
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


@translated("read")
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
    graph = q.graph(only=topic)
    found = derive(graph.topic(topic), q.as_of, q.days)
    found.warnings = list(graph.index.warnings)
    return found


@dataclass
class TimelineResult:
    """A topic's backlinks, newest first."""

    topic: Topic
    entries: list[Backlink]
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic.page.title,
            "path": self.topic.page.path,
            "entries": [b.to_json() for b in self.entries],
        }

    def write_html(self, path: str | os.PathLike[str], vault: VaultArg = None) -> Path:
        """Write the timeline as one self-contained HTML page at ``path``, atomically; a path
        inside the vault is refused (journal-agent never writes the person's pages)."""
        target = Path(path).expanduser().absolute()
        if vault is not None and _inside_vault(target, _vault(vault)):
            raise UnsafePath(
                f"{target}: is inside the vault; write the timeline page somewhere else"
            )
        from .html import render_timeline

        _write_atomic(target, render_timeline(self).encode("utf-8"))
        return target


@translated("read")
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
    graph = q.graph(only=topic)
    found = derive(graph.topic(topic), q.as_of, q.days)
    return TimelineResult(found, topic_timeline(found, q.as_of), list(graph.index.warnings))


def _inside_vault(target: Path, vault: Vault) -> bool:
    from .files import inside

    return inside(target, vault.root) or inside(target.parent, vault.root)


def _write_atomic(target: Path, data: bytes) -> None:
    """Write a file of ours outside the vault: a temporary file beside it, then a rename, so a
    full disk never leaves a truncated file."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise os_error(exc, target, "write the timeline page") from exc


@dataclass
class RelatedResult:
    """Topics co-mentioned with one topic, and the clusters of topics that move together."""

    topic: Topic | None
    related: list[tuple[Topic, float]]
    clusters: list[list[Topic]]
    warnings: list[str] = field(default_factory=list)

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


# -- the session loop: context, why, audit ---------------------------------------------------------


def context(
    *,
    vault: VaultArg = None,
    agent: str = "agent",
    as_of: str | dt.date | None = None,
    days: int | None = None,
    budget: int | None = None,
    topics: Sequence[str] = (),
    project: str | os.PathLike[str] | None = None,
    use_scope_file: bool = True,
    pending: Sequence[PendingLike] | None = None,
    use_cache: bool = True,
) -> ContextResult:
    """The session-start projection of ``vault`` for ``agent``: Markdown within ``budget``
    characters (default 6,000), the same bytes for the same vault, agent, scope and day.

    Scope: ``topics`` (and their related topics), else the ``.journal-agent-scope.toml`` found
    from ``project`` (default: the current directory) upward, else the whole vault.
    ``pending``: bullets recorded but not yet written (objects with ``text`` and ``reason``);
    None reads them from journal-agent's own store when it has one.

    >>> print(journal_agent.context(vault="~/notes", agent="claude").markdown)  # doctest: +SKIP
    """
    from . import projection
    from . import scope as scoping
    from .corrections import recent_corrections

    size = projection.DEFAULT_BUDGET if budget is None else budget
    if type(size) is not int or not projection.MIN_BUDGET <= size <= projection.MAX_BUDGET:
        raise BadArgument(
            f"the budget must be {projection.MIN_BUDGET} to {projection.MAX_BUDGET} characters, "
            f"not {size!r}"
        )
    name = _agent_name(agent)
    q = Query.of(vault, as_of, days, use_cache)
    req = scoping.request(topics, project, use_scope_file)
    found = q.summary()
    pages = _Lookup(q)
    scope = scoping.resolve(req, found, q.as_of, q.days, pages.title)
    if req.source == "--topic" and scope.unknown:
        pages.refuse(scope.unknown[0])
    try:
        corrections, warnings = recent_corrections(q.vault, name, q.as_of, q.days)
    except JournalAgentError as exc:  # provenance only: the vault's facts are shown without it
        corrections, warnings = [], [f"corrections not shown: {exc}"]
    items = _stored_pending(q.vault, name, warnings) if pending is None else list(pending)
    inputs = projection.Inputs(
        q.as_of,
        q.days,
        name,
        size,
        found,
        scope,
        _frontier(q, found, pages),
        corrections,
        items,
        lambda rel: f"the {d.isoformat()} journal" if (d := q.vault.date_of(rel)) else rel,
    )
    result = projection.build(inputs)
    result.warnings = list(found.warnings) + warnings
    return result


def _agent_name(agent: str) -> str:
    name = agent.strip() if isinstance(agent, str) else ""
    if not name or len(name) > 100 or any(c in name for c in "\n\r\t"):
        raise BadArgument(f"agent name {agent!r} must be one short line")
    return name


class _Lookup:
    """Page names the summary does not hold as titles (aliases, excluded pages), resolved by the
    full registry, which is loaded only if such a name comes up."""

    def __init__(self, query: Query) -> None:
        self.query = query
        self._registry: Any = None

    def page(self, name: str) -> Page | None:
        if self._registry is None:
            self._registry, _ = load_registry(self.query.vault, use_cache=self.query.use_cache)
        page: Page | None = self._registry.resolve(name)
        return page

    def title(self, name: str) -> str | None:
        page = self.page(name)
        return page.title if page is not None and page.date is None else None

    def refuse(self, name: str) -> None:
        from .errors import PageNotFound

        self.page(name)
        hint = self._registry.suggest(name)
        more = f" (did you mean {', '.join(repr(s) for s in hint)}?)" if hint else ""
        raise PageNotFound(f"{name!r} is not a topic of this vault{more}")


def _frontier(q: Query, found: Summary, pages: _Lookup) -> Any:
    """The frontier page the vault's config names, read now (None if none is configured)."""
    from .errors import UnreadablePage
    from .projection import Frontier, frontier_lines
    from .registry import page_key

    title = q.vault.own_config.frontier
    if title is None:
        return None
    key = page_key(title)
    at = next((i for i, t in enumerate(found.titles) if page_key(t) == key), None)
    page = Page(found.titles[at], found.paths[at]) if at is not None else pages.page(title)
    if page is None or page.path is None:
        return Frontier(title, None)
    try:
        return Frontier(page.title, frontier_lines(q.vault.read_page(page.path).text))
    except UnreadablePage:
        return Frontier(page.title, None)


def _stored_pending(vault: Vault, agent: str, warnings: list[str]) -> list[PendingLike]:
    """The bullets the pending store holds for ``agent`` (`pending.for_context`); a store that
    cannot be read costs only this section of the projection, said in ``warnings``."""
    from .pending import for_context

    try:
        return list(for_context(vault, agent))
    except JournalAgentError as exc:
        warnings.append(f"pending bullets not shown: {exc}")
        return []


def why(
    topic: str,
    *,
    vault: VaultArg = None,
    as_of: str | dt.date | None = None,
    days: int | None = None,
    use_cache: bool = True,
) -> WhyResult:
    """The decision bullets about ``topic``, newest first: rationale as it was written (history,
    not current truth), each with the bullets under it."""
    from .decisions import WhyResult, decisions_about

    q = Query.of(vault, as_of, days, use_cache)
    graph = q.graph(only=topic)
    found = derive(graph.topic(topic), q.as_of, q.days)
    entries = topic_timeline(found, q.as_of)
    return WhyResult(found, decisions_about(q.vault, found, entries), list(graph.index.warnings))


def audit(
    *,
    vault: VaultArg = None,
    agent: str | None = None,
    since: str | dt.date | None = None,
) -> AuditResult:
    """What people did to ``agent``'s bullets (every agent's by default) written since
    ``since`` (a day or an ISO time): deleted, edited, moved, owned block removed, or lost in a
    Logseq overwrite. Reported only: nothing is written or restored."""
    from .corrections import audit as run_audit
    from .corrections import parse_since

    name = _agent_name(agent) if agent is not None else None
    return run_audit(_vault(vault), name, parse_since(since))


# -- pending bullets and the session loop ---------------------------------------------------------


@dataclass
class NoteResult:
    """What `note` did with each bullet: written, already written, or pending (and why)."""

    items: list[Pending]
    report: FlushReport | None
    new: set[str] = field(default_factory=set)  # ids recorded by this call
    warnings: list[str] = field(default_factory=list)

    def state(self, item: Pending) -> tuple[str, Pending, dt.date | None]:
        """``item``'s state (written, already written, pending, recorded before), the item as
        last seen, and the day of the page it was written on."""
        report = self.report
        if report is not None:
            for state, found in (
                ("written", report.written),
                ("already written", report.duplicates),
            ):
                if any(i.id == item.id for i in found):
                    return state, item, report.moved.get(item.id, item.day)
            for left in report.left:
                if left.id == item.id:
                    return "pending", left, None
        return ("pending" if item.id in self.new else "recorded before"), item, None

    def to_json(self) -> dict[str, Any]:
        bullets = []
        for item in self.items:
            state, seen, day = self.state(item)
            bullets.append(
                dict(seen.to_json(), state=state, written_on=day.isoformat() if day else None)
            )
        return {"bullets": bullets}


def _open_for_pending(vault: VaultArg) -> tuple[Vault | None, Path | None, str | None]:
    """The vault if it opens; else None, the path it was named by, and why."""
    from .errors import JournalAgentError
    from .vault import configured_root

    if isinstance(vault, Vault):
        return vault, vault.root, None
    try:
        v = open_vault(vault)
    except JournalAgentError as exc:
        return None, configured_root(vault), str(exc)
    return v, v.root, None


def note(
    bullets: Sequence[str] | str,
    *,
    vault: VaultArg = None,
    agent: str = "agent",
    session: str | None = None,
    date: str | dt.date | None = None,
    kind: BulletKind = "note",
    budget: float = 1.0,
    source: str = "cli",
) -> NoteResult:
    """Record bullets as pending, durably, then try for ``budget`` seconds to write them (0:
    only record). A bullet handed over twice (same agent, session and text) is recorded once;
    one that cannot be written stays pending with the reason (`pending`). If the vault cannot
    be opened or written, the bullets wait outside it until it can.

    >>> journal_agent.note(["Moved [[Atlas Migration]] to Friday"], vault="~/notes",
    ...                    agent="claude", session="abc123")          # doctest: +SKIP
    """
    from . import pending as store
    from .writer import Bullet

    if not 0 <= budget <= 3600:
        raise BadArgument(f"budget {budget!r} must be between 0 and 3600 seconds")
    started = _monotonic()
    texts = [Bullet(b, kind).render() for b in ([bullets] if isinstance(bullets, str) else bullets)]
    day = parse_day(date) if date is not None else None
    items = store.make(texts, agent=agent, session=session, day=day, source=source)
    v, root, why = _open_for_pending(vault)
    new = store.record(items, v, root, why)
    report = store.flush(v, until=started + budget) if v is not None and budget > 0 else None
    warnings = [i.reason for i in new if i.where == "outbox" and i.reason][:1]
    return NoteResult(items, report, {i.id for i in new}, warnings)


@dataclass
class PendingResult:
    """The pending bullets (and, after a flush, drop or fix, what was done)."""

    pending: list[Pending]
    report: FlushReport | None = None
    dropped: list[Pending] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        done = self.report.to_json() if self.report else {"written": [], "duplicates": []}
        return {
            "pending": [i.to_json() for i in self.pending],
            "written": done["written"],
            "duplicates": done["duplicates"],
            "dropped": [i.to_json() for i in self.dropped],
        }


def _stores(vault: VaultArg) -> tuple[Vault | None, list[PendingStore], list[str]]:
    """The opened vault (or None), its pending stores (the vault's, the outbox) and why the
    vault could not be opened."""
    from .pending import PendingStore, outbox

    v, root, why = _open_for_pending(vault)
    stores = [PendingStore.of(v.root)] if v is not None else []
    return v, stores + [outbox(root)], [why] if why else []


def pending_bullets(*, vault: VaultArg = None) -> PendingResult:
    """The bullets handed over and not written yet, oldest first, each with why."""
    _v, stores, warnings = _stores(vault)
    return PendingResult([i for s in stores for i in s.items()], warnings=warnings)


def flush_pending(*, vault: VaultArg = None, budget: float = 10.0) -> PendingResult:
    """Try for ``budget`` seconds to write every pending bullet of ``vault``."""
    from .pending import flush

    started = _monotonic()
    v = _vault(vault)
    _v, stores, warnings = _stores(v)
    report = flush(v, until=started + budget, store=stores[0])
    return PendingResult(report.left + stores[1].items(), report, warnings=warnings)


def drop_pending(bullet_id: str, *, vault: VaultArg = None) -> PendingResult:
    """Drop a pending bullet (by id or a prefix of 4+ characters): it will not be written, and
    handing it over again in the same session does not bring it back."""
    store, item = _find_pending(bullet_id, vault)
    store.resolve(item, "dropped")
    return PendingResult(store.items(), dropped=[item])


def fix_pending(
    bullet_id: str, text: str, *, vault: VaultArg = None, budget: float = 1.0
) -> NoteResult:
    """Replace a pending bullet's text (a link to a page that exists, a shorter line) and try to
    write it; the old text is dropped."""
    from . import pending as store_mod

    store, item = _find_pending(bullet_id, vault)
    made = store_mod.make(
        [text], agent=item.agent, session=item.session, day=item.day, source=item.source
    )
    if not made:
        raise BadArgument("the corrected bullet is empty; to drop it use `pending drop`")
    fixed = made[0]
    started = _monotonic()
    new = store.record([fixed])
    store.resolve(item, f"fixed: {fixed.id}")
    v, _root, _why = _open_for_pending(vault)
    report = None
    if v is not None and store.where == "vault" and budget > 0:
        report = store_mod.flush(v, until=started + budget, store=store, only={fixed.id})
    return NoteResult([fixed], report, {i.id for i in new})


def _find_pending(bullet_id: str, vault: VaultArg) -> tuple[PendingStore, Pending]:
    _v, stores, _w = _stores(vault)
    for store in stores:
        try:
            return store, store.find(bullet_id)
        except BadArgument:
            continue
    raise BadArgument(f"no pending bullet with the id {bullet_id!r} (see journal-agent pending)")


def _monotonic() -> float:
    import time

    return time.monotonic()


def install_hooks(
    host: str,
    *,
    project: str | os.PathLike[str] | None = None,
    settings: str | os.PathLike[str] | None = None,
    print_only: bool = False,
) -> InstallResult:
    """Merge journal-agent's hooks into ``host``'s settings file (the user's; ``project``'s
    folder; or the file ``settings``): a backup first, other hooks untouched, idempotent."""
    from .hosts import host_named
    from .hosts.install import install

    found = host_named(host)
    path = (
        Path(settings)
        if settings
        else found.settings_path(Path(project).absolute() if project is not None else None)
    )
    return install(found, path, print_only=print_only)


@dataclass
class BundleResult:
    """The files of a host's bundle written into a folder."""

    host: str
    folder: str
    files: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "folder": self.folder, "files": self.files}


def write_bundle(host: str, folder: str | os.PathLike[str]) -> BundleResult:
    """Write ``host``'s ready-to-install bundle (a Claude Code plugin, the Codex hooks and
    AGENTS.md section, a Gemini CLI extension) into ``folder``."""
    from .hosts import host_named
    from .hosts.install import write_bundle as write

    target = Path(folder).expanduser().absolute()
    return BundleResult(host, str(target), write(host_named(host), target))
