"""Flavors: what differs between a Logseq graph, an Obsidian vault and a plain Markdown folder.

A flavor knows how to recognise its vault (`detect`), read the settings that matter from the
vault's own configuration files (`read_settings`), turn a file name into a page title and back,
and which syntax the outline scanner must use. Everything else (dates ↔ journal files, the page
registry) is shared code in `vault` driven by the `Settings` a flavor returns.

The rules that differ in how backlinks are read live here too, as class attributes and methods:
which reference kinds are backlinks (an Obsidian ``#tag`` is not), how names compare
(`page_key`), how references resolve (`resolution`: Logseq's named pages that exist by being
referenced, or Obsidian's notes by path), whether a block inherits its ancestors' references
(`path_refs`), whether a page is a journal by its name (`journals_by_name`), which pages always
exist (`built_in_pages`), which pages a block refers to beyond its links (`meta_pages`: Logseq's
property keys, task markers, priorities), the namespace parents a reference also names
(`with_namespaces`), and which page properties name the page and its aliases.

To add a flavor: subclass `Flavor`, set ``name``, ``syntax`` and the rule attributes, implement
``detect`` and ``read_settings`` (and ``title_of`` if file names encode titles), and put it in
`DEFAULT_FLAVORS` before `MarkdownFlavor`.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping

from .builtins import BUILT_IN_PAGES, BUILT_IN_PROPERTIES, property_page
from .errors import BadPageName, ConfigError
from .logseq_config import read_edn_config
from .outline import COMMA_PROPERTIES
from .ownconfig import OWN_CONFIG, OwnConfig
from .patterns import regex
from .records import NamedTuple

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, ClassVar, Literal

    from .dates import Dialect
    from .outline import Syntax

    Root = str | os.PathLike[str]  # a vault's folder: a string where it is opened (`Vault`)

#: Reference kinds that are page references (a block ref is not).
PAGE_REF_KINDS = frozenset({"link", "tag", "labeled", "embed", "markdown", "property"})
#: Names whose keys are remembered: every name of a vault is keyed several times while its
#: registry and graph are built, so all of them must fit (with 65,536, a 100,000-page vault
#: missed on every call, each pass evicting what the next one needed: 0.4 s of its registry).
KEYS_KEPT = 1 << 20


@functools.lru_cache(maxsize=KEYS_KEPT)
def wiki_key(name: str) -> str:
    """The key Obsidian and plain Markdown compare names by: case-insensitive, NFC, surrounding
    spaces ignored."""
    return unicodedata.normalize("NFC", name.strip()).lower()


@functools.lru_cache(maxsize=KEYS_KEPT)
def logseq_key(name: str) -> str:
    """Logseq's ``:block/name`` (``gp-util/page-name-sanity-lc``): lower-cased, one leading
    and one trailing ``/`` dropped, NFC; no other trimming (``[[X ]]`` is another page)."""
    return unicodedata.normalize("NFC", boundless(name.lower()))


def page_keys(names: list[str], key: Callable[[str], str]) -> list[str]:
    """``key`` (`wiki_key` or `logseq_key`) of every name, the same a name at a time would give,
    computed over all the names joined at once where ``key`` allows (a Python step per name
    costs 0.2 s over the 100,000 titles of a large vault)."""
    joined = "\x00".join(names)
    whole = joined.count("\x00") == len(names) - 1  # no name holds a NUL
    keys = joined_keys(joined, key) if whole else None
    return list(map(key, names)) if keys is None else keys.split("\x00")


def joined_keys(joined: str, key: Callable[[str], str]) -> str | None:
    """`page_keys` of the names ``joined`` by NULs (none holding one), joined so; None for a
    key other than `wiki_key` and `logseq_key`. A NUL starts and ends a name as the text's ends
    do: lower-casing (a final sigma included) and NFC do not reach across it."""
    if key is wiki_key:
        joined = _OUTER_SPACE.sub("", joined)  # `str.strip`'s spaces: \s is `str.isspace`
        return unicodedata.normalize("NFC", joined).lower()
    if key is logseq_key:
        joined = f"\x00{joined.lower()}\x00".replace("\x00/", "\x00").replace("/\x00", "\x00")
        return unicodedata.normalize("NFC", joined[1:-1])
    return None


_OUTER_SPACE = regex(r"\A\s+|\s+\Z|\s+(?=\x00)|(?<=\x00)\s+")


class Settings(NamedTuple):
    """The settings of one vault that journal-agent needs, already defaulted and validated."""

    journal_dir: str  # relative folder of journal pages ("" = vault root)
    journal_file_format: str  # date pattern of a journal file's path below journal_dir
    date_dialect: Dialect  # "logseq" (cljs-time/date-fns letters) or "moment"
    journal_title_format: str | None = None  # Logseq: the journal page title pattern
    pages_dir: str | None = None  # Logseq: folder of non-journal pages
    file_name_format: str = "triple-lowbar"  # Logseq: "triple-lowbar" or "legacy"
    hidden: tuple[str, ...] = ()  # paths the outliner excludes
    skipped: tuple[str, ...] = ()  # top-level folders the outliner shows no pages of (Logseq's)
    indent: str = "\t"  # one level of bullet indentation when a page has none to copy
    template: str | None = None  # daily-note template path (Obsidian) or template name (Logseq)
    comma_properties: frozenset[str] = COMMA_PROPERTIES
    extensions: tuple[str, ...] = (".md", ".markdown")  # page files' (any case)
    old_file_formats: tuple[str, ...] = ()  # earlier journal file patterns still to recognise
    new_page_extension: str = ".md"  # what a new journal page is written as (Logseq: Org or md)
    property_pages: bool = True  # Logseq: property keys are pages (:property-pages/enabled?)
    property_pages_exclude: frozenset[str] = frozenset()  # :property-pages/excludelist


class Flavor:
    """Base of the vault flavors; see the module docstring for how to write one."""

    name: ClassVar[str]
    syntax: ClassVar[Syntax]
    #: Reference kinds that show in the page's backlinks.
    backlink_kinds: ClassVar[frozenset[str]] = PAGE_REF_KINDS - {"tag"}
    #: How references resolve to pages: ``"logseq"`` (a page per name, existing as soon as it
    #: is referenced; aliases fold in) or ``"wiki"`` (notes are files, found by base name or
    #: path from the linking note's folder). See `registry`.
    resolution: ClassVar[Literal["logseq", "wiki"]] = "wiki"
    #: A bare ``[[Alias]]`` resolves to the aliased page (Logseq; in Obsidian it does not).
    aliases_resolve: ClassVar[bool] = False
    #: A block's backlinks include its ancestors' references (Logseq's path-refs); in Obsidian
    #: the backlinks are the links themselves.
    path_refs: ClassVar[bool] = False
    #: A page is a day's journal because its name reads as that day (Logseq), wherever its
    #: file is; else the journals are the daily-notes folder's files named by its format.
    journals_by_name: ClassVar[bool] = False
    #: A file anywhere below the (configured, non-empty) journal folder named by the file
    #: format's last part is that day's journal too (`vault.Vault.date_of`): Obsidian's daily
    #: notes, filed in subfolders, or left flat after the format took folders.
    journals_below: ClassVar[bool] = False
    #: The files and folders (relative to the vault) that `detect` and `read_settings` look
    #: at: the warm path (`quick`) trusts its cache only while their stats are unchanged.
    settings_files: ClassVar[tuple[str, ...]] = ()
    #: Pages every vault of this flavor has, file or not.
    built_in_pages: ClassVar[tuple[str, ...]] = ()
    #: ``.org`` files are org-mode pages (Logseq reads them; `org`).
    org_pages: ClassVar[bool] = False

    #: The key page names compare by (`wiki_key`, `logseq_key`).
    page_key = staticmethod(wiki_key)

    def meta_pages(
        self, props: Mapping[str, object], marker: str | None, priority: str | None, s: Settings
    ) -> list[str]:
        """Pages a block refers to by its properties' keys, its task marker and its priority,
        beyond the references in its text (none, but in Logseq)."""
        return []

    def with_namespaces(self, names: list[str]) -> tuple[str, ...]:
        """The page names a block's references name, with the namespace parents they also
        name (none, but in Logseq), each once, in order."""
        return tuple(dict.fromkeys(names))

    def detect(self, root: Root) -> bool:
        """True if ``root`` is a vault of this flavor."""
        raise NotImplementedError

    def read_settings(self, root: Root, own: OwnConfig, use_cache: bool = True) -> Settings:
        """Read and validate this vault's settings (``own``: its .journal-agent.toml;
        ``use_cache``: settings that are slow to parse may come from the cache)."""
        raise NotImplementedError

    def aliases_of(self, props: dict[str, Any]) -> list[str]:
        """A page's aliases from its properties (YAML ``aliases:``, or the older ``alias:``; a
        list or a string). The key in any case: Obsidian's ``parseFrontMatterAliases`` matches
        ``/^alias(es)?$/i`` (its reimplementations; tag-wrangler writes ``Aliases:``)."""
        keys = {k.lower(): k for k in reversed(props) if k.lower() in ("aliases", "alias")}
        key = keys.get("aliases", keys.get("alias"))  # the first written of a case
        value = None if key is None else props[key]
        if isinstance(value, str):
            return [a.strip() for a in value.split(",") if a.strip()]
        if isinstance(value, list):
            return [str(a).strip() for a in value if a is not None and str(a).strip()]
        return []

    def title_from_properties(self, props: dict[str, Any]) -> str | None:
        """The title a page's own properties give it, overriding its file name (or None)."""
        return None

    def title_of(self, stem: str, settings: Settings) -> str:
        """The page title a file with this name (no folder, no extension) has."""
        return unicodedata.normalize("NFC", stem)

    def file_name_of(self, title: str, settings: Settings) -> str:
        """The file name (no extension) a page with this title is stored under."""
        if not title.strip() or title in (".", "..") or re.search(r'[\\/:*?"<>|\x00-\x1f]', title):
            raise BadPageName(f"page name {title!r} cannot be a file name in a {self.name} vault")
        return title


