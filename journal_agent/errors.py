"""The one exception hierarchy of journal-agent.

Every error the library raises is a ``JournalAgentError``: foreign errors (``OSError``,
``UnicodeError``, ``RecursionError``, errors of the libraries we parse with) are translated where
they enter, chained with ``from``. The CLI prints the message as one line and exits with
``exit_code``: 2 when the input or the vault's settings must change first (retrying cannot help),
1 when the environment failed (a busy page, a full disk: a retry may succeed)::

    JournalAgentError
    ├── VaultError                 the vault cannot be opened or understood      (exit 2)
    │   ├── VaultNotFound          the path does not exist or is not a folder
    │   ├── NotAVault              a folder, but no Logseq/Obsidian/Markdown vault in it
    │   └── ConfigError            a settings file is malformed or holds an unusable value
    │       └── BadDateFormat      a journal date format that is unusable or leaves the vault
    ├── PageError                  one page file cannot be read                  (exit 1)
    │   └── UnreadablePage         not UTF-8 text, binary, too large, or an I/O error
    ├── StorageError               a file or folder could not be read or written (exit 1)
    ├── MissingExtra               an optional part is not installed               (exit 1)
    ├── WatchRunning               another watch process already watches the vault (exit 1)
    ├── WriteError                 a write could not be done safely; nothing written (exit 1)
    │   ├── LockTimeout            another writer held the journal page too long
    │   └── WriteConflict          the page kept changing under us (a human or app editing it)
    └── Refused                    bad input or a guest rule; nothing written    (exit 2)
        ├── BadArgument            an argument that is not what the call accepts
        ├── BadPageName            a page name that cannot be stored as a file
        ├── BadAgentName           an agent name that cannot head an owned block
        ├── PageNotFound           a topic that is not a page of the vault
        │   └── AmbiguousPage      a topic name several notes answer to: give a path
        ├── BulletsRefused         a bullet breaks a bullet rule or names an unknown page
        ├── UnsafePage             the journal page cannot be written without risk to it
        └── UnsafePath             a path journal-agent would write leaves the vault
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable

from .patterns import regex

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])


class JournalAgentError(Exception):
    """Base of every error journal-agent raises."""

    exit_code = 1


class VaultError(JournalAgentError):
    """The vault cannot be opened or understood."""

    exit_code = 2


class VaultNotFound(VaultError):
    """The vault path does not exist or is not a folder."""


class NotAVault(VaultError):
    """The folder holds no Logseq graph, Obsidian vault or declared Markdown journal."""


class ConfigError(VaultError):
    """A settings file of the vault is malformed or holds an unusable value."""


class BadDateFormat(ConfigError):
    """A journal date format is unusable, or would put journal files outside the vault."""


class PageError(JournalAgentError):
    """One page file cannot be read."""


class UnreadablePage(PageError):
    """A page file is not UTF-8 text (binary, another encoding), too large, or unreadable."""


class StorageError(JournalAgentError):
    """A file or folder could not be read or written (the operating system said why)."""

    def __init__(self, message: str, errno_: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno_


class MissingExtra(JournalAgentError):
    """An optional part of journal-agent is not installed (the message names the extra)."""


class WatchRunning(JournalAgentError):
    """Another ``journal-agent watch`` already watches this vault (one per vault)."""


class WriteError(JournalAgentError):
    """A write could not be done safely; nothing was written."""


class LockTimeout(WriteError):
    """Another writer held the journal page's lock for longer than we were allowed to wait."""


class WriteConflict(WriteError):
    """The journal page kept changing between our read and our write (someone is editing it)."""


class Refused(JournalAgentError):
    """Bad input or a guest rule: the request was refused and nothing was written."""

    exit_code = 2


class BadArgument(Refused):
    """An argument is not one the call accepts (a date, a kind, a window, a path)."""


class BadPageName(Refused):
    """A page name cannot be stored as a file of this vault."""


class BadAgentName(Refused):
    """An agent name (the owned block's header) would mint a page or change the outline."""


class PageNotFound(Refused):
    """A topic named by the user is not a page of the vault."""


