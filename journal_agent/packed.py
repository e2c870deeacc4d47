"""Lists of texts kept packed: one string, the items joined by NULs, and where each item ends;
in the summary's base file, in chunks: those a patch adds are a chunk of their own
(`cachedir.save_with_base`), read back as one list (`unpack_chunks`).

The summary keeps its page titles and paths, and its mentions' texts, so (`summary.Summary`):
`stale` needs the few hundred it prints, and making a hundred thousand strings of a list cost
20 ms a list. An item is a slice (`item`); the whole list is one `str.split` in C where no item
holds a NUL (`split`); a patch adds a few items to tens of thousands without making the list
(`extended`)."""

from __future__ import annotations

import marshal
from array import array
from itertools import accumulate

TYPE_CHECKING = False  # not typing's: the warm path loads this module
if TYPE_CHECKING:
    from collections.abc import Callable

#: The text, the end of each item (past its last character, where its NUL follows), and
#: whether the list is the text split at each NUL (no item holds one; None: not known yet,
#: `whole` counts them where a list is made: a query that reads a few items never needs it).
Packed = tuple[str, "array[int]", bool | None]


def pack(items: list[str]) -> bytes:
    """The list as the files keep it: its text and its ends, marshalled."""
    ends = accumulate(len(text) + 1 for text in items)  # each past its NUL
    return dump(("\0".join(items), array("I", (end - 1 for end in ends)), True))


def dump(packed: Packed) -> bytes:
    """`pack` of a list kept packed."""
    return marshal.dumps((packed[0], packed[1].tobytes()))


def unpack(data: object) -> Packed | None:
    """What `pack` made; None if ``data`` is not that (a corrupt or foreign file)."""
    try:
        text, ends = marshal.loads(data)  # type: ignore[arg-type]
        column = array("I")  # unsigned: no end can be negative, nothing to check
        column.frombytes(ends)
    except (ValueError, EOFError, TypeError):
        return None
    if type(text) is not str or (column and column[-1] != len(text)):
        return None
    return text, column, None


def unpack_chunks(data: object) -> Packed | None:
    """The items of every chunk (`pack`'s) of ``data``, a tuple of them, as one list (its text
    joined once: a summary read on every query may hold a chunk per patch since its base was
    written); None if it is not that."""
    if type(data) is not tuple or not data:
        return None
    found = unpack(data[0])
    if found is None or len(data) == 1:
        return found
    text, first, _ = found
    parts, ends, at = [text] if first else [], array("I", first), len(text)
    for chunk in data[1:]:
        more = unpack(chunk)
        if more is None:
            return None
        if more[1]:  # a NUL before its first item, if any came before
            shift = at + 1 if ends else 0
            ends.extend(end + shift for end in more[1])
            parts.append(more[0])
            at = shift + len(more[0])
    return "\0".join(parts), ends, None


def item(packed: Packed, i: int) -> str:
    text, ends, _ = packed
    return text[ends[i - 1] + 1 if i else 0 : ends[i]]


def whole(packed: Packed) -> bool:
    """Whether no item holds a NUL: the text split at each NUL is the list."""
    text, ends, known = packed
    return known if known is not None else text.count("\0") == len(ends) - 1


def split(packed: Packed) -> list[str]:
    """Every item."""
    text, ends, _ = packed
    if not ends:
        return []
    if whole(packed):  # no item holds a NUL: split in C
        return text.split("\0")
    starts = (0, *(end + 1 for end in ends[:-1]))
    return [text[a:b] for a, b in zip(starts, ends, strict=True)]


def extended(packed: Packed, more: list[str]) -> Packed:
    """``packed`` with ``more`` after its items (the text is copied once, whatever ``more``)."""
    if not more:
        return packed
    text, ends, known = packed
    parts, at, ends = ([text] if ends else []), len(text), array("I", ends)
    for added in more:
        at += len(added) + (1 if ends else 0)  # past the NUL before it, if any
        ends.append(at)
    return "\0".join([*parts, *more]), ends, known and not any("\0" in m for m in more)


