"""Which page names are journal pages, as Logseq's own parser decides it.

Each expected day below was computed by Logseq's graph parser itself (logseq/og 0.10.15,
``date_time_util.cljs`` ``journal-title->int`` over ``safe-journal-title-formatters``, run under
nbb-logseq) on 2026-11-30; a year of one or two digits depends on the year it runs in, so those
cases pin the year.
"""

from __future__ import annotations

import datetime as dt

import pytest

from journal_agent.titles import JournalNames

D = dt.date


@pytest.mark.parametrize(
    ("name", "day"),
    [
        ("Oct 30th, 2026", D(2026, 10, 30)),
        ("oct 3rd, 2026", D(2026, 10, 3)),
        ("OCT 3RD, 2026", D(2026, 10, 3)),
        ("Oct 03rd, 2026", D(2026, 10, 3)),
        ("Oct 3th, 2026", D(2026, 10, 3)),  # any ordinal suffix
        ("October 3rd, 2026", D(2026, 10, 3)),  # MMM reads full names too
        ("/Oct 3rd, 2026/", D(2026, 10, 3)),  # one boundary slash each side goes
        ("2026-10-22", D(2026, 10, 22)),
        ("2026-10-22 ", D(2026, 10, 22)),  # trailing spaces go
        ("2026-1-5", D(2026, 1, 5)),
        ("2026_1_5", D(2026, 1, 5)),
        ("2026_10_22", D(2026, 10, 22)),
        ("Oct 3rd, 126", D(126, 10, 3)),
        ("Dec 31st, 9999", D(9999, 12, 31)),
        ("Oct 3, 2026", None),
        ("Oct 3rd 2026", None),
        ("Oct 3rd,2026", None),
        ("Oct  3rd, 2026", None),
        ("Oct 3rd, 2026,", None),
        ("Oct 3ab, 2026", None),
        ("Octo 3rd, 2026", None),
        ("Sept 3rd, 2026", None),
        ("Oct 33rd, 2026", None),
        ("Oct 3rd, 20261", None),
        ("20261022", None),
        ("2026-10-22x", None),
        (" 2026-10-22", None),
        ("02026-10-22", None),
        ("2026-13-01", None),
        ("2026-02-30", None),
        ("2026-001-01", None),
        ("2026/10/22", None),
        ("weekly review", None),
    ],
)
def test_default_title_format(name: str, day: dt.date | None) -> None:
    assert JournalNames("MMM do, yyyy").day_of(name) == day


@pytest.mark.parametrize(
    ("name", "day"),
    [
        ("26-10-22", D(2026, 10, 22)),
        ("3-2-1", D(2003, 2, 1)),  # [[3-2-1]] is a journal page in Logseq
        ("0-1-1", D(2000, 1, 1)),
        ("45-1-1", D(2045, 1, 1)),
        ("49-1-1", D(1949, 1, 1)),
        ("99-1-1", D(1999, 1, 1)),
        ("Jan 1st, 1", D(2001, 1, 1)),
    ],
)
def test_short_years_fall_in_a_century_window(name: str, day: dt.date) -> None:
    assert JournalNames("MMM do, yyyy", this_year=2026).day_of(name) == day


@pytest.mark.parametrize(
    ("fmt", "name", "day"),
    [
        ("yyyy-MM-dd EEE", "2026-10-29 Sat", D(2026, 10, 29)),  # the weekday is not checked
        ("yyyy-MM-dd EEE", "2026-10-29 Saturday", D(2026, 10, 29)),
        ("yyyy-MM-dd EEE", "2026-10-29 sa", None),
        ("yyyy-MM-dd EEE", "2026-10-30 xyz", None),
        ("EEEE, dd-MM-yyyy", "monday, 5-1-2026", D(2026, 1, 5)),
        ("EEEE, dd-MM-yyyy", "Mon, 05-01-2026", D(2026, 1, 5)),
        ("yyyyMMdd", "20261022", D(2026, 10, 22)),
        ("yyyyMMdd", "2026102", D(2026, 10, 2)),
        ("dd.MM.yyyy", "2.1.2026", D(2026, 1, 2)),
        ("yyyy年MM月dd日", "2026年1月2日", D(2026, 1, 2)),
        ("MMMM do, yyyy", "Oct 3rd, 2026", D(2026, 10, 3)),  # the default formats come after
    ],
)
def test_graph_title_formats(fmt: str, name: str, day: dt.date | None) -> None:
    assert JournalNames(fmt).day_of(name) == day


def test_the_journal_title_is_the_graph_format() -> None:
    names = JournalNames("yyyy-MM-dd EEE")
    day = names.day_of("Oct 29th, 2026")
    assert day == D(2026, 10, 29) and names.journal_title(day) == "2026-10-29 Thu"