# ---------------------------------------------------------------------------------------------
# Logseq (file graph)

#: Top-level folders of a Logseq graph that hold no pages (`Settings.skipped`): Logseq's own
#: (backups, versions), its assets, drawings and whiteboards, and a Node.js project's packages.
LOGSEQ_SKIPPED = ("assets", "draws", "logseq", "node_modules", "whiteboards")
_RESERVED = regex(r'[:\\*?"<>|#]')
_WINDOWS_RESERVED = regex(r"^(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])$", re.IGNORECASE)
_URL_ESCAPE = regex(r"%[0-9A-Fa-f]{2}")


class LogseqFlavor(Flavor):
    """A Logseq file graph: ``logseq/config.edn`` beside ``journals/`` and ``pages/``.

    Its rules are those of Logseq's own graph parser (logseq/og 0.10.15 ``deps/graph-parser``,
    checked by tests/test_logseq_graph_oracle.py): a page name is lower-cased, NFC, without one
    leading and one trailing ``/``, nothing else trimmed (``[[X ]]`` is another page); a block
    refers to the keys of its properties but Logseq's own (``block.cljs``
    ``get-page-refs-from-property-names``), to its task marker and priority (``with-page-refs``),
    and to the namespace parents of each reference *as written* (``A/B/C`` names ``A`` and
    ``A/B``, whatever page an alias makes of it); a block inherits its ancestors' references.
    """

    name = "logseq"
    syntax = "logseq"
    backlink_kinds = PAGE_REF_KINDS
    resolution = "logseq"
    aliases_resolve = True
    path_refs = True
    journals_by_name = True
    settings_files = ("logseq/config.edn",)
    built_in_pages = BUILT_IN_PAGES
    org_pages = True
    INDENTS: ClassVar[dict[str, str]] = {
        "tab": "\t",
        "two-spaces": "  ",
        "four-spaces": "    ",
        "eight-spaces": "        ",
    }

    def detect(self, root: Root) -> bool:
        return os.path.lexists(os.path.join(root, "logseq", "config.edn"))  # broken: still ours

    def read_settings(self, root: Root, own: OwnConfig, use_cache: bool = True) -> Settings:
        config = read_edn_config(os.path.join(root, "logseq", "config.edn"), use_cache)
        title = _string(config, "journal/page-title-format", "")
        title = title or _string(config, "date-formatter", "MMM do, yyyy")
        indent = _choice(config, "export/bullet-indentation", "tab", tuple(self.INDENTS))
        templates = config.get("default-templates") or {}
        if not isinstance(templates, dict):
            raise ConfigError(
                f"logseq/config.edn: :default-templates must be a map, not {templates!r}"
            )
        return Settings(
            journal_dir=_folder(config, "journals-directory", "journals"),
            pages_dir=_folder(config, "pages-directory", "pages"),
            journal_file_format=_string(config, "journal/file-name-format", "yyyy_MM_dd"),
            journal_title_format=title,
            date_dialect="logseq",
            file_name_format=_choice(
                config, "file/name-format", "legacy", ("legacy", "triple-lowbar")
            ),
            hidden=_strings(config, "hidden"),
            skipped=LOGSEQ_SKIPPED,
            indent=self.INDENTS[indent],
            template=_string(templates, "journals", "") or None,
            comma_properties=COMMA_PROPERTIES
            | set(_strings(config, "property/separated-by-commas")),
            extensions=(".md", ".markdown", ".org"),
            old_file_formats=("yyyy_MM_dd", "yyyy-MM-dd", "yyyy_M_d"),
            new_page_extension=".org"
            if _choice(config, "preferred-format", "markdown", ("markdown", "org")) == "org"
            else ".md",
            property_pages=config.get("property-pages/enabled?") is not False,
            property_pages_exclude=frozenset(
                k.lower() for k in _strings(config, "property-pages/excludelist")
            ),
        )

    page_key = staticmethod(logseq_key)

    def meta_pages(
        self, props: Mapping[str, object], marker: str | None, priority: str | None, s: Settings
    ) -> list[str]:
        names = [marker] if marker else []
        if priority:
            names.append(priority)
        if props and s.property_pages:
            exclude = s.property_pages_exclude
            names.extend(
                property_page(k)
                for k in props
                if k not in BUILT_IN_PROPERTIES and k not in exclude and k.strip()
            )
        return names

    def with_namespaces(self, names: list[str]) -> tuple[str, ...]:
        """In the order of ``with-page-refs``, whose last spelling of a page titles it: the
        names last to first, then the namespace parents of each name as written; each as
        Logseq titles the page it lands on (``page-name->map`` drops one ``/`` from each end,
        then ``page-name-sanity-lc`` one more for the page's name: `logseq_key`)."""
        names = names[::-1]
        if "/" not in "".join(names):
            return tuple(dict.fromkeys(names))
        out = dict.fromkeys(map(boundless, names))
        for name in names:
            if "/" in name:
                out.update(dict.fromkeys(map(boundless, namespace_parents(name))))
        return tuple(out)

    def aliases_of(self, props: dict[str, Any]) -> list[str]:
        if "alias" not in props:  # most pages: no import statement run per page
            return []
        from .properties import comma_names  # the inline grammar: not on a warm query's path

        return comma_names(str(props["alias"]))

    def title_from_properties(self, props: dict[str, Any]) -> str | None:
        return str(props.get("title") or "").strip() or None

    def title_of(self, stem: str, settings: Settings) -> str:
        if settings.file_name_format == "triple-lowbar":
            return _tri_lb_title(stem)
        return _legacy_title(stem)

    def file_name_of(self, title: str, settings: Settings) -> str:
        title = unicodedata.normalize("NFC", title).strip("/")
        if not title.strip() or "\x00" in title:
            raise BadPageName(f"page name {title!r} cannot be a Logseq page file name")
        if settings.file_name_format != "triple-lowbar":
            from urllib.parse import quote  # lazy, as `unquote`

            return quote(title, safe=" !$&'()+,;=@[]^`{}~")
        name = _URL_ESCAPE.sub(lambda m: "%25" + m.group(0)[1:], title)
        name = _RESERVED.sub(lambda m: f"%{ord(m.group(0)):02X}", name)
        if name.startswith("."):
            name = "%2E" + name[1:]
        if _WINDOWS_RESERVED.match(name) or name.endswith("."):
            name += "/"
        if "___" in name or "_/" in name or "/_" in name:
            name = name.replace("_", "%5F")
        return name.replace("/", "___")


