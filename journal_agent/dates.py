"""Journal date patterns of Obsidian (moment.js), Logseq (cljs-time / date-fns letters) and Roam.

Why: a journal page's file name and title are its date written in the vault's own pattern. To
find today's page, or to read a journal file's date back, the pattern must be rendered and parsed
exactly as the app does it, with English names and ordinals from fixed tables: the apps ignore
the system locale, so ``strftime('%b')`` would be wrong on a German machine.

A pattern is compiled once into a list of tokens; each renders one piece of the text and knows
the regex that matches every piece it can render. ``parse`` matches that regex, builds the date
from the year / month / day tokens and keeps it only if formatting it gives the text back.

Time tokens render as for midnight (moment ``HH:mm`` -> ``00:00``, ``h A`` -> ``12 AM``),
because Obsidian and Logseq format the day, not an instant.

Refused on purpose (``BadDateFormat``), beyond what the libraries themselves reject:
 * patterns without a calendar year (``yy``/``YY`` alone, week-years ``gggg``/``GGGG``/``R``/
   ``Y``) or without month + day-of-month or day-of-year, e.g. moment ``YYYY-[W]WW-E`` and
   ``gggg-[W]ww-DD``: the date could not be read back from such a name;
 * tokens that depend on the time zone (moment ``Z ZZ X x``; date-fns ``X x O z t T``, hence
   also ``ppp``/``pppp``);
 * two digit tokens of variable width side by side when one of them is part of the date (moment
   ``YYYYMD``): ``2026111`` could be 1 Nov or 11 Jan.

Dialect ``logseq`` follows date-fns 4 (what Logseq plugins use, and the test oracle). Logseq
itself formats with cljs-time (logseq/cljs-time fork, ``cljs-time.internal.unparse``), which
agrees on every token of the journal formats Logseq ships and on ``y yy yyyy M MM MMM MMMM d dd do
E EEE EEEE H HH h hh m mm s ss`` and ``'quoted'`` text, but differs on rarer letters:
``D DD DDD`` are the day of the MONTH there (day of year here), ``Y YY YYYY`` the calendar year
(week-year here), ``w ww`` the ISO week (Sunday-based local week here), ``a`` is ``am`` (``AM``
here), ``Mo`` writes ``1th``, ``2st`` there, and ``Q I R e EE EEEEE yyy`` throw there.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Callable, Sequence

from journal_agent.errors import BadDateFormat
from journal_agent.patterns import longest_first, regex
from journal_agent.records import NamedTuple

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Literal

    Dialect = Literal["moment", "logseq"]

Getter = Callable[[datetime.date], int]

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_MONTH_ABBR = tuple(m[:3] for m in MONTHS)
_MONTH_NARROW = tuple(m[0] for m in MONTHS)
_DAY_ABBR = tuple(w[:3] for w in WEEKDAYS)
_DAY_SHORT = tuple(w[:2] for w in WEEKDAYS)
_DAY_NARROW = tuple(w[0] for w in WEEKDAYS)
_MONTH_NUMBER = {n.lower(): i for i, m in enumerate(MONTHS, 1) for n in (m, m[:3])}


def ordinal(n: int) -> str:
    """English ordinal ('1st', '12th', '23rd'), as the English locales of moment and date-fns."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def roam_title(d: datetime.date) -> str:
    """Roam's daily page title, 'November 29th, 2026': fixed by Roam, not configurable."""
    return f"{MONTHS[d.month - 1]} {ordinal(d.day)}, {d.year}"


# --- calendar values -------------------------------------------------------------------------


def _dow(d: datetime.date) -> int:
    """Day of week, 0 = Sunday, as JavaScript's ``Date.getDay``."""
    return d.isoweekday() % 7


def _doy(d: datetime.date) -> int:
    return d.timetuple().tm_yday


def _week_start(year: int) -> int:
    """Day number of the Sunday that starts week 1 of ``year``: the week holding 1 January."""
    jan1 = datetime.date(min(year, 9999), 1, 1).toordinal() + (365 if year > 9999 else 0)
    return jan1 - jan1 % 7  # day number 7 is a Sunday


