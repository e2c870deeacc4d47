"""Records without `dataclasses` or `typing`: the library's own types are named tuples
(`NamedTuple`) where they never change once made, and subclasses of `Record`, with their own
``__init__``, where they do.

Why: importing `dataclasses` imports `inspect` (10 ms), and each dataclass costs about a
millisecond to make its methods (it compiles their source). A hook command loads some thirty
of the library's types: a fifth of its time on a small vault went to making them. Importing
`typing` costs 5 ms more, and a `typing.NamedTuple` class twice what `collections.namedtuple`
costs: at run time, `NamedTuple` here makes the class `collections.namedtuple` makes of the
class's fields and defaults, with the class's own methods and docstring (type checkers see
`typing.NamedTuple`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the records load with the library's leanest modules
if TYPE_CHECKING:
    from typing import Any
    from typing import NamedTuple as NamedTuple
else:

    class _NamedTupleType(type):
        """Makes each class written ``class X(NamedTuple):`` a `collections.namedtuple`."""

        def __new__(cls, name: str, bases: tuple[type, ...], space: dict[str, Any]) -> type:
            from collections import namedtuple

            fields = space.get("__annotations__", {})
            defaults = [space[field] for field in fields if field in space]
            made = namedtuple(name, fields, defaults=defaults, module=space["__module__"])
            for key, value in space.items():
                if key not in fields and key not in ("__module__", "__qualname__"):
                    setattr(made, key, value)
            made.__qualname__ = space.get("__qualname__", name)
            return made

    NamedTuple = type.__new__(_NamedTupleType, "NamedTuple", (), {})


class Record:
    """A mutable record: equal to another of its class whose fields (its ``__slots__``) are
    equal, shown with them, and unhashable (it may change). ``_cached``: slots that keep what
    was read or derived, left out of both (megabytes, some of them)."""

    __slots__: tuple[str, ...] = ()
    _cached: tuple[str, ...] = ()

    def _fields(self) -> list[str]:
        return [n for n in self.__slots__ if n not in self._cached]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._fields())

    def _asdict(self) -> dict[str, Any]:
        """Every slot by name, in order (as a `typing.NamedTuple` gives its fields)."""
        return {n: getattr(self, n) for n in self.__slots__}

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields())
        return f"{type(self).__name__}({fields})"
