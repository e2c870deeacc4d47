"""Run one journal-agent command with every file-system call on a folder counted, and one failed.

Used by test_writer_faults.py, one fresh interpreter per run: ``python tests/faultfs.py SPEC``
where SPEC is JSON::

    {"root": folder whose calls are counted (the vault: its journal-agent state folder is inside),
     "report": file to write the report to (JSON),
     "cli": true to run ``journal_agent.cli.main(argv)``, false to call ``journal_agent.append``,
     "argv": the CLI's arguments / "append": the API's keyword arguments (with "bullets"),
     "fail": null (count only) or {"kind": ..., "index": k, "errno": n},
     "no_exchange": true to make renameat2 fail with EINVAL, as on a file system without
     RENAME_EXCHANGE (optional),
     "today": the day the writer takes for today, the one whose page it may create (optional)}

The k-th call of that kind (counting from 0, calls on paths under ``root`` only) raises
``OSError(errno)`` instead of running, as the system call failing would; every other call runs.
A failed ``close`` does close the file first (as on Linux). Kinds, and how they are caught:

* audit events (`sys.addaudithook`; raising in the hook aborts the operation): open, rename
  (``os.rename``/``os.replace``), unlink, rmdir, mkdir, chmod (also ``fchmod``), chown, link,
  symlink, truncate (also ``ftruncate``), utime, list (``scandir``/``listdir``), xattr (set,
  remove), lock (``flock``, ``lockf``, ``fcntl`` locks and leases);
* C functions looked up through ctypes (``CDLL.__getitem__`` returns a wrapper): a call with a
  path under root is ``exchange`` (``renameat2``) or ``ctypes.NAME``; failed, it returns -1 with
  errno set (`ctypes.set_errno`), which is how the C function reports the error;
* wrapped functions (no audit event): read (``os.read``/``pread``/``readv``/``preadv``), write
  (``os.write``/``pwrite``/``writev``/``pwritev``/``sendfile``/``copy_file_range``/``splice``),
  fsync (``os.fsync``/``fdatasync``), stat (``os.stat``/``lstat``), close (``os.close`` of a
  descriptor open for writing);
* wrapped file objects (``open``/``io.open``/``os.fdopen`` return a proxy for a file under root):
  read, write, flush and close of a file open for writing.

The report: {"calls": [[kind, detail], ...], "fired": bool, "ok": bool, "result": ...,
"error": {"type", "message", "journal_agent_error"} | null, "exit": int | null}.
"""

from __future__ import annotations

import builtins
import ctypes
import errno
import fcntl
import io
import json
import os
import sys
import threading
from typing import Any

SPEC: dict[str, Any] = json.loads(sys.argv[1])
ROOT = os.path.realpath(SPEC["root"])
FAIL: dict[str, Any] | None = SPEC.get("fail")
CALLS: list[tuple[str, str]] = []
COUNTS: dict[str, int] = {}
STATE = {"fired": False}
_local = threading.local()

#: os functions with no audit event: name -> (kind, index of the argument naming the file)
WRAPPED: dict[str, tuple[str, int]] = {
    "read": ("read", 0),
    "pread": ("read", 0),
    "readv": ("read", 0),
    "preadv": ("read", 0),
    "write": ("write", 0),
    "pwrite": ("write", 0),
    "writev": ("write", 0),
    "pwritev": ("write", 0),
    "sendfile": ("write", 0),  # out_fd, in_fd, ...: what shutil.copyfile writes with
    "copy_file_range": ("write", 1),  # src, dst, ...
    "splice": ("write", 1),
    "fsync": ("fsync", 0),
    "fdatasync": ("fsync", 0),
    "stat": ("stat", 0),
    "lstat": ("stat", 0),
}
real = {name: getattr(os, name) for name in [*WRAPPED, "close", "readlink", "fspath", "open"]}
real_open = io.open
real_getitem = ctypes.CDLL.__getitem__


class _Quiet:
    """Our own calls (resolving a path, the real call) are not counted."""

    def __enter__(self) -> bool:
        self.was = getattr(_local, "busy", False)
        _local.busy = True
        return self.was

    def __exit__(self, *exc: object) -> None:
        _local.busy = self.was


def _path_of(target: Any, dir_fd: Any = None) -> str | None:
    """The absolute path of a path-like (relative to the folder descriptor ``dir_fd``, else to
    the working folder) or of a file descriptor, if it is under ROOT."""
    try:
        if isinstance(target, int):
            path = real["readlink"](f"/proc/self/fd/{target}").removesuffix(" (deleted)")
        elif isinstance(target, (str, bytes, os.PathLike)):
            path = os.fsdecode(real["fspath"](target))
            base = os.getcwd()
            if isinstance(dir_fd, int) and dir_fd >= 0:
                base = real["readlink"](f"/proc/self/fd/{dir_fd}")
            path = os.path.normpath(os.path.join(base, path))
        else:
            return None
    except (OSError, TypeError, ValueError):
        return None
    return path if path == ROOT or path.startswith(ROOT + os.sep) else None