def _local_week(d: datetime.date) -> tuple[int, int]:
    """(week-year, week) of weeks from Sunday, week 1 holding 1 January.

    That is moment's 'en' locale (dow 0, doy 6) and date-fns's default (weekStartsOn 0,
    firstWeekContainsDate 1); the week of 29 Dec 2026 is week 1 of 2027.
    """
    n = d.toordinal()
    year = d.year + 1 if n >= _week_start(d.year + 1) else d.year
    return year, (n - _week_start(year)) // 7 + 1


_V: dict[str, Getter] = {
    "year": lambda d: d.year,
    "month": lambda d: d.month,
    "month0": lambda d: d.month - 1,
    "day": lambda d: d.day,
    "doy": _doy,
    "dow": _dow,
    "isodow": lambda d: d.isoweekday(),
    "dow1": lambda d: _dow(d) + 1,
    "quarter": lambda d: (d.month + 2) // 3,
    "quarter0": lambda d: (d.month - 1) // 3,
    "week": lambda d: _local_week(d)[1],
    "weekyear": lambda d: _local_week(d)[0],
    "isoweek": lambda d: d.isocalendar()[1],
    "isoyear": lambda d: d.isocalendar()[0],
    "zero": lambda d: 0,
    "twelve": lambda d: 12,
    "twentyfour": lambda d: 24,
}


# --- tokens ----------------------------------------------------------------------------------


class _Tok(NamedTuple):
    """One compiled piece of a pattern."""

    render: Callable[[datetime.date], str]
    rx: str  # matches every text ``render`` can give
    field: str | None = None  # 'y', 'm', 'd' or 'j' (day of year) when it pins that part
    digit_ends: tuple[bool, bool] = (False, False)  # the text starts / ends with a digit
    fixed: bool = True  # the text always has the same length


def _lit(text: str) -> _Tok:
    ends = (text[:1].isascii() and text[:1].isdigit(), text[-1:].isascii() and text[-1:].isdigit())
    return _Tok(lambda d: text, re.escape(text), None, ends)


def _num(get: Getter, pad: int, width: int, field: str | None = None, sign: str = "") -> _Tok:
    """A number zero-padded to ``pad`` digits; ``width`` is its most digits (years <= 9999)."""
    most = max(pad, width)
    return _Tok(
        lambda d: sign + str(get(d)).zfill(pad),
        re.escape(sign) + f"[0-9]{{{pad},{most}}}",
        field,
        (not sign, True),
        pad >= width,
    )


def _ord(get: Getter, field: str | None = None) -> _Tok:
    return _Tok(lambda d: ordinal(get(d)), "[0-9]{1,4}(?:st|nd|rd|th)", field, (True, False), False)


def _text(names: Sequence[str], get: Getter, field: str | None = None) -> _Tok:
    alts = "|".join(re.escape(n) for n in longest_first(names))
    return _Tok(lambda d: names[get(d)], f"(?:{alts})", field)


def _mod100(get: Getter) -> _Tok:
    return _num(lambda d: get(d) % 100, 2, 2)


def _hour(d: datetime.date) -> int:
    return getattr(d, "hour", 0)


def _hour12(d: datetime.date) -> int:
    return _hour(d) % 12 or 12


def _hour24(d: datetime.date) -> int:
    return _hour(d) or 24


def _minute(d: datetime.date) -> int:
    return getattr(d, "minute", 0)


def _second(d: datetime.date) -> int:
    return getattr(d, "second", 0)


def _pm(d: datetime.date) -> int:
    return int(_hour(d) >= 12)


