"""The vault's ``.journal-agent.toml``: journal-agent's own settings for one vault (read only).

::

    flavor = "markdown"            # force a flavor instead of detecting it
    days = 21                      # the activity window of the derived status
    exclude = ["Templates"]        # pages that are never topics
    frontier = "Now"               # a page the person curates, shown first by `context`

    [journal]                      # plain-Markdown vaults: where the journal is
    folder = "journals"
    format = "YYYY-MM-DD"          # moment.js tokens
    indent = "  "                  # one level of bullet indentation

Anyone who can write the vault can write this file, so nothing in it decides *where*
journal-agent writes: its own files stay in ``.journal-agent/`` (the person moves them with
``$JOURNAL_AGENT_STATE`` or their own config file, `userconfig`). Every value is checked, and a
bad one is refused with its name and the file (`ConfigError`).
"""

from __future__ import annotations

import os
import sys

from .errors import ConfigError
from .files import read_text
from .records import NamedTuple

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

OWN_CONFIG = ".journal-agent.toml"
MAX_DAYS = 36500


class OwnConfig(NamedTuple):
    """The validated settings of a vault's ``.journal-agent.toml`` (defaults when absent)."""

    present: bool = False
    flavor: str | None = None
    days: int | None = None
    exclude: tuple[str, ...] = ()
    journal_folder: str | None = None
    journal_format: str | None = None
    indent: str | None = None
    frontier: str | None = None  # the title of the person's frontier page (read, never written)


def read_own_config(root: str | os.PathLike[str]) -> OwnConfig:
    """The vault's own config, validated; `ConfigError` names the setting and the file."""
    path = os.path.join(root, OWN_CONFIG)
    text = read_text(path, OWN_CONFIG, ConfigError)
    if text is None:
        return OwnConfig()
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return _validate(data, path)


def _validate(data: dict[str, Any], path: str) -> OwnConfig:
    for key in data:
        if key == "ledger":
            raise ConfigError(
                f"{path}: 'ledger' is not a vault setting: journal-agent keeps its own files in "
                "the vault's .journal-agent/ folder; set $JOURNAL_AGENT_STATE (or 'state' in your "
                "own config file) to keep them elsewhere"
            )
        if key not in ("flavor", "days", "exclude", "journal", "frontier"):
            raise ConfigError(f"{path}: unknown setting {key!r}")
    journal = data.get("journal", {})
    if not isinstance(journal, dict):
        raise ConfigError(f"{path}: [journal] must be a table")
    for key in journal:
        if key not in ("folder", "format", "indent"):
            raise ConfigError(f"{path}: unknown setting journal.{key}")
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(x, str) for x in exclude):
        raise ConfigError(f"{path}: exclude must be a list of page names, not {exclude!r}")
    days = data.get("days")
    if days is not None and (type(days) is not int or not 1 <= days <= MAX_DAYS):
        raise ConfigError(f"{path}: days must be a whole number from 1 to {MAX_DAYS}, not {days!r}")
    indent = _string(journal, "indent", path)
    if indent is not None and (indent.strip(" \t") or not 1 <= len(indent) <= 16):
        raise ConfigError(f"{path}: journal.indent must be 1 to 16 spaces or tabs, not {indent!r}")
    frontier = _string(data, "frontier", path)
    if frontier is not None and (len(frontier) > 200 or any(c in frontier for c in "\n\r[]")):
        raise ConfigError(
            f"{path}: frontier must be one page title (no brackets, one line), not {frontier!r}"
        )
    return OwnConfig(
        True,
        _string(data, "flavor", path),
        days,
        tuple(exclude),
        _string(journal, "folder", path),
        _string(journal, "format", path),
        indent,
        frontier.strip() if frontier else None,
    )


def _string(table: dict[str, Any], key: str, path: str) -> str | None:
    value = table.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(f"{path}: {key} must be a non-empty string, not {value!r}")
    return value
