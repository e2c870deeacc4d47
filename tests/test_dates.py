"""Tests of journal_agent.dates against the real libraries (moment.js, date-fns via node).

The oracle (tests/oracle/dates.js) is run once per session for every pattern below over a sweep of
dates; a missing node or node_modules fails the run on purpose: CI installs them.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journal_agent.dates import DateFormat, ordinal, roam_title
from journal_agent.errors import BadDateFormat

ORACLE = Path(__file__).parent / "oracle"

# Journal formats seen in real Logseq graphs, and those Logseq itself lists as journal titles
# (frontend.date/journal-title-formatters). cljs-time, which Logseq formats with, writes the same
# text as date-fns for all of these.
LOGSEQ_REAL = [
    "MMM do, yyyy",
    "yyyy_MM_dd",
    "yyyy-MM-dd",
    "yyyyMMdd",
    "do MMM yyyy",
    "MMMM do, yyyy",
    "E, dd-MM-yyyy",
    "EEE, dd-MM-yyyy",
    "EEEE, yyyy/MM/dd",
    "yyyy/MM/dd",
    "dd-MM-yyyy",
    "MM/dd/yyyy",
    "dd.MM.yyyy",
    "yyyy年MM月dd日",
    "MMM dd, yyyy",
    "do MMMM yyyy",
    "E, dd.MM.yyyy",
    "E, MM/dd/yyyy",
    "E, yyyy/MM/dd",
    "EEE, dd.MM.yyyy",
    "EEE, MM/dd/yyyy",
    "EEE, yyyy/MM/dd",
    "EEEE, dd-MM-yyyy",
    "EEEE, dd.MM.yyyy",
    "EEEE, MM/dd/yyyy",
    "MM-dd-yyyy",
    "MM_dd_yyyy",
    "yyyy-MM-dd EEEE",
]
# Every date-fns token we render, compared with date-fns itself. Where cljs-time differs (D, Y,
# w, a, Mo ...; see the module docstring) the oracle is date-fns, as for Logseq plugins.
LOGSEQ_TOKENS = [
    "yyyy-MM-dd y yy yyy yyyyy yo",
    "yyyy-MM-dd Y YY YYY YYYY Yo R RR RRRR RRRRR u uuuu",
    "yyyy-MM-dd Q QQ Qo QQQ QQQQ QQQQQ q qq qo qqq qqqq qqqqq",
    "yyyy-MM-dd M Mo MMMMM MMMMMM L LL Lo LLL LLLL LLLLL",
    "yyyy-MM-dd w ww wo www I II Io",
    "yyyy-MM-dd d do ddd D DD DDD Do DDDD",
    "yyyy-MM-dd E EE EEE EEEE EEEEE EEEEEE EEEEEEE",
    "yyyy-MM-dd e ee eo eee eeee eeeee eeeeee c cc co ccc cccc ccccc cccccc",
    "yyyy-MM-dd i ii io iii iiii iiiii iiiiii",
    "yyyy-MM-dd G GG GGG GGGG GGGGG",
    "yyyy-MM-dd a aa aaa aaaa aaaaa b bb bbb bbbb bbbbb B BBBB BBBBB",
    "yyyy-MM-dd h hh ho H HH Ho K KK Ko k kk ko m mm mo s ss so S SS SSS",
    "P",
    "PP",
    "PPP",
    "PPPP",
    "PPPPP",
    "P p",
    "P pp",
    "Pp",
    "PPpp",
    "PPPp",
    "PPPPpp",
    "yyyy-MM-dd 'quoted' '''text''' 'it''s' _ 1 2 ,.-/ 'a''''b'",
    "'unclosed yyyy' yyyy-MM-dd 'tail",
    "yyyy-DDD",
    "DDD/yyyy",
    "Do 'day of' yyyy",
    "MMMMd, yyyy",
    "yyyyMMdd HHmmss",
    "yyyyMMddHH",
]
# Patterns date-fns throws on (unescaped latin letters that are no token): refused likewise.
LOGSEQ_LIBRARY_REJECTS = [
    "yyyy-MM-dd foo",
    "yyyy-MM-dd A",
    "yyyy-MM-dd Ro",
    "Month dd yyyy",
    "yyyy-MM-dd Eo",
    "yyyy-MM-dd 'ok' j",
]
# Daily-note formats Obsidian users set.
MOMENT_REAL = [
    "YYYY-MM-DD",
    "YYYY/MM/YYYY-MM-DD",
    "YYYY/MMMM/YYYY-MMM-DD",
    "DD-MM-YYYY",
    "YYYY-MM-DD dddd",
    "dddd, MMMM Do YYYY",
    "YYYYMMDD",
    "MMM D, YYYY",
    "[Daily] YYYY-MM-DD",
]
MOMENT_TOKENS = [
    "YYYY-MM-DD Y YY YYYYY YYYYYY",
    "YYYY-MM-DD y yo yy yyy yyyy yyyyy N NN NNN NNNN NNNNN",
    "YYYY-MM-DD Q Qo M Mo MMM MMMM",
    "YYYY-MM-DD D Do DDD DDDD DDDo DDo",
    "YYYY-MM-DD d do dd ddd dddd ddddd e E",
    "YYYY-MM-DD w ww wo W WW Wo w| W| gg gggg ggggg GG GGGG GGGGG",
    "YYYY-MM-DD H HH h hh k kk m mm s ss a A S SS SSS SSSSSSSSS Hmm Hmmss hmm hmmss eHHmm z zz",
    "L",
    "LL",
    "LLL",
    "LLLL",
    "l",
    "ll",
    "lll",
    "llll",
    "L LT LTS",
    "LLLLL",
    "[Week] YYYY-MM-DD [in [brackets]] \\Y\\M \\[\\x\\] [unclosed",
    "YYYY-MM-DD fjqibBcCfFjJOpPrRtTuUvV",
    "YYYY-DDDD",
    "DDDo [day of] YYYY",
    "MMMMD, YYYY",
    "YYYYMMDDHHmmss",
    "DD/MM/YY YYYY",
]
# Refused by us though the library formats them: no calendar year + month + day, time zone,
# or touching numbers of varying width.
REFUSED = [
    ("moment", "YYYY-[W]WW-E"),
    ("moment", "gggg-[W]ww-DD"),
    ("moment", "YY-MM-DD"),
    ("moment", "MM-DD"),
    ("moment", "YYYY-MM"),
    ("moment", "YYYYMD"),
    ("moment", "YYYY-MM-DD Z"),
    ("moment", "YYYY-MM-DD X"),
    ("moment", "LT"),
    ("moment", ""),
    ("moment", "[YYYY-MM-DD]"),
    ("logseq", ""),
    ("logseq", "yy-MM-dd"),
    ("logseq", "MM-dd"),
    ("logseq", "yyyy-MM"),
    ("logseq", "yMd"),
    ("logseq", "yyyyMd"),
    ("logseq", "YYYY-MM-dd"),
    ("logseq", "RRRR-'W'II-i"),
    ("logseq", "yyyy-MM-dd X"),
    ("logseq", "yyyy-MM-dd ppp"),
    ("logseq", "yyyy-MM-dd T"),
    ("logseq", "'yyyy-MM-dd'"),
] + [("logseq", p) for p in LOGSEQ_LIBRARY_REJECTS]

ACCEPTED = [("logseq", p) for p in LOGSEQ_REAL + LOGSEQ_TOKENS] + [
    ("moment", p) for p in MOMENT_REAL + MOMENT_TOKENS
]


def sweep_dates() -> list[dt.date]:
    """Every day of 2024 and 2025, year ends and starts of 2015-2030, and a few edge days."""
    days = {dt.date(2024, 1, 1) + dt.timedelta(n) for n in range(731)}
    for year in range(2015, 2031):
        days |= {dt.date(year, 1, d) for d in range(1, 8)}
        days |= {dt.date(year, 12, d) for d in range(25, 32)}
    days |= {
        dt.date(1999, 12, 31),
        dt.date(2000, 1, 1),
        dt.date(2020, 2, 29),
        dt.date(2026, 11, 29),
        dt.date(2038, 1, 19),
    }
    return sorted(days)


DATES = sweep_dates()


@pytest.fixture(scope="session")
def oracle() -> dict[str, dict[str, list[str | None]]]:
    """{dialect: {pattern: [library output per date of DATES]}}, from one node run."""
    node = shutil.which("node")
    missing = [m for m in ("moment", "date-fns") if not (ORACLE / "node_modules" / m).is_dir()]
    if node is None:
        pytest.fail(
            "date oracle unavailable: `node` is not on PATH (install Node.js 20+)", pytrace=False
        )
    if missing:
        pytest.fail(
            f"date oracle unavailable: no {', '.join(missing)} in {ORACLE}/node_modules"
            f" (run `npm ci` in {ORACLE})",
            pytrace=False,
        )
    days = [d.isoformat() for d in DATES]
    requests = [
        {
            "dialect": "date-fns",
            "patterns": LOGSEQ_REAL + LOGSEQ_TOKENS + LOGSEQ_LIBRARY_REJECTS,
            "dates": days,
        },
        {"dialect": "moment", "patterns": MOMENT_REAL + MOMENT_TOKENS, "dates": days},
    ]
    run = subprocess.run(
        [node, str(ORACLE / "dates.js")],
        input=json.dumps(requests),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ORACLE,
        env={**os.environ, "TZ": "UTC"},
        check=False,
    )
    if run.returncode != 0:
        pytest.fail(f"date oracle failed ({run.returncode}): {run.stderr[-2000:]}", pytrace=False)
    fns, mom = json.loads(run.stdout)
    return {"logseq": fns, "moment": mom}


@pytest.mark.parametrize(("dialect", "pattern"), ACCEPTED)
def test_format_matches_library(oracle, dialect, pattern):
    fmt = DateFormat(pattern, dialect)
    expected = oracle[dialect][pattern]
    wrong = [
        (d.isoformat(), want, fmt.format(d))
        for d, want in zip(DATES, expected, strict=True)
        if fmt.format(d) != want
    ]
    assert not wrong, f"{len(wrong)} of {len(DATES)} differ; (date, library, ours): {wrong[:5]}"


@pytest.mark.parametrize("pattern", LOGSEQ_LIBRARY_REJECTS)
def test_refused_like_date_fns(oracle, pattern):
    assert oracle["logseq"][pattern] == [None] * len(DATES)
    with pytest.raises(BadDateFormat, match="unknown letter"):
        DateFormat(pattern, "logseq")


@pytest.mark.parametrize(("dialect", "pattern"), REFUSED)
def test_bad_patterns_refused(dialect, pattern):
    with pytest.raises(BadDateFormat) as caught:
        DateFormat(pattern, dialect)
    assert repr(pattern) in str(caught.value)


def test_unknown_dialect_is_a_programming_error():
    with pytest.raises(ValueError):
        DateFormat("yyyy-MM-dd", "strftime")  # type: ignore[arg-type]


@settings(database=None, max_examples=300, deadline=None)
@given(st.sampled_from(ACCEPTED), st.dates(dt.date(1900, 1, 1), dt.date(2100, 12, 31)))
def test_parse_inverts_format(case, day):
    fmt = DateFormat(*reversed(case))
    text = fmt.format(day)
    assert fmt.parse(text) == day
    assert fmt.parse(text.upper(), fold_case=True) == day
    assert fmt.parse(text.lower(), fold_case=True) == day


@settings(database=None, max_examples=300, deadline=None)
@given(
    st.sampled_from(ACCEPTED),
    st.dates(dt.date(1900, 1, 1), dt.date(2100, 12, 31)),
    st.integers(0, 60),
    st.sampled_from(["", "0", "1", "9", " ", "x", "th", "-", "Nov"]),
    st.integers(0, 2),
)
def test_parse_is_strict(case, day, at, insert, cut):
    """A mangled text parses only to a date that formats to exactly that text."""
    fmt = DateFormat(*reversed(case))
    text = fmt.format(day)
    at %= len(text) + 1
    mangled = text[:at] + insert + text[at + cut :]
    got = fmt.parse(mangled)
    assert got is None or fmt.format(got) == mangled
    folded = fmt.parse(mangled, fold_case=True)
    assert folded is None or fmt.format(folded).lower() == mangled.lower()


@pytest.mark.parametrize(
    ("dialect", "pattern", "text"),
    [
        ("logseq", "MMM do, yyyy", "Nov 29, 2026"),
        ("logseq", "MMM do, yyyy", "Nov 29nd, 2026"),
        ("logseq", "MMM do, yyyy", "nov 29th, 2026"),
        ("logseq", "MMM do, yyyy", "Nov 31st, 2026"),
        ("logseq", "MMM do, yyyy", "Nov 29th, 2026 "),
        ("logseq", "MMM do, yyyy", "November 29th, 2026"),
        ("logseq", "yyyy_MM_dd", "2026_11_9"),
        ("logseq", "yyyy_MM_dd", "2026-11-29"),
        ("logseq", "yyyy_MM_dd", "2026_02_29"),
        ("logseq", "yyyy_MM_dd", "2026_13_01"),
        ("logseq", "yyyyMMdd", "2026112"),
        ("logseq", "E, dd-MM-yyyy", "Mon, 29-11-2026"),
        ("logseq", "yyyy年MM月dd日", "2026年11月29"),
        ("logseq", "yyyy-DDD", "2026-366"),
        ("moment", "YYYY-MM-DD", "2026-11-29.md"),
        ("moment", "YYYY-MM-DD", "26-11-29"),
        ("moment", "MMM D, YYYY", "Nov 09, 2026"),
        ("moment", "dddd, MMMM Do YYYY", "sunday, november 29th 2026"),
        ("moment", "[Daily] YYYY-MM-DD", "daily 2026-11-29"),
        ("moment", "YYYY/MM/YYYY-MM-DD", "2025/11/2026-11-29"),
    ],
)
def test_parse_rejects_near_misses(dialect, pattern, text):
    assert DateFormat(pattern, dialect).parse(text) is None


@pytest.mark.parametrize(
    ("dialect", "pattern", "text", "day"),
    [
        ("logseq", "MMM do, yyyy", "Nov 29th, 2026", dt.date(2026, 11, 29)),
        ("logseq", "yyyy_MM_dd", "2024_02_29", dt.date(2024, 2, 29)),
        ("logseq", "E, dd-MM-yyyy", "Sun, 29-11-2026", dt.date(2026, 11, 29)),
        ("logseq", "yyyy年MM月dd日", "2026年11月29日", dt.date(2026, 11, 29)),
        ("logseq", "yyyy-DDD", "2024-366", dt.date(2024, 12, 31)),
        ("moment", "YYYY/MMMM/YYYY-MMM-DD", "2026/November/2026-Nov-29", dt.date(2026, 11, 29)),
        ("moment", "[Daily] YYYY-MM-DD", "Daily 2026-11-29", dt.date(2026, 11, 29)),
    ],
)
def test_parse_exact(dialect, pattern, text, day):
    assert DateFormat(pattern, dialect).parse(text) == day


@pytest.mark.parametrize(
    ("dialect", "pattern", "text"),
    [
        ("logseq", "MMM do, yyyy", "nov 29th, 2026"),
        ("logseq", "MMM do, yyyy", "NOV 29TH, 2026"),
        ("logseq", "MMM do, yyyy", "Nov 29Th, 2026"),
        ("logseq", "EEEE, yyyy/MM/dd", "sunday, 2026/11/29"),
        ("moment", "dddd, MMMM Do YYYY", "sunday, november 29th 2026"),
        ("moment", "[Daily] YYYY-MM-DD", "DAILY 2026-11-29"),
    ],
)
def test_parse_fold_case(dialect, pattern, text):
    fmt = DateFormat(pattern, dialect)
    assert fmt.parse(text, fold_case=True) == dt.date(2026, 11, 29)
    assert fmt.parse(text) is None


@pytest.mark.parametrize(
    ("dialect", "pattern", "text"),
    [
        ("logseq", "EEEE, yyyy/MM/dd", "sunday, 2026/11/28"),
        ("logseq", "MMM do, yyyy", "nov 29ST, 2026"),
        ("moment", "dddd, MMMM Do YYYY", "SATURDAY, NOVEMBER 29TH 2026"),
        ("moment", "[Daily] YYYY-MM-DD", "Weekly 2026-11-29"),
    ],
)
def test_parse_fold_case_is_still_strict(dialect, pattern, text):
    assert DateFormat(pattern, dialect).parse(text, fold_case=True) is None


def test_pattern_and_dialect_kept():
    fmt = DateFormat("MMM do, yyyy", "logseq")
    assert (fmt.pattern, fmt.dialect) == ("MMM do, yyyy", "logseq")
    assert "MMM do, yyyy" in repr(fmt)


@pytest.mark.parametrize(
    ("day", "title"),
    [
        (dt.date(2026, 11, 29), "November 29th, 2026"),
        (dt.date(2026, 1, 1), "January 1st, 2026"),
        (dt.date(2026, 2, 22), "February 22nd, 2026"),
        (dt.date(2026, 3, 13), "March 13th, 2026"),
        (dt.date(2026, 5, 23), "May 23rd, 2026"),
        (dt.date(2038, 1, 19), "January 19th, 2038"),
    ],
)
def test_roam_title(day, title):
    assert roam_title(day) == title


def test_roam_title_is_logseq_mmmm_do_yyyy():
    fmt = DateFormat("MMMM do, yyyy", "logseq")
    for day in DATES:
        assert roam_title(day) == fmt.format(day)


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0th"),
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (23, "23rd"),
        (31, "31st"),
        (100, "100th"),
        (101, "101st"),
        (111, "111th"),
        (112, "112th"),
        (2026, "2026th"),
    ],
)
def test_ordinal(n, text):
    assert ordinal(n) == text


def test_module_uses_only_the_standard_library():
    """dates.py must import fast and carry no dependency: stdlib, our errors, our pattern
    cache and our named tuples (themselves stdlib only) only."""
    tree = ast.parse((Path(__file__).parents[1] / "journal_agent" / "dates.py").read_text("utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert names <= {
        "__future__",
        "datetime",
        "functools",
        "re",
        "collections.abc",
        "typing",
        "journal_agent.errors",
        "journal_agent.patterns",
        "journal_agent.records",
    }
