"""Journal page names as Logseq reads them: which page names are a day's journal page.

Why: Logseq (file graphs) decides that a page is a journal by its *name*, not by its folder.
Every page name (a file's title, a ``title::``, a ``[[reference]]``) is lower-cased, each
space-separated word capitalised, and parsed with the formatters ``[title format, "MMM do, yyyy",
"yyyy-MM-dd", "yyyy_MM_dd"]`` in that order; the first that parses makes the page that day's
journal, renamed to the day in the title format (``[[2026-10-29]]`` is ``Oct 29th, 2026``).
Sources: logseq/og ``graph_parser/block.cljs`` ``convert-page-if-journal`` and
``graph_parser/date_time_util.cljs`` ``journal-title->int`` / ``safe-journal-title-formatters``.

cljs-time parses leniently, and journal-agent has to agree on which names are journals (checked
against Logseq's own parser, tests/test_titles.py): numbers may have fewer digits than the
pattern (``2026_1_5``), a year of one or two digits is taken in the century window
``[this year - 80, this year + 20)`` (``3-2-1`` is 1 Feb 2003), ``MMM`` also reads full month
names, an ordinal ``do`` takes any of ``st nd rd th``, weekday names are read but not checked,
and trailing spaces are dropped. A pattern with tokens this module does not read leniently falls
back to the strict inverse of formatting (`dates.DateFormat.parse`).
"""

from __future__ import annotations

import datetime
import re

from .dates import MONTHS, WEEKDAYS, DateFormat
from .errors import BadDateFormat
from .patterns import longest_first, regex

#: The formatters Logseq tries after the graph's own title format.
LOGSEQ_FALLBACK_FORMATS = ("MMM do, yyyy", "yyyy-MM-dd", "yyyy_MM_dd")
_TOKEN = regex(r"do|([A-Za-z])\1*|'(?:''|[^'])*'?|.", re.DOTALL)
_MONTH_NAMES = "|".join(longest_first([*MONTHS, *(m[:3] for m in MONTHS)]))
_DAY_NAMES = "|".join(longest_first([*WEEKDAYS, *(w[:3] for w in WEEKDAYS)]))
_MONTH_NUMBER = {n.lower(): i for i, m in enumerate(MONTHS, 1) for n in (m, m[:3])}
_DIGIT = regex(r"[0-9]")


class _Lenient:
    """One cljs-time pattern compiled into a case-insensitive regex with named date parts."""

    def __init__(self, pattern: str) -> None:
        parts = []
        for m in _TOKEN.finditer(pattern):
            parts.append(_piece(m.group(0)))
        if any(p is None for p in parts):
            raise ValueError(pattern)
        self.rx = regex("".join(p for p in parts if p), re.IGNORECASE)

    def parse(self, text: str, this_year: int) -> datetime.date | None:
        m = self.rx.fullmatch(text)
        if m is None:
            return None
        year = _year(m.group("y"), this_year)
        month_text = m.group("m")
        month = int(month_text) if month_text.isdigit() else _MONTH_NUMBER[month_text.lower()]
        try:
            return datetime.date(year, month, int(m.group("d")))
        except ValueError:
            return None


def _piece(tok: str) -> str | None:
    """The regex of one token ('' for nothing, None for a token not read leniently)."""
    letter, n = tok[0], len(tok)
    if tok == "do":
        return r"(?P<d>[0-9]{1,2})(?:st|nd|rd|th)"
    if letter == "'":
        return re.escape(tok[1:].removesuffix("'").replace("''", "'")) if n > 1 else ""
    if letter == "y":
        return r"(?P<y>[0-9]{1,4})"
    if letter == "M":
        return r"(?P<m>[0-9]{1,2})" if n <= 2 else f"(?P<m>{_MONTH_NAMES})"
    if letter == "d":
        return r"(?P<d>[0-9]{1,2})" if n <= 2 else None
    if letter == "E":
        return f"(?:{_DAY_NAMES})"
    if letter.isascii() and letter.isalpha():
        return None
    return re.escape(tok)


def _year(text: str, this_year: int) -> int:
    """A year of one or two digits is read in the window [this year - 80, this year + 20)."""
    year = int(text)
    if len(text) > 2:
        return year
    start = this_year - 80
    return start + (year - start) % 100


class JournalNames:
    """Which page names are journal pages of a Logseq graph, and of which day."""

    def __init__(self, title_format: str, this_year: int | None = None) -> None:
        self.title = DateFormat(title_format, "logseq")
        self.this_year = this_year or datetime.date.today().year
        self.parsers: list[_Lenient | DateFormat] = []
        for pattern in dict.fromkeys((title_format, *LOGSEQ_FALLBACK_FORMATS)):
            try:
                self.parsers.append(_Lenient(pattern))
            except ValueError:
                self.parsers.append(self.title if pattern == title_format else _strict(pattern))
        self._days: dict[str, datetime.date | None] = {}

    def day_of(self, name: str) -> datetime.date | None:
        """The day a page name names (Logseq's ``journal-title->int``), or None."""
        if not _DIGIT.search(name):
            return None  # every journal title holds its year in digits
        found = self._days.get(name, False)
        if found is False:
            found = self._days[name] = self._day_of(name)
        return found  # type: ignore[return-value]

    def _day_of(self, name: str) -> datetime.date | None:
        text = _sanitize(name)
        for parser in self.parsers:
            found = (
                parser.parse(text, True)
                if isinstance(parser, DateFormat)
                else parser.parse(text, self.this_year)
            )
            if found is not None:
                return found
        return None

    def journal_title(self, day: datetime.date) -> str:
        """The page name of ``day``'s journal (the title format)."""
        return self.title.format(day)


def _strict(pattern: str) -> DateFormat:
    try:
        return DateFormat(pattern, "logseq")
    except BadDateFormat as exc:  # a fallback format of our own: a bug
        raise AssertionError(pattern) from exc


def _sanitize(name: str) -> str:
    """What Logseq parses: the name without one leading and one trailing ``/``, lower-cased,
    its words capitalised (``capitalize-all`` splits on single spaces; trailing ones vanish)."""
    name = name.removeprefix("/").removesuffix("/").rstrip(" ")
    return " ".join(w.capitalize() for w in name.split(" "))
