"""journal-agent's own files for a vault: the ledger, page locks and pending bullets.

They live in the vault's hidden folder ``.journal-agent/`` (outliners do not index hidden
folders), so that every agent writing to the vault, as any user, shares them. The person may move
them out of the vault with ``$JOURNAL_AGENT_STATE`` or ``state = "..."`` in their own config file
(`userconfig`), never from a file inside the vault: whoever can write the vault could otherwise
point journal-agent's writes anywhere. No path of ours follows a symbolic link: the folder, its
subfolders and its files are opened one component at a time with ``O_NOFOLLOW``, and a FIFO or a
link where our file should be is refused (`UnsafePath`), never written through.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from pathlib import Path

from .digests import sha256
from .errors import ConfigError, LockTimeout, UnsafePath, os_error
from .files import NOFOLLOW, fsync_dir, inside, kind_of, open_folder, read_all

STATE_DIR = ".journal-agent"
STATE_ENV = "JOURNAL_AGENT_STATE"
#: The most a state file (the ledger, a pending list) may grow to before we refuse to read it.
MAX_STATE_BYTES = 256 * 1024 * 1024


class StateDir:
    """The folder of journal-agent's own files for one vault."""

    def __init__(self, base: Path, rel: str) -> None:
        self.base = base  # the vault root, or the person's state folder
        self.rel = rel  # this vault's folder below it

    @classmethod
    def of(cls, root: Path) -> StateDir:
        """The state folder of the vault at ``root``: ``.journal-agent/`` unless the person moved
        it (``$JOURNAL_AGENT_STATE`` or their config file's ``state``), then a subfolder per vault
        there."""
        from .userconfig import user_setting

        moved = os.environ.get(STATE_ENV) or user_setting("state")
        if not moved:
            return cls(root, STATE_DIR)
        base = Path(moved).expanduser()
        if not base.is_absolute():
            raise ConfigError(f"the state folder {moved!r} must be an absolute path")
        if inside(base, root):
            raise ConfigError(
                f"the state folder {base} is inside the vault {root}; journal-agent keeps its "
                "own files in the vault's .journal-agent/ or outside the vault"
            )
        return cls(base, vault_slug(root))

    @property
    def path(self) -> Path:
        """Where the folder is (for messages and tests)."""
        return self.base / self.rel

    def folder(self, sub: str = "", *, create: bool) -> int:
        """A descriptor of the folder (or its subfolder ``sub``); the caller closes it."""
        if create and not self.base.exists():  # the person's own state folder, made on first use
            try:
                self.base.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise os_error(exc, self.base, "create the state folder") from exc
        return open_folder(self.base, f"{self.rel}/{sub}".rstrip("/"), create=create, what="state")

    def open(self, name: str, flags: int, *, sub: str = "", mode: int = 0o644) -> int:
        """Open our file ``name`` (never through a link; refused if it is not a regular file)."""
        fd_dir = self.folder(sub, create=bool(flags & os.O_CREAT))
        where = self.path / sub / name
        try:
            fd = os.open(name, flags | NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=fd_dir)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafePath(f"{where}: is a symbolic link; not written through") from exc
            raise os_error(exc, where, "open") from exc
        finally:
            os.close(fd_dir)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise UnsafePath(f"{where}: is {kind_of(st.st_mode)} where journal-agent keeps a file")
        return fd

    def read(self, name: str, *, sub: str = "") -> bytes:
        """Our file's bytes; empty if it or the folder does not exist yet."""
        try:
            fd = self.open(name, os.O_RDONLY, sub=sub)
        except Exception as exc:
            if _missing(exc):
                return b""
            raise
        try:
            return read_all(fd, MAX_STATE_BYTES, self.path / sub / name, "journal-agent file")
        except OSError as exc:
            raise os_error(exc, self.path / sub / name, "read") from exc
        finally:
            os.close(fd)

    def replace(self, name: str, data: bytes, *, sub: str = "") -> None:
        """Replace our file ``name`` atomically (a temporary file, fsync, rename)."""
        fd_dir = self.folder(sub, create=True)
        tmp = f".{name}.{os.getpid()}.tmp"
        where = self.path / sub / name
        try:
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, 0o644, dir_fd=fd_dir
            )
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=fd_dir, dst_dir_fd=fd_dir)
            fsync_dir(fd_dir)
        except OSError as exc:
            try:
                os.unlink(tmp, dir_fd=fd_dir)
            except OSError:
                pass
            raise os_error(exc, where, "write") from exc
        finally:
            os.close(fd_dir)

    def names(self, sub: str = "") -> list[str]:
        """The names in our folder ``sub``, sorted; empty if it does not exist yet."""
        try:
            fd_dir = self.folder(sub, create=False)
        except Exception as exc:
            if _missing(exc):
                return []
            raise
        try:
            return sorted(os.listdir(fd_dir))
        except OSError as exc:
            raise os_error(exc, self.path / sub, "list") from exc
        finally:
            os.close(fd_dir)

    def create(self, name: str, data: bytes, *, sub: str = "") -> bool:
        """Create our file ``name`` holding ``data`` only if it does not exist yet, durably: the
        bytes go to a temporary file that is fsynced and then hard-linked into place, so the
        file appears whole or not at all, and of two processes creating it one wins. False if it
        existed already."""
        fd_dir = self.folder(sub, create=True)
        tmp = f".{name}.{os.getpid()}.tmp"
        where = self.path / sub / name
        try:
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, 0o644, dir_fd=fd_dir
            )
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, name, src_dir_fd=fd_dir, dst_dir_fd=fd_dir, follow_symlinks=False)
            except FileExistsError:
                return False
            fsync_dir(fd_dir)
            return True
        except OSError as exc:
            raise os_error(exc, where, "write") from exc
        finally:
            try:
                os.unlink(tmp, dir_fd=fd_dir)
            except OSError:
                pass
            os.close(fd_dir)

    def remove(self, name: str, *, sub: str = "") -> bool:
        """Remove our file ``name``; False if it was not there."""
        try:
            fd_dir = self.folder(sub, create=False)
        except Exception as exc:
            if _missing(exc):
                return False
            raise
        try:
            os.unlink(name, dir_fd=fd_dir)
            return True
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise os_error(exc, self.path / sub / name, "remove") from exc
        finally:
            os.close(fd_dir)

    def exists(self, name: str, *, sub: str = "") -> bool:
        """Whether our file ``name`` exists (a link or anything else in its place counts)."""
        try:
            os.lstat(self.path / sub / name)
        except OSError:
            return False
        return True


