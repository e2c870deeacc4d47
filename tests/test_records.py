"""`records.Record`: what a dataclass gave the library's mutable types, without dataclasses."""

from __future__ import annotations

import pytest

from journal_agent.records import NamedTuple, Record
from journal_agent.registry import Page


class _Kept(Record):
    __slots__ = ("name", "read")
    _cached = ("read",)

    def __init__(self, name: str, read: bytes = b"") -> None:
        self.name = name
        self.read = read


def test_a_record_is_equal_by_its_fields_shown_with_them_and_unhashable() -> None:
    page = Page("Atlas", "pages/Atlas.md", ["atlas"])
    assert page == Page("Atlas", "pages/Atlas.md", ["atlas"])
    assert page != Page("Atlas", "pages/Atlas.md") and page != ("Atlas", "pages/Atlas.md")
    assert repr(page) == (
        "Page(title='Atlas', path='pages/Atlas.md', aliases=['atlas'], date=None, "
        "superseded_by=None, origin='file')"
    )
    with pytest.raises(TypeError):
        hash(page)
    page.origin = "alias"  # it may change
    assert page._asdict()["origin"] == "alias"
    with pytest.raises(AttributeError):
        page.other = 1  # type: ignore[attr-defined]  # slots: no field by a typo


def test_what_a_record_keeps_cached_is_left_out_of_equality_and_repr() -> None:
    assert _Kept("a", b"x" * 10**6) == _Kept("a") != _Kept("b")
    assert repr(_Kept("a", b"x" * 10**6)) == "_Kept(name='a')"
    assert _Kept("a", b"x")._asdict() == {"name": "a", "read": b"x"}


class _Named(NamedTuple):
    """A named tuple at module level: pickled by its module and name."""

    text: str
    n: int = 0


def test_a_named_tuple_is_made_as_typing_makes_it() -> None:
    """`records.NamedTuple` (at run time a `collections.namedtuple` made of the class) gives a
    class what `typing.NamedTuple` gives it: fields, defaults, methods, properties, docstring,
    module and name, equality, ``_replace`` and ``_asdict``, and pickling."""
    import pickle
    import typing

    made = []
    for base in (NamedTuple, typing.NamedTuple):

        class Pair(base):  # type: ignore[valid-type, misc]
            """Two things."""

            name: str
            count: int = 0
            tags: tuple[str, ...] = ()

            def shown(self) -> str:
                return f"{self.name}×{self.count}"

            @property
            def doubled(self) -> int:
                return int(self.count) * 2

        made.append(Pair)
    for kind in made:
        pair = kind("a", 2)
        assert (pair, pair.shown(), pair.doubled) == (("a", 2, ()), "a×2", 4)
        assert (kind.__doc__, kind.__name__, kind.__module__) == ("Two things.", "Pair", __name__)
        assert kind._fields == ("name", "count", "tags")
        assert kind._field_defaults == {"count": 0, "tags": ()}
        assert pair._replace(count=3) == ("a", 3, ()) and pair._asdict()["name"] == "a"
        assert repr(pair) == "Pair(name='a', count=2, tags=())" and isinstance(pair, tuple)
    assert list(made[0].__annotations__) == list(made[1].__annotations__)
    assert pickle.loads(pickle.dumps(_Named("x", 1))) == _Named("x", 1)
