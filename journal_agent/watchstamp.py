"""What a running `journal-agent watch` vouches for: the stamp of the summary it keeps current.

A query that finds the watcher running (it holds its lock), with no change waiting (no dirty
mark) and the summary it last wrote read with the query's settings, can skip the stat of every
page file. Read by every query (`trusted_stamp`) and by the warm path (`quick`), so this module
is lean: the standard library's cheapest parts only (the watcher itself is `watch`).
"""

from __future__ import annotations

import os

from .digests import sha256

DIRTY = "watch.dirty"  # a change is waiting: queries validate every file
STAMP = "watch.stamp"  # the settings' fingerprint, a newline, the summary's stamp
LOCK_KEY = "watch"
#: The watcher's lock file in the state folder's ``locks/``, named as `state.PageLock` names it.
LOCK = sha256(LOCK_KEY.encode()).hexdigest()[:32] + ".lock"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | os.O_NONBLOCK
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW

TYPE_CHECKING = False  # not typing's: the warm path must not pay for importing it
if TYPE_CHECKING:
    from .state import StateDir


def vouched(folder: int, fingerprint: str) -> str | None:
    """The stamp of the summary the watcher of the state folder ``folder`` (a descriptor) keeps
    current, if it runs, has no change waiting and read the vault with the settings of
    ``fingerprint``; None otherwise (the caller validates every file). No link is followed."""
    try:
        locks = os.open("locks", _FOLDER, dir_fd=folder)
        try:
            fd = os.open(LOCK, os.O_RDONLY | _NOFOLLOW, dir_fd=locks)
        finally:
            os.close(locks)
    except OSError:
        return None  # never watched: no lock file
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return None  # nobody holds it: no watcher runs
    except BlockingIOError:
        pass  # the watcher holds it
    except (OSError, ImportError):
        return None
    finally:
        os.close(fd)
    try:
        os.stat(DIRTY, dir_fd=folder, follow_symlinks=False)
        return None  # a change is waiting
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        fd = os.open(STAMP, os.O_RDONLY | _NOFOLLOW, dir_fd=folder)
        try:
            data = os.read(fd, 1 << 16)
        finally:
            os.close(fd)
        settings, _, stamp = data.decode().partition("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return stamp if settings == fingerprint and stamp else None


def vouched_at(path: str, fingerprint: str) -> str | None:
    """`vouched` of the state folder at ``path``."""
    try:
        folder = os.open(path, _FOLDER)
    except OSError:
        return None
    try:
        return vouched(folder, fingerprint)
    finally:
        os.close(folder)


def trusted_stamp(state: StateDir, fingerprint: str) -> str | None:
    """`vouched` for the vault's state folder (reached as `state.StateDir` reaches it)."""
    from .errors import JournalAgentError

    try:
        folder = state.folder(create=False)
    except JournalAgentError:
        return None  # never watched: no state folder
    try:
        return vouched(folder, fingerprint)
    finally:
        os.close(folder)
