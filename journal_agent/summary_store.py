"""Where the status summary is cached, and how it is read and written (`summary.Summary` is
the table itself).

Why a module of its own: the summary's storage (its columns marshalled, its page lists, name
tables and title caches kept apart in a base file that a patch rarely rewrites) changes for
other reasons than its queries do. Lean like `summary`: the warm path (`quick`) reads through
here, so the rest is imported lazily.
"""

from __future__ import annotations

import os
from array import array

from .packed import dump, grown, item, pack, unpack_chunks
from .summary import ARRAYS, DICTS, FORMAT, KEPT, LISTS, MAX_PARTS, NAMES, Summary

TYPE_CHECKING = False  # not typing's: the warm path must not pay for importing it
if TYPE_CHECKING:
    from typing import Any

    from .vault import Vault


def summary_path(vault: Vault) -> str:
    """Where the summary of ``vault`` is cached (its side file beside it, `sidecar`)."""
    from .cachedir import cache_name

    return cache_name("index", os.path.realpath(vault.where), suffix=".summary")


#: The summary the warm path (`quick`) read moments ago in this process, handed on with the
#: vault's listing when the vault changed (`walk.HANDED`): (its path, the summary as read).
HANDED: tuple[str, Summary] | None = None


def read(path: str) -> Summary | None:
    """The summary cached at ``path``, whatever its stamp; None if it is missing, of another
    format or corrupt (it is rebuilt from the index)."""
    global HANDED
    if HANDED is not None and HANDED[0] == path:
        (_, handed), HANDED = HANDED, None  # used once, as read
        return handed
    from .cachedir import load_with_base

    found = load_with_base(path)
    if found is None:
        return None
    data, read = found
    base = read[1]
    try:
        if data.pop("format") != FORMAT:
            return None
        summary = Summary(str(data.pop("stamp")))
        extra = b"".join(base["extra"])  # type: ignore[arg-type]
        for name in (*KEPT, "strings"):
            packed = unpack_chunks(base[name])
            if packed is None or (name != "strings" and len(packed[1]) != len(extra)):
                return None
            summary._packed[name] = packed
            summary._from[name] = len(packed[1]), base[name]  # type: ignore[assignment]
        summary._titles = summary._paths = summary._strings = None
        data["extra"] = extra
        for name, kind in ARRAYS.items():
            column = array(kind)
            column.frombytes(data.pop(name))  # type: ignore[arg-type]
            setattr(summary, name, column)
        for name in NAMES:
            parts = base[name]
            if type(parts) is not tuple or not all(type(p) is bytes for p in parts):
                return None
            summary._names[name] = parts
        for name, value in data.items():
            if type(value) is not type(getattr(summary, name)):
                return None
            setattr(summary, name, value)
        summary._base, summary._folded = read, base.get("folded")  # type: ignore[assignment]
        summary._keys = base.get("keys")  # type: ignore[assignment]  # checked as read: `unkeyed`
        return summary
    except Exception:  # foreign or corrupt
        return None


def load(path: str, stamp: str) -> Summary | None:
    """The cached summary if it was built from exactly these files and settings."""
    summary = read(path)
    return summary if summary is not None and summary.stamp == stamp else None


def save(path: str, summary: Summary) -> None:
    """Write the summary atomically; a cache that cannot be written only costs speed."""
    from .buckets import table_kept, table_parts
    from .cachedir import save_with_base

    data: dict[str, Any] = {name: getattr(summary, name) for name in ("stamp", *LISTS, *DICTS)}
    data.update((name, getattr(summary, name).tobytes()) for name in ARRAYS if name != "extra")
    read: dict[str, Any] = summary._base[1] if summary._base else {}
    extra = grown(read.get("extra", ()), summary.extra.tobytes(), MAX_PARTS)
    base: dict[str, Any] = {"extra": extra}
    for name in (*KEPT, "strings"):
        base[name] = _list_chunks(summary, name)
    for name in NAMES:  # as read, unless a table was (or has too many parts)
        table = summary._names[name]
        if not isinstance(table, dict) and not table_kept(table, MAX_PARTS):
            table = summary._table(name)  # bucketed anew (a corrupt one: as `names` reads it)
        base[name] = table if not isinstance(table, dict) else table_parts(table)
    if summary._folded is not None:  # of these titles and names
        base["folded"] = summary._folded
    if summary._keys is not None:  # of these titles
        base["keys"] = summary._keys
    data["format"] = FORMAT
    save_with_base(path, data, base, summary._base)


def _list_chunks(summary: Summary, name: str) -> tuple[bytes, ...]:
    """The list ``name`` as the base keeps it (`packed`): the chunks it was read from, and one
    of the items added since, where it only grew (up to `MAX_PARTS` chunks); else one chunk."""
    value, source = getattr(summary, f"_{name}"), summary._from.get(name)
    if value is None:  # still packed
        packed = summary._packed[name]
        if source is None or len(source[1]) >= MAX_PARTS:
            return (dump(packed),)
        added = [item(packed, k) for k in range(source[0], len(packed[1]))]
    else:
        items, as_read = [v or "" for v in value], summary._read.get(name)
        if source is None or as_read is None or len(source[1]) >= MAX_PARTS:
            return (pack(items),)
        if items[: source[0]] != as_read[: source[0]]:  # not only grown since read
            return (pack(items),)
        added = items[source[0] :]
    return (*source[1], pack(added)) if added else source[1]
