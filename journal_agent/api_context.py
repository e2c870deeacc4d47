"""The Python API of the session start: the projection (`context`), past decisions (`why`) and
what people did to an agent's bullets (`audit`). Each function is one CLI command."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence

from .api import Query, _vault
from .errors import BadArgument, JournalAgentError
from .registry import Page, load_registry

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

    from .api import VaultArg
    from .corrections import AuditResult
    from .decisions import WhyResult
    from .projection import ContextResult, PendingLike
    from .summary import Summary


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
    # The projection of the whole vault reads only topics with a dated mention (a cold one
    # then reads the journal pages and page heads); a scope's names are looked up among all.
    found = q.summary(dated_only=req.whole_vault)
    frontier = q.vault.own_config.frontier
    at = _with_file(found, frontier) if frontier is not None else None
    if found.partial and frontier is not None and at is None:
        found = q.summary()  # the registry names it: wait for the full summary being built
        at = _with_file(found, frontier)
    pages = _Lookup(q)
    scope = scoping.resolve(req, found, q.as_of, q.days, pages.title)
    if req.source == "--topic" and scope.unknown:
        pages.refuse(scope.unknown[0])
    try:
        corrections, warnings = recent_corrections(q.vault, name, q.as_of, q.days)
    except JournalAgentError as exc:  # provenance only: the vault's facts are shown without it
        corrections, warnings = [], [f"corrections not shown: {exc}"]
    items = _stored_pending(q, name, warnings) if pending is None else list(pending)
    inputs = projection.Inputs(
        q.as_of,
        q.days,
        name,
        size,
        found,
        scope,
        _frontier(q, found, pages, at),
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
        """The page ``name`` links, else the one page a query's topic of that name means (in
        Obsidian a note's alias names it, though ``[[Alias]]`` links nothing)."""
        if self._registry is None:
            self._registry, _ = load_registry(self.query.vault, use_cache=self.query.use_cache)
        page: Page | None = self._registry.resolve(name)
        if page is None:
            found: list[Page] = self._registry.candidates(name)
            page = found[0] if len(found) == 1 else None
        return page

    def title(self, name: str) -> str | None:
        page = self.page(name)
        return page.title if page is not None and page.date is None else None

    def refuse(self, name: str) -> None:
        from .errors import not_a_page

        self.page(name)
        raise not_a_page(name, self._registry.suggest(name), "topic")


def _frontier(q: Query, found: Summary, pages: _Lookup, at: int | None) -> Any:
    """The frontier page the vault's config names, read now (None if none is configured);
    ``at``: its topic in ``found`` (`_with_file`), if it has one."""
    from .errors import UnreadablePage
    from .projection import Frontier, frontier_lines

    title = q.vault.own_config.frontier
    if title is None:
        return None
    page = Page(found.title(at), found.path(at)) if at is not None else pages.page(title)
    if page is None or page.path is None:
        return Frontier(title, None)
    try:
        return Frontier(page.title, frontier_lines(q.vault.read_page(page.path).text))
    except UnreadablePage:
        return Frontier(page.title, None)


def _with_file(found: Summary, title: str) -> int | None:
    """The first topic titled ``title`` (by `registry.page_key`) that has a page file: every
    summary, partial or not, has the same ones in the same order."""
    from .registry import page_key

    key = page_key(title)
    titles, paths = found.titles, found.paths
    return next((i for i, t in enumerate(titles) if paths[i] and page_key(t) == key), None)


def _stored_pending(q: Query, agent: str, warnings: list[str]) -> list[PendingLike]:
    """The bullets the pending store holds for ``agent``, noted by the query's day
    (`pending.for_context`); a store that cannot be read costs only this section of the
    projection, said in ``warnings``."""
    from .pending import for_context

    try:
        return list(for_context(q.vault, agent, q.as_of))
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
    found = q.timeline(topic)
    return WhyResult(
        found.topic, decisions_about(q.vault, found.topic, found.entries), found.warnings
    )


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
