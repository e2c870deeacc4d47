"""The scope of a session-start projection: which topics it is about, and where that was said.

A session usually works on one project, and a projection of the whole vault spends its budget on
threads the session will not touch. The scope narrows it, and it is always explicit:

* ``--topic T`` (repeatable): those topics and their related cluster;
* else a scope file in the project's own repository, ``.journal-agent-scope.toml``, found by
  walking up from the current directory (or the hook's ``cwd``) to the root of its git
  repository (the first folder holding ``.git``), or to the file system's root outside one::

      # .journal-agent-scope.toml: the topics this project's sessions start from
      topics = ["Atlas Migration", "Flaky CI"]
      related = true          # also the topics they are co-mentioned with (default true)

* else the whole vault.

The file lives in the project, not in the vault: the project is shared by people whose vaults
differ, so a topic it names that this vault does not have is reported in the projection, never an
error (a name typed with ``--topic`` is: the person can fix it). The projection's scope line says
which scope was used and from where.

"Related cluster" here is the one-hop neighbourhood of the named topics in the co-mention graph,
weighted as `queries.related` weighs it (each shared block 0.5 ** (age / window)), strongest
first. It is read from the cached status summary: the Louvain communities of
`queries.clusters` need the whole backlink graph and networkx, which cost more than a session
start may.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from .errors import ConfigError
from .files import read_text
from .records import NamedTuple, Record
from .registry import page_key
from .summary import Summary

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

SCOPE_FILE = ".journal-agent-scope.toml"
MAX_TOPICS = 50
#: Related topics added to a scope, at most, and the least weight that makes one related: one
#: shared block within the window weighs at least 0.5.
RELATED_LIMIT = 12
RELATED_MIN_WEIGHT = 0.5


class ScopeRequest(NamedTuple):
    """The scope as asked for: topic names, whether their related topics join, and from where
    (``"--topic"``, the scope file's path, or ``""`` for the whole vault)."""

    topics: tuple[str, ...] = ()
    related: bool = True
    source: str = ""

    @property
    def whole_vault(self) -> bool:
        return not self.topics


def find_scope_file(start: Path) -> Path | None:
    """The project's scope file: in ``start`` or a folder above it, up to the root of the git
    repository ``start`` is in (or the file system's root). A folder that cannot be a path
    (a hook's ``cwd`` may hold a NUL) or cannot be looked into has none."""
    try:
        folder = start.expanduser().resolve()
        for candidate in (folder, *folder.parents):
            path = candidate / SCOPE_FILE
            if path.is_file():
                return path
            if (candidate / ".git").exists():
                return None
    except (OSError, RuntimeError, ValueError):
        return None
    return None


def read_scope_file(path: Path) -> ScopeRequest:
    """The scope file's request, validated; `ConfigError` names the file and the setting."""
    text = read_text(path, SCOPE_FILE, ConfigError)
    if text is None:
        raise ConfigError(f"{path}: the scope file is gone")
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return _validate(data, path)


def _validate(data: dict[str, Any], path: Path) -> ScopeRequest:
    for key in data:
        if key not in ("topics", "related"):
            raise ConfigError(f"{path}: unknown setting {key!r} (known: topics, related)")
    topics = data.get("topics")
    if (
        not isinstance(topics, list)
        or not 1 <= len(topics) <= MAX_TOPICS
        or not all(isinstance(t, str) for t in topics)
    ):
        raise ConfigError(
            f"{path}: topics must be a list of 1 to {MAX_TOPICS} page titles, not {topics!r}"
        )
    related = data.get("related", True)
    if not isinstance(related, bool):
        raise ConfigError(f"{path}: related must be true or false, not {related!r}")
    return ScopeRequest(tuple(clean_topics(topics, str(path))), related, str(path))


def clean_topics(names: Sequence[str], where: str) -> list[str]:
    """Topic names as a person may write them (``Atlas`` or ``[[Atlas]]``), each checked:
    one line, not empty, no longer than a page title; duplicates dropped."""
    out: list[str] = []
    for raw in names:
        name = raw.strip()
        if name.startswith("[[") and name.endswith("]]"):
            name = name[2:-2].strip()
        if not name or len(name) > 200 or any(c in name for c in "\n\r\t[]"):
            raise ConfigError(f"{where}: {raw!r} is not a page title")
        if page_key(name) not in {page_key(n) for n in out}:
            out.append(name)
    return out


def request(
    topics: Sequence[str] = (),
    project: str | os.PathLike[str] | None = None,
    use_file: bool = True,
) -> ScopeRequest:
    """The scope asked for: ``topics`` if any (``--topic``), else the project's scope file found
    from ``project`` (default: the current directory), else the whole vault."""
    if topics:
        from .errors import BadArgument

        try:
            return ScopeRequest(tuple(clean_topics(topics, "--topic")), True, "--topic")
        except ConfigError as exc:
            raise BadArgument(str(exc)) from exc
    if use_file:
        found = find_scope_file(Path(project) if project is not None else Path.cwd())
        if found is not None:
            return read_scope_file(found)
    return ScopeRequest()


class Scope(Record):
    """A scope resolved against one vault's summary: the topics in it (summary positions)."""

    __slots__ = ("request", "named", "unknown", "related", "members")

    def __init__(
        self,
        request: ScopeRequest,
        named: list[str] | None = None,  # titles of the requested topics found
        unknown: list[str] | None = None,  # requested names that are no topic here
        related: list[str] | None = None,  # titles added as related, strongest first
        members: frozenset[int] | None = None,  # summary positions; None: the whole vault
    ) -> None:
        self.request = request
        self.named = [] if named is None else named
        self.unknown = [] if unknown is None else unknown
        self.related = [] if related is None else related
        self.members = members

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.request.source or "whole vault",
            "topics": self.named,
            "related": self.related,
            "unknown": self.unknown,
        }


