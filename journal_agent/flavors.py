"""Flavors: what differs between a Logseq graph, an Obsidian vault and a plain Markdown folder.

A flavor knows how to recognise its vault (`detect`), read the settings that matter from the
vault's own configuration files (`read_settings`), turn a file name into a page title and back,
and which syntax the outline scanner must use. Everything else (dates ↔ journal files, the page
registry) is shared code in `vault` driven by the `Settings` a flavor returns.

To add a flavor: subclass `Flavor`, set ``name`` and ``syntax``, implement ``detect`` and
``read_settings`` (and ``title_of`` if file names encode titles), and put it in
`DEFAULT_FLAVORS` before the catch-all `MarkdownFlavor`.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote, unquote

from .dates import Dialect
from .errors import BadPageName, ConfigError
from .scanner import COMMA_PROPERTIES, Syntax

#: Vault-level settings of journal-agent itself (read, never written): plain-Markdown journal
#: folder and format, and overrides for any flavor.
OWN_CONFIG = ".journal-agent.toml"


@dataclass(frozen=True)
class Settings:
    """The settings of one vault that journal-agent needs, already defaulted and validated."""

    journal_dir: str  # relative folder of journal pages ("" = vault root)
    journal_file_format: str  # date pattern of a journal file's path below journal_dir
    date_dialect: Dialect  # "logseq" (cljs-time/date-fns letters) or "moment"
    journal_title_format: str | None = None  # Logseq: the journal page title pattern
    pages_dir: str | None = None  # Logseq: folder of non-journal pages
    file_name_format: str = "triple-lowbar"  # Logseq: "triple-lowbar" or "legacy"
    hidden: tuple[str, ...] = ()  # paths the outliner excludes
    indent: str = "\t"  # one level of bullet indentation when a page has none to copy
    template: str | None = None  # daily-note template path (Obsidian) or template name (Logseq)
    comma_properties: frozenset[str] = COMMA_PROPERTIES
    extensions: tuple[str, ...] = (".md", ".markdown")
    old_file_formats: tuple[str, ...] = ()  # earlier journal file patterns still to recognise


class Flavor:
    """Base of the vault flavors; see the module docstring for how to write one."""

    name: ClassVar[str]
    syntax: ClassVar[Syntax]

    def detect(self, root: Path) -> bool:
        """True if ``root`` is a vault of this flavor."""
        raise NotImplementedError

    def read_settings(self, root: Path, own: dict[str, Any], use_cache: bool = True) -> Settings:
        """Read and validate this vault's settings (``own``: the parsed .journal-agent.toml;
        ``use_cache``: settings that are slow to parse may come from the cache)."""
        raise NotImplementedError

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

_RESERVED = re.compile(r'[:\\*?"<>|#]')
_WINDOWS_RESERVED = re.compile(r"^(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])$", re.IGNORECASE)
_URL_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


class LogseqFlavor(Flavor):
    """A Logseq file graph: ``logseq/config.edn`` beside ``journals/`` and ``pages/``."""

    name = "logseq"
    syntax = "logseq"
    INDENTS: ClassVar[dict[str, str]] = {
        "tab": "\t",
        "two-spaces": "  ",
        "four-spaces": "    ",
        "eight-spaces": "        ",
    }

    def detect(self, root: Path) -> bool:
        return (root / "logseq" / "config.edn").is_file()

    def read_settings(self, root: Path, own: dict[str, Any], use_cache: bool = True) -> Settings:
        config = read_edn_config(root / "logseq" / "config.edn", use_cache)
        title_format = config.get("journal/page-title-format") or config.get("date-formatter")
        indent = str(config.get("export/bullet-indentation", "tab"))
        if indent not in self.INDENTS:
            raise ConfigError(
                f"logseq/config.edn: :export/bullet-indentation {indent!r} is not one of "
                f"{', '.join(':' + k for k in self.INDENTS)}"
            )
        templates = config.get("default-templates") or {}
        return Settings(
            journal_dir=_folder(config, "journals-directory", "journals"),
            pages_dir=_folder(config, "pages-directory", "pages"),
            journal_file_format=_string(config, "journal/file-name-format", "yyyy_MM_dd"),
            journal_title_format=str(title_format or "MMM do, yyyy"),
            date_dialect="logseq",
            file_name_format=str(config.get("file/name-format") or "legacy"),
            hidden=tuple(str(h) for h in config.get("hidden") or ()),
            indent=self.INDENTS[indent],
            template=str(templates.get("journals") or "") or None,
            comma_properties=COMMA_PROPERTIES
            | {str(k) for k in config.get("property/separated-by-commas") or ()},
            extensions=(".md", ".markdown", ".org"),
            old_file_formats=("yyyy_MM_dd", "yyyy-MM-dd", "yyyyMMdd", "yyyy_M_d"),
        )

    def title_of(self, stem: str, settings: Settings) -> str:
        if settings.file_name_format == "triple-lowbar":
            return _tri_lb_title(stem)
        return _legacy_title(stem)

    def file_name_of(self, title: str, settings: Settings) -> str:
        title = unicodedata.normalize("NFC", title).strip("/")
        if not title.strip() or "\x00" in title:
            raise BadPageName(f"page name {title!r} cannot be a Logseq page file name")
        if settings.file_name_format != "triple-lowbar":
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


def _tri_lb_title(stem: str) -> str:
    """Logseq ``:triple-lowbar``: ``___`` is ``/``, then %XX is decoded, empty segments dropped."""
    title = stem.replace("___", "/")
    if "%" in title:
        title = _URL_ESCAPE.sub(lambda m: unquote(m.group(0)), title)
    parts = [p for p in title.split("/") if p]
    return unicodedata.normalize("NFC", "/".join(parts) or stem)


def _legacy_title(stem: str) -> str:
    """Logseq ``:legacy``: %XX-encoded names (``%2F`` is ``/``), or the oldest ``.``-for-``/``."""
    if _URL_ESCAPE.search(stem):
        return unicodedata.normalize("NFC", unquote(stem))
    return unicodedata.normalize("NFC", stem.replace(".", "/"))


def read_edn_config(path: Path, use_cache: bool = True) -> dict[str, Any]:
    """Read a Logseq ``config.edn`` with a real EDN reader; keys become plain strings.

    The reader takes a tenth of a second to import and run, on every command a hook starts, so
    its result is cached (outside the vault) for as long as the file's stat is unchanged.
    """
    from .cachedir import cache_file, write_atomic

    if not use_cache:
        return _parse_edn(path)
    try:
        st = path.stat()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    key = (os.path.realpath(path), str(st.st_mtime_ns), str(st.st_size), str(st.st_ino))
    cached = cache_file("config", *key, suffix=".json")
    try:
        result: dict[str, Any] = json.loads(cached.read_bytes())
        return result
    except (OSError, ValueError):
        pass
    result = _parse_edn(path)
    write_atomic(cached, json.dumps(result).encode())
    return result


def _parse_edn(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    import edn_format  # lazy: 80 ms to import, and only Logseq vaults need it

    try:
        data = edn_format.loads(text)
    except Exception as exc:  # edn_format raises several unrelated types
        raise ConfigError(f"{path}: not valid EDN: {exc}") from exc
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path}: expected a map {{...}} at the top, found {type(data).__name__}")
    return {_plain(k): _to_python(v) for k, v in data.items()}


def _plain(value: Any) -> str:
    text = str(value)
    return text[1:] if text.startswith(":") else text


def _to_python(value: Any) -> Any:
    """EDN values → JSON-able Python (keywords become their names without the colon)."""
    if isinstance(value, Mapping):
        return {_plain(k): _to_python(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)) or type(value).__name__ == "ImmutableList":
        return [_to_python(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return _plain(value)


def _string(config: dict[str, Any], key: str, default: str) -> str:
    value = config.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"logseq/config.edn: :{key} must be a non-empty string, not {value!r}")
    return value


def _folder(config: dict[str, Any], key: str, default: str) -> str:
    return safe_folder(_string(config, key, default), f"logseq/config.edn :{key}")


def safe_folder(value: str, where: str) -> str:
    """Normalise a configured vault-relative folder; refuse one that leaves the vault."""
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
    """An Obsidian vault: a folder with ``.obsidian/``; daily notes per the daily-notes settings."""

    name = "obsidian"
    syntax = "wiki"
    CONFIG_DIR = ".obsidian"

    def detect(self, root: Path) -> bool:
        return (root / self.CONFIG_DIR).is_dir()

    def read_settings(self, root: Path, own: dict[str, Any], use_cache: bool = True) -> Settings:
        config = root / self.CONFIG_DIR
        daily = _read_json(config / "daily-notes.json")
        periodic = _periodic_daily(config)
        if periodic is not None:
            daily = periodic
        app = _read_json(config / "app.json")
        indent = "\t" if app.get("useTab", True) else " " * int(app.get("tabSize", 4) or 4)
        return Settings(
            journal_dir=safe_folder(_json_str(daily, "folder", ""), "daily notes folder"),
            journal_file_format=_json_str(daily, "format", "") or "YYYY-MM-DD",
            date_dialect="moment",
            hidden=tuple(str(x) for x in app.get("userIgnoreFilters") or ()),
            indent=indent,
            template=_json_str(daily, "template", "") or None,
        )


def _read_json(path: Path) -> dict[str, Any]:
    """A settings JSON file as a dict; missing means defaults, malformed is an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


