"""The person's own settings, outside every vault: ``~/.config/journal-agent/config.toml``.

Settings that decide where journal-agent writes (the default vault, a state folder outside the
vault) come from here or the environment, never from a file inside a vault, which anyone who can
write the vault controls::

    vault = "~/notes"              # the vault when neither --vault nor $JOURNAL_AGENT_VAULT is set
    state = "~/.local/state/journal-agent"   # keep ledgers, locks and pending bullets here

``$JOURNAL_AGENT_CONFIG`` names another file (the tests use it).
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from .errors import ConfigError
from .files import read_text

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

CONFIG_ENV = "JOURNAL_AGENT_CONFIG"
KEYS = {"vault": str, "state": str}


def config_path() -> Path:
    """Where the person's config file is (it need not exist)."""
    named = os.environ.get(CONFIG_ENV)
    if named:
        return Path(named).expanduser()
    from .cachedir import user_folder

    return Path(user_folder("config")) / "config.toml"


def user_setting(key: str) -> str | None:
    """One setting of the person's config file, or None."""
    value = _load(str(config_path())).get(key)
    return str(Path(value).expanduser()) if value else None


@functools.lru_cache(maxsize=4)
def _load(path: str) -> dict[str, Any]:
    text = read_text(Path(path), "journal-agent config file", ConfigError)
    if text is None:
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    for key, value in data.items():
        if key not in KEYS:
            raise ConfigError(f"{path}: unknown setting {key!r} (known: {', '.join(KEYS)})")
        if not isinstance(value, KEYS[key]) or not value.strip():
            raise ConfigError(f"{path}: {key} must be a non-empty string, not {value!r}")
    return dict(data)
