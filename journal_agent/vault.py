"""The vault: find and open it, map dates ↔ journal files and file names ↔ page titles.

`open_vault` finds the vault (``--vault``, ``$JOURNAL_AGENT_VAULT``, else the person's config
file), detects its flavor and reads its settings. A `Vault` lists its page files
(`page_files`), reads and scans one (`read_page`), and answers where a day's journal lives
(`journal_path`, `journal_page`). The page registry built from a scan lives in `registry`.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from functools import cached_property

from .dates import DateFormat
from .errors import BadDateFormat, NotAVault, UnreadablePage, VaultNotFound
from .files import MAX_PAGE_BYTES, READ_FLAGS, inside, read_file
from .flavors import Flavor, Settings, detect_flavor, flavor_named
from .outline import Outline, decode, line_count
from .ownconfig import OWN_CONFIG, OwnConfig, read_own_config
from .patterns import regex
from .records import NamedTuple
from .titles import JournalNames
from .walk import page_files

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from pathlib import Path

    from .backends.base import JournalPage
    from .walk import Stat

ENV_VAR = "JOURNAL_AGENT_VAULT"


class PageFile(NamedTuple):
    """One page file of the vault, before reading it (its stat decides if a cache is valid)."""

    rel: str  # path relative to the vault, with "/" separators
    #: The later of its mtime and ctime: an edit in place that keeps the size and sets the
    #: mtime back (``cp -p``, ``rsync --inplace``) still moves the ctime, which nothing sets
    #: back (git compares both).
    changed_ns: int
    size: int
    inode: int


class Vault:
    """An opened vault: its root, flavor and settings. The root is kept as a string (`where`)
    and made a `Path` only when asked for: opening a vault for a query after an edit must not
    import `pathlib` (and `urllib.parse`, `ipaddress`: 2 ms of every such query)."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        flavor: Flavor,
        settings: Settings,
        own_config: OwnConfig | None = None,
    ) -> None:
        self.where = os.fspath(root)
        self.flavor = flavor
        self.settings = settings
        self.own_config = own_config or OwnConfig()  # the vault's .journal-agent.toml
        _check_escape(settings.journal_file_format)  # before its letters are read as tokens
        pattern = _without_page_extension(settings)
        self.file_format = DateFormat(pattern, settings.date_dialect)
        self._check_journal_format()

    def __repr__(self) -> str:
        return f"Vault({self.where!r}, flavor={self.flavor.name!r})"

    @cached_property
    def root(self) -> Path:
        """The vault's folder."""
        return _path(self.where)

    @cached_property
    def excluded(self) -> frozenset[str]:
        """The keys (`Flavor.page_key`) of the pages the vault's own config leaves out of every
        answer (``exclude``)."""
        key = self.flavor.page_key
        return frozenset(key(title) for title in self.own_config.exclude)

    # -- journals -----------------------------------------------------------------------------

    @cached_property
    def title_format(self) -> DateFormat | None:
        """Logseq's journal page title pattern (other flavors title a journal by its file name)."""
        fmt = self.settings.journal_title_format
        return DateFormat(fmt, "logseq") if fmt else None

    @cached_property
    def journal_names(self) -> JournalNames | None:
        """Which page names are journal pages, where the flavor decides it by name (Logseq)."""
        fmt = self.settings.journal_title_format
        return JournalNames(fmt) if fmt and self.flavor.journals_by_name else None

    @cached_property
    def _old_formats(self) -> list[DateFormat]:
        return [
            DateFormat(f, self.settings.date_dialect)
            for f in self.settings.old_file_formats
            if f != self.settings.journal_file_format
        ]

    @cached_property
    def _name_format(self) -> DateFormat | None:
        """The file format's last part, where a file named by it anywhere below the journal
        folder is that day's journal (`Flavor.journals_below`); None where none is, or where
        that part alone names no day (``YYYY/MM/DD``'s ``DD``)."""
        if not (self.flavor.journals_below and self.settings.journal_dir):
            return None
        try:
            last = self.file_format.pattern.rsplit("/", 1)[-1]
            return DateFormat(last, self.settings.date_dialect)
        except BadDateFormat:
            return None

    def journal_rel(self, day: dt.date) -> str:
        """The vault-relative path a new journal page for ``day`` gets."""
        name = self.file_format.format(day) + self.settings.new_page_extension
        rel = "/".join(p for p in (self.settings.journal_dir, name) if p)
        _check_inside(rel, self.settings.journal_file_format)
        return rel

    def journal_path(self, day: dt.date) -> Path:
        """Where the journal page for ``day`` is, or would be. An existing file wins: named by the
        current format or an earlier one, with any page extension in any case (``.md``,
        ``.markdown``, ``.org``, ``.MD``), so that a day never gets a second page."""
        current = self.root / self.journal_rel(day)
        if current.is_file():
            return current
        folder = current.parent  # the names below it: a format's last part, as in ``current``
        names_of_day = [self.file_format.format(day), *(f.format(day) for f in self._old_formats)]
        stems = {name.rsplit("/", 1)[-1] for name in names_of_day}
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return current
        for name in names:
            stem, dot, ext = name.rpartition(".")
            if dot and stem in stems and "." + ext.lower() in self.settings.extensions:
                return folder / name
        return current

    def journal_page(self, day: dt.date) -> JournalPage:
        """The journal page of ``day``: its title and its (existing or new) path."""
        from .backends.base import JournalPage

        rel = self.journal_path(day).relative_to(self.root).as_posix()
        return JournalPage(day, self.journal_title(day), rel)

    def journal_exists(self, page: JournalPage) -> bool:
        """Whether the journal page's file exists (a link or anything else counts)."""
        return os.path.lexists(self.root / page.path)

    def journal_title(self, day: dt.date) -> str:
        """The page title of ``day``'s journal, as links to it are written."""
        if self.title_format is not None:
            return self.title_format.format(day)
        name = self.journal_rel(day).rpartition("/")[2]
        stem, dot, suffix = name.rpartition(".")
        return stem if dot and stem and suffix else name  # `PurePath.stem`

    def date_of(self, rel: str) -> dt.date | None:
        """The day a vault-relative file is the journal of, or None if it is not a journal: a
        file of the journal folder at the path the file format gives a day; in Obsidian one
        anywhere below that folder named by the format's last part too, as the daily-notes
        library that Calendar and Periodic Notes use reads them (obsidian-daily-notes-interface
        ``getAllDailyNotes``: notes filed by year, or left flat after the format took folders).
        Only below a configured folder: the library's default, the whole vault, would make a
        journal of any note named by a date. Only for reading: a new page goes where
        `journal_rel` says."""
        folder = self.settings.journal_dir
        if folder:
            if not rel.startswith(folder + "/"):
                return None
            rel = rel[len(folder) + 1 :]
        stem = rel.rsplit(".", 1)[0]
        day = self.file_format.parse(stem)
        if day is None and "/" not in stem:
            day = next((d for f in self._old_formats if (d := f.parse(stem))), None)
        if day is None and self._name_format is not None:
            day = self._name_format.parse(stem.rsplit("/", 1)[-1])
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
        return list(map(PageFile._make, self.listing(warnings)))

    def listing(self, warnings: list[str] | None = None, stat: bool = True) -> list[Stat]:
        """`page_files` as plain tuples of the same fields, which cost nothing to make: for
        the paths that only compare stats (a tenth of a second at 100,000 files). Without
        ``stat`` the stat fields are 0: for a pass that reads every file and keeps nothing
        of it (`read_listed` then takes each file's size as it reads it)."""
        settings = self.settings
        found = warnings if warnings is not None else []
        rules = (settings.extensions, settings.hidden, settings.skipped)
        return page_files(self.where, *rules, found, stat)

    def page_paths(self) -> list[str]:
        """The vault-relative paths of `page_files`, without the cost of a stat per file."""
        return [f[0] for f in self.listing(stat=False)]

    def describe(self, rel: str, title: str | None = None) -> tuple[str, dt.date | None]:
        """A page file's title and its day if it is a journal page. ``title``: the one its own
        properties give it (Logseq's ``title::``), which overrides its file name.

        Logseq makes a page a journal by its name (`titles`), so ``pages/2026_11_07.md`` and a
        ``title:: Nov 7th, 2026`` are that day's journal and ``journals/weekly.md`` is not; one
        addition: a file of the journal folder named by the graph's own file-name format is
        that day's journal even where Logseq's parser would not read the name as a date (a
        ``yyyyMMdd`` format), because that is where journal-agent writes the day's page."""
        names = self.journal_names
        if names is None:
            day = self.date_of(rel)
            if day:
                return self.journal_title(day), day
        stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        name = title or self.flavor.title_of(stem, self.settings)
        if names is None:
            return name, None
        day = names.day_of(name) or (None if title else self._own_format_day(rel))
        return (names.journal_title(day), day) if day else (name, None)

    def _own_format_day(self, rel: str) -> dt.date | None:
        """The day of a file in the journal folder named by the configured file-name format."""
        folder = self.settings.journal_dir
        if folder and not rel.startswith(folder + "/"):
            return None
        return self.file_format.parse(rel[len(folder) + 1 if folder else 0 :].rsplit(".", 1)[0])

    def read_bytes(self, rel: str, *, listed: bool = False) -> bytes:
        """One page file's bytes; `UnreadablePage` if it cannot be read, is not a regular file,
        or is over `files.MAX_PAGE_BYTES`.

        ``listed``: the file came from `page_files`, whose walk already refused links out of the
        vault (resolving every path again would double the cost of a cold scan).
        """
        if listed:  # a string path: a Path per file is a tenth of a cold scan's reading
            path: str | Path = self._prefix + rel
        else:
            path = self.root / rel
            if not inside(path, self.root):
                raise UnreadablePage(f"{rel}: resolves to outside the vault")
        try:
            data = read_file(path, "page", limit=MAX_PAGE_BYTES, error=UnreadablePage)
        except UnreadablePage:
            raise
        except Exception as exc:  # a StorageError: say it as the page that could not be read
            raise UnreadablePage(f"{rel}: cannot be read: {exc}") from exc
        if data is None:
            raise UnreadablePage(f"{rel}: cannot be read: it is gone")
        return data

    def read_listed(self, file: PageFile) -> bytes:
        """`read_bytes` of a file `page_files` just listed, in one read while it still has the
        listed size: a cold scan reads every file, and the checks of its kind and size that the
        listing made cost a third of reading it again. A size of 0 (listed without its stat,
        or empty) is taken from the open file: an `fstat` costs a fraction of a `stat` by
        path, and runs in the worker that reads it. Anything else (grown, shrunk, gone, over the
        size limit, not a regular file) is read by `read_bytes`, which says what is wrong."""
        size = file.size
        if size <= MAX_PAGE_BYTES:
            try:
                fd = os.open(self._prefix + file.rel, READ_FLAGS)
                try:
                    if not size:
                        st = os.fstat(fd)
                        size = st.st_size if stat.S_ISREG(st.st_mode) else MAX_PAGE_BYTES + 1
                    data = os.read(fd, size + 1) if size <= MAX_PAGE_BYTES else None
                finally:
                    os.close(fd)
                if data is not None and len(data) == size:
                    return data
            except OSError:
                pass
        return self.read_bytes(file.rel, listed=True)

    @cached_property
    def _prefix(self) -> str:
        """The root as the string a listed file's path follows (``root/``)."""
        return os.path.join(self.where, "")

    def scan_text(self, text: str, bom: bool) -> Outline:
        """Scan a page's decoded text with this vault's syntax and settings."""
        from .scanner import scan  # the grammar: a warm query never scans a page

        return scan(
            text, self.flavor.syntax, comma_properties=self.settings.comma_properties, bom=bom
        )

    def parse_page(self, rel: str, data: bytes) -> Outline:
        """Scan one page's bytes; `UnreadablePage` if they are not UTF-8 text. A Logseq graph's
        ``.org`` pages are read as org-mode (`org`)."""
        text, bom = decode(data, rel)
        if self.flavor.org_pages and rel.lower().endswith(".org"):
            from .org import scan_org  # lazy: few graphs hold org pages

            outline = scan_org(text, line_count(text), self.settings.comma_properties)
            outline.text, outline.bom = text, bom
            return outline
        return self.scan_text(text, bom)

    def read_page(self, rel: str, *, listed: bool = False) -> Outline:
        """Read and scan one page; `UnreadablePage` if it is not UTF-8 text (``listed``: see
        `read_bytes`)."""
        return self.parse_page(rel, self.read_bytes(rel, listed=listed))


