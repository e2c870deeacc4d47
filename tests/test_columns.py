"""`columns.positions`: a number's places in a column, found by its bytes."""

from __future__ import annotations

from array import array

from hypothesis import given
from hypothesis import strategies as st

from journal_agent.columns import positions

NUMBER = st.integers(-(2**31), 2**31 - 1)


@given(st.lists(NUMBER, max_size=60), st.lists(NUMBER, max_size=9))
def test_positions_are_the_places_of_the_numbers(numbers: list[int], values: list[int]) -> None:
    """Few numbers looked for (searched by bytes) or many (each number tested), the same."""
    column = array("i", numbers + values[::2])
    wanted = set(values)
    expected = [k for k, n in enumerate(column) if n in wanted]
    assert positions(column, values) == positions(column, wanted) == expected


def test_a_match_across_two_numbers_is_none() -> None:
    """Little-endian, the bytes of 256 (00 01 00 00) stand across the first two numbers of
    [0x01000000, 0, …] (00 00 00 01 00 00 00 00): only the places where a number starts count."""
    column = array("i", [0x01000000, 0, 256, 7, 256])
    assert positions(column, {256}) == [2, 4]
    both = array("i", [1 << 16, 0, 1 << 16])  # 00 00 01 00 | 00 00 00 00 | ...
    assert positions(both, [0]) == [1]
    assert positions(array("b", [3, 3, 3]), (3,)) == [0, 1, 2]
