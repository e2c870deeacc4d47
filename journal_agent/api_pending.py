"""The Python API of the session loop's writes: bullets recorded as pending (`note`), the
pending store (`pending_bullets`, `flush_pending`, `drop_pending`, `fix_pending`), and the host
settings and bundles (`install_hooks`, `write_bundle`). Each function is one CLI command."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path

from .api import _vault, parse_day
from .errors import BadArgument, JournalAgentError, UnsafePath
from .records import NamedTuple, Record
from .vault import Vault, configured_root, open_vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

    from .api import VaultArg
    from .hosts.install import InstallResult
    from .pending import FlushReport, Pending, PendingStore
    from .writer import BulletKind


class NoteResult(Record):
    """What `note` did with each bullet: written, already written, or pending (and why)."""

    __slots__ = ("items", "report", "new", "warnings")

    def __init__(
        self,
        items: list[Pending],
        report: FlushReport | None,
        new: set[str] | None = None,  # ids recorded by this call
        warnings: list[str] | None = None,
    ) -> None:
        self.items = items
        self.report = report
        self.new = set() if new is None else new
        self.warnings = [] if warnings is None else warnings

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

    _check_budget(budget)
    started = _monotonic()
    texts = [Bullet(b, kind).render() for b in ([bullets] if isinstance(bullets, str) else bullets)]
    day = parse_day(date) if date is not None else None
    items = store.make(texts, agent=agent, session=session, day=day, source=source)
    v, root, why = _open_for_pending(vault)
    new = store.record(items, v, root, why)
    report = store.flush(v, until=started + budget) if v is not None and budget > 0 else None
    warnings = [i.reason for i in new if i.where == "outbox" and i.reason][:1]
    return NoteResult(items, report, {i.id for i in new}, warnings)


class PendingResult(Record):
    """The pending bullets (and, after a flush, drop or fix, what was done)."""

    __slots__ = ("pending", "report", "dropped", "warnings")

    def __init__(
        self,
        pending: list[Pending],
        report: FlushReport | None = None,
        dropped: list[Pending] | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.pending = pending
        self.report = report
        self.dropped = [] if dropped is None else dropped
        self.warnings = [] if warnings is None else warnings

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

    _check_budget(budget)
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

    _check_budget(budget)
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


def _check_budget(budget: float) -> None:
    """Refuse a time to try for that makes no deadline (negative, NaN, past an hour) before
    anything is recorded or written."""
    if not 0 <= budget <= 3600:
        raise BadArgument(f"budget {budget!r} must be between 0 and 3600 seconds")


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


class BundleResult(NamedTuple):
    """The files of a host's bundle written into a folder."""

    host: str
    folder: str
    files: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "folder": self.folder, "files": self.files}


def write_bundle(
    host: str,
    folder: str | os.PathLike[str],
    *,
    force: bool = False,
    vault: str | os.PathLike[str] | None = None,
) -> BundleResult:
    """Write ``host``'s ready-to-install bundle (a Claude Code plugin, the Codex hooks and
    AGENTS.md section, a Gemini CLI extension) into ``folder``: never into the vault (``vault``,
    else the one the person configured), and over files of other contents only with
    ``force``."""
    from .files import inside
    from .hosts import host_named
    from .hosts.install import write_bundle as write

    target = Path(folder).expanduser().absolute()
    root = configured_root(vault)
    if root is not None and inside(target, root):
        raise UnsafePath(f"{target}: is inside the vault {root}; write the bundle somewhere else")
    return BundleResult(host, str(target), write(host_named(host), target, force=force))
