"""Logseq's ``logseq/config.edn``, read with a real EDN reader (`edn_format`), its keys and
keywords made plain strings, and cached outside the vault for as long as the file's stat is
unchanged: the reader takes tens of milliseconds to import and run, on every command a hook
starts."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from types import ModuleType

from .errors import ConfigError
from .files import read_text

TYPE_CHECKING = False  # not typing's: this is read on the warm path of an edit's patch
if TYPE_CHECKING:
    from typing import Any

#: Modules `edn_format` imports for one EDN tag each (``#inst``), which a settings file hardly
#: ever holds: pyRFC3339 2.x looks its own version up with `importlib.metadata` when imported,
#: 50 ms here, more than the rest of the reader. They are imported where a tag is first read.
DEFERRED = ("pyrfc3339",)


def read_edn_config(path: str | os.PathLike[str], use_cache: bool = True) -> dict[str, Any]:
    """The settings of a ``config.edn``, keys without their colons; from the cache where it
    holds them for the file's current stat (``use_cache``)."""
    import marshal

    from .cachedir import cache_name, write_atomic

    if not use_cache:
        return _parse_edn(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    from .walk import changed_ns  # an edit whose mtime was set back changes it too

    key = (os.path.realpath(path), str(changed_ns(st)), str(st.st_size), str(st.st_ino))
    cached = cache_name("config", *key, suffix=".marshal")
    try:
        with open(cached, "rb") as handle:
            result = marshal.loads(handle.read())
        if isinstance(result, dict):
            return result
    except (OSError, ValueError, EOFError, TypeError):
        pass  # missing, or not ours: parse again
    result = _parse_edn(path)
    write_atomic(cached, marshal.dumps(result))
    return result


def _parse_edn(path: str | os.PathLike[str]) -> dict[str, Any]:
    text = read_text(path, "Logseq config", ConfigError)
    if text is None:
        raise ConfigError(f"{path}: missing")
    reader = edn_reader()
    try:  # ply's parse tables made in memory (10 ms a read): by default ply writes them into
        # the installed edn_format package, and warns on stderr where it may not
        data = reader.loads(text, write_ply_tables=False)
    except Exception as exc:  # edn_format raises several unrelated types, RecursionError too
        raise ConfigError(f"{path}: not valid EDN: {str(exc).splitlines()[0][:200]}") from exc
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path}: expected a map {{...}} at the top, found {type(data).__name__}")
    return {_plain(k): _to_python(v) for k, v in data.items()}


def edn_reader() -> ModuleType:
    """`edn_format`, imported with the `DEFERRED` modules standing in (`Deferred`) where they
    are not imported yet."""
    if "edn_format" in sys.modules:
        return sys.modules["edn_format"]
    standing = [Deferred(name) for name in DEFERRED if name not in sys.modules]
    sys.modules.update((module.__name__, module) for module in standing)
    try:
        import edn_format
    finally:
        for module in standing:
            if sys.modules.get(module.__name__) is module:
                del sys.modules[module.__name__]
    reader: ModuleType = edn_format
    return reader


class Deferred(ModuleType):
    """A module's stand-in that imports it where one of its names is first asked for (once out
    of `sys.modules`, where it stood only while its importer was imported)."""

    def __getattr__(self, name: str) -> Any:
        import importlib

        module = importlib.import_module(self.__name__)
        if module is self:  # asked while it stands in: as a module without that name
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        return getattr(module, name)


def _plain(value: Any) -> str:
    text = str(value)
    return text[1:] if text.startswith(":") else text


def _to_python(value: Any) -> Any:
    """EDN values → plain Python (keywords become their names without the colon)."""
    if isinstance(value, Mapping):
        return {_plain(k): _to_python(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)) or type(value).__name__ == "ImmutableList":
        return [_to_python(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return _plain(value)
