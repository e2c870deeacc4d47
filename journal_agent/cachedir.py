"""Where journal-agent keeps its derived caches: outside every vault, deletable at any time."""

from __future__ import annotations

import contextlib
import os
import sys

TYPE_CHECKING = False  # not typing's: the warm path (`quick`) finds its cache with this module
if TYPE_CHECKING:
    from pathlib import Path

CACHE_ENV = "JOURNAL_AGENT_CACHE"
#: The cache folder in which the warm path (`quick`) found a valid summary of the vault it hands
#: to the library moments later (`quick.handed`): the library's answer of this process uses it.
FOUND: str | None = None


#: The user folders platformdirs named that are the folders guessed (`_guesses`): a line each,
#: the kind, a tab and the folder, in the user cache folder where platformdirs named that too. A
#: run that finds its guess there takes it without importing platformdirs (5 ms of every hook).
#: A guess depends on the environment as platformdirs' answer does, so a changed environment
#: asks again; a platformdirs that would answer otherwise after an upgrade is asked again once
#: this file (a cache file like any) is deleted.
CONFIRMED = "platformdirs-confirmed"


def cache_root(guess: bool = False) -> str:
    """``$JOURNAL_AGENT_CACHE``, else the user cache folder of the platform: the folder
    `_guessed` (``guess``: for the warm path), or `user_folder`'s."""
    base = os.environ.get(CACHE_ENV)
    if base:
        return os.path.expanduser(base)
    if FOUND is not None:
        return FOUND
    if guess and sys.platform != "win32":
        return _guessed()
    return user_folder("cache")


def user_folder(kind: str) -> str:
    """platformdirs' user folder of ``kind`` (``cache``, ``config``, ``state``) for
    journal-agent: the folder guessed where platformdirs named it in an earlier run
    (`CONFIRMED`), else asked (and where it names the guess, that is kept)."""
    guessed = _guesses().get(kind)
    confirmed = os.path.join(_guessed(), CONFIRMED) if guessed is not None else ""
    lines = _lines(confirmed)
    if guessed is not None and f"{kind}\t{guessed}" in lines:
        return guessed
    import platformdirs  # lazy: it imports tempfile, shutil and random

    named: str = getattr(platformdirs, f"user_{kind}_dir")("journal-agent", appauthor=False)
    if named == guessed and (kind == "cache" or f"cache\t{_guessed()}" in lines):
        with contextlib.suppress(OSError):
            os.makedirs(os.path.dirname(confirmed), exist_ok=True)
            with open(confirmed, "a", encoding="utf-8") as file:
                file.write(f"{kind}\t{named}\n")
            lines.add(f"{kind}\t{named}")
    return named


#: `CONFIRMED`'s lines as this process read (and added to) them, by path: a hook asks for two
#: or three folders.
_CONFIRMED_LINES: dict[str, set[str]] = {}


def _lines(path: str) -> set[str]:
    found = _CONFIRMED_LINES.get(path)
    if found is None:
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as file:
                found = set(file.read().splitlines())
        except (OSError, ValueError):
            found = set()
        _CONFIRMED_LINES[path] = found
    return found


def _guesses() -> dict[str, str]:
    """Where platformdirs puts the user folders on Linux and macOS as of its version 4 (``$XDG_…``
    if absolute, else ``~/.cache``, ``~/.config``, ``~/.local/state``; on macOS
    ``~/Library/Caches``, else ``~/Library/Application Support``); none on Windows."""
    if sys.platform == "win32":
        return {}
    mac = sys.platform == "darwin"
    found = {}
    for kind, xdg, home in (
        ("cache", "XDG_CACHE_HOME", "~/Library/Caches" if mac else "~/.cache"),
        ("config", "XDG_CONFIG_HOME", "~/Library/Application Support" if mac else "~/.config"),
        ("state", "XDG_STATE_HOME", "~/Library/Application Support" if mac else "~/.local/state"),
    ):
        named = os.environ.get(xdg, "")
        folder = named if os.path.isabs(named) else os.path.expanduser(home)
        found[kind] = os.path.join(folder, "journal-agent")
    return found


def _guessed() -> str:
    """The user cache folder as `_guesses` has it, without importing platformdirs (and
    pathlib, tempfile and shutil with it). The warm path looks there: every cache file it
    finds says what it was built from and is checked as any, so a guess that is wrong costs a
    look in an empty folder, never a wrong answer. The library, which writes the caches, takes
    the guess once platformdirs named the same folder (`user_folder`), or the folder where the
    warm path found a valid summary of the vault (`FOUND`)."""
    return _guesses()["cache"]


def cache_name(kind: str, *key: str, suffix: str, guess: bool = False) -> str:
    """The path of a cache file named by a digest of what it depends on (``guess``: in the
    folder `_guessed`, for the warm path)."""
    from .digests import sha256

    digest = sha256("\0".join(key).encode()).hexdigest()[:16]
    return os.path.join(cache_root(guess), f"{kind}-{digest}{suffix}")


