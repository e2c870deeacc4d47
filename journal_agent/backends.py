"""The file backend: how a page is written on disk without ever tearing it or losing a save.

`commit` is an atomic compare-and-swap: the new bytes are written to a hidden temporary file in
the page's folder (same file system), fsynced, given the page's mode, and put in place only if
the page still holds what the writer planned against. On Linux the swap is ``renameat2`` with
``RENAME_EXCHANGE``, which hands back the file it displaced: a save that lands between our
compare and our swap is swapped straight back and reported, never lost. A writer killed at any
step leaves the old page or the new one; its hidden temporary file is removed by the next
writer (`clean_stale_temp_files`). `PageLock` keeps journal-agent writers off each other.

(The apps' own local HTTP APIs are the other backends DESIGN.md names; they are not built yet.)
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import LockTimeout
from .ledger import text_hash

TMP_PREFIX = ".journal-agent-"
LOCK_TIMEOUT = 10.0  # seconds; Claude Code gives a SessionEnd hook 1.5 s in all, so rarely hit


@dataclass
class Commit:
    """The outcome of one attempt to put new bytes in place of the ones we planned against."""

    written: bool  # our bytes are now the file
    found: bytes | None  # what the file held instead of what we expected (None: as expected,
    # or absent when nothing was written)
    conflict: bool = False  # the file did not hold what we expected


def commit(path: Path, data: bytes, expected: bytes | None, mode: int) -> Commit:
    """Atomically put ``data`` at ``path`` if it holds ``expected`` (None: if it is absent).

    The file is compared with ``expected`` first. Where the kernel can exchange two names
    atomically (Linux ``renameat2``), the new file is then swapped in and the file it displaced
    is compared too: a save that a human or an app made between our compare and our swap is
    swapped straight back (two system calls later) and merged by the next attempt, instead of
    being lost. Elsewhere: compare, then rename.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f"{TMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        outcome = _put(tmp, path, expected, data)
    finally:
        tmp.unlink(missing_ok=True)
    if outcome.written:
        _fsync_dir(path.parent)
    return outcome


def _put(tmp: Path, path: Path, expected: bytes | None, data: bytes) -> Commit:
    if expected is None:  # a new page: never replace one that appeared meanwhile
        try:
            os.link(tmp, path)
        except FileExistsError:
            return Commit(False, _current(path), conflict=True)
        return Commit(True, None)
    current = _current(path)  # compare first: a stale write is never even shown
    if current != expected:
        return Commit(False, current, conflict=True)
    if _exchange(tmp, path):  # ... and a save landing between compare and swap is not lost
        displaced = tmp.read_bytes()
        if displaced == expected:
            return Commit(True, None)
        if _exchange(tmp, path):  # put that save back at once (ours goes back to tmp)
            back = tmp.read_bytes()
            if back != data and _exchange(tmp, path):  # yet another save, just now: keep it
                return Commit(False, back, conflict=True)
            return Commit(False, displaced, conflict=True)
        return Commit(True, displaced, conflict=True)
    os.replace(tmp, path)  # no atomic exchange on this system: a window of microseconds remains
    return Commit(True, None)


def _exchange(src: Path, dst: Path) -> bool:
    """Swap two files' names atomically (``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    fn = _renameat2()
    if fn is None:
        return False
    if fn(-100, os.fsencode(src), -100, os.fsencode(dst), 2) == 0:  # AT_FDCWD, RENAME_EXCHANGE
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False  # a kernel or file system without it
    raise OSError(err, os.strerror(err), str(dst))


@functools.cache
def _renameat2() -> Any:
    if sys.platform != "linux":
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def clean_stale_temp_files(folder: Path, older_than: float = 60.0) -> None:
    """Remove temporary files a killed writer left behind (they are hidden, but still litter)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    cutoff = time.time() - older_than
    for entry in entries:
        if entry.name.startswith(TMP_PREFIX) and entry.name.endswith(".tmp"):
            try:
                if entry.stat().st_mtime < cutoff or not _pid_alive(entry.name):
                    os.unlink(entry.path)
            except OSError:
                continue


def _pid_alive(name: str) -> bool:
    try:
        pid = int(name[len(TMP_PREFIX) :].split("-", 1)[0])
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


class PageLock:
    """A lock file per journal page, in journal-agent's own hidden folder of the vault."""

    def __init__(self, state_dir: Path, rel: str) -> None:
        from filelock import FileLock  # lazy: only writes need it

        self.path = state_dir / "locks" / f"{text_hash(rel)}.lock"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = FileLock(str(self.path), timeout=LOCK_TIMEOUT)
        self.rel = rel

    def __enter__(self) -> None:
        from filelock import Timeout

        try:
            self.lock.acquire()
        except Timeout as exc:
            raise LockTimeout(
                f"{self.rel}: another journal-agent writer held it for "
                f"{LOCK_TIMEOUT:.0f} s; nothing was written"
            ) from exc

    def __exit__(self, *exc: object) -> None:
        self.lock.release()