def fold(text: str) -> str:
    """Case- and normalisation-insensitive text, for comparing names; a final sigma as any
    (lower-casing makes ``ΟΔΟΣ`` ``οδος`` alone and ``οδοσ.md`` with its extension)."""
    import unicodedata

    return unicodedata.normalize("NFC", text).lower().replace("ς", "σ")


def folded_anew(titles: list[str], names: list[str]) -> tuple[str, str]:
    """`summary.Summary.folded` made from the titles and names: the titles no name folds to,
    and every name, each folded and joined by NULs."""
    folded_names = fold("\0".join(names))
    known = set(folded_names.split("\0"))
    return "\0".join(t for t in fold("\0".join(titles)).split("\0") if t not in known), folded_names


def folded_chunk(titles: str, names: str) -> bytes:
    """A chunk of `summary.Summary.folded` as a base file keeps it: compressed (fast), as
    every title and name of a large vault folded is a tenth of its summary otherwise."""
    import zlib

    return zlib.compress(marshal.dumps((titles, names)), 1)


def unfolded(kept: object) -> tuple[str, str] | None:
    """`summary.Summary.folded` as kept in a base file (`folded_chunk`s); None if there is
    none, or it does not read."""
    import zlib

    if type(kept) is not tuple:
        return None
    titles, keys = [], []
    for chunk in kept:
        try:
            found = marshal.loads(zlib.decompress(chunk)) if type(chunk) is bytes else None
        except (ValueError, EOFError, TypeError, zlib.error):
            return None
        if type(found) is not tuple or len(found) != 2 or not all(type(t) is str for t in found):
            return None
        titles.append(found[0])
        keys.append(found[1])
    return "\0".join(filter(None, titles)), "".join(keys)


def refolded(
    kept: tuple[bytes, ...], title: str, names: list[str], limit: int
) -> tuple[bytes, ...] | None:
    """`summary.Summary.folded` as ``kept``, with a title (unless one of the names folds to
    it) and names more: a chunk more (merged past ``limit`` chunks; None if they do not read)."""
    folded = [fold(name) for name in names]
    more, title = "".join(f"\0{name}" for name in folded), fold(title)
    if title in folded:
        title = ""
    if len(kept) < limit:
        return (*kept, folded_chunk(title, more))
    found = unfolded(kept)
    if found is None:
        return None
    return (folded_chunk("\0".join(filter(None, (found[0], title))), found[1] + more),)


def keys_chunk(page_key: Callable[[str], str], keys: str) -> bytes:
    """A chunk of `summary.Summary.title_keys` as a base file keeps it: the keys (joined by
    NULs) and which key they are, compressed as `folded_chunk`s are."""
    import zlib

    return zlib.compress(marshal.dumps((page_key.__name__, keys)), 1)


def unkeyed(kept: object, page_key: Callable[[str], str], count: int) -> str | None:
    """`summary.Summary.title_keys` as kept (`keys_chunk`s), if they are ``page_key``'s and
    ``count`` of them; else None (made anew)."""
    import zlib

    if type(kept) is not tuple or not kept or not count:
        return None
    parts = []
    for chunk in kept:
        try:
            found = marshal.loads(zlib.decompress(chunk)) if type(chunk) is bytes else None
        except (ValueError, EOFError, TypeError, zlib.error):
            return None
        if type(found) is not tuple or len(found) != 2 or found[0] != page_key.__name__:
            return None
        if type(found[1]) is not str:
            return None
        parts.append(found[1])
    joined = "\0".join(parts)
    return joined if joined.count("\0") == count - 1 else None


def grown(was: tuple[bytes, ...], now: bytes, limit: int) -> tuple[bytes, ...]:
    """``now`` as chunks: those read (``was``) and what follows them, if it only grew (and
    ``was`` is not ``limit`` chunks already); else one."""
    old = b"".join(was)
    if not now.startswith(old) or len(was) >= limit:
        return (now,)
    return was if len(now) == len(old) else (*was, now[len(old) :])