def _check_escape(pattern: str) -> None:
    """Refuse a journal file format that climbs out of the vault, or that holds a NUL (literal
    in every dialect: it would be in every file name, which no file system takes), whatever
    its letters mean."""
    if "\0" in pattern:
        raise BadDateFormat(
            f"journal file format {pattern!r} holds a NUL character, which no file name can"
        )
    parts = pattern.replace("\\", "/").split("/")
    if pattern.startswith(("/", "\\")) or any(p.strip() == ".." for p in parts):
        raise BadDateFormat(
            f"journal file format {pattern!r} would put journal files outside the vault"
        )


#: A moment pattern's last literal (``[...]``).
_LAST_LITERAL = regex(r"\[([^\[\]]*)\]\Z")


def _without_page_extension(settings: Settings) -> str:
    """The journal file format without the page extension its last literal may end with
    (``YYYY-MM-DD[.md]``): Obsidian's daily notes add ``.md`` only to a name without it
    (obsidian-daily-notes-interface ``getNotePath``), so the note is ``2026-11-29.md``."""
    pattern, ext = settings.journal_file_format, settings.new_page_extension
    m = _LAST_LITERAL.search(pattern)
    if settings.date_dialect != "moment" or m is None or not m.group(1).endswith(ext):
        return pattern
    literal = m.group(1).removesuffix(ext)
    return pattern[: m.start()] + (f"[{literal}]" if literal else "")


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
    chosen = flavor or own.flavor
    found = flavor_named(str(chosen)) if chosen else detect_flavor(root)
    if found is None:
        raise NotAVault(
            f"{root}: not a vault: no logseq/config.edn, no .obsidian/ folder and no journals/ "
            f"folder (create {OWN_CONFIG} to use this folder as a plain-Markdown vault)"
        )
    return Vault(root, found, found.read_settings(root, own, use_cache), own)


