"""The vault: find and open it, map dates ↔ journal files and file names ↔ page titles.

`open_vault` finds the vault (``--vault``, ``JOURNAL_AGENT_VAULT``), detects its flavor and reads
its settings. A `Vault` lists its page files (`page_files`), reads and scans one (`read_page`) or
all of them (`scan`), and answers where a day's journal lives (`journal_path`). The page registry
built from a scan lives in `registry`.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from .dates import DateFormat
from .errors import BadDateFormat, ConfigError, NotAVault, UnreadablePage, VaultNotFound
from .flavors import OWN_CONFIG, Flavor, Settings, detect_flavor, flavor_named
from .scanner import Outline, decode, scan

ENV_VAR = "JOURNAL_AGENT_VAULT"
#: Folders no outliner shows as pages (Logseq's own folder holds backups and versions).
_SKIP_DIRS = frozenset({"node_modules", "logseq", "assets", "whiteboards", "draws"})


@dataclass(frozen=True, slots=True)
class PageFile:
    """One page file of the vault, before reading it (its stat decides if a cache is valid)."""

    rel: str  # path relative to the vault, with "/" separators
    mtime_ns: int
    size: int
    inode: int


class Vault:
    """An opened vault: its root, flavor and settings."""

    def __init__(
        self,
        root: Path,
        flavor: Flavor,
        settings: Settings,
        own_config: dict[str, Any] | None = None,
    ) -> None:
        self.root = root
        self.flavor = flavor
        self.settings = settings
        self.own_config = own_config or {}  # the vault's .journal-agent.toml
        self.file_format = DateFormat(settings.journal_file_format, settings.date_dialect)
        self._check_journal_format()

    def __repr__(self) -> str:
        return f"Vault({str(self.root)!r}, flavor={self.flavor.name!r})"

    # -- journals -----------------------------------------------------------------------------

    @cached_property
    def title_format(self) -> DateFormat | None:
        """Logseq's journal page title pattern (other flavors title a journal by its file name)."""
        fmt = self.settings.journal_title_format
        return DateFormat(fmt, "logseq") if fmt else None

    @cached_property
    def _old_formats(self) -> list[DateFormat]:
        return [
            DateFormat(f, self.settings.date_dialect)
            for f in self.settings.old_file_formats
            if f != self.settings.journal_file_format
        ]

    def journal_rel(self, day: dt.date) -> str:
        """The vault-relative path of the journal page for ``day`` (which may not exist)."""
        name = self.file_format.format(day)
        ext = ".org" if self.settings.extensions[0] == ".org" else ".md"
        rel = "/".join(p for p in (self.settings.journal_dir, name + ext) if p)
        _check_inside(rel, self.settings.journal_file_format)
        return rel

    def journal_path(self, day: dt.date) -> Path:
        """Where the journal page for ``day`` is, or would be: an existing file named by an
        earlier file-name format wins over the current format's name."""
        current = self.root / self.journal_rel(day)
        if current.exists():
            return current
        for fmt in self._old_formats:
            old = self.root / self.settings.journal_dir / (fmt.format(day) + current.suffix)
            if old.exists():
                return old
        return current

    def journal_title(self, day: dt.date) -> str:
        """The page title of ``day``'s journal, as links to it are written."""
        if self.title_format is not None:
            return self.title_format.format(day)
        return PurePosixPath(self.journal_rel(day)).stem

    def date_of(self, rel: str) -> dt.date | None:
        """The day a vault-relative file is the journal of, or None if it is not a journal."""
        folder = self.settings.journal_dir
        if folder:
            if not rel.startswith(folder + "/"):
                return None
            rel = rel[len(folder) + 1 :]
        stem = rel.rsplit(".", 1)[0]
        day = self.file_format.parse(stem)
        if day is None and "/" not in stem:
            day = next((d for f in self._old_formats if (d := f.parse(stem))), None)
        return day

    def _check_journal_format(self) -> None:
        sample = self.file_format.format(dt.date(2026, 11, 29))
        if not sample.strip() or sample != sample.strip():
            raise BadDateFormat(
                f"journal file format {self.settings.journal_file_format!r} gives the file name "
                f"{sample!r}"
            )
        self.journal_rel(dt.date(2026, 11, 29))

    # -- pages --------------------------------------------------------------------------------

    def page_files(self, warnings: list[str] | None = None) -> list[PageFile]:
        """Every page file the outliner shows, in path order (hidden and ignored paths skipped)."""
        out = [
            PageFile(rel, (st := entry.stat()).st_mtime_ns, st.st_size, st.st_ino)
            for rel, entry in self._walk(warnings if warnings is not None else [])
        ]
        out.sort(key=lambda p: p.rel)
        return out

    def page_paths(self) -> list[str]:
        """The vault-relative paths of `page_files`, without the cost of a stat per file."""
        return sorted(rel for rel, _entry in self._walk([]))

    def _walk(self, warnings: list[str]) -> list[tuple[str, os.DirEntry[str]]]:
        """Page files below the root, depth first (a loop, not recursion: this runs on every
        query over tens of thousands of files)."""
        found: list[tuple[str, os.DirEntry[str]]] = []
        folders: list[tuple[str, str]] = [(str(self.root), "")]
        extensions, hidden = self.settings.extensions, self.settings.hidden
        while folders:
            folder, prefix = folders.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError as exc:
                warnings.append(f"{prefix or '.'}: cannot list folder: {exc.strerror}")
                continue
            for entry in entries:
                name = entry.name
                if name[0] == "." or (hidden and self._hidden(prefix + name)):
                    continue
                if entry.is_symlink() and not self._inside(entry.path):
                    warnings.append(f"{prefix + name}: symbolic link to outside the vault, skipped")
                elif entry.is_dir():
                    if prefix or name not in _SKIP_DIRS:
                        folders.append((entry.path, prefix + name + "/"))
                elif name.lower().endswith(extensions):
                    found.append((prefix + name, entry))
        return found

    def describe(self, rel: str) -> tuple[str, dt.date | None]:
        """The title a page file's name gives it (Logseq's ``title::`` may override it) and its
        day if it is a journal page."""
        day = self.date_of(rel)
        if day:
            return self.journal_title(day), day
        stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        return self.flavor.title_of(stem, self.settings), None

    def _hidden(self, rel: str) -> bool:
        for hidden in self.settings.hidden:
            h = hidden.strip("/")
            if h and (rel == h or rel.startswith(h + "/")):
                return True
        return False

    def _inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        root = os.path.realpath(self.root)
        return real == root or real.startswith(root + os.sep)

    def read_bytes(self, rel: str, *, listed: bool = False) -> bytes:
        """One page file's bytes; `UnreadablePage` if it cannot be read.

        ``listed``: the file came from `page_files`, whose walk already refused links out of the
        vault (resolving every path again would double the cost of a cold scan).
        """
        path = self.root / rel
        if not listed and not self._inside(str(path)):
            raise UnreadablePage(f"{rel}: resolves to outside the vault")
        try:
            return path.read_bytes()
        except OSError as exc:
            raise UnreadablePage(f"{rel}: cannot be read: {exc.strerror}") from exc

    def parse_page(self, rel: str, data: bytes) -> Outline:
        """Scan one page's bytes; `UnreadablePage` if they are not UTF-8 text."""
        text, bom = decode(data, rel)
        return scan(
            text, self.flavor.syntax, comma_properties=self.settings.comma_properties, bom=bom
        )

    def read_page(self, rel: str) -> Outline:
        """Read and scan one page; `UnreadablePage` if it is not UTF-8 text."""
        return self.parse_page(rel, self.read_bytes(rel))


