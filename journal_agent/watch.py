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
* compares each changed page with the copy seen before (`watchbullets`): a bullet a person
  deleted, edited or moved (out of its owned block, or to another page) is recorded in
  ``events.jsonl`` of the state folder, as `audit` would tell it; a save that dropped agent
  bullets *and* other recent changes at once (an app writing an older copy over the page) is
  reported on stderr as lost. A bullet gone from its page is recorded as deleted (or lost) only
  once it has not turned up on another page for `watchbullets.MOVE_WINDOW` seconds.

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
import logging
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from .errors import JournalAgentError, LockTimeout, WatchRunning
from .flavors import SETTINGS_FILES
from .state import PageLock, StateDir
from .vault import Vault
from .walk import blocks, page_files, relisted
from .watchbullets import Bullets
from .watchstamp import DIRTY, LOCK_KEY, STAMP

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

    from .walk import Stat

DEBOUNCE = 0.25  # seconds of quiet before a refresh
MAX_DELAY = 2.0  # ... but never later than this after the first event of a burst
#: Seconds of quiet after a refresh before the full listing and the index's rewrite (`_settle`):
#: long enough that a person typing, whose outliner saves every few seconds, does not make the
#: watcher rewrite the whole index after every save.
QUIET = 5.0
CHECK_EVERY = 60.0  # seconds between full listings when no event comes (`_check`)
POLL_INTERVAL = 1.0  # seconds between scans of the polling observer
SETTINGS = "\0settings"  # stands for a changed settings file among the changed pages
EVERYTHING = "\0everything"  # events were lost: any page may have changed
RELIST = "\0relist"  # a folder came, went, moved or changed its permissions: list in full
CHANGES = frozenset({"created", "modified", "deleted", "moved", "closed", "attrib"})


def _listable(rel: str, skipped: tuple[str, ...]) -> bool:
    """Whether the listing (`walk.page_files`) may hold ``rel`` or hold files below it: below no
    dot-named folder (ours among them), nor a top-level one it skips (``skipped``: Logseq's)."""
    parts = rel.split("/")
    return not any(p.startswith(".") for p in parts) and not (
        len(parts) > 1 and parts[0] in skipped
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
        self.bullets = Bullets(vault, self.state, report)
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
            elif not _listable(rel, self.vault.settings.skipped):
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
            self.bullets.remember_all()
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
                    elif time.monotonic() >= self.bullets.due:
                        self.bullets.expire()
                    elif self._quiet_due is not None and time.monotonic() >= self._quiet_due:
                        self._settle()
                    elif self._quiet_due is None and time.monotonic() >= self._check_due:
                        self._check()
            finally:
                observer.stop()
                observer.join(timeout=5)
                self._clear_dirty()
                self.bullets.expire(final=True)  # what still waits to be pasted elsewhere
        finally:
            log.removeHandler(overflow)
            lock.__exit__()

    @property
    def idle(self) -> bool:
        """No change waits for a refresh, the quiet pass after the last one is done, and no
        agent bullet gone from its page waits to be found elsewhere."""
        with self._lock:
            waiting = self.bullets.due < float("inf")
            return not self._changed and self._quiet_due is None and not waiting

    def stop(self) -> None:
        """Ask `run` to return (from any thread or a signal handler)."""
        self.stopped.set()
        self._wake.set()

    def _timeout(self) -> float:
        """How long to sleep until something may be due: a burst's end, the quiet pass, the
        next full listing (`_check`), or a gone agent bullet's record (`Bullets.expire`)."""
        if self._changed:
            return DEBOUNCE / 2
        due = self._check_due if self._quiet_due is None else self._quiet_due
        return min(0.5, max(0.0, min(due, self.bullets.due) - time.monotonic()))

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
        root = self.vault.where
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
                self.vault = self.bullets.vault = open_vault(self.vault.root)
                self._listing = None  # its rules may have changed
            if EVERYTHING in changed:
                changed.discard(EVERYTHING)
                changed.update(self.bullets.copies)
                self._listing = None
            if RELIST in changed:
                changed.discard(RELIST)
                self._listing = None
            listed = listed or self._list(changed)
            summary = api.Query.of(self.vault, None, None, True).summary(listed=listed)
            self.state.replace(STAMP, f"{_fingerprint(self.vault)}\n{summary.stamp}".encode())
            for rel in sorted(changed):
                self.bullets.compare(rel)
            self.bullets.resolve(changed, listed[0])
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
            root = self.vault.where
            rules = (s.extensions, s.hidden, s.skipped)
            files = relisted(root, *rules, self._listing[0], changed)
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
        rules = (s.extensions, s.hidden, s.skipped)
        files = page_files(self.vault.where, *rules, said, links=links)
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