_NESTED_NAME = regex(r"\[\[([^\[\]]+)\]\]")
_URL_ORIGIN = regex(r"(?:https?|ftp|wss?)://[^/?#\s]", re.IGNORECASE)


def parse_order(files: Iterable[str]) -> list[str]:
    """The files in the order Logseq parses them (``filter-files``): journals (any path with
    ``journals/``) newest first, then ``contents.`` files, then the others by path; where two
    name one page, the last one's file is the page's."""
    ordered = sorted(files)
    journals = [rel for rel in ordered if "journals/" in rel]
    others = [rel for rel in ordered if "journals/" not in rel]
    first = [rel for rel in others if "contents." in rel]
    return journals[::-1] + first + [rel for rel in others if "contents." not in rel]


def parsed_first(rels: Iterable[str]) -> str:
    """The one of ``rels`` that Logseq's parser reads first (`parse_order`); "" for none."""
    return next(iter(parse_order(set(rels))), "")


def boundless(name: str) -> str:
    """``name`` without one ``/`` at each end (``gp-util/remove-boundary-slashes``)."""
    return name.removeprefix("/").removesuffix("/")


def namespace_parents(name: str) -> list[str]:
    """The namespace parents a reference written ``name`` also names, as Logseq adds them
    (``block.cljs`` ``with-page-refs``; ``util.cljs`` ``split-namespace-pages``): ``A/B/C`` names
    ``A`` and ``A/B``. A nested ``[[a [[b/c]]]]`` uses its inner name; ``./x``, ``../x`` and URLs
    are no namespaces."""
    inner = _NESTED_NAME.search(name)
    if inner is not None:
        name = inner.group(1)
    if "/" not in name or name.startswith(("./", "../")) or _URL_ORIGIN.match(name):
        return []
    parts = name.split("/")
    while parts and not parts[-1]:
        parts.pop()  # Clojure's split drops trailing empty strings
    out, prefix = [], ""
    for i, part in enumerate(parts):
        prefix = part if i == 0 else f"{prefix}/{part}"
        if prefix.strip():
            out.append(prefix)
    return out[:-1] if out and out[-1] == name else out


