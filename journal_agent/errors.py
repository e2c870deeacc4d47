"""The one exception hierarchy of journal-agent.

Every error the library raises on purpose is a ``JournalAgentError``; the CLI turns it into a
one-line message and the contract's exit code (``exit_code``: 2 for a refusal, 1 otherwise)::

    JournalAgentError
    ├── VaultError                 the vault cannot be opened or understood      (exit 1)
    │   ├── VaultNotFound          the path does not exist or is not a folder
    │   ├── NotAVault              a folder, but no Logseq/Obsidian/Markdown vault in it
    │   └── ConfigError            config.edn / daily-notes.json / plugin settings are malformed
    ├── PageError                  one page file cannot be read                  (exit 1)
    │   └── UnreadablePage         not UTF-8 text, binary, or an I/O error
    ├── WriteError                 a write could not be done safely; nothing written (exit 1)
    │   ├── LockTimeout            another writer held the journal page too long
    │   └── WriteConflict          the page kept changing under us (a human or app editing it)
    └── Refused                    bad input or a guest rule; nothing written    (exit 2)
        ├── BadDateFormat          a journal date format that is unusable or leaves the vault
        ├── BadPageName            a page name that cannot be stored as a file
        ├── PageNotFound           a topic that is not a page of the vault
        ├── BulletsRefused         a bullet breaks a bullet rule or names an unknown page
        ├── BadAgentName           an owned block's header that would mint a page or a block
        └── UnsafePage             the journal page cannot be written without risk to it
"""

from __future__ import annotations

from typing import Any


class JournalAgentError(Exception):
    """Base of every error journal-agent raises on purpose."""

    exit_code = 1


class VaultError(JournalAgentError):
    """The vault cannot be opened or understood."""


class VaultNotFound(VaultError):
    """The vault path does not exist or is not a folder."""


class NotAVault(VaultError):
    """The folder holds no Logseq graph, Obsidian vault or Markdown notes."""


class ConfigError(VaultError):
    """A settings file of the vault is malformed or holds an unusable value."""


class PageError(JournalAgentError):
    """One page file cannot be read."""


class UnreadablePage(PageError):
    """A page file is not UTF-8 text (binary, another encoding) or cannot be read."""


class WriteError(JournalAgentError):
    """A write could not be done safely; nothing was written."""


class LockTimeout(WriteError):
    """Another writer held the journal page's lock for too long."""


class WriteConflict(WriteError):
    """The journal page kept changing between our read and our write (someone is editing it)."""


class Refused(JournalAgentError):
    """Bad input or a guest rule: the request was refused and nothing was written."""

    exit_code = 2


class BadDateFormat(Refused):
    """A journal date format is unusable, or would put journal files outside the vault."""


class BadPageName(Refused):
    """A page name cannot be stored as a file of this vault."""


class PageNotFound(Refused):
    """A topic named by the user is not a page of the vault."""


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


class BadAgentName(Refused):
    """An agent name (the owned block's header) that is not one short line of plain text: it
    would mint a page, a property or a block of its own."""


class UnsafePage(Refused):
    """The journal page cannot be written without risk: conflict markers, not UTF-8 text, a
    symbolic link, or a path outside the vault."""
