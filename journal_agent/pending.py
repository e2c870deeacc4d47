"""Pending bullets: what an agent handed over that is not on its journal page yet.

No agent host reliably runs a session-end hook to completion, so a bullet is first *recorded* —
durably, one small file in the vault's state folder, fsynced before the call returns — and only
then *flushed*: appended to its journal page when that page can be written. Whatever cannot be
written stays pending with the reason, until a later flush writes it or the person corrects or
drops it; every session start shows what is still pending. Nothing is lost silently and nothing
is written twice:

* a bullet's id hashes its agent, its session (without one: its day) and its text, so the same
  bullet handed over again — a retried hook, a Stop payload delivered twice, the transcript read
  again at session end — is recorded once;
* a bullet resolved (written, found already written, corrected, dropped) leaves a tombstone for
  `KEEP_DONE_DAYS` days, so a late retry does not bring it back;
* appends are idempotent per page and agent (the ledger), so a flush killed after writing
  re-flushes safely, and one refused bullet never holds back the others: a refused append is
  split and the rest written.

Layout, in ``<state>/pending/``: ``ID.json`` the bullet (created once, whole, never changed),
``ID.why`` why its last attempt failed (replaced on each failure), ``done/ID`` the tombstone.
When the vault's state folder cannot be written (a read-only, unmounted or missing vault) the
bullets go to an *outbox* outside the vault (`outbox`), named after the vault's path, and move
into the vault at the first flush that can write there (bullets noted while no vault was
configured at all move into the first vault that can take them).

A bullet keeps the day it was noted: it goes to that day's journal page if the page exists. If it
does not, the bullet goes to today's page instead, because today's is the one journal page
journal-agent may create (the outliner creates it every day; it would not create last Monday's).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

from .digests import sha256
from .errors import BadArgument, BulletsRefused, JournalAgentError, WriteError, escaped, short
from .ledger import Ledger, now_utc, text_hash
from .patterns import regex
from .records import NamedTuple, Record
from .state import STATE_ENV, StateDir, vault_slug

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

    from .vault import Vault

SUB = "pending"
DONE = "pending/done"
#: Tombstones of resolved bullets are kept this long: a retry later than that is not plausible.
KEEP_DONE_DAYS = 30
#: A bullet is one line at human size; anything near this is a mistake, not a note.
MAX_BULLET_BYTES = 16 * 1024
_ID = regex(r"[0-9a-f]{16}")
_TMP_AGE = 60.0  # seconds after which a temporary file is a dead process's leftover
_last_seq = 0  # the last `Pending.seq` this process gave out


class Pending(NamedTuple):
    """One bullet handed over and not written yet."""

    id: str
    text: str
    agent: str
    day: dt.date  # the local day it was noted: the journal page it belongs on
    session: str | None = None
    noted: str = ""  # when it was recorded, ISO 8601 UTC
    source: str | None = None  # who handed it over: "cli", "claude-code", ...
    reason: str | None = None  # why the last attempt did not write it
    tried: str | None = None  # when that attempt was
    where: str = "vault"  # "vault", or "outbox" while the vault's state cannot be written
    # the order it was handed over in (`make`): ``noted`` has whole seconds, and every bullet of
    # one call shares it; 0 in the files of versions that did not keep it
    seq: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "agent": self.agent,
            "day": self.day.isoformat(),
            "session": self.session,
            "noted": self.noted,
            "source": self.source,
            "reason": self.reason,
            "tried": self.tried,
            "where": self.where,
        }


def bullet_id(agent: str, session: str | None, day: dt.date, text: str) -> str:
    """The identity of a handed-over bullet: the same agent, session and text are one bullet
    (without a session, the same day stands in for it, so a note repeated tomorrow is new)."""
    key = session if session else f"day:{day.isoformat()}"
    return sha256("\0".join((agent, key, text_hash(text))).encode()).hexdigest()[:16]


def make(
    texts: Sequence[str],
    *,
    agent: str,
    session: str | None = None,
    day: dt.date | None = None,
    source: str | None = None,
) -> list[Pending]:
    """Pending bullets for ``texts`` (already rendered: prefixes applied), blank ones skipped;
    `BadArgument` for a bullet too large to be one."""
    when = day or dt.date.today()
    noted = now_utc()
    first = _next_seqs(len(texts))
    out: list[Pending] = []
    for n, raw in enumerate(texts):
        # a lone surrogate (JSON allows "\ud800") cannot be stored or written: mark its place
        text = raw.strip().encode("utf-8", "replace").decode("utf-8")
        if not text:
            continue
        if len(text.encode("utf-8")) > MAX_BULLET_BYTES:
            raise BadArgument(
                f"bullet {short(text)!r} is over {MAX_BULLET_BYTES // 1024} KB: not one line"
            )
        item_id = bullet_id(agent, session, when, text)
        out.append(
            Pending(item_id, text, agent, when, session or None, noted, source, seq=first + n)
        )
    return out


def _next_seqs(count: int) -> int:
    """The first of ``count`` order numbers for bullets handed over now: the time in nanoseconds
    (calls of other processes interleave by it), kept above those this process gave out already
    (a coarse clock repeats itself between two quick calls)."""
    global _last_seq
    first = max(time.time_ns(), _last_seq + 1)
    _last_seq = first + max(count - 1, 0)
    return first


# -- the store ---------------------------------------------------------------------------------


class PendingStore:
    """The pending bullets in one state folder (the vault's, or an outbox)."""

    def __init__(self, state: StateDir, where: str = "vault") -> None:
        self.state = state
        self.where = where

    @classmethod
    def of(cls, root: Path) -> PendingStore:
        """The pending bullets of the vault at ``root``."""
        return cls(StateDir.of(root), "vault")

    @property
    def path(self) -> Path:
        """Where the bullets are kept (for messages)."""
        return self.state.path / SUB

    def record(self, items: Sequence[Pending]) -> list[Pending]:
        """Record ``items`` durably; return those that are new (not pending or resolved yet)."""
        new: list[Pending] = []
        for item in items:
            if self._resolved(item.id):
                continue
            if not self.state.create(f"{item.id}.json", _dump(item), sub=SUB):
                continue  # pending already (the same hook, twice)
            if self._resolved(item.id):  # an earlier copy was resolved meanwhile
                self.state.remove(f"{item.id}.json", sub=SUB)
                continue
            new.append(item._replace(where=self.where))
        return new

    def items(self) -> list[Pending]:
        """Every pending bullet, oldest first and in the order handed over (leftovers of killed
        processes cleaned up)."""
        names = self.state.names(SUB)
        present = set(names)
        done = set(self.state.names(DONE)) if "done" in present else set()
        out: list[Pending] = []
        for name in names:
            stem, _, ext = name.rpartition(".")
            if ext == "json" and _ID.fullmatch(stem):
                if stem in done:  # resolved by a flush killed before it cleaned up
                    self.forget(stem)
                    continue
                item = self._load(stem, f"{stem}.why" in present)
                if item is not None:
                    out.append(item)
            elif ext == "why" and _ID.fullmatch(stem) and f"{stem}.json" not in present:
                self.state.remove(name, sub=SUB)
            elif ext == "tmp" and name.startswith("."):
                self._remove_stale_tmp(name)
        out.sort(key=lambda i: (i.noted, i.seq, i.id))
        return out

    def find(self, prefix: str) -> Pending:
        """The pending bullet whose id starts with ``prefix`` (at least 4 characters)."""
        found = [i for i in self.items() if len(prefix) >= 4 and i.id.startswith(prefix.lower())]
        if len(found) != 1:
            what = "no pending bullet" if not found else f"{len(found)} pending bullets"
            raise BadArgument(f"{what} with the id {prefix!r} (see journal-agent pending)")
        return found[0]

    def failed(self, item: Pending, reason: str) -> Pending:
        """Keep why ``item`` was not written (its ``.why`` file; if that cannot be written
        either, the reason is still returned: the bullet itself stays pending)."""
        tried = now_utc()
        data = json.dumps({"reason": reason, "tried": tried}, ensure_ascii=False).encode()
        try:
            self.state.replace(f"{item.id}.why", data, sub=SUB)
        except JournalAgentError:
            pass
        return item._replace(reason=reason, tried=tried)

    def resolve(self, item: Pending, how: str) -> None:
        """``item`` is done with (``how``: written, already written, fixed, dropped, moved): its
        tombstone first, then its files, so that a crash in between leaves it resolved."""
        stone = {"how": how, "time": now_utc(), "text": item.text}
        self.state.create(item.id, json.dumps(stone, ensure_ascii=False).encode(), sub=DONE)
        self.forget(item.id)

    def prune(self, days: int = KEEP_DONE_DAYS) -> int:
        """Remove tombstones older than ``days``; return how many."""
        limit = time.time() - days * 86400
        removed = 0
        for name in self.state.names(DONE):
            try:
                if os.lstat(self.state.path / DONE / name).st_mtime < limit:
                    removed += self.state.remove(name, sub=DONE)
            except OSError:
                continue
        return removed

    def _resolved(self, item_id: str) -> bool:
        return self.state.exists(item_id, sub=DONE)

    def forget(self, item_id: str) -> None:
        """Remove ``item_id``'s files without a tombstone (it moved to another store)."""
        self.state.remove(f"{item_id}.why", sub=SUB)
        self.state.remove(f"{item_id}.json", sub=SUB)

    def _load(self, item_id: str, has_why: bool) -> Pending | None:
        try:
            raw = json.loads(self.state.read(f"{item_id}.json", sub=SUB))
            item = Pending(
                item_id,
                str(raw["text"]),
                str(raw["agent"]),
                dt.date.fromisoformat(raw["day"]),
                raw.get("session"),
                str(raw.get("noted", "")),
                raw.get("source"),
                where=self.where,
                seq=_seq(raw.get("seq")),
            )
        except (ValueError, KeyError, TypeError):
            return None  # not ours (a file is created whole, never torn)
        if has_why:
            try:
                why = json.loads(self.state.read(f"{item_id}.why", sub=SUB))
                item = item._replace(reason=str(why["reason"]), tried=why.get("tried"))
            except (ValueError, KeyError, TypeError, JournalAgentError):
                pass
        return item

    def _remove_stale_tmp(self, name: str) -> None:
        try:
            if time.time() - os.lstat(self.path / name).st_mtime > _TMP_AGE:
                self.state.remove(name, sub=SUB)
        except (OSError, JournalAgentError):
            pass


def _seq(value: object) -> int:
    """A stored order number; 0 (ordered by time and id, as before) if missing or not one: a
    bullet is never lost for it."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _dump(item: Pending) -> bytes:
    data = item.to_json()
    for key in ("id", "reason", "tried", "where"):
        data.pop(key)
    data["seq"] = item.seq  # kept, not shown: only the order of the bullets depends on it
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


# -- the outbox: when the vault's own state folder cannot be written -------------------------


def outbox(root: Path | None) -> PendingStore:
    """Where bullets for the vault named ``root`` wait while the vault cannot take them: outside
    every vault, in the person's state folder (``$JOURNAL_AGENT_STATE``, their config file's
    ``state``, else the platform's user state folder), under the vault's path (``no-vault``
    when none is configured)."""
    from .userconfig import user_setting

    named = os.environ.get(STATE_ENV) or user_setting("state")
    if named:
        base = Path(named).expanduser()
    else:
        from .cachedir import user_folder

        base = Path(user_folder("state"))
    name = vault_slug(root) if root is not None else "no-vault"
    return PendingStore(StateDir(base, f"outbox/{name}"), "outbox")


def record(
    items: Sequence[Pending], vault: Vault | None, root: Path | None, why: str | None = None
) -> list[Pending]:
    """Record ``items`` in ``vault``'s state folder, else (it is None or cannot be written) in
    the outbox of ``root`` with the reason; the error of the first place if neither can."""
    first: JournalAgentError | None = None
    if vault is not None:
        try:
            return PendingStore.of(vault.root).record(items)
        except JournalAgentError as exc:
            first = exc
            why = f"the vault's state folder cannot be written: {exc}"
    box = outbox(root)
    try:
        box.state.base.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # the folder is opened next, and says why it cannot be
    try:
        new = box.record(items)
        return [box.failed(i, why or "the vault cannot be opened") for i in new]
    except JournalAgentError as exc:
        if first is not None:
            raise first from exc
        raise


def sweep(vault: Vault, store: PendingStore) -> int:
    """Move the bullets waiting in the vault's outbox into the vault, and those noted while no
    vault was configured at all (they have nowhere else to go: the first vault journal-agent can
    write is the person's); return how many. A crash half-way leaves a bullet in both places,
    under one id: recorded once."""
    moved = 0
    for box in (outbox(vault.root), outbox(None)):
        for item in box.items():
            store.record([item])
            box.forget(item.id)
            moved += 1
    return moved


# -- the flush ---------------------------------------------------------------------------------


class FlushReport(Record):
    """What a flush did with each pending bullet."""

    __slots__ = ("written", "duplicates", "failed", "untried", "moved", "busy")

    def __init__(
        self,
        written: list[Pending] | None = None,
        duplicates: list[Pending] | None = None,  # on the page already
        failed: list[Pending] | None = None,  # tried and not written (``reason``)
        untried: list[Pending] | None = None,  # out of time before their turn
        moved: dict[str, dt.date] | None = None,  # id → the day written, if not its own
        busy: bool = False,  # a page was busy (locked, being edited): worth trying again soon
    ) -> None:
        self.written = [] if written is None else written
        self.duplicates = [] if duplicates is None else duplicates
        self.failed = [] if failed is None else failed
        self.untried = [] if untried is None else untried
        self.moved = {} if moved is None else moved
        self.busy = busy

    @property
    def left(self) -> list[Pending]:
        """What is still pending."""
        return self.failed + self.untried

    def to_json(self) -> dict[str, Any]:
        def done(items: list[Pending]) -> list[dict[str, Any]]:
            return [
                dict(i.to_json(), written_on=self.moved.get(i.id, i.day).isoformat()) for i in items
            ]

        return {
            "written": done(self.written),
            "duplicates": done(self.duplicates),
            "pending": [i.to_json() for i in self.left],
        }


def flush(
    vault: Vault,
    *,
    until: float,
    store: PendingStore | None = None,
    only: set[str] | None = None,
    today: dt.date | None = None,
) -> FlushReport:
    """Append the pending bullets of ``vault`` (those in ``only``, if given) until the
    `time.monotonic` deadline ``until``, each to its day's page; record why any was not."""
    store = store or PendingStore.of(vault.root)
    report = FlushReport()
    try:
        sweep(vault, store)
    except JournalAgentError:
        pass  # the outbox stays where it is; it is shown, and swept next time
    items = [i for i in store.items() if only is None or i.id in only]
    today = today or dt.date.today()
    groups: dict[tuple[dt.date, str, str | None], list[Pending]] = {}
    ledger = Ledger(store.state) if store.where == "vault" else Ledger.of(vault.root)
    for item in items:
        day = _target_day(vault, item.day, today)
        if item.day != today and _in_ledger(ledger, item):
            _resolve(store, item, "already written")
            report.duplicates.append(item)
            continue
        if day != item.day:
            report.moved[item.id] = day
        groups.setdefault((day, item.agent, item.session), []).append(item)
    for (day, agent, session), members in groups.items():
        _append(vault, store, report, members, day, agent, session, until, today)
    return report


def _target_day(vault: Vault, day: dt.date, today: dt.date) -> dt.date:
    """The day whose page a bullet noted on ``day`` goes to: its own if that page exists (or it
    is today's), else today's — the one journal page journal-agent may create."""
    if day == today or (day < today and vault.journal_exists(vault.journal_page(day))):
        return day
    return today


def _in_ledger(ledger: Ledger, item: Pending) -> bool:
    """Whether ``item`` was written already, on any page (a flush killed after writing a late
    bullet to today's page, whose own day's page appeared since)."""
    h = text_hash(item.text)
    return any(
        e.agent == item.agent and e.session == item.session and e.time >= item.noted[:19]
        for e in ledger.of_bullet(h)
    )


def _append(
    vault: Vault,
    store: PendingStore,
    report: FlushReport,
    items: list[Pending],
    day: dt.date,
    agent: str,
    session: str | None,
    until: float,
    today: dt.date,
) -> None:
    """Append one page's bullets of one agent and session; a refused append is split, so that
    the bullets that can be written are. ``today``: the one day whose page may be created."""
    from .writer import append

    left = until - time.monotonic()
    if left <= 0:
        report.untried += items
        return
    try:
        result = append(
            [i.text for i in items],
            vault=vault,
            agent=agent,
            date=day,
            session=session,
            wait=left,
            today=today,
        )
    except BulletsRefused as exc:
        _split(vault, store, report, items, exc, day, agent, session, until, today)
        return
    except JournalAgentError as exc:
        report.busy = report.busy or isinstance(exc, WriteError)
        report.failed += [store.failed(i, str(exc)) for i in items]
        return
    written = {text_hash(t) for t in result.written}
    for item in items:
        new = text_hash(item.text) in written
        _resolve(store, item, "written" if new else "already written")
        (report.written if new else report.duplicates).append(item)


def _resolve(store: PendingStore, item: Pending, how: str) -> None:
    """Resolve a bullet that is on its page; if its files cannot be removed, the next flush
    finds it on the page (the ledger) and resolves it then."""
    try:
        store.resolve(item, how)
    except JournalAgentError:
        pass


def _split(
    vault: Vault,
    store: PendingStore,
    report: FlushReport,
    items: list[Pending],
    exc: BulletsRefused,
    day: dt.date,
    agent: str,
    session: str | None,
    until: float,
    today: dt.date,
) -> None:
    """Keep the refused bullets pending with their reasons and append the others."""
    reasons: dict[str, list[str]] = {}
    for problem in exc.problems:
        reasons.setdefault(text_hash(problem.bullet), []).append(problem.message)
    if len(items) == 1:  # the refusal is this bullet's, whatever it names
        why = "; ".join(p.message for p in exc.problems) or _first_line(str(exc))
        report.failed.append(store.failed(items[0], why))
        return
    refused = [i for i in items if text_hash(i.text) in reasons]
    if not refused:  # cannot tell which: try them one by one
        for item in items:
            _append(vault, store, report, [item], day, agent, session, until, today)
        return
    for item in refused:
        report.failed.append(store.failed(item, "; ".join(reasons[text_hash(item.text)])))
    rest = [i for i in items if i not in refused]
    if rest:
        _append(vault, store, report, rest, day, agent, session, until, today)


def _first_line(message: str) -> str:
    return message.splitlines()[0] if message else message


# -- showing what is pending -------------------------------------------------------------------


def for_context(vault: Vault, agent: str, as_of: dt.date | None = None) -> list[Pending]:
    """``agent``'s bullets still pending for ``vault`` (its own store and its outbox), oldest
    first: what the session-start projection lists, each with its reason. With ``as_of``, only
    those noted by then: a projection of an earlier day shows what was pending on that day."""
    found: list[Pending] = []
    for store in (PendingStore.of(vault.root), outbox(vault.root)):
        try:
            found += [i for i in store.items() if i.agent == agent]
        except JournalAgentError:
            continue
    return found if as_of is None else [i for i in found if _noted_on(i) <= as_of]


def _noted_on(item: Pending) -> dt.date:
    """The local day ``item`` was noted (its day if that is later, or if the time is not
    known: files of earlier versions may lack it)."""
    try:
        when = dt.datetime.fromisoformat(item.noted.replace("Z", "+00:00"))
    except ValueError:
        return item.day
    noted = when.astimezone().date() if when.tzinfo is not None else when.date()
    return max(noted, item.day)


def render(items: Sequence[Pending], limit: int = 20) -> str:
    """The pending bullets as a short Markdown section for the start of a session (empty if
    there are none): each with its day and why it is not written yet."""
    if not items:
        return ""
    lines = [f"## Pending bullets ({len(items)}, not written yet)"]
    for item in items[:limit]:
        why = f" — {escaped(item.reason)}" if item.reason else ""
        text = escaped(short(item.text, 160))  # not passed by the guard: it may hold escapes
        lines.append(f"- `{item.id[:8]}` {item.day.isoformat()}: {text}{why}")
    if len(items) > limit:
        lines.append(f"- … and {len(items) - limit} more (`journal-agent pending`)")
    lines.append(
        "Fix one with `journal-agent pending fix ID TEXT`, drop it with "
        "`journal-agent pending drop ID`; the rest is retried at every turn."
    )
    return "\n".join(lines)
