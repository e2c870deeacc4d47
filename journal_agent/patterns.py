"""Regular expressions compiled once per Python installation, not once per run.

Why: `re` parses and compiles a pattern in Python code, and the scanner's grammar is a hundred
patterns: 10 to 20 ms of every run that reads a page (an append, a session hook, a query after
an edit), a tenth of such a run on a large vault. What `re` compiles a pattern to (the code
`_sre` runs) depends only on the pattern, its flags and the interpreter, so it is kept in a
cache file per interpreter (`_sre.MAGIC` and the exact version in its name) and handed to
`_sre.compile` as `re` itself does. `_sre` checks the code it is given, so a damaged file fails
to load (then each pattern is compiled as usual), never matches differently.

This uses `re`'s internals (`_parser.parse`, `_compiler._code`, `_sre.compile`): anywhere they
are not as on CPython 3.10 to 3.13, `regex` is `re.compile`. The file keeps the program's own
patterns and those made from the settings (date formats), a bounded set; those made from a
page's text (its HTML tags) are compiled with `re.compile`.
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False  # not typing's: lean at import
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

#: What `_sre.compile` takes after the pattern: flags, code, groups, group index, index group.
Compiled = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

#: At most this many patterns are kept (the program's are a few hundred): past it, a file that
#: grows run after run (a pattern spelled anew each time) starts again from this run's.
MAX_KEPT = 2048
_KEPT: dict[tuple[str, int], Compiled] | None = None  # the cache file's, once read
_NEW: dict[tuple[str, int], Compiled] = {}  # compiled in this run, written at exit


def regex(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, from the cache file where it holds the pattern."""
    global _KEPT
    flags = int(flags)
    if _KEPT is None:
        _KEPT = _read()
    kept = _KEPT.get((source, flags))
    if kept is not None:
        try:
            found: re.Pattern[str] = _INTERNALS[0].compile(source, *kept)
            return found
        except Exception:  # noqa: BLE001 - damaged: compiled anew below, the file rewritten
            del _KEPT[(source, flags)]
    compiled = re.compile(source, flags)
    if _INTERNALS and not flags & re.DEBUG:
        try:
            _NEW[(source, flags)] = _code(source, flags)
        except Exception:  # noqa: BLE001 - internals not as expected: not kept
            return compiled
        if len(_NEW) == 1:
            import atexit

            atexit.register(_write)
    return compiled


def longest_first(names: Iterable[str]) -> list[str]:
    """``names`` for an alternation that prefers the longest (`re` takes the first that
    matches), in an order that is the same in every run: a set's order changes with the hash
    seed, and each order would be another pattern to compile and keep."""
    return sorted(set(names), key=lambda name: (-len(name), name))


def _code(source: str, flags: int) -> Compiled:
    """What `re` hands `_sre.compile` for the pattern (as `re._compiler.compile`)."""
    _, parser, compiler = _INTERNALS
    parsed = parser.parse(source, flags)
    index: dict[str, int] = dict(parsed.state.groupdict)
    groups: list[str | None] = [None] * parsed.state.groups
    for name, i in index.items():
        groups[i] = name
    code = [int(op) for op in compiler._code(parsed, flags)]  # opcodes are an int subclass
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, index, tuple(groups))


def _path() -> str:
    from .cachedir import cache_name

    implementation = f"{sys.version}\0{_INTERNALS[0].MAGIC}\0{_INTERNALS[0].CODESIZE}"
    return cache_name("patterns", implementation, suffix=".marshal", guess=True)


def _read() -> dict[tuple[str, int], Compiled]:
    """The cache file's patterns; none where it is missing, damaged or not for this Python."""
    if not _INTERNALS:
        return {}
    import marshal

    try:
        with open(_path(), "rb") as handle:
            found: Any = marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return found if type(found) is dict else {}


def _write() -> None:
    """Add what this run compiled to the cache file (at exit, once); a file that cannot be
    written only costs the compiling next time."""
    import marshal

    from .cachedir import write_atomic

    kept = {**_read(), **_NEW}
    try:
        data = marshal.dumps(kept if len(kept) <= MAX_KEPT else _NEW)
    except ValueError:  # not marshallable after all: not kept
        return
    write_atomic(_path(), data)


def _internals() -> tuple[Any, ...]:
    """`_sre` and `re`'s parser and compiler, on CPython; else nothing (`regex` compiles).
    Imported by `__import__`: `importlib` imports `warnings`, which nothing else here needs."""
    if sys.implementation.name != "cpython":
        return ()
    new = sys.version_info >= (3, 11)
    try:
        return tuple(
            __import__(name) and sys.modules[name]
            for name in (
                "_sre",
                *(("re._parser", "re._compiler") if new else ("sre_parse", "sre_compile")),
            )
        )
    except ImportError:
        return ()


_INTERNALS = _internals()
