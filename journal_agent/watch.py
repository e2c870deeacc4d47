"""watch: keep the index fresh, and see people's edits to agent bullets as they happen.

One process per vault (an ``flock`` on ``watch.lock`` in the state folder) observes the vault
with watchdog (inotify on Linux, the platform's observer elsewhere, or polling for a network or
slow disk: ``--poll``, and automatically when the native observer cannot start). Events are
gathered until the vault has been quiet for `DEBOUNCE` seconds (at most `MAX_DELAY` after the
first), so a burst of a thousand saves is one refresh, and an editor that saves by rename is
just two events on the same page. Each refresh:

* brings the status summary up to date (the next query or hook pays only the stat of each
  file, or nothing: below), stat-ing only the files the events name (`walk.relisted`) while
  that lists the vault right (no link in it, no folder that came, went or moved), and
* compares each changed journal page that holds agent bullets (per the ledger) with the copy
  seen before: a bullet a person deleted, edited or moved out of its owned block is recorded,
  with the time it was seen, in ``events.jsonl`` of the state folder (which `audit` reads; each
  is told apart the way `audit` tells it, `corrections.placed` and `corrections.match_edits`).
  A save that dropped agent bullets *and* other recent changes at once — an app writing an
  older copy of the page over it, as Logseq can (logseq/logseq#11327) — is reported on stderr
  and recorded as lost, never restored.

Once the vault has been quiet for `QUIET` seconds after a refresh, the watcher lists it in full,
and refreshes as above if that finds what no event told of, then brings the cached index up to
date (`index.refresh_cache`), so that a timeline or a rebuild reads no file it has seen. It also
lists the vault in full every `CHECK_EVERY` seconds however quiet: a change no event reports (a
vault on a network share edited from another machine, an observer thread that died) is caught
within that time, never trusted stale for good.

While it runs, ``watch.dirty`` in the state folder exists from the first event of a burst until
its refresh is done, and ``watch.stamp`` names the summary that refresh left current: a query
that finds the watcher's lock held and no dirty file loads that summary without listing a
single file (`watchstamp.trusted_stamp`). A change reaches the watcher a few milliseconds after
it is made; a query in those milliseconds answers as of just before it.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .corrections import match_edits, placed
from .errors import JournalAgentError, LockTimeout, WatchRunning
from .flavors import SETTINGS_FILES
from .ledger import Ledger, now_utc, text_hash
from .records import Record
from .state import PageLock, StateDir
from .vault import Vault
from .walk import SKIP_DIRS, blocks, page_files, relisted
from .watchstamp import DIRTY, LOCK_KEY, STAMP

if TYPE_CHECKING:
    from .walk import Stat

DEBOUNCE = 0.25  # seconds of quiet before a refresh
MAX_DELAY = 2.0  # ... but never later than this after the first event of a burst
#: Seconds of quiet after a refresh before the full listing and the index's rewrite (`_settle`):
#: long enough that a person typing, whose outliner saves every few seconds, does not make the
#: watcher rewrite the whole index after every save.
QUIET = 5.0
CHECK_EVERY = 60.0  # seconds between full listings when no event comes (`_check`)
POLL_INTERVAL = 1.0  # seconds between scans of the polling observer
RECENT = 600.0  # seconds: a line added this recently is a "recent change"
EVENTS = "events.jsonl"
SETTINGS = "\0settings"  # stands for a changed settings file among the changed pages
EVERYTHING = "\0everything"  # events were lost: any page may have changed
RELIST = "\0relist"  # a folder came, went, moved or changed its permissions: list in full
CHANGES = frozenset({"created", "modified", "deleted", "moved", "closed", "attrib"})


class Observation(NamedTuple):
    """What watch saw happen to one agent bullet."""

    kind: str  # "deleted", "edited", "moved" (on the page) or "lost" (with other recent lines)
    page: str
    agent: str
    hash: str
    text: str
    seen: str  # when (ISO time, UTC)
    now: str | None = None  # edited: the text as it stands now
    evidence: str | None = None  # lost: what else the save dropped

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


def _listable(rel: str) -> bool:
    """Whether the listing (`walk.page_files`) may hold ``rel`` or hold files below it: below no
    dot-named folder (ours among them), nor Logseq's own or another it skips."""
    parts = rel.split("/")
    return not any(p.startswith(".") for p in parts) and not (
        len(parts) > 1 and parts[0] in SKIP_DIRS
    )