def _tri_lb_title(stem: str) -> str:
    """Logseq ``:triple-lowbar``: ``___`` is ``/``, then %XX is decoded, empty segments dropped."""
    title = stem.replace("___", "/")
    if "%" in title:
        from urllib.parse import unquote  # lazy: with `pathlib`, 2 ms of a patched query

        title = _URL_ESCAPE.sub(lambda m: unquote(m.group(0)), title)
    if "/" in title:
        title = "/".join(p for p in title.split("/") if p) or stem
    return unicodedata.normalize("NFC", title)


def _legacy_title(stem: str) -> str:
    """Logseq ``:legacy``: %XX-encoded names (``%2F`` is ``/``), or the oldest ``.``-for-``/``."""
    if _URL_ESCAPE.search(stem):
        from urllib.parse import unquote  # lazy, as in `_tri_lb_title`

        return unicodedata.normalize("NFC", unquote(stem))
    return unicodedata.normalize("NFC", stem.replace(".", "/"))


def _string(config: dict[str, Any], key: str, default: str) -> str:
    value = config.get(key, default)
    if value is None or value == "":
        return default
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"logseq/config.edn: :{key} must be a non-empty string, not {value!r}")
    return value


def _choice(config: dict[str, Any], key: str, default: str, allowed: tuple[str, ...]) -> str:
    """A keyword (or string) setting, one of ``allowed`` (case-insensitive)."""
    value = config.get(key, default)
    text = str(value).lower() if isinstance(value, str) else None
    if text not in allowed:
        shown = ", ".join(f":{a}" for a in allowed)
        raise ConfigError(f"logseq/config.edn: :{key} {value!r} is not one of {shown}")
    return text