def _moment_table() -> dict[str, _Tok]:
    """moment.js 2.x format tokens, English locale; a date's time tokens are its midnight's."""
    v = _V
    t = {
        "Y": _num(v["year"], 4, 4, "y"),
        "YY": _mod100(v["year"]),
        "YYYY": _num(v["year"], 4, 4, "y"),
        "YYYYY": _num(v["year"], 5, 4, "y"),
        "YYYYYY": _num(v["year"], 6, 4, "y", "+"),
        "y": _num(v["year"], 1, 4, "y"),
        "yy": _num(v["year"], 2, 4, "y"),
        "yyy": _num(v["year"], 3, 4, "y"),
        "yyyy": _num(v["year"], 4, 4, "y"),
        "yo": _ord(v["year"], "y"),
        "Q": _num(v["quarter"], 1, 1),
        "Qo": _ord(v["quarter"]),
        "M": _num(v["month"], 1, 2, "m"),
        "MM": _num(v["month"], 2, 2, "m"),
        "Mo": _ord(v["month"], "m"),
        "MMM": _text(_MONTH_ABBR, v["month0"], "m"),
        "MMMM": _text(MONTHS, v["month0"], "m"),
        "D": _num(v["day"], 1, 2, "d"),
        "DD": _num(v["day"], 2, 2, "d"),
        "Do": _ord(v["day"], "d"),
        "DDD": _num(v["doy"], 1, 3, "j"),
        "DDDD": _num(v["doy"], 3, 3, "j"),
        "DDDo": _ord(v["doy"], "j"),
        "d": _num(v["dow"], 1, 1),
        "do": _ord(v["dow"]),
        "dd": _text(_DAY_SHORT, v["dow"]),
        "ddd": _text(_DAY_ABBR, v["dow"]),
        "dddd": _text(WEEKDAYS, v["dow"]),
        "e": _num(v["dow"], 1, 1),
        "E": _num(v["isodow"], 1, 1),
        "w": _num(v["week"], 1, 2),
        "ww": _num(v["week"], 2, 2),
        "wo": _ord(v["week"]),
        "W": _num(v["isoweek"], 1, 2),
        "WW": _num(v["isoweek"], 2, 2),
        "Wo": _ord(v["isoweek"]),
        "gg": _mod100(v["weekyear"]),
        "gggg": _num(v["weekyear"], 4, 4),
        "ggggg": _num(v["weekyear"], 5, 4),
        "GG": _mod100(v["isoyear"]),
        "GGGG": _num(v["isoyear"], 4, 4),
        "GGGGG": _num(v["isoyear"], 5, 4),
        "eHHmm": _Tok(lambda d: f"{_dow(d)}0000", "[0-9]0000", None, (True, True)),
    }
    clock = {  # a day renders as its midnight; a datetime (templates' {{time}}) as its time
        "H": _num(_hour, 1, 2),
        "HH": _num(_hour, 2, 2),
        "h": _num(_hour12, 1, 2),
        "hh": _num(_hour12, 2, 2),
        "k": _num(_hour24, 1, 2),
        "kk": _num(_hour24, 2, 2),
        "m": _num(_minute, 1, 2),
        "mm": _num(_minute, 2, 2),
        "s": _num(_second, 1, 2),
        "ss": _num(_second, 2, 2),
        "a": _text(("am", "pm"), _pm),
        "A": _text(("AM", "PM"), _pm),
    }
    for compound in ("Hmm", "Hmmss", "hmm", "hmmss"):
        parts = [clock[compound[0]], clock["mm"]] + ([clock["ss"]] if "ss" in compound else [])
        clock[compound] = _Tok(
            lambda d, parts=parts: "".join(p.render(d) for p in parts),  # type: ignore[misc]
            "".join(p.rx for p in parts),
            None,
            (True, True),
            False,
        )
    t.update(clock)
    midnight = {
        "z": "",
        "zz": "",
        "N": "AD",
        "NN": "AD",
        "NNN": "AD",
        "NNNN": "Anno Domini",
        "NNNNN": "AD",
    }
    midnight.update({"S" * n: "0" * n for n in range(1, 10)})
    t.update({k: _lit(s) for k, s in midnight.items()})
    return t


_MOMENT_TOKENS = _moment_table()
_MOMENT_ZONE = frozenset({"Z", "ZZ", "X", "x"})
_MOMENT_LONG = {
    "LTS": "h:mm:ss A",
    "LT": "h:mm A",
    "L": "MM/DD/YYYY",
    "LL": "MMMM D, YYYY",
    "LLL": "MMMM D, YYYY h:mm A",
    "LLLL": "dddd, MMMM D, YYYY h:mm A",
    "l": "M/D/YYYY",
    "ll": "MMM D, YYYY",
    "lll": "MMM D, YYYY h:mm A",
    "llll": "ddd, MMM D, YYYY h:mm A",
}


