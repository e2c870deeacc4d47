"""The operating-system pieces of the file backend: leases, atomic exchange, page identity.

* A **read lease** (Linux ``fcntl(F_SETLEASE, F_RDLCK)``) is granted only while no process has
  the file open for writing, and is broken as soon as one opens it (that opener waits until we
  let go). Holding one while reading and while swapping a page in is how the file backend knows
  that no editor is half-way through an in-place save. Elsewhere, or for a file we do not own,
  there is no lease and the backend falls back to timing rules.
* ``renameat2(RENAME_EXCHANGE)`` swaps two names atomically and hands back the file it
  displaced, so a save that landed just before our swap can be swapped straight back.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import signal
import stat
import sys

from ..errors import UnsafePage

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, Literal

    Lease = Literal["held", "busy", "none"]


def take_lease(fd: int) -> Lease:
    """Try to take a read lease on ``fd``: "held", "busy" (someone has the file open for
    writing) or "none" (leases are not available for this file here)."""
    if sys.platform != "linux":
        return "none"
    import fcntl

    try:
        # The break is signalled with SIGURG, which is ignored unless handled (the default,
        # SIGIO, would end the process); `lease_broken` polls for it instead.
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except OSError as exc:
        return "busy" if exc.errno == errno.EAGAIN else "none"
    return "held"


def lease_broken(fd: int) -> bool:
    """Whether someone opened the leased file for writing (or truncated it) since we took it."""
    import fcntl

    try:
        return bool(fcntl.fcntl(fd, fcntl.F_GETLEASE) != fcntl.F_RDLCK)
    except OSError:
        return True


def release_lease(fd: int) -> None:
    """Let go of the lease (an opener waiting on it proceeds)."""
    import fcntl

    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    except OSError:
        pass


def exchange(dir_fd: int, a: str, b: str) -> bool:
    """Swap the names ``a`` and ``b`` of one folder atomically; False where unsupported."""
    fn = _renameat2()
    if fn is None:
        return False
    if fn(dir_fd, os.fsencode(a), dir_fd, os.fsencode(b), 2) == 0:  # RENAME_EXCHANGE
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False  # a kernel or file system without it
    raise OSError(err, os.strerror(err), b)


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


def stat_key(st: os.stat_result) -> tuple[int, ...]:
    """What identifies one state of a file: its inode, size, and modification and change times
    (the change time also moves when the file is renamed)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def check_identity(st: os.stat_result, rel: str, limit: int) -> None:
    """Refuse a page that replacing by rename would harm, or that is too large to write.

    Hard links would be cut (the other names would keep the old text); a read-only page was
    made so on purpose; and a page owned by another user or group would become ours, which the
    owner may then not be able to save.
    """
    if st.st_nlink > 1:
        raise UnsafePage(
            f"{rel}: has {st.st_nlink} hard links; journal-agent replaces a page by renaming a "
            "new file into place, which would cut them: nothing was written"
        )
    if not st.st_mode & stat.S_IWUSR:
        raise UnsafePage(f"{rel}: is read-only; nothing was written")
    if st.st_size > limit:
        raise UnsafePage(
            f"{rel}: is {st.st_size // 1024 // 1024} MB, over the {limit // 1024 // 1024} MB "
            "journal-agent writes; nothing was written"
        )
    euid = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
    if euid not in (0, st.st_uid):
        raise UnsafePage(
            f"{rel}: is owned by user {st.st_uid} and journal-agent runs as user {euid}; "
            "replacing the page would make it yours: run journal-agent as its owner"
        )


def give_identity(fd: int, st: os.stat_result, rel: str) -> None:
    """Give a new file the page's owner, group and mode (refused if that is not allowed)."""
    if hasattr(os, "fchown") and (os.fstat(fd).st_uid, os.fstat(fd).st_gid) != (
        st.st_uid,
        st.st_gid,
    ):
        try:
            os.fchown(fd, st.st_uid, st.st_gid)
        except PermissionError as exc:
            raise UnsafePage(
                f"{rel}: belongs to group {st.st_gid}, which journal-agent cannot give the new "
                "version of the page; nothing was written"
            ) from exc
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