def not_a_page(name: str, hint: list[str], what: str = "page") -> PageNotFound:
    """The refusal of a topic name no page answers to, offering the closest names (``hint``)."""
    more = f" (did you mean {', '.join(repr(s) for s in hint)}?)" if hint else ""
    return PageNotFound(f"{name!r} is not a {what} of this vault{more}")


class AmbiguousPage(PageNotFound):
    """A topic name that several pages answer to (Obsidian notes of one name in different
    folders): the message lists their paths, one of which names the topic."""

    def __init__(self, message: str, paths: list[str]) -> None:
        super().__init__(message)
        self.paths = paths


class BulletsRefused(Refused):
    """A bullet breaks a bullet rule or references a page that does not exist."""

    def __init__(
        self, message: str, problems: list[Any], page: str | None = None, path: str | None = None
    ) -> None:
        super().__init__(message)
        self.problems = problems
        self.page = page
        self.path = path

    def to_json(self) -> dict[str, Any]:
        """The append contract's shape: nothing written, every problem refused."""
        return {
            "page": self.page,
            "path": self.path,
            "written": [],
            "duplicates": [],
            "refused": [{"bullet": p.bullet, "reason": p.message} for p in self.problems],
        }


class UnsafePage(Refused):
    """The journal page cannot be written without risk: conflict markers, not UTF-8 text, a
    symbolic link, hard links, read-only, another owner, too large, or not a regular file."""


class UnsafePath(Refused):
    """A file or folder journal-agent would write is a symbolic link, not a regular file, or
    lies outside the vault."""


# ---------------------------------------------------------------------------------------------
# translation of foreign errors

#: What to tell the person, by errno: the condition in words, and what to do about it.
_OS_REASONS: dict[int, str] = {
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EEXIST: "a file is in the way",
    errno.ENOTDIR: "a file is in the way where a folder should be",
    errno.EISDIR: "it is a folder, not a file",
    errno.ELOOP: "a symbolic link loop (or a link where none is allowed)",
    errno.ENOENT: "no such file or folder",
    errno.ENAMETOOLONG: "the name is too long",
    errno.EIO: "an input/output error (a failing disk or a lost network share)",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "too many open files",
    errno.EBUSY: "it is busy",
    errno.ETXTBSY: "it is busy",
    errno.ENXIO: "it is not a regular file (a FIFO or a device)",
}


def os_error(exc: OSError, path: str | os.PathLike[str], action: str) -> StorageError:
    """A `StorageError` for ``exc``, saying what we were doing to which file and why it failed:
    ``cannot create .journal-agent/locks: a file is in the way``."""
    code = exc.errno
    reason = _OS_REASONS.get(code or 0) or exc.strerror or type(exc).__name__
    return StorageError(f"cannot {action} {os.fspath(path)}: {reason}", code)


def short(text: str, limit: int = 60) -> str:
    """``text`` cut for a one-line message: a refusal never echoes a megabyte back."""
    if len(text) <= limit:
        return text.replace("\n", "\\n").replace("\r", "\\r")
    return f"{text[:limit]}… ({len(text)} characters)"


# Control characters and line separators: shown raw, they would move the cursor, retitle or
# clear the terminal, or break the line a listing prints.
_UNSHOWABLE = regex(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escaped(text: str) -> str:
    """``text`` with its control characters escaped as ``repr`` (and so the warnings) writes
    them, for printing a bullet the guard has not passed: it may hold a terminal's escapes."""
    return _UNSHOWABLE.sub(lambda m: repr(m.group())[1:-1], text)


def translated(action: str) -> Callable[[F], F]:
    """The boundary of the library: any ``OSError`` that escaped a more precise mapping becomes
    a `StorageError` naming the file, and a settings or page file nested too deeply to read a
    `ConfigError`, so that a caller who catches `JournalAgentError` catches everything."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except JournalAgentError:
                raise
            except OSError as exc:
                raise os_error(exc, exc.filename or "a file", action) from exc
            except RecursionError as exc:
                raise ConfigError("a settings or page file is nested too deeply to read") from exc

        return wrapper  # type: ignore[return-value]

    return decorate
