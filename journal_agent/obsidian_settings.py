"""Obsidian's own settings files (``.obsidian/``): the daily notes in force (the core plugin's
``daily-notes.json`` or the Periodic Notes plugin's) and ``app.json``, read and checked; a
missing file means defaults, a malformed one is a `ConfigError` naming it."""

from __future__ import annotations

from pathlib import Path

from .errors import ConfigError
from .files import read_text

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any


def indent(app: dict[str, Any], path: Path) -> str:
    """One indentation level as Obsidian writes it: a tab, or ``tabSize`` spaces."""
    use_tab = app.get("useTab", True)
    if not isinstance(use_tab, bool):
        raise ConfigError(f"{path}: useTab must be true or false, not {use_tab!r}")
    size = app.get("tabSize", 4)
    if type(size) is not int or not 1 <= size <= 16:
        raise ConfigError(f"{path}: tabSize must be a whole number from 1 to 16, not {size!r}")
    return "\t" if use_tab else " " * size


def json_strings(data: dict[str, Any], key: str, path: Path) -> tuple[str, ...]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of strings, not {value!r}")
    return tuple(value)


def read_json(path: Path) -> dict[str, Any]:
    """A settings JSON file as a dict; missing means defaults, malformed is an error."""
    text = read_text(path, "settings file", ConfigError)
    if text is None or not text.strip():
        return {}
    import json  # lazy: only an Obsidian vault has JSON settings

    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


def json_str(data: dict[str, Any], key: str, default: str) -> str:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ConfigError(f"daily notes setting {key!r} must be a string, not {value!r}")
    return value.strip()


def daily_settings(config: Path) -> dict[str, Any]:
    """The daily-note settings in force: the Periodic Notes plugin's daily settings when that
    plugin is enabled and owns dailies, else the core plugin's ``daily-notes.json``."""
    periodic = _periodic_daily(config)
    return read_json(config / "daily-notes.json") if periodic is None else periodic


def _periodic_daily(config: Path) -> dict[str, Any] | None:
    """The Periodic Notes plugin's daily settings, when that plugin is enabled and owns dailies
    (as `daily-notes.json`'s keys)."""
    import json

    try:
        enabled = json.loads(
            read_text(config / "community-plugins.json", "plugins", ConfigError) or ""
        )
    except (ConfigError, ValueError, RecursionError):
        return None
    if not isinstance(enabled, list) or "periodic-notes" not in enabled:
        return None
    data = read_json(config / "plugins" / "periodic-notes" / "data.json")
    sets = data.get("calendarSets")
    if isinstance(sets, list) and sets:
        return _calendar_set_daily(sets, data.get("activeCalendarSet"))
    daily = data.get("daily")
    if isinstance(daily, dict) and daily.get("enabled"):
        return daily
    return None


def _calendar_set_daily(sets: list[Any], active: object) -> dict[str, Any] | None:
    """The daily settings of the active calendar set, the shape of Periodic Notes 1.0
    (liamcain/obsidian-periodic-notes ``CalendarSetManager``: ``calendarSets`` and
    ``activeCalendarSet``, each set's ``day`` holding ``enabled``, ``folder``, ``format`` and
    ``templatePath``; its ``daily`` settings of 0.x are moved into a set once there is one).
    None where no set is active or its days are off: the core plugin's settings hold then."""
    found = next((s for s in sets if isinstance(s, dict) and s.get("id") == active), None)
    day = found.get("day") if found is not None else None
    if not isinstance(day, dict) or not day.get("enabled"):
        return None
    return {k: day.get(key) for k, key in _CALENDAR_SET_KEYS.items()}


#: `daily-notes.json`'s keys, and a calendar set's ``day`` key for each.
_CALENDAR_SET_KEYS = {"folder": "folder", "format": "format", "template": "templatePath"}
