"""Installing journal-agent's hooks into a host's settings file, and writing a host's bundle.

The settings file belongs to the person and to every other tool they use, so the merge is
careful: a file that is not a JSON object is refused and left alone; every handler journal-agent
installed before (its command runs ``journal-agent hook HOST``) is taken out and the current ones
appended, so running it twice changes nothing; everything else — other events, other tools'
handlers, other settings, key order — stays as it was. A changed file is first copied to a
timestamped backup beside it, then replaced atomically (through a symbolic link, to the file it
points at: dotfiles managed by links stay links).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import stat
from pathlib import Path

from ..errors import ConfigError, UnsafePath, os_error
from ..files import MAX_SETTINGS_BYTES, kind_of, read_file, replace_file
from ..records import NamedTuple
from .base import Host, to_json

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any


class InstallResult(NamedTuple):
    """What ``hook install`` did (or, with ``print_only``, would do) to a settings file."""

    host: str
    path: str
    settings: dict[str, Any]  # the file's content after the merge
    changed: bool
    written: bool
    backup: str | None = None
    unreadable: str | None = None  # with ``print_only``: why the file is not merged into

    def to_json(self) -> dict[str, Any]:
        out = {
            "host": self.host,
            "path": self.path,
            "changed": self.changed,
            "written": self.written,
            "backup": self.backup,
            "settings": self.settings,
        }
        return out if self.unreadable is None else {**out, "unreadable": self.unreadable}


def install(
    host: Host, path: Path, *, print_only: bool = False, now: dt.datetime | None = None
) -> InstallResult:
    """Merge ``host``'s hooks into the settings file at ``path`` (created if missing)."""
    target = path.expanduser().resolve()  # write through a link to its file
    try:
        before = _read(target)
    except ConfigError as exc:
        if not print_only:
            raise
        hooks = merge({}, host)  # what to add by hand
        return InstallResult(host.name, str(path), hooks, True, False, unreadable=str(exc))
    try:
        after = merge(before if before is not None else {}, host)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}; it was left as it is") from exc
    changed = after != before
    result = InstallResult(host.name, str(path), after, changed, written=False)
    if print_only or not changed:
        return result
    if before is not None:
        stamp = (now or dt.datetime.now()).strftime("%Y%m%dT%H%M%S")
        backup = _backup(target, f"{target.name}.bak-{stamp}")
        result = result._replace(backup=str(backup))
    _write(target, to_json(after).encode("utf-8"))
    return result._replace(written=True)


def merge(settings: dict[str, Any], host: Host) -> dict[str, Any]:
    """``settings`` with every hook handler of ``host`` journal-agent installed before removed
    and the current ones appended, one group per event; nothing else changes."""
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f'its "hooks" is not an object but {type(hooks).__name__}')
    for event in list(hooks):
        groups = hooks[event]
        if isinstance(groups, list):
            kept = [g for g in (_without_ours(g, host) for g in groups) if g is not None]
            if kept or not groups:
                hooks[event] = kept
            else:
                del hooks[event]
    for event, groups in host.hooks_config()["hooks"].items():
        current = hooks.get(event, [])
        if not isinstance(current, list):
            raise ConfigError(f"its hooks for {event} are not a list")
        hooks[event] = current + groups
    return out


def _without_ours(group: Any, host: Host) -> Any:
    """A settings group without journal-agent's handlers; None if it held only those."""
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return group
    handlers = [h for h in group["hooks"] if not host.is_ours(h)]
    if len(handlers) == len(group["hooks"]):
        return group
    return {**group, "hooks": handlers} if handlers else None


def _read(path: Path) -> dict[str, Any] | None:
    """The settings file as an object; None if it does not exist."""
    data = read_file(path, "settings file", limit=MAX_SETTINGS_BYTES, error=ConfigError)
    if data is None:
        return None
    if not data.strip():
        return {}
    try:
        parsed = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError) as exc:
        raise ConfigError(
            f"{path}: not valid JSON ({exc}); journal-agent does not rewrite a file it cannot "
            "read: add the hooks by hand (--print shows them)"
        ) from exc
    if not isinstance(parsed, dict):
        raise ConfigError(f"{path}: holds a JSON {type(parsed).__name__}, not an object")
    return parsed


def _backup(target: Path, name: str) -> Path:
    """A copy of ``target`` beside it, named ``name`` (then ``name-2``, ``name-3`` …): never over
    an earlier backup, which two installs within one second would otherwise replace, losing the
    original."""
    data = target.read_bytes()
    for n in range(1, 1000):
        backup = target.with_name(name if n == 1 else f"{name}-{n}")
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise os_error(exc, backup, "back up the settings file") from exc
        try:
            os.write(fd, data)
            os.fsync(fd)
        except OSError as exc:
            backup.unlink(missing_ok=True)
            raise os_error(exc, backup, "back up the settings file") from exc
        finally:
            os.close(fd)
        return backup
    raise ConfigError(f"{target}: too many backups named {name}*; remove some")


def _write(path: Path, data: bytes) -> None:
    """Write ``path`` in one step (`files.replace_file`), its folder made if need be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise os_error(exc, path, "write") from exc
    replace_file(path, data, "file")


def write_bundle(host: Host, folder: Path, *, force: bool = False) -> list[str]:
    """Write ``host``'s bundle into ``folder``; return the files written, relative to it. A file
    of the same name already there with other contents (the person's README.md, another tool's
    .mcp.json) is replaced only with ``force``; without it nothing is written."""
    files = host.bundle()
    clashes = []
    for rel, text in files.items():
        target = folder / rel
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise os_error(exc, target, "write the bundle") from exc
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePath(f"{target}: is {kind_of(st.st_mode)}, not a file; nothing was written")
        if not force and target.read_bytes() != text.encode("utf-8"):
            clashes.append(rel)
    if clashes:
        raise UnsafePath(
            f"{folder}: {', '.join(clashes)} already there with other contents; nothing was "
            "written (--force replaces them)"
        )
    for rel, text in files.items():
        _write(folder / rel, text.encode("utf-8"))
    return list(files)