@functools.cache  # a vault needs one dialect's; each costs a millisecond or two to compile
def _moment_rx() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Moment's long-format tokens, and its own ``formattingTokens``, verbatim."""
    return regex(r"(\[[^\[]*\])|(\\)?(LTS|LT|LL?L?L?|l{1,4})"), regex(
        r"(\[[^\[]*\])|(\\e)|(\\)?(eHHmm|[Hh]mm(ss)?|Mo|MM?M?M?|Do|DDDo|DD?D?D?|ddd?d?|do?|w[o|w]?"
        r"|W[o|W]?|Qo?|N{1,5}|YYYYYY|YYYYY|YYYY|YY|y{2,4}|yo?|gg(ggg?)?|GG(GGG?)?|e|E|a|A|hh?|HH?"
        r"|kk?|mm?|ss?|S{1,9}|x|X|zz?|ZZ?|.)"
    )


def _compile_moment(pattern: str) -> list[_Tok]:
    """Tokens of a moment pattern: ``[text]`` and ``\\x`` escape, other non-tokens are literal."""
    long_rx, token_rx = _moment_rx()
    expanded = long_rx.sub(lambda m: _MOMENT_LONG.get(m[0], m[0]), pattern)
    toks = []
    for m in token_rx.finditer(expanded):
        s = m[0]
        if s in _MOMENT_ZONE:
            raise BadDateFormat(f"date format {pattern!r}: token {s!r} depends on the time zone")
        literal = s[1:-1] if re.match(r"\[[\s\S]", s) else s.replace("\\", "")
        toks.append(_MOMENT_TOKENS.get(s) or _lit(literal))
    return toks


# --- date-fns / Logseq -----------------------------------------------------------------------

_FNS_DATE = {1: "MM/dd/yyyy", 2: "MMM d, y", 3: "MMMM do, y", 4: "EEEE, MMMM do, y"}
_FNS_TIME = {1: "h:mm a", 2: "h:mm:ss a", 3: "h:mm:ss a z", 4: "h:mm:ss a zzzz"}


@functools.cache  # as `_moment_rx`
def _fns_rx() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """date-fns's long-format tokens, and its own ``formattingTokensRegExp`` (JavaScript's ``\\w``
    is ASCII)."""
    return regex(r"P+p+|P+|p+|''|'(?:''|[^'])+(?:'|\Z)|.", re.DOTALL), regex(
        r"[yYQqMLwIdDecihHKkms]o|([A-Za-z0-9_])\1*|''|'(?:''|[^'])+(?:'|\Z)|.", re.DOTALL
    )


_FNS_ZONE = frozenset("XxOztT")
_SOME_DAY = datetime.date(2000, 1, 1)
# letter: (value, most digits, date part it pins) for the letters that can be numbers
_FNS_NUM: dict[str, tuple[Getter, int, str | None]] = {
    "y": (_V["year"], 4, "y"),
    "Y": (_V["weekyear"], 4, None),
    "R": (_V["isoyear"], 4, None),
    "u": (_V["year"], 4, "y"),
    "Q": (_V["quarter"], 1, None),
    "q": (_V["quarter"], 1, None),
    "M": (_V["month"], 2, "m"),
    "L": (_V["month"], 2, "m"),
    "w": (_V["week"], 2, None),
    "I": (_V["isoweek"], 2, None),
    "d": (_V["day"], 2, "d"),
    "D": (_V["doy"], 3, "j"),
    "e": (_V["dow1"], 1, None),
    "c": (_V["dow1"], 1, None),
    "i": (_V["isodow"], 1, None),
    "h": (_V["twelve"], 2, None),
    "H": (_V["zero"], 2, None),
    "K": (_V["zero"], 2, None),
    "k": (_V["twentyfour"], 2, None),
    "m": (_V["zero"], 2, None),
    "s": (_V["zero"], 2, None),
    "S": (_V["zero"], 1, None),
}