def _strings(config: dict[str, Any], key: str) -> tuple[str, ...]:
    value = config.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"logseq/config.edn: :{key} must be a list of strings, not {value!r}")
    return tuple(value)


def _folder(config: dict[str, Any], key: str, default: str) -> str:
    return safe_folder(_string(config, key, default), f"logseq/config.edn :{key}")


def safe_folder(value: str, where: str) -> str:
    """Normalise a configured vault-relative folder; refuse one that leaves the vault, or that
    holds a NUL (no file system takes one in a name)."""
    if "\0" in value:
        raise ConfigError(f"{where}: folder {value!r} holds a NUL character, which no folder can")
    folder = value.replace("\\", "/").strip().strip("/")
    parts = [p for p in folder.split("/") if p not in ("", ".")]
    if value.strip().startswith("/") and not parts:
        return ""
    if ".." in parts or os.path.isabs(value.strip()) and not value.strip().startswith("/"):
        raise ConfigError(f"{where}: folder {value!r} is outside the vault")
    return "/".join(parts)


# ---------------------------------------------------------------------------------------------
# Obsidian


class ObsidianFlavor(Flavor):
    """An Obsidian vault: a folder with ``.obsidian/``; daily notes per the daily-notes settings.
    Its notes are the ``.md`` files (obsidian-help "Accepted file formats": ``md`` is the one
    Markdown extension; a ``.markdown`` file is no note) outside dot-named folders, and outside
    the excluded paths (``userIgnoreFilters``), in every folder: an ``assets/`` is Logseq's."""

    name = "obsidian"
    syntax = "wiki"
    journals_below = True  # obsidian-daily-notes-interface ``getAllDailyNotes``, as Calendar
    CONFIG_DIR = ".obsidian"
    settings_files = (
        CONFIG_DIR,
        f"{CONFIG_DIR}/daily-notes.json",
        f"{CONFIG_DIR}/app.json",
        f"{CONFIG_DIR}/community-plugins.json",
        f"{CONFIG_DIR}/plugins/periodic-notes/data.json",
    )

    def detect(self, root: Root) -> bool:
        return os.path.isdir(os.path.join(root, self.CONFIG_DIR))

    def read_settings(self, root: Root, own: OwnConfig, use_cache: bool = True) -> Settings:
        from pathlib import Path

        from .obsidian_settings import daily_settings, indent, json_str, json_strings, read_json

        config = Path(root, self.CONFIG_DIR)
        daily = daily_settings(config)
        app = read_json(config / "app.json")
        return Settings(
            journal_dir=safe_folder(json_str(daily, "folder", ""), "daily notes folder"),
            journal_file_format=json_str(daily, "format", "") or "YYYY-MM-DD",
            date_dialect="moment",
            hidden=json_strings(app, "userIgnoreFilters", config / "app.json"),
            indent=indent(app, config / "app.json"),
            template=json_str(daily, "template", "") or None,
            extensions=(".md",),
        )