def _check_inside(rel: str, pattern: str) -> None:
    parts = rel.split("/")
    if (
        rel.startswith(("/", "\\"))
        or ".." in parts
        or "\\" in rel
        or any(p.strip() == "" for p in parts)
    ):
        raise BadDateFormat(
            f"journal file format {pattern!r} gives {rel!r}, which is not a file inside the vault"
        )


# ---------------------------------------------------------------------------------------------
# opening


def open_vault(
    path: str | os.PathLike[str] | None = None, *, flavor: str | None = None, use_cache: bool = True
) -> Vault:
    """Open the vault at ``path`` (else ``$JOURNAL_AGENT_VAULT``), detecting its flavor.

    >>> vault = open_vault("sample_vault")          # doctest: +SKIP
    >>> vault.flavor.name, vault.journal_rel(datetime.date(2026, 11, 29))   # doctest: +SKIP
    ('logseq', 'journals/2026_11_29.md')
    """
    root = _find_root(path)
    own = read_own_config(root)
    chosen = flavor or own.get("flavor")
    found = flavor_named(str(chosen)) if chosen else detect_flavor(root)
    if found is None:
        raise NotAVault(
            f"{root}: not a vault: no logseq/config.edn, no .obsidian/ folder and no Markdown "
            f"notes (create {OWN_CONFIG} to use an empty folder)"
        )
    return Vault(root, found, found.read_settings(root, own, use_cache), own)


def _find_root(path: str | os.PathLike[str] | None) -> Path:
    raw = path if path is not None else os.environ.get(ENV_VAR)
    if raw is None or str(raw) == "":
        raise VaultNotFound(f"no vault given: pass --vault PATH or set {ENV_VAR}")
    root = Path(raw).expanduser()
    if not root.exists():
        raise VaultNotFound(f"{root}: no such folder")
    if not root.is_dir():
        raise VaultNotFound(f"{root}: not a folder")
    return root.resolve()


def read_own_config(root: Path) -> dict[str, Any]:
    """The vault's ``.journal-agent.toml`` (journal-agent's own settings), or {}."""
    path = root / OWN_CONFIG
    if not path.is_file():
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return dict(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