def _fns_long(s: str) -> str:
    """date-fns's en-US ``P``/``p`` long formats, spliced into the pattern before tokenizing."""
    if s[0] == "p":
        return _FNS_TIME[min(len(s), 4)]
    date_part = s.rstrip("p")
    n, times = min(len(date_part), 4), len(s) - len(date_part)
    if not times:
        return _FNS_DATE[n]
    return _FNS_DATE[n] + (", " if n <= 2 else " 'at' ") + _FNS_TIME[min(times, 4)]


def _by_width(
    n: int,
    abbr: Sequence[str],
    wide: Sequence[str],
    narrow: Sequence[str],
    short: Sequence[str] | None = None,
) -> Sequence[str]:
    """date-fns's name width by letter count: 1-3 abbreviated, 5 narrow, 6 short, else wide."""
    if n <= 3:
        return abbr
    if n == 5:
        return narrow
    return short if n == 6 and short is not None else wide


def _fns_words(letter: str, n: int) -> _Tok:
    """Tokens that are words: month / weekday / quarter names, era and day period at midnight."""
    if letter in "ML":
        names = _by_width(n, _MONTH_ABBR, MONTHS, _MONTH_NARROW)
        return _text(names, _V["month0"], None if names is _MONTH_NARROW else "m")
    if letter in "Qq":
        if n == 5:
            return _num(_V["quarter"], 1, 1)
        names = [f"Q{q}" if n == 3 else f"{ordinal(q)} quarter" for q in range(1, 5)]
        return _text(names, _V["quarter0"])
    if letter in "Eeci":
        return _text(_by_width(n, _DAY_ABBR, WEEKDAYS, _DAY_NARROW, _DAY_SHORT), _V["dow"])
    if letter == "G":
        return _lit(_by_width(n, ("AD",), ("Anno Domini",), ("A",))[0])
    if letter == "a":
        return _lit({1: "AM", 2: "AM", 3: "am", 5: "a"}.get(n, "a.m."))
    return _lit("mi" if letter == "b" and n == 5 else "midnight" if letter == "b" else "at night")


def _fns_token(pattern: str, tok: str) -> _Tok:
    """The token for one run of a formatter letter (``yyyy``, ``do``, ``EEEE`` ...)."""
    letter, n = tok[0], len(tok)
    if letter in _FNS_ZONE:
        raise BadDateFormat(f"date format {pattern!r}: token {tok!r} depends on the time zone")
    if letter in "GabBE" or (n >= 3 and letter in "MLQqeci"):
        return _fns_words(letter, n)
    get, width, field = _FNS_NUM[letter]
    if tok[1:] == "o":
        made = _ord(get, field)
    else:
        made = _mod100(get) if tok in ("yy", "YY") else _num(get, n, width, field)
    return _lit(made.render(_SOME_DAY)) if letter in "hHKkmsS" else made  # midnight: constant


def _compile_logseq(pattern: str) -> list[_Tok]:
    """Tokens of a date-fns pattern: ``'text'`` is literal, ``''`` a quote, latin letters tokens."""
    long_rx, token_rx = _fns_rx()
    expanded = long_rx.sub(lambda m: _fns_long(m[0]) if m[0][0] in "Pp" else m[0], pattern)
    toks = []
    for m in token_rx.finditer(expanded):
        s = m[0]
        if s[0] == "'":
            toks.append(_lit("'" if s == "''" else re.sub(r"'\Z", "", s[1:]).replace("''", "'")))
        elif s[0] in _FNS_NUM or s[0] in "GabBEXxOztT":
            toks.append(_fns_token(pattern, s))
        elif s[0].isascii() and s[0].isalpha():
            raise BadDateFormat(
                f"date format {pattern!r}: unknown letter {s[0]!r} (quote text as 'text')"
            )
        else:
            toks.append(_lit(s))
    return toks


# --- the compiled pattern --------------------------------------------------------------------