def configured_root(path: str | os.PathLike[str] | None = None) -> Path | None:
    """The vault path as the person named it (``path``, else ``$JOURNAL_AGENT_VAULT``, else their
    config file), neither resolved nor checked; None if they named none. Bullets for a vault that
    cannot be opened (unmounted, read-only) are kept under this name until it can."""
    named = _named_root(path)
    return None if named is None else _path(named)


def _named_root(path: str | os.PathLike[str] | None) -> str | None:
    """`configured_root` as a string, ``~`` expanded."""
    raw = path if path is not None else os.environ.get(ENV_VAR)
    if raw is None or str(raw) == "":
        from .userconfig import user_setting

        raw = user_setting("vault")
    return os.path.expanduser(os.fspath(raw)) if raw else None


def _path(named: str) -> Path:
    from pathlib import Path  # lazy: see `Vault`

    return Path(named)


def _find_root(path: str | os.PathLike[str] | None) -> str:
    """The vault's folder, resolved (`Vault.where`)."""
    named = _named_root(path)
    if named is None:
        from .userconfig import config_path

        raise VaultNotFound(
            f'no vault given: pass --vault PATH, set {ENV_VAR}, or set vault = "PATH" in '
            f"{config_path()}"
        )
    try:
        st = os.stat(named)
    except FileNotFoundError as exc:
        raise VaultNotFound(f"{_path(named)}: no such folder") from exc
    except OSError as exc:
        raise VaultNotFound(f"{_path(named)}: cannot be opened ({exc.strerror})") from exc
    if not stat.S_ISDIR(st.st_mode):
        raise VaultNotFound(f"{_path(named)}: not a folder")
    return os.path.realpath(named)