def cache_file(kind: str, *key: str, suffix: str) -> Path:
    """`cache_name` as a path."""
    from pathlib import Path

    return Path(cache_name(kind, *key, suffix=suffix))


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step; a cache that cannot be written only costs
    speed next time, so errors are swallowed."""
    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


#: A cache file with a *base*: the fields it rarely changes (a hundred thousand page names) in a
#: file of their own beside it, named by a token the cache file holds, so that most writes of the
#: cache (a journal edit's patch) leave those bytes where they are. Both files are marshalled
#: dicts; a base's values are bytes, or tuples of bytes (*chunks*) its owner makes and reads.
#: A field whose chunks only grew in number or changed a few (a topic added: its title, its
#: names; a page added: the segment of the listing it falls in) keeps the base file: the chunks
#: added or changed go in the cache file (its ``_more``: by their place), until they outweigh
#: `MORE_SHARE` of the base (a hundred thousand titles are not written again for one more).
Base = dict[str, object]
#: A base as read: its token, its fields with the chunks the cache file adds, and its fields as
#: its own file holds them.
Read = tuple[str, Base, Base]
MORE_SHARE, MORE_MIN = 1 / 16, 1 << 16


def _base_name(path: str, token: str) -> str:
    return f"{path}-base-{token}"


def load_with_base(path: str) -> tuple[dict[str, object], Read] | None:
    """The cache file at ``path`` and its base (`Read`), None if either is missing or
    unreadable. A writer that put a new base and removed the old one between the two reads is
    met by reading the cache file once more."""
    import marshal

    for _ in range(2):
        try:
            with open(path, "rb") as handle:
                data = marshal.loads(handle.read())
            token, more = data.pop("_base"), data.pop("_more")
            with open(_base_name(path, token), "rb") as handle:
                base = marshal.loads(handle.read())
        except FileNotFoundError:
            continue
        except Exception:  # foreign or corrupt: the owner rebuilds
            return None
        if type(data) is not dict or type(base) is not dict or type(token) is not str:
            return None
        if type(more) is not dict:
            return None
        merged = dict(base)
        for name, chunks in more.items():
            kept = base.get(name)
            if type(chunks) is not dict or type(kept) is not tuple:
                return None
            fields = list(kept)
            for at in sorted(chunks):  # changed in place, or one more at the end
                if type(at) is not int or not 0 <= at <= len(fields):
                    return None
                fields[at : at + 1] = [chunks[at]]
            merged[name] = tuple(fields)
        return data, (token, merged, base)
    return None


def save_with_base(path: str, data: dict[str, object], base: Base, read: Read | None) -> None:
    """Write the cache file ``data`` at ``path`` with the base ``base``: the base file read
    (``read``) where its fields are the same or differ by a few chunks (`_added`), else a
    new one, written first (a reader never finds a cache file whose base is not there yet);
    the older bases go once the cache file no longer names them."""
    import marshal

    more = _added(read[2], base) if read is not None else None
    kept = read if more is not None else None  # its base file, and ``more`` in the cache file
    token = kept[0] if kept is not None else os.urandom(8).hex()
    if kept is None or not os.path.exists(_base_name(path, token)):  # another's may have gone
        write_atomic(_base_name(path, token), marshal.dumps(base if kept is None else kept[2]))
    write_atomic(path, marshal.dumps({**data, "_base": token, "_more": more or {}}))
    if kept is None:
        folder, name = os.path.split(_base_name(path, ""))
        with contextlib.suppress(OSError):
            for other in os.listdir(folder):
                if other.startswith(name) and other != name + token and not other.endswith(".tmp"):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(folder, other))


def _added(stored: Base, base: Base) -> dict[str, dict[int, bytes]] | None:
    """The chunks, by their place, by which ``base``'s fields differ from those ``stored`` in a
    base file (changed, or more at the end), if none differs otherwise (a field that is not
    chunks, or has fewer) and they are few (`MORE_SHARE`); else None."""
    if stored.keys() != base.keys():
        return None
    more: dict[str, dict[int, bytes]] = {}
    for name, value in base.items():
        was = stored[name]
        if value is was or value == was:
            continue
        if type(value) is not tuple or type(was) is not tuple or len(value) < len(was):
            return None
        more[name] = {
            at: chunk
            for at, chunk in enumerate(value)
            if at >= len(was) or (chunk is not was[at] and chunk != was[at])
        }
    size = sum(_size(tuple(chunks.values())) for chunks in more.values())
    whole = sum(map(_size, stored.values()))
    return more if size <= max(MORE_MIN, whole * MORE_SHARE) else None


def _size(value: object) -> int:
    """The bytes of a base's field."""
    if isinstance(value, tuple):
        return sum(map(_size, value))
    return len(value) if isinstance(value, bytes) else 0