def resolve(
    req: ScopeRequest,
    summary: Summary,
    as_of: dt.date,
    days: int,
    lookup: Callable[[str], str | None],
) -> Scope:
    """Find the requested topics in the summary (by title; ``lookup`` maps any other name, such
    as an alias, to a title) and add their related topics."""
    scope = Scope(req)
    if req.whole_vault:
        return scope
    positions = {page_key(t): i for i, t in enumerate(summary.titles)}
    seeds: list[int] = []
    for name in req.topics:
        i = positions.get(page_key(name))
        if i is None:
            title = lookup(name)
            i = positions.get(page_key(title)) if title is not None else None
        if i is None:
            scope.unknown.append(name)
        elif i not in seeds:
            seeds.append(i)
            scope.named.append(summary.titles[i])
    near = neighbours(summary, seeds, as_of, days) if req.related else []
    scope.related = [summary.titles[i] for i, _w in near]
    scope.members = frozenset(seeds) | {i for i, _w in near}
    return scope


def neighbours(
    summary: Summary, seeds: Sequence[int], as_of: dt.date, days: int
) -> list[tuple[int, float]]:
    """The topics sharing blocks with ``seeds`` (dated up to ``as_of``), by recency-weighted
    count, strongest first, at most `RELATED_LIMIT`, each weighing at least
    `RELATED_MIN_WEIGHT`."""
    if not seeds:
        return []
    day, src, line = summary.days, summary.sources, summary.lines
    blocks: dict[tuple[int, int], float] = {}
    limit = as_of.toordinal()
    for i in seeds:
        for k in summary.dated(i, as_of):
            blocks[(src[k], line[k])] = 0.5 ** ((limit - day[k]) / days)
    weights: dict[int, float] = defaultdict(float)
    chosen = set(seeds)
    for j in range(len(summary.titles)):
        if j in chosen:
            continue
        span = summary.dated(j, as_of)
        for s, ln in zip(src[span.start : span.stop], line[span.start : span.stop], strict=True):
            w = blocks.get((s, ln))
            if w is not None:
                weights[j] += w
    ranked = sorted(weights.items(), key=lambda p: (-p[1], page_key(summary.titles[p[0]])))
    return [(j, w) for j, w in ranked if w >= RELATED_MIN_WEIGHT][:RELATED_LIMIT]
