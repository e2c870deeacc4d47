"""The file backend: a journal page as a file on disk, written without ever tearing it or losing
anyone's save.

**Reading a base to plan on.** A page is only planned on when nobody is writing it. On Linux a
read lease is granted only while no process has the file open for writing (`disk.take_lease`),
so a page an editor is saving in place (truncate, pause, write) is waited for, never read
half-written; a file held open by an idle writer counts once it has been quiet for
`SUSPICIOUS_QUIET`. Without a lease (another user's file, a network file system, other systems)
the page must have been unmodified for `QUIET`. Either way the file must not change while it is
read, and an empty page or one shorter than we saw a moment ago must have been quiet for
`SUSPICIOUS_QUIET`: that is what an editor that truncates first leaves behind.

**Committing.** The new text goes to a hidden temporary file in the page's folder, fsynced, with
the page's owner, group and mode. It replaces the page only if the page is still exactly the
version read (bytes, inode, size and times), compared under a lease, and on Linux the swap is
``renameat2(RENAME_EXCHANGE)``: the file it displaced is checked, and a save that landed between
the compare and the swap (or, without a lease, one still being written into the displaced file
a moment later) is swapped straight back and reported as a conflict, never lost. A new page is
linked into place, never over a file that appeared meanwhile. A writer killed at any step leaves
the old page or the new one; its temporary file is removed by the next writer.

Every folder is reached without following a link out of the vault (`files.open_folder`), and
the page is never followed if it is a link.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import time

from ..errors import (
    JournalAgentError,
    StorageError,
    UnreadablePage,
    UnsafePage,
    WriteConflict,
    os_error,
)
from ..files import MAX_PAGE_BYTES, NOFOLLOW, fsync_dir, kind_of, open_folder, read_all
from ..outline import decode
from ..owned import plan_insert
from ..records import NamedTuple
from ..vault import Vault
from . import disk
from .base import Backend, Insertion, JournalPage, PageVersion, SaveKeptAside

TMP_PREFIX = ".journal-agent-"
QUIET = 0.1  # seconds a page must be unmodified when no lease can be taken
SUSPICIOUS_QUIET = 1.0  # ... when it is empty, shorter than we saw, or held open by a writer
GRACE = 0.02  # seconds to watch a displaced file for late in-place writes, without a lease
_POLL = 0.005


class Seen(NamedTuple):
    """The bytes of a page and the state of the file they were read from."""

    data: bytes
    st: os.stat_result

    @property
    def key(self) -> tuple[int, ...]:
        return disk.stat_key(self.st)


class FileBackend(Backend):
    """Journal pages as files of the vault."""

    name = "file"

    def __init__(self, vault: Vault) -> None:
        self.vault = vault

    def read(self, page: JournalPage, *, until: float) -> PageVersion:
        folder, name = _split(page.path)
        try:
            fd_dir = open_folder(
                self.vault.root, folder, create=False, what="journal", error=UnsafePage
            )
        except StorageError as exc:
            if exc.errno == errno.ENOENT:
                return PageVersion(page, None)
            raise
        try:
            clean_stale_temp_files(fd_dir)  # a killed writer's link to a new page counts too
            seen = settled_read(fd_dir, name, page.path, None, until)
        finally:
            os.close(fd_dir)
        return self._version(page, seen)

    def _version(self, page: JournalPage, seen: Seen | None) -> PageVersion:
        if seen is None:
            return PageVersion(page, None)
        try:
            text, bom = decode(seen.data, page.path)
        except UnreadablePage as exc:
            raise UnsafePage(f"{exc}; refusing to write to it") from exc
        return PageVersion(page, self.vault.scan_text(text, bom), seen, bom)

    def commit(
        self, version: PageVersion, insertion: Insertion, *, until: float
    ) -> PageVersion | None:
        page = version.page
        folder, name = _split(page.path)
        outline = version.outline or self.vault.scan_text(insertion.new_page(), False)
        offset, inserted = plan_insert(
            outline, insertion.header, list(insertion.texts), insertion.indent
        )
        text = outline.text[:offset] + inserted + outline.text[offset:]
        data = (b"\xef\xbb\xbf" if version.bom else b"") + text.encode("utf-8")
        if len(data) > MAX_PAGE_BYTES:
            raise UnsafePage(f"{page.path}: would grow past {MAX_PAGE_BYTES // 2**20} MB")
        seen = version.token if isinstance(version.token, Seen) else None
        fd_dir = open_folder(self.vault.root, folder, create=True, what="journal", error=UnsafePage)
        try:
            clean_stale_temp_files(fd_dir)
            tmp, ours = _write_temp(fd_dir, data, seen, page.path)
            try:
                if seen is None:
                    landed, displaced = _link_new(fd_dir, tmp, name), False
                else:
                    landed, displaced = _swap(fd_dir, tmp, ours, name, seen)
            except _DisplacedKept as kept:  # the temporary name may hold someone's save: leave it
                raise self._aside(kept, fd_dir, name, page, until) from kept
            except OSError as exc:
                _unlink(fd_dir, tmp)
                raise os_error(exc, self.vault.root / page.path, "replace") from exc
            except BaseException:
                _unlink(fd_dir, tmp)
                raise
            if landed:
                _unlink(fd_dir, tmp)
                try:
                    fsync_dir(fd_dir)
                except OSError as exc:
                    raise os_error(exc, folder or ".", "make the new page durable in") from exc
                return None
            if displaced:
                try:
                    _superseded(fd_dir, tmp, name, until)
                except _DisplacedKept as kept:
                    raise self._aside(kept, fd_dir, name, page, until) from kept
            _unlink(fd_dir, tmp)
            previous = seen.data if seen is not None else None
            return self._version(page, settled_read(fd_dir, name, page.path, previous, until))
        finally:
            os.close(fd_dir)

    def _aside(
        self, kept: _DisplacedKept, fd_dir: int, name: str, page: JournalPage, until: float
    ) -> StorageError:
        """The displaced save kept beside the page, with the page as it now stands (the append
        goes on from it: `SaveKeptAside`); ``kept`` itself where the page cannot be read."""
        try:
            now = self._version(page, settled_read(fd_dir, name, page.path, None, until))
        except JournalAgentError:
            return kept
        return SaveKeptAside(str(kept), now, kept.errno)


def _split(rel: str) -> tuple[str, str]:
    folder, _, name = rel.rpartition("/")
    return folder, name


# ---------------------------------------------------------------------------------------------
# reading


def settled_read(
    fd_dir: int, name: str, rel: str, previous: bytes | None, until: float
) -> Seen | None:
    """The page's bytes once nobody is writing it (None: there is no page); `WriteConflict` if
    it does not settle before ``until``."""
    start = time.monotonic()
    while True:
        outcome = _read_once(fd_dir, name, rel)
        if outcome is None:
            return None
        seen, lease, stable = outcome
        age = _age(seen.st)
        suspicious = not seen.data or (previous is not None and len(seen.data) < len(previous))
        need = QUIET if lease == "none" else 0.0
        if suspicious or lease == "busy":
            need = SUSPICIOUS_QUIET
        if stable and age >= need:
            return seen
        left = until - time.monotonic()
        wait = max(_POLL, need - age) if stable else _POLL
        if wait > left:
            raise WriteConflict(
                f"{rel}: another program was saving the page for "
                f"{time.monotonic() - start:.1f} s, the most we may wait (--wait); "
                "nothing was written"
            )
        time.sleep(wait)


def _age(st: os.stat_result) -> float:
    """Seconds since the file was last modified."""
    return time.time() - st.st_mtime_ns / 1e9


def _read_once(fd_dir: int, name: str, rel: str) -> tuple[Seen, disk.Lease, bool] | None:
    """One read of the page: what it held, whether a lease was held, and whether nothing
    changed while it was read (None: no page)."""
    fd = _open_page(fd_dir, name, rel)
    if fd is None:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePage(f"{rel}: is {kind_of(st.st_mode)}, not a page file")
        disk.check_identity(st, rel, MAX_PAGE_BYTES)
        lease = disk.take_lease(fd)
        try:
            data = read_all(fd, MAX_PAGE_BYTES, rel, "page", UnsafePage)
            after = os.fstat(fd)
            stable = disk.stat_key(after) == disk.stat_key(st) and len(data) == st.st_size
            if lease == "held" and disk.lease_broken(fd):
                stable = False
        finally:
            if lease == "held":
                disk.release_lease(fd)
        return Seen(data, st), lease, stable
    except OSError as exc:
        raise os_error(exc, rel, "read the journal page") from exc
    finally:
        os.close(fd)


def _open_page(fd_dir: int, name: str, rel: str) -> int | None:
    try:
        return os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | NOFOLLOW, dir_fd=fd_dir)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePage(
                f"{rel}: is a symbolic link; journal-agent writes only regular files"
            ) from exc
        raise os_error(exc, rel, "open the journal page") from exc


# ---------------------------------------------------------------------------------------------
# committing


def _write_temp(
    fd_dir: int, data: bytes, seen: Seen | None, rel: str
) -> tuple[str, tuple[int, ...]]:
    """A hidden temporary file holding ``data`` with the page's identity, fsynced: its name,
    and its device, inode, size and mtime (what a save into it in place would change)."""
    tmp = f"{TMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | NOFOLLOW
    try:
        fd = os.open(tmp, flags, 0o666, dir_fd=fd_dir)
    except OSError as exc:
        raise os_error(exc, rel, "create a temporary file beside") from exc
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if seen is not None:
            disk.give_identity(fd, seen.st, rel)
        os.fsync(fd)
        ours = disk.stat_key(os.fstat(fd))[:4]
    except BaseException as exc:
        _close_quietly(fd)
        _unlink(fd_dir, tmp)
        if isinstance(exc, OSError):
            raise os_error(exc, rel, "write the new version of") from exc
        raise
    try:
        os.close(fd)
    except OSError as exc:
        _unlink(fd_dir, tmp)
        raise os_error(exc, rel, "write the new version of") from exc
    return tmp, ours


def _link_new(fd_dir: int, tmp: str, name: str) -> bool:
    """Put a new page in place, never over a file that appeared meanwhile."""
    try:
        os.link(tmp, name, src_dir_fd=fd_dir, dst_dir_fd=fd_dir, follow_symlinks=False)
    except FileExistsError:
        return False
    return True


def _swap(fd_dir: int, tmp: str, ours: tuple[int, ...], name: str, seen: Seen) -> tuple[bool, bool]:
    """Swap ``tmp`` in for the page if the page is still ``seen``: whether it landed, and
    whether ``tmp`` now holds a save we displaced that a newer save replaced as the page
    (`_swap_back`: it must be checked, `_superseded`). If it did not land, the page holds
    whatever someone else saved, never our bytes alone."""
    fd = _open_page(fd_dir, name, name)
    if fd is None:
        return False, False
    try:
        lease = disk.take_lease(fd)
        if lease == "busy" and _age(os.fstat(fd)) >= SUSPICIOUS_QUIET:
            lease = "none"  # held open by an idle writer: the timing rules apply, as at the read
        try:
            if lease == "busy" or not _unchanged(fd, seen):
                return False, False
            if not disk.exchange(fd_dir, tmp, name):
                os.replace(tmp, name, src_dir_fd=fd_dir, dst_dir_fd=fd_dir)  # no exchange here
                return True, False
            try:
                intact = _displaced_intact(fd_dir, tmp, fd, seen, lease)
            except OSError as exc:  # cannot tell what we displaced: put it back, not lose it
                if _swap_back(fd_dir, tmp, ours, name):
                    raise _kept(fd_dir, tmp, name, "could not be checked") from exc
                raise
            if intact:
                return True, False
            return False, _swap_back(fd_dir, tmp, ours, name)
        finally:
            if lease == "held":
                disk.release_lease(fd)
    finally:
        os.close(fd)


def _unchanged(fd: int, seen: Seen) -> bool:
    st = os.fstat(fd)
    if disk.stat_key(st) != seen.key:
        return False
    return read_all(fd, MAX_PAGE_BYTES, "page", "page", UnsafePage) == seen.data


def _displaced_intact(fd_dir: int, tmp: str, fd: int, seen: Seen, lease: disk.Lease) -> bool:
    """After the swap: is the file we displaced the one we compared, untouched since?"""
    displaced = os.stat(tmp, dir_fd=fd_dir, follow_symlinks=False)
    if (displaced.st_dev, displaced.st_ino) != (seen.st.st_dev, seen.st.st_ino):
        return False  # a rename-save landed between the compare and the swap
    if lease == "held":
        return not disk.lease_broken(fd)
    time.sleep(GRACE)  # no lease: watch for an editor still writing into the displaced file
    return disk.stat_key(os.fstat(fd))[:4] == seen.key[:4]  # (our rename changed its ctime)


def _swap_back(fd_dir: int, tmp: str, ours: tuple[int, ...], name: str) -> bool:
    """Put the displaced save back, unless a newer save replaced our version as the page
    meanwhile: a rename-save, or a save in place into our version (an editor that reloaded it
    and saved again, within `GRACE`): keep that one, and True (the displaced save, left at
    ``tmp``, must be checked against it: `_superseded`). If the swap fails, the displaced file
    is kept under a name no cleanup removes, and said so."""
    try:
        disk.exchange(fd_dir, tmp, name)
        if disk.stat_key(os.stat(tmp, dir_fd=fd_dir, follow_symlinks=False))[:4] != ours:
            disk.exchange(fd_dir, tmp, name)
            return True
    except OSError as exc:
        raise _kept(
            fd_dir, tmp, name, f"could not be put back ({exc.strerror})", exc.errno
        ) from exc
    return False


def _superseded(fd_dir: int, tmp: str, name: str, until: float) -> None:
    """Return once the page, the newer save that replaced our version, holds every line of the
    displaced save at ``tmp`` (as an editor that keeps its unsaved lines on reloading saves
    it), that one having been quiet for `QUIET` (no save still under way into it): it may then
    go. Polled, the page not waited for: a save being written into it holds those lines once
    done if a part of it already does. Else, at ``until``, keep it beside the page (`_kept`):
    neither save is lost."""
    while True:
        try:
            displaced = _read_once(fd_dir, tmp, name)
            page = _read_once(fd_dir, name, name)
        except (StorageError, UnsafePage) as exc:
            raise _kept(fd_dir, tmp, name, f"could not be read ({exc})") from exc
        if displaced is None:
            return  # gone: nothing is left to keep
        seen, _lease, stable = displaced
        if stable and _age(seen.st) >= QUIET and page is not None:
            lines = {line for line in seen.data.split(b"\n") if line.strip()}
            if lines <= set(page[0].data.split(b"\n")):
                return
        if time.monotonic() + _POLL > until:
            raise _kept(fd_dir, tmp, name, "was replaced by a newer save without all its lines")
        time.sleep(_POLL)


def _kept(fd_dir: int, tmp: str, name: str, why: str, code: int | None = None) -> _DisplacedKept:
    """Keep the displaced save at ``tmp`` under a name no cleanup removes: the error saying so."""
    kept = f"{name}.journal-agent-kept-{os.getpid()}"
    try:
        os.rename(tmp, kept, src_dir_fd=fd_dir, dst_dir_fd=fd_dir)
    except OSError:
        kept = tmp
    return _DisplacedKept(
        f"{name}: a save made while journal-agent was writing {why}; it is kept as {kept} "
        "beside the page",
        code,
    )


class _DisplacedKept(StorageError):
    """A displaced save could not be put back and is kept beside the page: never unlink it."""


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _unlink(fd_dir: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=fd_dir)
    except OSError:
        pass


def clean_stale_temp_files(fd_dir: int, older_than: float = 60.0) -> None:
    """Remove temporary files a killed writer left behind (hidden, but still litter)."""
    try:
        entries = list(os.scandir(fd_dir))
    except OSError:
        return
    cutoff = time.time() - older_than
    for entry in entries:
        if entry.name.startswith(TMP_PREFIX) and entry.name.endswith(".tmp"):
            try:
                st = entry.stat(follow_symlinks=False)
                if st.st_mtime < cutoff or not _pid_alive(entry.name):
                    os.unlink(entry.name, dir_fd=fd_dir)
            except OSError:
                continue


def _pid_alive(name: str) -> bool:
    try:
        pid = int(name[len(TMP_PREFIX) :].split("-", 1)[0])
        if pid == os.getpid():
            return True
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
