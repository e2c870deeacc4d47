"""`records.Record`: what a dataclass gave the library's mutable types, without dataclasses."""

from __future__ import annotations

import pytest

from journal_agent.records import Record
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
