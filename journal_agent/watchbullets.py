"""What `journal-agent watch` sees happen to agent bullets, as it happens.

The watcher hands each changed page to `Bullets.compare`, which compares it with the copy seen
before: a bullet a person deleted, edited or moved out of its owned block is recorded, with the
time it was seen, in ``events.jsonl`` of the state folder (which `audit` reads; each is told
apart the way `audit` tells it, `corrections.placed` and `corrections.match_edits`). A save that
dropped agent bullets *and* other recent changes at once — an app writing an older copy of the
page over it, as Logseq can (logseq/logseq#11327) — is reported and recorded as lost, never
restored.

A bullet gone from its page may have been cut to be pasted on another one, which `audit` calls
moved: it is looked for, as `audit` looks (`corrections.moved_elsewhere`), on the pages changed
since it was written, then on each page that changes within `MOVE_WINDOW` seconds of the cut;
only then is it recorded as deleted (or lost). No page is read for it beyond those, and the ledger
only for the lines of a text found elsewhere.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Collection, Sequence

from .corrections import MOVED_SEARCH_LIMIT, match_edits, moved_elsewhere, placed
from .errors import JournalAgentError
from .ledger import Entry, Ledger, now_utc, text_hash
from .records import NamedTuple, Record
from .state import StateDir
from .vault import Vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from .walk import Stat

RECENT = 600.0  # seconds: a line added this recently is a "recent change"
EVENTS = "events.jsonl"
#: Seconds a bullet gone from its page waits to be found pasted on another page before it is
#: recorded as deleted: the outliner saves the cut page first, and the person then finds the
#: other page and pastes there, which takes some seconds.
MOVE_WINDOW = 30.0


class Observation(NamedTuple):
    """What watch saw happen to one agent bullet."""

    kind: str  # "deleted", "edited", "moved" or "lost" (with other recent lines)
    page: str
    agent: str
    hash: str
    text: str
    seen: str  # when (ISO time, UTC)
    now: str | None = None  # edited: the text as it stands now
    evidence: str | None = None  # lost: what else the save dropped
    where: str | None = None  # moved: the page it stands on now (``page`` itself, or another)

    def describe(self) -> str:
        if self.kind == "lost":
            return (
                f"{self.page}: a save dropped {self.agent}'s bullet together with {self.evidence}"
                f" (an app writing an older copy over the page?); not restored: {self.text!r}"
            )
        if self.kind == "edited":
            return (
                f"{self.page}: a person edited {self.agent}'s bullet {self.text!r} into "
                f"{self.now!r}"
            )
        if self.kind == "moved" and self.where not in (None, self.page):
            return (
                f"{self.page}: a person moved {self.agent}'s bullet {self.text!r} to {self.where}"
            )
        if self.kind == "moved":
            return (
                f"{self.page}: a person moved {self.agent}'s bullet {self.text!r} out of its "
                "owned block (it stands elsewhere on the page)"
            )
        return f"{self.page}: a person deleted {self.agent}'s bullet {self.text!r}"


class _Copy(Record):
    """A journal page as watch last saw it."""

    __slots__ = ("lines", "agents", "outside", "added")

    def __init__(
        self,
        lines: set[str],
        #: agent -> {hash: text} of its bullets in its owned block
        agents: dict[str, dict[str, str]],
        outside: dict[str, set[str]],  # agent -> hashes of the page's bullets outside its block
        added: dict[str, float] | None = None,  # line -> when it first appeared
    ) -> None:
        self.lines = lines
        self.agents = agents
        self.outside = outside
        self.added = {} if added is None else added


def read_observations(state: StateDir) -> list[Observation]:
    """Every observation watch recorded, oldest first (a torn line is skipped)."""
    out = []
    for line in state.read(EVENTS).splitlines():
        try:
            out.append(Observation(**json.loads(line)))
        except (ValueError, TypeError):
            continue
    return out


class _Gone(NamedTuple):
    """An agent bullet gone from its page, not yet found pasted elsewhere."""

    entry: Entry  # as the ledger has it: its page, agent, hash, text and when it was written
    text: str  # as it stood on the page
    kind: str  # what it is recorded as if no copy turns up: "deleted" or "lost"
    seen: str  # when it was seen gone (ISO time, UTC)
    due: float  # when it is recorded as ``kind`` (`time.monotonic`)
    evidence: str | None = None  # lost: what else the save dropped

    def observed(self, kind: str, **more: str | None) -> Observation:
        e = self.entry
        return Observation(kind, e.page, e.agent, e.hash, self.text, self.seen, **more)


class _Known:
    """The (page, hash) pairs the ledger holds, asked one at a time (`Ledger.of_bullet` parses
    only that bullet's lines): only a text found on another page is asked about."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple):
            return False
        page, hash_ = key
        return any(e.page == page for e in self.ledger.of_bullet(hash_))


class Bullets:
    """The agent bullets on the pages a watcher has seen, and what became of them."""

    def __init__(self, vault: Vault, state: StateDir, report: Callable[[str], None]) -> None:
        self.vault = vault  # the watcher sets it anew when the vault's settings change
        self.state = state
        self.report = report
        self.copies: dict[str, _Copy] = {}  # page -> as last seen
        self.fresh: list[_Gone] = []  # gone since the last `resolve`
        self.pending: list[_Gone] = []  # gone before, looked for since on each changed page

    @property
    def due(self) -> float:
        """When the next gone bullet is to be recorded (`time.monotonic`; inf: none waits)."""
        return min((g.due for g in self.fresh + self.pending), default=float("inf"))

    def remember_all(self) -> None:
        """Take the first copy of every page the ledger says agents wrote on."""
        pages = {e.page for e in Ledger(self.state).entries()}
        for rel in pages:
            copy = self._read(rel)
            if copy is not None:
                self.copies[rel] = copy

    def _read(self, rel: str) -> _Copy | None:
        """The page as it is now (None if it cannot be read)."""
        try:
            outline = self.vault.read_page(rel)
        except JournalAgentError:
            return None
        mine: dict[str, dict[str, str]] = {}
        outside: dict[str, set[str]] = {}
        agents = {e.agent for e in Ledger(self.state).entries(rel)}
        hashes = [text_hash(b.text) for b in outline.blocks]
        for agent in agents:  # every bullet in the block, as `audit` reads it: nested or not
            _heads, inside, outside[agent] = placed(outline, agent, hashes)
            mine[agent] = {hashes[i]: outline.blocks[i].text for i in sorted(inside)}
        lines = {ln.strip() for ln in outline.text.splitlines() if ln.strip()}
        return _Copy(lines, mine, outside)

    def compare(self, rel: str) -> None:
        """Take a new copy of page ``rel``, and record what became of the agent bullets that
        left their owned block since the last one."""
        before = self.copies.get(rel)
        after = self._read(rel)
        if after is None:
            self.copies.pop(rel, None)
            return
        now = time.time()
        if before is None:
            after.added = dict.fromkeys(after.lines, now)
            self.copies[rel] = after
            return
        after.added = {ln: before.added.get(ln, now) for ln in after.lines}
        self.copies[rel] = after
        written: dict[tuple[str, str], Entry] = {}
        for e in Ledger(self.state).entries(rel):
            written.setdefault((e.agent, e.hash), e)  # the first write, as `audit` takes it
        gone = [
            (agent, h, t)
            for agent, bullets in before.agents.items()
            for h, t in bullets.items()
            if (agent, h) in written and h not in after.agents.get(agent, {})
        ]
        if gone:
            self._record(rel, before, after, gone, written, now)

    def _record(
        self,
        rel: str,
        before: _Copy,
        after: _Copy,
        gone: list[tuple[str, str, str]],
        written: dict[tuple[str, str], Entry],
        now: float,
    ) -> None:
        """Record what became of the ``gone`` bullets: moved out of the owned block (it stands
        elsewhere on the page, as `audit` says) or edited (``written``: what agents wrote on the
        page, never a person's edit); the rest, lost with other recent lines or deleted, waits
        for `resolve` to look for it on other pages."""
        dropped = before.lines - after.lines
        seen = now_utc()
        moved = {(a, h) for a, h, _t in gone if h in after.outside.get(a, set())}
        rest = [g for g in gone if g[:2] not in moved]
        lost = {(a, h): ev for a, h, _t in rest if (ev := _evidence(before, dropped, gone, a, now))}
        known = {h for _a, h in written}
        edits = _edits(before, after, [g for g in rest if g[:2] not in lost], known)
        found = []
        due = time.monotonic() + MOVE_WINDOW
        for agent, h, text in gone:
            if (agent, h) in moved:
                found.append(Observation("moved", rel, agent, h, text, seen, where=rel))
            elif (agent, h) in edits:
                now_text = edits[agent, h]
                found.append(Observation("edited", rel, agent, h, text, seen, now=now_text))
            else:
                kind = "lost" if (agent, h) in lost else "deleted"
                gone_ = _Gone(written[agent, h], text, kind, seen, due, lost.get((agent, h)))
                self.fresh.append(gone_)
        self._tell(found)

    def resolve(self, changed: Collection[str], files: Sequence[Stat]) -> None:
        """After a refresh (``changed``: its pages; ``files``: the vault's listing now): look for
        each gone bullet on other pages, as `audit` does. One just gone is looked for on every
        page changed since it was written (the paste may have come first), at most
        `corrections.MOVED_SEARCH_LIMIT` of them, the newest first; one gone before, only on the
        pages changed now. Then record what is found, and what waited its `MOVE_WINDOW`."""
        if not self.fresh and not self.pending:
            return
        known = _Known(Ledger(self.state))
        fresh = [g.entry for g in self.fresh]
        where = moved_elsewhere(self.vault, fresh, known, files, MOVED_SEARCH_LIMIT)
        if self.pending and changed:
            these = [f for f in files if f[0] in changed]
            older = [g.entry for g in self.pending]
            where.update(moved_elsewhere(self.vault, older, known, these, None))
        self.pending += self.fresh
        self.fresh = []
        self._settle(where, time.monotonic())

    def expire(self, final: bool = False) -> None:
        """Record the gone bullets whose `MOVE_WINDOW` is over (``final``: all of them)."""
        self._settle({}, float("inf") if final else time.monotonic())

    def _settle(self, where: dict[tuple[str, str], str], now: float) -> None:
        """Tell each pending bullet found again (``where``: on another page, by page and hash)
        moved, or nothing at all if it is back in its owned block; record the rest as seen once
        their window is over (``now``), and keep waiting for the others."""
        found, waiting = [], []
        for g in self.pending + self.fresh:
            e = g.entry
            copy = self.copies.get(e.page)
            if copy is not None and e.hash in copy.agents.get(e.agent, {}):
                continue  # pasted back: nothing happened to it
            if copy is not None and e.hash in copy.outside.get(e.agent, set()):
                found.append(g.observed("moved", where=e.page))
            elif (e.page, e.hash) in where:
                found.append(g.observed("moved", where=where[e.page, e.hash]))
            elif now >= g.due:
                found.append(g.observed(g.kind, evidence=g.evidence))
            else:
                waiting.append(g)
        self._tell(found)  # before they stop waiting: an idle watcher has told what it saw
        self.pending, self.fresh = waiting, []

    def _tell(self, found: list[Observation]) -> None:
        """Record ``found`` in ``events.jsonl``, and report each."""
        if not found:
            return
        self._append(found)
        for o in found:
            self.report(f"watch: {o.describe()}")

    def _append(self, found: list[Observation]) -> None:
        payload = "".join(json.dumps(o._asdict(), ensure_ascii=False) + "\n" for o in found)
        try:
            fd = self.state.open(EVENTS, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except JournalAgentError as exc:
            self.report(f"watch: cannot record what it saw: {exc}")
            return
        try:
            os.write(fd, payload.encode("utf-8"))
        except OSError as exc:
            self.report(f"watch: cannot record what it saw: {exc.strerror}")
        finally:
            os.close(fd)


def _evidence(
    before: _Copy, dropped: set[str], gone: list[tuple[str, str, str]], agent: str, now: float
) -> str | None:
    """What else the save that dropped ``agent``'s bullets dropped: recent lines that are not
    this agent's own (None if nothing: a person's deletion or edit)."""
    own = {f"- {t}" for a, _h, t in gone if a == agent} | {f"- {agent} log"}
    others = sorted(
        ln for ln in dropped if ln not in own and now - before.added.get(ln, 0.0) <= RECENT
    )
    return f"{len(others)} other recent line(s), e.g. {others[0]!r}" if others else None


def _edits(
    before: _Copy, after: _Copy, gone: list[tuple[str, str, str]], known: set[str]
) -> dict[tuple[str, str], str]:
    """What each (agent, hash) of ``gone`` was edited into: a bullet new in that agent's owned
    block that no agent wrote, matched as `audit` matches (each at most once, best pair first)."""
    out: dict[tuple[str, str], str] = {}
    for agent in dict.fromkeys(a for a, _h, _t in gone):
        mine = [(h, t) for a, h, t in gone if a == agent]
        had = before.agents.get(agent, {})
        new = [
            t
            for h, t in after.agents.get(agent, {}).items()
            if h not in had and h not in known and t.strip()
        ]
        pairs = match_edits([t for _h, t in mine], new)
        out.update({(agent, mine[n][0]): text for n, (text, _score) in pairs.items()})
    return out