def _json_str(data: dict[str, Any], key: str, default: str) -> str:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ConfigError(f"daily notes setting {key!r} must be a string, not {value!r}")
    return value.strip()


def _periodic_daily(config: Path) -> dict[str, Any] | None:
    """The Periodic Notes plugin's daily settings, when that plugin is enabled and owns dailies."""
    plugins = config / "community-plugins.json"
    try:
        enabled = json.loads(plugins.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(enabled, list) or "periodic-notes" not in enabled:
        return None
    data = _read_json(config / "plugins" / "periodic-notes" / "data.json")
    daily = data.get("daily")
    if isinstance(daily, dict) and daily.get("enabled"):
        return daily
    return None


# ---------------------------------------------------------------------------------------------
# Plain Markdown folder


class MarkdownFlavor(Flavor):
    """Any folder of Markdown notes; journals in ``journals/YYYY-MM-DD.md`` unless configured."""

    name = "markdown"
    syntax = "wiki"

    def detect(self, root: Path) -> bool:
        if (root / OWN_CONFIG).is_file():
            return True
        try:
            return any(p.suffix.lower() in (".md", ".markdown") for p in _shallow_files(root))
        except OSError:
            return False

    def read_settings(self, root: Path, own: dict[str, Any], use_cache: bool = True) -> Settings:
        journal = own.get("journal", {})
        if not isinstance(journal, dict):
            raise ConfigError(f"{OWN_CONFIG}: [journal] must be a table")
        return Settings(
            journal_dir=safe_folder(str(journal.get("folder", "journals")), f"{OWN_CONFIG} folder"),
            journal_file_format=str(journal.get("format", "YYYY-MM-DD")),
            date_dialect="moment",
            indent=str(journal.get("indent", "  ")),
        )


def _shallow_files(root: Path) -> list[Path]:
    """Files of the root and its direct subfolders (enough to tell a notes folder)."""
    out: list[Path] = []
    for entry in os.scandir(root):
        if entry.name.startswith("."):
            continue
        if entry.is_file():
            out.append(Path(entry.path))
        elif entry.is_dir():
            out.extend(Path(e.path) for e in os.scandir(entry.path) if e.is_file())
    return out


DEFAULT_FLAVORS: tuple[Flavor, ...] = (LogseqFlavor(), ObsidianFlavor(), MarkdownFlavor())


def detect_flavor(root: Path, flavors: tuple[Flavor, ...] = DEFAULT_FLAVORS) -> Flavor | None:
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