def _overflow_handler(watcher: Watcher) -> logging.Handler:
    """A log handler that tells ``watcher`` when watchdog logs that the kernel dropped events."""

    class Overflow(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "overflow" in record.getMessage().lower():
                watcher._on_overflow()

    return Overflow(logging.WARNING)


class Watcher:
    """Watches one vault; `run` until `stop`."""

    def __init__(
        self,
        vault: Vault,
        *,
        poll: bool = False,
        report: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.vault = vault
        self.state = StateDir.of(vault.root)
        self.poll = poll
        self.report = report
        self.stopped = threading.Event()
        self.refreshes = 0  # refreshes done (tests wait on it)
        self._changed: set[str] = set()
        self._first = 0.0
        self._last = 0.0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._copies: dict[str, _Copy] = {}
        self._listing: tuple[list[Stat], list[str]] | None = None  # the vault as last listed
        self._plain = False  # ... and that listing met no link and no warning (`_list`)
        self._quiet_due: float | None = None  # when `_settle` is due
        self._check_due = 0.0  # when `_check` is due

    # -- events ------------------------------------------------------------------------------

    def _on_event(self, event: Any) -> None:
        if event.event_type not in CHANGES:
            return  # opened, or closed without writing: our own reads among them
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            rel = self._vault_rel(os.fsdecode(raw)) if raw else None
            if rel is None:
                continue
            if rel in SETTINGS_FILES or rel.startswith(".obsidian/plugins/periodic-notes/"):
                self._queue(SETTINGS)  # the vault is opened again before the next refresh
            elif not _listable(rel):
                continue  # our own files, Logseq's, anything the listing skips
            elif event.is_directory:
                if event.event_type != "modified":  # modified: a file in it, which says so
                    self._queue(RELIST)
            elif rel.lower().endswith(self.vault.settings.extensions):
                self._queue(rel)

    def _on_overflow(self) -> None:
        """The kernel's event queue overflowed: changes went unseen, so the next refresh checks
        every page (it validates every file's stat anyway) and every agent bullet."""
        self.report("watch: file events were lost (the event queue overflowed); checking all")
        self._queue(EVERYTHING)

    def _queue(self, rel: str) -> None:
        """Queue a change for the next refresh; the first of a burst marks the summary
        untrusted until then."""
        with self._lock:
            if not self._changed:
                self._first = time.monotonic()
                self._mark_dirty()
            self._changed.add(rel)
            self._last = time.monotonic()
        self._wake.set()

    def _vault_rel(self, path: str) -> str | None:
        """``path`` relative to the vault (None outside it, or the vault itself)."""
        try:
            rel = Path(path).relative_to(self.vault.root).as_posix()
        except ValueError:
            return None
        return rel if rel != "." else None

    def _mark_dirty(self) -> None:
        try:
            os.close(self.state.open(DIRTY, os.O_WRONLY | os.O_CREAT))
        except JournalAgentError:
            pass  # only a hint for queries: they validate every file without it

    def _clear_dirty(self) -> None:
        try:
            fd = self.state.folder(create=False)
        except JournalAgentError:
            return
        try:
            os.unlink(DIRTY, dir_fd=fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    # -- the loop ----------------------------------------------------------------------------

    def run(self) -> None:
        """Watch until `stop` (or a signal): refresh after each quiet burst of events."""
        try:
            lock = PageLock(self.state, LOCK_KEY, 0.0).__enter__()  # one watcher per vault
        except LockTimeout as exc:
            raise WatchRunning(
                f"{self.vault.root}: another journal-agent watch is already running for it"
            ) from exc
        # watchdog only logs an overflow (and re-adds its watches): hear it there.
        overflow = _overflow_handler(self)
        log = logging.getLogger("watchdog.observers.inotify_c")
        log.addHandler(overflow)
        try:
            self._remember_all()
            observer = self._observer()
            try:
                self.refresh(set())
                while not self.stopped.is_set():
                    self._wake.wait(self._timeout())
                    self._wake.clear()
                    due = self._due()
                    if due:
                        self.refresh(due)
                    elif self._changed:
                        pass  # its refresh comes first
                    elif self._quiet_due is not None and time.monotonic() >= self._quiet_due:
                        self._settle()
                    elif self._quiet_due is None and time.monotonic() >= self._check_due:
                        self._check()
            finally:
                observer.stop()
                observer.join(timeout=5)
                self._clear_dirty()
        finally:
            log.removeHandler(overflow)
            lock.__exit__()

    @property
    def idle(self) -> bool:
        """No change waits for a refresh, and the quiet pass after the last one is done."""
        with self._lock:
            return not self._changed and self._quiet_due is None

    def stop(self) -> None:
        """Ask `run` to return (from any thread or a signal handler)."""
        self.stopped.set()
        self._wake.set()

    def _timeout(self) -> float:
        """How long to sleep until something may be due: a burst's end, the quiet pass, or the
        next full listing (`_check`)."""
        if self._changed:
            return DEBOUNCE / 2
        due = self._check_due if self._quiet_due is None else self._quiet_due
        return min(0.5, max(0.0, due - time.monotonic()))

    def _due(self) -> set[str]:
        """The changed pages, once the burst is over (else an empty set, and wait again)."""
        with self._lock:
            if not self._changed:
                return set()
            now = time.monotonic()
            if now - self._last < DEBOUNCE and now - self._first < MAX_DELAY:
                return set()
            due, self._changed = self._changed, set()
            self._quiet_due = float("inf")  # not `idle` until its refresh and the quiet pass
            return due

    def _observer(self) -> Any:
        from watchdog import events
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserver

        handler = events.FileSystemEventHandler()
        handler.on_any_event = self._on_event  # type: ignore[method-assign]
        root = str(self.vault.root)
        if not self.poll:
            # Changes only: reads (ours, a search tool's, a backup's) would flood the queue.
            changes: list[type[events.FileSystemEvent]] = [
                events.FileCreatedEvent,
                events.FileModifiedEvent,
                events.FileDeletedEvent,
                events.FileMovedEvent,
                events.FileClosedEvent,
                events.FileAttribEvent,  # `touch`, or a page made unreadable
                events.DirCreatedEvent,
                events.DirDeletedEvent,
                events.DirMovedEvent,
                events.DirAttribEvent,
            ]
            # watchdog warns when a folder removed and made again is watched again, from its
            # own thread: harmless, and a thread that raises it (warnings as errors) hears no
            # event after it.
            warnings.filterwarnings("ignore", "Callback with id", RuntimeWarning)
            try:
                native = Observer()
                native.schedule(handler, root, recursive=True, event_filter=changes)
                native.start()
                return native
            except OSError as exc:  # out of inotify watches, a file system without events
                self.report(f"watch: native file events unavailable ({exc}); polling instead")
        polling = PollingObserver(timeout=POLL_INTERVAL)
        polling.schedule(handler, root, recursive=True)
        polling.start()
        return polling

    def refresh(
        self, changed: set[str], listed: tuple[list[Stat], list[str]] | None = None
    ) -> None:
        """Bring the summary up to date after the ``changed`` pages (or the vault as ``listed``
        just now); look at what happened to agent bullets."""
        from . import api
        from .index import _fingerprint
        from .vault import open_vault

        try:
            if SETTINGS in changed:
                changed.discard(SETTINGS)
                self.vault = open_vault(self.vault.root)
                self._listing = None  # its rules may have changed
            if EVERYTHING in changed:
                changed.discard(EVERYTHING)
                changed.update(self._copies)
                self._listing = None
            if RELIST in changed:
                changed.discard(RELIST)
                self._listing = None
            listed = listed or self._list(changed)
            summary = api.Query.of(self.vault, None, None, True).summary(listed=listed)
            self.state.replace(STAMP, f"{_fingerprint(self.vault)}\n{summary.stamp}".encode())
            for rel in sorted(changed):
                self._compare(rel)
        except JournalAgentError as exc:  # a bad setting, a full disk: say it, keep watching
            self.report(f"watch: {exc}")
        finally:
            with self._lock:
                if not self._changed:
                    self._clear_dirty()
                self._quiet_due = time.monotonic() + QUIET
            self.refreshes += 1

    def _list(self, changed: set[str]) -> tuple[list[Stat], list[str]]:
        """The vault's listing now: the last one with only the ``changed`` paths stat-ed again,
        where that lists it right (`walk.relisted`), else a full one."""
        if self._listing is not None and self._plain:
            s = self.vault.settings
            root = str(self.vault.root)
            files = relisted(root, s.extensions, s.hidden, self._listing[0], changed)
            if files is not None:
                self._listing = (files, [])
                return self._listing
        return self._list_all()

    def _list_all(self) -> tuple[list[Stat], list[str]]:
        """A full listing of the vault, kept for `_list`. Only on Linux may the next one stat
        just the changed paths: elsewhere an event may spell a name in another Unicode form
        than the folder's listing does (macOS)."""
        s = self.vault.settings
        said: list[str] = []
        links: list[str] = []
        files = page_files(str(self.vault.root), s.extensions, s.hidden, said, links=links)
        self._listing = (files, said)
        self._plain = not said and not links and sys.platform == "linux"
        if self._plain:
            blocks(files)  # digested now, off a refresh's path: `relisted` then redoes a few
        return self._listing

    def _settle(self) -> None:
        """Once quiet after a refresh: `_check`, and if it found nothing new, bring the cached
        index up to date."""
        from .index import refresh_cache

        try:
            listed = self._check()
            if listed is None:
                return  # it refreshed: a quiet pass comes again after that
            refresh_cache(self.vault, listed[0])
        except JournalAgentError as exc:
            self.report(f"watch: {exc}")
        with self._lock:
            self._quiet_due = None

    def _check(self) -> tuple[list[Stat], list[str]] | None:
        """List the vault in full: the listing, if it is the one kept; else refresh for the
        change no event told of (None)."""
        kept = self._listing
        listed = self._list_all()
        self._check_due = time.monotonic() + CHECK_EVERY
        if kept is not None and listed == kept:
            return listed
        missed = set(listed[0]).symmetric_difference(kept[0] if kept else ())
        self._mark_dirty()
        self.refresh({f[0] for f in missed}, listed)
        return None

    # -- agent bullets -----------------------------------------------------------------------

    def _remember_all(self) -> None:
        """Take the first copy of every page the ledger says agents wrote on."""
        pages = {e.page for e in Ledger(self.state).entries()}
        for rel in pages:
            copy = self._read(rel)
            if copy is not None:
                self._copies[rel] = copy

    def _read(self, rel: str) -> _Copy | None:
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

    def _compare(self, rel: str) -> None:
        before = self._copies.get(rel)
        after = self._read(rel)
        if after is None:
            self._copies.pop(rel, None)
            return
        now = time.time()
        if before is None:
            after.added = dict.fromkeys(after.lines, now)
            self._copies[rel] = after
            return
        after.added = {ln: before.added.get(ln, now) for ln in after.lines}
        self._copies[rel] = after
        written = {(e.agent, e.hash): e.text for e in Ledger(self.state).entries(rel)}
        gone = [
            (agent, h, t)
            for agent, bullets in before.agents.items()
            for h, t in bullets.items()
            if (agent, h) in written and h not in after.agents.get(agent, {})
        ]
        if gone:
            self._record(rel, before, after, gone, {h for _a, h in written}, now)

    def _record(
        self,
        rel: str,
        before: _Copy,
        after: _Copy,
        gone: list[tuple[str, str, str]],
        known: set[str],
        now: float,
    ) -> None:
        """Record what became of the ``gone`` bullets: moved out of the owned block (it stands
        elsewhere on the page, as `audit` says), lost with other recent lines, edited (``known``:
        the hashes agents wrote on the page, never a person's edit), or deleted."""
        dropped = before.lines - after.lines
        seen = now_utc()
        moved = {(a, h) for a, h, _t in gone if h in after.outside.get(a, set())}
        rest = [g for g in gone if g[:2] not in moved]
        lost = {(a, h): ev for a, h, _t in rest if (ev := _evidence(before, dropped, gone, a, now))}
        edits = _edits(before, after, [g for g in rest if g[:2] not in lost], known)
        found = []
        for agent, h, text in gone:
            if (agent, h) in moved:
                found.append(Observation("moved", rel, agent, h, text, seen))
            elif (agent, h) in lost:
                evidence = lost[agent, h]
                found.append(Observation("lost", rel, agent, h, text, seen, evidence=evidence))
            elif (agent, h) in edits:
                now_text = edits[agent, h]
                found.append(Observation("edited", rel, agent, h, text, seen, now=now_text))
            else:
                found.append(Observation("deleted", rel, agent, h, text, seen))
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


def watch(vault: Vault, *, poll: bool = False, report: Callable[[str], None]) -> None:
    """Run a watcher in the foreground until Ctrl-C or SIGTERM."""
    watcher = Watcher(vault, poll=poll, report=report)
    previous = signal.signal(signal.SIGTERM, lambda *_: watcher.stop())
    try:
        watcher.run()
    except KeyboardInterrupt:
        watcher.stop()
    finally:
        signal.signal(signal.SIGTERM, previous)
    report(f"watch: stopped at {dt.datetime.now().isoformat(timespec='seconds')}")
