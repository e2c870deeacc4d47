"""Columns of numbers (`array.array`, as the summary and its side file keep them) searched in
C: at 100,000 pages a Python step per number costs tens of milliseconds, and `array.index`,
which compares each number as an object, about as much for each number looked for."""

from __future__ import annotations

from array import array
from itertools import compress

TYPE_CHECKING = False  # not typing's: the warm path's modules import this one
if TYPE_CHECKING:
    from collections.abc import Collection, Iterator

#: Up to this many numbers looked for, each is searched for by its bytes; more, and each
#: number of the column is tested once (a search per number scans the column again).
FEW = 4


def positions(column: array[int], values: Collection[int]) -> list[int]:
    """Where any of ``values`` stands in ``column``, in order."""
    wanted = values if isinstance(values, (set, frozenset)) else set(values)
    if len(wanted) > FEW:
        return list(compress(range(len(column)), map(wanted.__contains__, column)))
    data, width = column.tobytes(), column.itemsize
    found = [k for value in wanted for k in _found(data, width, column.typecode, value)]
    return sorted(found) if len(wanted) > 1 else found


def _found(data: bytes, width: int, typecode: str, value: int) -> Iterator[int]:
    """Where ``value``'s bytes stand in ``data`` at a number's start (a match across two
    numbers is none)."""
    needle = array(typecode, [value]).tobytes()
    at = data.find(needle)
    while at >= 0:
        if at % width:
            at = data.find(needle, at + 1)
        else:
            yield at // width
            at = data.find(needle, at + width)