def _rel(path: str) -> str:
    return os.path.relpath(path, ROOT)


def check(kind: str, *targets: Any, note: str = "", dir_fds: tuple[Any, ...] = ()) -> None:
    """Count a call of ``kind`` on ``targets`` (each relative to the folder descriptor of the
    same position in ``dir_fds``, if any); raise if it is the one to fail."""
    with _Quiet() as busy:
        if busy:
            return
        fds = (list(dir_fds) + [None] * len(targets))[: len(targets)]
        paths = [p for p in (_path_of(t, d) for t, d in zip(targets, fds, strict=True)) if p]
        if not paths:
            return
        index = COUNTS.get(kind, 0)
        COUNTS[kind] = index + 1
        CALLS.append((kind, " -> ".join(_rel(p) for p in paths) + (f" {note}" if note else "")))
        if FAIL and FAIL["kind"] == kind and FAIL["index"] == index:
            STATE["fired"] = True
            code = FAIL["errno"]
            raise OSError(code, os.strerror(code), paths[0])


AUDIT = {
    "open": "open",
    "os.rename": "rename",
    "os.remove": "unlink",
    "os.rmdir": "rmdir",
    "os.mkdir": "mkdir",
    "os.chmod": "chmod",
    "os.chown": "chown",
    "os.link": "link",
    "os.symlink": "symlink",
    "os.truncate": "truncate",
    "os.utime": "utime",
    "os.scandir": "list",
    "os.listdir": "list",
    "os.setxattr": "xattr",
    "os.removexattr": "xattr",
    "fcntl.flock": "lock",
    "fcntl.lockf": "lock",
}
#: fcntl commands that take a lock or a lease (F_SETLK, F_SETLKW, F_OFD_SETLK(W), F_SETLEASE)
LOCKING = {6, 7, 37, 38, 1024}


#: where an audit event's folder descriptors are: event -> (index per path argument)
DIR_FD_ARGS: dict[str, tuple[int, ...]] = {
    "os.rename": (2, 3),
    "os.link": (2, 3),
    "os.symlink": (-1, 2),
    "os.remove": (1,),
    "os.rmdir": (1,),
    "os.mkdir": (2,),
    "os.chmod": (2,),
    "os.chown": (3,),
    "os.utime": (4,),
}


def audit(event: str, args: tuple[Any, ...]) -> None:
    kind = AUDIT.get(event)
    fds = tuple(args[i] if 0 <= i < len(args) else None for i in DIR_FD_ARGS.get(event, ()))
    if kind == "open":
        if isinstance(args[0], int) or getattr(_local, "os_open", False):
            return  # io.open(fd) / os.fdopen: no file-system call; os.open counts itself
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        check(kind, args[0], note="(write)" if flags & (os.O_WRONLY | os.O_RDWR) else "")
    elif kind in ("rename", "link", "symlink"):
        check(kind, args[0], args[1], dir_fds=fds)
    elif kind is not None:
        check(kind, args[0] if args else None, dir_fds=fds)
    elif event == "fcntl.fcntl" and args[1] in LOCKING:
        check("lock", args[0])


def _os_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Any = None) -> int:
    """os.open, counted with its folder descriptor (its audit event does not carry it)."""
    check(
        "open", path, note="(write)" if flags & (os.O_WRONLY | os.O_RDWR) else "", dir_fds=(dir_fd,)
    )
    _local.os_open = True
    try:
        fd: int = real["open"](path, flags, mode, dir_fd=dir_fd)
        return fd
    finally:
        _local.os_open = False


class CFunction:
    """A C function of a shared library (ctypes): a call with a path under root is counted, and
    a failed one returns -1 with ``errno`` set, as the C function does (``use_errno`` callers
    read it with `ctypes.get_errno`)."""

    def __init__(self, fn: Any, name: str) -> None:
        object.__setattr__(self, "_fn", fn)
        object.__setattr__(self, "_kind", "exchange" if name == "renameat2" else f"ctypes.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._fn, name, value)  # argtypes, restype, errcheck

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)

    def __call__(self, *args: Any) -> Any:
        if self._kind == "exchange" and SPEC.get("no_exchange"):
            ctypes.set_errno(errno.EINVAL)  # a file system without RENAME_EXCHANGE
            return -1
        paths = [a for a in args if isinstance(a, (bytes, str))]
        fds = [args[i - 1] for i, a in enumerate(args) if isinstance(a, (bytes, str)) and i > 0]
        try:
            check(self._kind, *paths, dir_fds=tuple(fds))
        except OSError as exc:
            ctypes.set_errno(exc.errno or errno.EIO)
            return -1
        return self._fn(*args)