def _check(pattern: str, toks: list[_Tok]) -> None:
    """Refuse a pattern whose text could not be read back into one date."""
    fields = {t.field for t in toks}
    missing = None
    if "y" not in fields:
        missing = "calendar year (4 digits)"
    elif "j" not in fields and not {"m", "d"} <= fields:
        missing = "month" if "d" in fields else "day of the month"
    if missing:
        raise BadDateFormat(f"date format {pattern!r} has no {missing}: it cannot name one day")
    if _ambiguous(toks):
        raise BadDateFormat(
            f"date format {pattern!r} is ambiguous: two numbers of varying "
            "width touch (pad them, e.g. MM and DD, or put a separator between)"
        )


def _ambiguous(toks: list[_Tok]) -> bool:
    """True if a run of touching digit tokens holds two of varying width and pins a date part."""
    varying, pins, prev_digit = 0, False, False
    for t in toks:
        if not (prev_digit and t.digit_ends[0]):
            varying, pins = 0, False
        varying += not t.fixed
        pins = pins or t.field is not None
        if varying >= 2 and pins:
            return True
        prev_digit = t.digit_ends[1]
    return False


def _part(text: str) -> int:
    """The number a date-part token wrote: its digits, or the month its name names."""
    digits = re.sub(r"[^0-9]", "", text)
    return int(digits) if digits else _MONTH_NUMBER.get(text.lower(), 0)


class DateFormat:
    """A compiled date pattern of Obsidian (``moment``) or Logseq (``logseq``, date-fns letters).

    Construction raises ``BadDateFormat`` (naming the pattern and the problem) for an unusable
    pattern: empty, a latin letter date-fns rejects (dialect ``logseq``), a time-zone token, or
    no calendar year / month / day-of-month (or day-of-year), so that every text it writes can be
    read back into exactly one date.
    """

    __slots__ = ("_rx", "_rx_fold", "_toks", "dialect", "pattern")

    def __init__(self, pattern: str, dialect: Dialect, *, names_a_day: bool = True) -> None:
        if dialect not in ("moment", "logseq"):
            raise ValueError(f"unknown date format dialect {dialect!r}")
        if not pattern:
            raise BadDateFormat(f"date format {pattern!r} is empty")
        self.pattern, self.dialect = pattern, dialect
        toks = _compile_moment(pattern) if dialect == "moment" else _compile_logseq(pattern)
        self._toks = [t for t in toks if t.rx]
        if names_a_day:  # a journal name must read back into its day; a template's text need not
            _check(pattern, self._toks)
        body = "".join(f"({t.rx})" for t in self._toks)
        self._rx, self._rx_fold = regex(body), regex(body, re.IGNORECASE)

    def __repr__(self) -> str:
        return f"DateFormat({self.pattern!r}, {self.dialect!r})"

    def format(self, d: datetime.date) -> str:
        """The text the app writes for day ``d`` (a `datetime` gives its time tokens too)."""
        return "".join(t.render(d) for t in self._toks)

    def parse(self, text: str, fold_case: bool = False) -> datetime.date | None:
        """Strict inverse of ``format``: the date whose ``format`` is ``text`` exactly, else None.

        So 'Nov 29th, 2026' parses with 'MMM do, yyyy' and 'Nov 29, 2026' does not. With
        ``fold_case`` any letter case is accepted ('nov 29TH, 2026'), as Logseq capitalises the
        words of a title before parsing it.
        """
        m = (self._rx_fold if fold_case else self._rx).fullmatch(text)
        d = self._date(m.groups()) if m else None
        if d is None:
            return None
        out = self.format(d)
        return d if out == text or (fold_case and out.lower() == text.lower()) else None

    def _date(self, groups: Sequence[str]) -> datetime.date | None:
        """The date the date-part tokens name (first of each kind); None if there is none."""
        got: dict[str, int] = {}
        for tok, s in zip(self._toks, groups, strict=True):
            if tok.field and tok.field not in got:
                got[tok.field] = _part(s)
        try:
            if "m" in got and "d" in got:
                return datetime.date(got["y"], got["m"], got["d"])
            return datetime.date(got["y"], 1, 1) + datetime.timedelta(days=got["j"] - 1)
        except (ValueError, OverflowError):
            return None