def vault_slug(root: Path) -> str:
    """A folder name for the vault at ``root`` outside it: its name and a hash of its real path
    (``notes-3f2a…``), the same whether or not the vault exists right now."""
    real = os.path.realpath(root)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", os.path.basename(real)).strip("-.") or "vault"
    return f"{slug}-{sha256(real.encode()).hexdigest()[:12]}"


def _missing(exc: BaseException) -> bool:
    return getattr(exc, "errno", None) == errno.ENOENT


class PageLock:
    """Keeps journal-agent writers of one page off each other: an ``flock`` on a lock file in
    the state folder, waited for at most ``wait`` seconds (a session-end hook has about one)."""

    def __init__(self, state: StateDir, key: str, wait: float) -> None:
        self.state, self.key, self.wait = state, key, wait
        self.name = sha256(key.encode()).hexdigest()[:32] + ".lock"
        self.fd = -1

    def __enter__(self) -> PageLock:
        self.fd = self.state.open(self.name, os.O_RDWR | os.O_CREAT, sub="locks")
        start = time.monotonic()
        try:
            while not _try_lock(self.fd, self.state.path / "locks" / self.name):
                waited = time.monotonic() - start
                if waited >= self.wait:
                    raise LockTimeout(
                        f"{self.key}: another journal-agent writer held the page for "
                        f"{waited:.1f} s, the most we may wait (--wait); nothing was written"
                    )
                time.sleep(min(0.01, max(0.0, self.wait - waited)))
        except BaseException:
            _close(self.fd)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        _close(self.fd)  # closing the descriptor releases the lock, even when close fails


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _try_lock(fd: int, path: Path) -> bool:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:  # no locks on this file system (ENOLCK), an I/O error
        raise os_error(exc, path, "lock") from exc
    return True