# ---------------------------------------------------------------------------------------------
# Plain Markdown folder


class MarkdownFlavor(Flavor):
    """A folder of Markdown notes the person declared (a ``.journal-agent.toml``) or that
    already keeps a journal (a ``journals/`` folder); journals ``journals/YYYY-MM-DD.md`` unless
    configured. Any other folder of Markdown files (a code project's docs) is not a vault."""

    name = "markdown"
    syntax = "wiki"
    settings_files = (OWN_CONFIG, "journals")

    def detect(self, root: Root) -> bool:
        return os.path.isfile(os.path.join(root, OWN_CONFIG)) or os.path.isdir(
            os.path.join(root, "journals")
        )

    def read_settings(self, root: Root, own: OwnConfig, use_cache: bool = True) -> Settings:
        return Settings(
            journal_dir=safe_folder(own.journal_folder or "journals", f"{OWN_CONFIG} folder"),
            journal_file_format=own.journal_format or "YYYY-MM-DD",
            date_dialect="moment",
            indent=own.indent or "  ",
        )


DEFAULT_FLAVORS: tuple[Flavor, ...] = (LogseqFlavor(), ObsidianFlavor(), MarkdownFlavor())
#: Every file the settings of a vault come from: its own config, and what each flavor detects
#: and reads (creating ``logseq/config.edn`` in an Obsidian vault makes it a Logseq graph).
SETTINGS_FILES = tuple(
    dict.fromkeys((OWN_CONFIG, *(p for f in DEFAULT_FLAVORS for p in f.settings_files)))
)


def detect_flavor(root: Root, flavors: tuple[Flavor, ...] = DEFAULT_FLAVORS) -> Flavor | None:
    """The first flavor that recognises ``root``, or None."""
    for flavor in flavors:
        if flavor.detect(root):
            return flavor
    return None


def flavor_named(name: str) -> Flavor:
    """The default flavor called ``name`` (for an explicit override)."""
    for flavor in DEFAULT_FLAVORS:
        if flavor.name == name:
            return flavor
    names = ", ".join(f.name for f in DEFAULT_FLAVORS)
    raise ConfigError(f"unknown vault flavor {name!r} (known: {names})")
