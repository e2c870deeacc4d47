"""Careful file access: every file journal-agent opens is a regular file of bounded size, and
every folder it writes in is reached without following a symbolic link out of the vault.

A vault is written by people, apps and sync tools, and may hold anything: a FIFO named like a
page (reading it would hang forever), a symbolic link to a file elsewhere, a loop of links, a
file of hundreds of megabytes. These helpers turn each into a clear `JournalAgentError`, and an
``OSError`` into a message that names the file and the reason (`errors.os_error`).
"""

from __future__ import annotations

import errno
import os
import stat

from .errors import JournalAgentError, UnsafePath, os_error

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from pathlib import Path

#: Pages above this size are refused by the writer and skipped (with a warning) by the reader:
#: no outliner keeps a page this large usable, and reading one would cost seconds and gigabytes.
MAX_PAGE_BYTES = 10 * 1024 * 1024
#: Settings files (config.edn, daily-notes.json, .journal-agent.toml, templates) are small.
MAX_SETTINGS_BYTES = 1024 * 1024

READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):  # only an lstat sees one
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_file(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int,
    error: type[JournalAgentError] = UnsafePath,
    follow: bool = True,
    dir_fd: int | None = None,
) -> bytes | None:
    """The bytes of a regular file, or None if it does not exist.

    ``error`` is raised (with ``what`` and the reason) for a FIFO, device or folder, a file over
    ``limit`` bytes, or (``follow=False``) a symbolic link; other ``OSError``s become
    `StorageError`. Opening is non-blocking, so a FIFO never hangs the caller.
    """
    try:
        fd = os.open(path, READ_FLAGS | (0 if follow else NOFOLLOW), dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise error(f"{os.fspath(path)}: {what} is a symbolic link; not followed") from exc
        if exc.errno == errno.EISDIR:
            raise error(f"{os.fspath(path)}: {what} is a folder, not a file") from exc
        raise os_error(exc, path, f"open {what}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{os.fspath(path)}: {what} is {kind_of(st.st_mode)}, not a file")
        if st.st_size > limit:
            raise error(
                f"{os.fspath(path)}: {what} is {st.st_size // 1024 // 1024} MB; "
                f"journal-agent reads files up to {limit // 1024 // 1024} MB"
            )
        return read_all(fd, limit, path, what, error)
    except OSError as exc:
        raise os_error(exc, path, f"read {what}") from exc
    finally:
        os.close(fd)


def read_all(
    fd: int,
    limit: int,
    path: str | os.PathLike[str],
    what: str,
    error: type[JournalAgentError] = UnsafePath,
) -> bytes:
    """Everything from ``fd``'s start to its end; ``error`` if it grows past ``limit``."""
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)
        if offset > limit:
            raise error(f"{os.fspath(path)}: {what} grew past {limit // 1024 // 1024} MB")


def read_text(
    path: str | os.PathLike[str], what: str, error: type[JournalAgentError]
) -> str | None:
    """A small settings file as text (None if missing); ``error`` if it is not UTF-8."""
    data = read_file(path, what, limit=MAX_SETTINGS_BYTES, error=error)
    if data is None:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: {what} is not UTF-8 text (invalid byte at {exc.start})") from exc


def inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (its links resolved) lies in ``root``; a link loop is not inside."""
    try:
        real = os.path.realpath(path, strict=False)
    except (OSError, ValueError):
        return False
    base = os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def open_folder(
    root: Path,
    rel: str,
    *,
    create: bool,
    what: str,
    error: type[JournalAgentError] = UnsafePath,
) -> int:
    """A descriptor of the folder ``rel`` of ``root``, reached one component at a time so that
    no symbolic link leads out of ``root`` (a link that stays inside is followed); missing
    components are created when ``create``. The caller closes the descriptor."""
    base = os.path.realpath(root)
    here = base
    try:
        fd = os.open(base, _DIR_FLAGS)
    except OSError as exc:
        raise os_error(exc, base, f"open the {what} folder") from exc
    for part in [p for p in rel.split("/") if p]:
        try:
            child, here = _open_child(fd, here, part, base, what, create, error)
        finally:
            os.close(fd)
        fd = child
    return fd


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_child(
    fd: int,
    here: str,
    name: str,
    root: str,
    what: str,
    create: bool,
    error: type[JournalAgentError],
) -> tuple[int, str]:
    """The subfolder ``name`` of the folder ``fd`` (at path ``here``), and its path."""
    path = os.path.join(here, name)
    for _ in range(3):
        try:
            return os.open(name, _DIR_FLAGS | NOFOLLOW, dir_fd=fd), path
        except FileNotFoundError as exc:
            if not create:
                raise os_error(exc, path, f"open the {what} folder") from exc
            try:
                os.mkdir(name, 0o777, dir_fd=fd)
            except FileExistsError:
                continue
            except OSError as exc2:
                raise os_error(exc2, path, f"create the {what} folder") from exc2
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise os_error(exc, path, f"open the {what} folder") from exc
            if not os.path.islink(path):
                raise os_error(exc, path, f"open the {what} folder") from exc
            target = os.path.realpath(path)
            if not inside(target, root) or not os.path.isdir(target):
                raise error(
                    f"{path}: the {what} folder is a symbolic link outside the vault"
                ) from exc
            try:
                return os.open(target, _DIR_FLAGS), target
            except OSError as exc2:
                raise os_error(exc2, path, f"open the {what} folder") from exc2
    raise os_error(OSError(errno.ENOENT, "vanished"), path, f"open the {what} folder")


def fsync_dir(fd: int) -> None:
    """Make a rename in the folder durable (ignored where folders cannot be synced)."""
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise


def replace_file(path: Path, data: bytes, what: str) -> None:
    """Write a file of ours outside the vault (a settings file, a timeline page) in one step: a
    temporary file beside it, created new (a link already at its name is not followed) and
    synced, then renamed over ``path``, keeping the mode of the file it replaces. A full disk
    never leaves a truncated file; ``what`` names the file in the error."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), mode)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise os_error(exc, path, f"write the {what}") from exc
