"""Tables of names kept marshalled in buckets by a stable hash of the name, so that looking up
a name decodes one bucket, not the table: decoding every name of a large vault costs tens of
milliseconds (a name table of the summary: 70 ms at 100,000 pages), and a query about one
topic (`status`, `timeline`) or a patch looks up a few. The side file's targets
(`sidecar.Targets`) and the summary's name tables (`summary.Summary.find`) are kept so.

A name table as stored (`table_parts`): how many buckets, then each bucket, marshalled; a patch
that adds names appends a part of its own (a marshalled dict), later parts taking precedence.
A part that does not decode as that raises ValueError.
"""

from __future__ import annotations

import marshal
import zlib

TYPE_CHECKING = False  # not typing's: the warm path imports this module
if TYPE_CHECKING:
    from typing import TypeVar

    V = TypeVar("V")

#: Names a bucket holds, about: a look-up decodes one bucket of this many.
SIZE = 256


def bucket_of(name: str, count: int) -> int:
    """The bucket of ``name`` among ``count``: the same in every process (`hash` is not)."""
    return zlib.crc32(name.encode("utf-8", "surrogatepass")) % count


def split(memo: dict[str, V]) -> list[dict[str, V]]:
    """``memo`` split into a power of two of buckets of about `SIZE` names."""
    count = 1 << (len(memo) // SIZE).bit_length()
    out: list[dict[str, V]] = [{} for _ in range(count)]
    for name, value in memo.items():
        out[bucket_of(name, count)][name] = value
    return out


def table_parts(table: dict[str, int]) -> tuple[bytes, ...]:
    """The name table as stored: its bucket count, then its buckets."""
    buckets = split(table)
    return (marshal.dumps(len(buckets)), *map(marshal.dumps, buckets))


def table_get(parts: tuple[bytes, ...], name: str) -> int | None:
    """What the stored table ``parts`` holds for ``name``: the newest added part that holds it,
    else its bucket; None if none does."""
    count = _count(parts)
    for part in reversed(parts[1 + count :]):
        found = _dict(part).get(name)
        if found is not None:
            return found
    return _dict(parts[1 + bucket_of(name, count)]).get(name)


def table_whole(parts: tuple[bytes, ...]) -> dict[str, int]:
    """Every name of the stored table ``parts``."""
    _count(parts)
    found: dict[str, int] = {}
    for part in parts[1:]:  # the buckets, then the parts added in order
        found.update(_dict(part))
    return found


def table_kept(parts: tuple[bytes, ...], most: int) -> bool:
    """Whether the stored table ``parts`` may be stored again as it is: a table to which at
    most ``most`` parts were added since its buckets were made."""
    try:
        return len(parts) - 1 - _count(parts) <= most
    except ValueError:
        return False


def _count(parts: tuple[bytes, ...]) -> int:
    try:
        count = marshal.loads(parts[0]) if parts else None
    except (EOFError, TypeError, ValueError) as exc:
        raise ValueError("not a name table") from exc
    if type(count) is not int or not 0 < count < len(parts):
        raise ValueError("not a name table")
    return count


def _dict(part: bytes) -> dict[str, int]:
    try:
        found: dict[str, int] = marshal.loads(part)
    except (EOFError, TypeError) as exc:
        raise ValueError("not a name table") from exc
    if type(found) is not dict:
        raise ValueError("not a name table")
    return found