def _getitem(self: ctypes.CDLL, name: Any) -> Any:
    fn = real_getitem(self, name)
    return CFunction(fn, name) if isinstance(name, str) else fn


def _writable(fd: int) -> bool:
    try:
        return fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
    except OSError:
        return False


def _wrap(name: str) -> Any:
    kind, where = WRAPPED[name]
    fn = real[name]

    def wrapper(*args: Any, **kw: Any) -> Any:
        target = args[where] if len(args) > where else None
        if target is not None and not isinstance(target, (int, str, bytes, os.PathLike)):
            target = target.fileno()  # os.fsync(file object)
        check(kind, target, dir_fds=(kw.get("dir_fd"),))
        return fn(*args, **kw)

    return wrapper


def _close(fd: int) -> None:
    with _Quiet() as busy:
        counted = not busy and _writable(fd) and _path_of(fd)
        path = _path_of(fd) if counted else None
    real["close"](fd)
    if counted:
        check("close", path)


class FileProxy:
    """A file object under root: its reads, writes, flushes and closes are file-system calls."""

    def __init__(self, f: Any, path: str, writable: bool) -> None:
        self._f, self._path, self._writable = f, path, writable

    def read(self, *a: Any) -> Any:
        check("read", self._path)
        return self._f.read(*a)

    def readall(self) -> Any:
        check("read", self._path)
        return self._f.readall()

    def readinto(self, b: Any) -> Any:
        check("read", self._path)
        return self._f.readinto(b)

    def readline(self, *a: Any) -> Any:
        check("read", self._path)
        return self._f.readline(*a)

    def readlines(self, *a: Any) -> Any:
        check("read", self._path)
        return self._f.readlines(*a)

    def __iter__(self) -> Any:
        check("read", self._path)
        return iter(self._f)

    def write(self, data: Any) -> Any:
        check("write", self._path)
        return self._f.write(data)

    def writelines(self, lines: Any) -> Any:
        check("write", self._path)
        return self._f.writelines(lines)

    def flush(self) -> Any:
        if self._writable and not self._f.closed:
            check("flush", self._path)
        return self._f.flush()

    def close(self) -> None:
        counted = self._writable and not self._f.closed
        self._f.close()
        if counted:
            check("close", self._path)

    def __enter__(self) -> FileProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._f, name)


def _io_open(file: Any, mode: str = "r", *args: Any, **kw: Any) -> Any:
    f = real_open(file, mode, *args, **kw)
    with _Quiet() as busy:
        path = None if busy else _path_of(file)
    if path is None:
        return f
    return FileProxy(f, path, any(c in mode for c in "wax+"))


def install() -> None:
    sys.addaudithook(audit)
    for name in WRAPPED:
        setattr(os, name, _wrap(name))
    os.close = _close
    os.open = _os_open
    io.open = builtins.open = _io_open
    ctypes.CDLL.__getitem__ = _getitem  # type: ignore[method-assign]


def run() -> dict[str, Any]:
    import journal_agent  # imported before the hooks: its modules are not vault files anyway

    if SPEC.get("today"):
        import datetime

        import journal_agent.writer

        today = datetime.date.fromisoformat(SPEC["today"])
        journal_agent.writer.local_today = lambda: today
    report: dict[str, Any] = {"ok": False, "result": None, "error": None, "exit": None}
    install()
    if SPEC.get("cli"):
        from journal_agent.cli import main

        try:
            report["exit"] = main(SPEC["argv"])
        except SystemExit as exc:  # argparse
            report["exit"] = exc.code
        report["ok"] = report["exit"] == 0
    else:
        kwargs = dict(SPEC["append"])
        try:
            result = journal_agent.append(kwargs.pop("bullets"), **kwargs)
            report["ok"], report["result"] = True, result.to_json()
        except Exception as exc:  # noqa: BLE001 - the report says what it was
            report["error"] = {
                "type": type(exc).__name__,
                "message": str(exc),
                "journal_agent_error": isinstance(exc, journal_agent.JournalAgentError),
            }
    return report


if __name__ == "__main__":
    out = run()
    out["calls"], out["fired"] = CALLS, STATE["fired"]
    os.write, os.close, os.open = real["write"], real["close"], real["open"]
    io.open = builtins.open = real_open
    with real_open(SPEC["report"], "w") as fh:
        json.dump(out, fh)
    code = out["exit"]
    sys.exit(code if isinstance(code, int) else 0)
