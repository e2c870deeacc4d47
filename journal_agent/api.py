"""The Python API: one function per CLI command, returning typed results.

Each takes ``vault=`` as a path (else ``$JOURNAL_AGENT_VAULT``) or an opened `Vault`.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from .errors import Refused
from .registry import Page, load_registry
from .vault import Vault, open_vault

if TYPE_CHECKING:
    from .writer import AppendResult, Bullet, BulletKind

VaultArg = Union[str, "os.PathLike[str]", Vault, None]


def _vault(vault: VaultArg) -> Vault:
    return vault if isinstance(vault, Vault) else open_vault(vault)


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
    bullets: list[str | Bullet] | str,
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
    from .writer import Bullet, append as write

    items = [bullets] if isinstance(bullets, str) else list(bullets)
    wrapped = [b if isinstance(b, Bullet) else Bullet(b, kind) for b in items]
    return write(wrapped, vault=_vault(vault), agent=agent, date=parse_day(date) if date else None,
                 session=session, header=header, unlink_unknown=unlink)
