"""Start-up code for the journal-agent subprocesses of the hook tests (on their PYTHONPATH only).

Tests run as root here, where ``chmod`` stops no write, and no tiny file system can be mounted;
so faults are injected into the child's own ``os`` functions, which journal-agent calls by
attribute (``os.open(...)``), before any of it is imported:

* ``JA_TEST_FAULT=readonly:ROOT`` — every write under ROOT (open for writing, mkdir, link,
  rename, unlink) fails with EROFS, as on a file system mounted read-only;
* ``JA_TEST_FAULT=enospc:ROOT`` — writing the new version of a journal page under ROOT (its
  hidden temporary file) fails with ENOSPC half-way, as on a full disk;
* ``JA_TEST_PROJECTION=TEXT`` — the session-start projection seam (`journal_agent.loop.projection`)
  returns TEXT and the pending bullets it is given (``!raise`` makes it fail), so that the hooks'
  output shaping is tested against a fixed string.

Paths given relative to a folder descriptor (``dir_fd=``) are resolved by remembering the path of
every folder the child opens.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Any

_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _install(mode: str, root: str) -> None:
    root = os.path.realpath(root)
    folders: dict[int, str] = {}
    page_fds: set[int] = set()
    real = {
        n: getattr(os, n)
        for n in (
            "open",
            "close",
            "write",
            "mkdir",
            "link",
            "rename",
            "replace",
            "unlink",
            "remove",
            "rmdir",
            "symlink",
        )
    }

    def where(path: object, dir_fd: int | None) -> str | None:
        name = os.fsdecode(path)  # type: ignore[arg-type]
        if dir_fd is not None and not os.path.isabs(name):
            base = folders.get(dir_fd)
            if base is None:
                return None
            name = os.path.join(base, name)
        return os.path.realpath(name)

    def inside(target: str | None) -> bool:
        return target is not None and (target == root or target.startswith(root + os.sep))

    def refuse(path: object, code: int) -> None:
        raise OSError(code, os.strerror(code), os.fsdecode(path))  # type: ignore[arg-type]

    def fake_open(path, flags, mode_=0o777, *, dir_fd=None):
        target = where(path, dir_fd)
        if mode == "readonly" and flags & _WRITE and inside(target):
            refuse(path, errno.EROFS)
        fd = real["open"](path, flags, mode_, dir_fd=dir_fd)
        try:
            if stat.S_ISDIR(os.fstat(fd).st_mode) and target is not None:
                folders[fd] = target
        except OSError:
            pass
        name = os.path.basename(target or "")
        if mode == "enospc" and inside(target) and flags & os.O_CREAT:
            if name.startswith(".journal-agent-") and name.endswith(".tmp"):
                page_fds.add(fd)
        return fd

    def fake_close(fd):
        folders.pop(fd, None)
        page_fds.discard(fd)
        return real["close"](fd)

    def fake_write(fd, data):
        if fd in page_fds:
            real["write"](fd, bytes(data)[: len(data) // 2])
            refuse(f"<fd {fd}>", errno.ENOSPC)
        return real["write"](fd, data)

    def guarded(name: str, *paths: str) -> Any:
        def call(*args, **kwargs):
            if mode == "readonly":
                for i, key in enumerate(paths):
                    if i < len(args) and inside(where(args[i], kwargs.get(key))):
                        refuse(args[i], errno.EROFS)
            return real[name](*args, **kwargs)

        return call

    os.open = fake_open
    os.close = fake_close
    os.write = fake_write
    os.mkdir = guarded("mkdir", "dir_fd")
    os.link = guarded("link", "src_dir_fd", "dst_dir_fd")
    os.rename = guarded("rename", "src_dir_fd", "dst_dir_fd")
    os.replace = guarded("replace", "src_dir_fd", "dst_dir_fd")
    os.unlink = guarded("unlink", "dir_fd")
    os.remove = guarded("remove", "dir_fd")
    os.rmdir = guarded("rmdir", "dir_fd")
    os.symlink = guarded("symlink", "", "dir_fd")


def _projection(text: str) -> None:
    """The seam's contract, with a fixed projection: the text, then the pending bullets it is
    given (as ``context`` lists them), each with its reason."""
    import journal_agent.loop as loop
    from journal_agent.pending import render

    def projection(vault: object, agent: str, pending: object, project: object) -> str:
        if text == "!raise":
            raise RuntimeError("the projection failed")
        return "\n\n".join(p for p in (text, render(pending)) if p)  # type: ignore[arg-type]

    loop.projection = projection


_fault = os.environ.get("JA_TEST_FAULT")
if _fault:
    _mode, _, _root = _fault.partition(":")
    _install(_mode, _root)
if os.environ.get("JA_TEST_PROJECTION") is not None:
    _projection(os.environ["JA_TEST_PROJECTION"])
