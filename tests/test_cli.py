"""The command line: exact output, exit codes and one-line errors (the CLI contract)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import journal_agent
from journal_agent.cli import COMMANDS, main, parser, plain_args
from journal_agent.errors import JournalAgentError

from .conftest import FIXTURE_VAULTS, SAMPLE_VAULT, pin_today, snapshot


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"journal-agent {journal_agent.__version__}\n"


def test_help_has_an_example_for_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name, cmd in COMMANDS.items():
        assert cmd.help in text and cmd.example in text
        assert cmd.example.startswith(f"journal-agent {name}")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([name, "--help"])
    text = capsys.readouterr().out
    cmd = COMMANDS[name]
    assert cmd.help and cmd.example in " ".join(text.split())
    assert "--vault" in text and "--json" in text


def test_pages_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "pages", "--vault", str(SAMPLE_VAULT), "--json")
    assert (code, err) == (0, "")
    pages = json.loads(out)["pages"]
    assert {
        "title": "Atlas Migration",
        "path": "pages/Atlas Migration.md",
        "aliases": ["Atlas", "Project Atlas"],
    } in pages
    assert {"title": "Nov 24th, 2026", "path": "journals/2026_11_24.md", "aliases": []} in pages
    assert set(json.loads(out)) == {"pages"}


def test_topics_leave_logseqs_own_pages_out_unless_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("topics", "--vault", str(SAMPLE_VAULT), "--as-of", "2026-11-29", "--json")
    code, out, _ = run(capsys, *args)
    shown = {t["topic"] for t in json.loads(out)["topics"]}
    assert code == 0 and "Atlas Migration" in shown
    assert not shown & {"DONE", "TODO", "Contents", "type", "role", "Nov 24th, 2026", "Atlas"}
    code, out, _ = run(capsys, *args, "--all-pages")
    everything = {t["topic"] for t in json.loads(out)["topics"]}
    assert code == 0 and {"DONE", "TODO", "Contents", "type", "role"} <= everything
    assert not everything & {"Nov 24th, 2026", "Atlas"}  # journal pages and aliases never
    code, out, _ = run(capsys, "stale", *args[1:], "--all-pages")
    assert code == 0 and "TODO" in {t["topic"] for t in json.loads(out)["threads"]}


def test_a_name_several_notes_share_is_refused_with_their_paths(
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = str(FIXTURE_VAULTS / "obsidian_rules" / "duplicate_names")
    code, out, err = run(capsys, "status", "Meeting", "--vault", vault)
    assert (code, out) == (2, "")
    assert err == (
        "journal-agent: 'Meeting' names 3 notes: Home/Meeting.md, Work/Meeting.md, "
        "Archive/Old/Meeting.md; give the path of the one you mean\n"
    )
    code, out, _ = run(capsys, "status", "Work/Meeting.md", "--vault", vault, "--json")
    assert code == 0 and json.loads(out)["path"] == "Work/Meeting.md"


def test_pages_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "pages", "--vault", str(SAMPLE_VAULT))
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["title", "path", "aliases"]
    row = next(line for line in lines if line.startswith("Projects/Atlas Dashboard "))
    assert row.split("  ")[-1].strip() == "pages/Projects___Atlas Dashboard.md"


def test_info(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "info", "--vault", str(SAMPLE_VAULT), "--date", "2026-11-24", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["journal_page"] == "journals/2026_11_24.md"
    assert data["journal_title"] == "Nov 24th, 2026" and data["journal_exists"] is True


def test_vault_from_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOURNAL_AGENT_VAULT", str(SAMPLE_VAULT))
    code, out, _ = run(capsys, "info", "--date", "2026-11-29", "--json")
    assert code == 0 and json.loads(out)["flavor"] == "logseq"


def test_missing_vault_is_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "pages", "--vault", str(tmp_path / "nope"))
    assert (code, out) == (2, "")
    assert err == f"journal-agent: {tmp_path / 'nope'}: no such folder\n"


def test_bad_date_is_refused_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "info", "--vault", str(SAMPLE_VAULT), "--date", "29/11/2026")
    assert code == 2
    assert err == "journal-agent: date '29/11/2026' is not a day in the form YYYY-MM-DD\n"


def test_unreadable_page_is_a_warning_on_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "journals").mkdir()
    (tmp_path / "note.md").write_bytes(b"caf\xe9\n")
    code, out, err = run(capsys, "pages", "--vault", str(tmp_path), "--json")
    assert code == 0 and json.loads(out) == {"pages": []}
    assert err == (
        "journal-agent: warning: note.md: not UTF-8 text (invalid byte at offset 3); skipped\n"
    )


@pytest.mark.parametrize("command", ["topics", "stale"])
def test_a_vault_without_pages_lists_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    """A new vault (a journals folder, no page yet) is listed as empty, with its cache built
    and then read: an empty graph once raised AttributeError as its side file was written."""
    (tmp_path / "journals").mkdir()
    (tmp_path / "journals" / ".keep.txt").write_text("")
    key = "topics" if command == "topics" else "threads"
    for _ in range(2):  # built, then read
        code, out, err = run(capsys, command, "--vault", str(tmp_path), "--json")
        assert (code, err) == (0, "") and json.loads(out)[key] == []


def test_console_script_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "journal_agent", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith("journal-agent ")


def test_every_command_is_one_declaration_with_a_docstring_help() -> None:
    for name, cmd in COMMANDS.items():
        assert cmd.run.__doc__ and cmd.help == cmd.run.__doc__.strip().splitlines()[0], name
    assert parser().prog == "journal-agent"


def test_the_parser_of_one_command_parses_as_the_whole() -> None:
    """`main` builds only the command it runs: its help, its errors and what it parses are
    those of the parser of every command."""
    for name in COMMANDS:
        for words in ([name, "--help"], [name, "--no-such-option"], [name]):
            said = []
            for built in (parser(), parser(name)):
                out, err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    try:
                        got: object = vars(built.parse_args(words))
                    except SystemExit as exc:  # help
                        got = exc.code
                    except JournalAgentError as exc:  # what the CLI says of bad arguments
                        got = str(exc)
                said.append((got, out.getvalue(), err.getvalue()))
            assert said[0] == said[1], words
    assert parser().parse_args(["related", "Atlas"]).command == "related"
    with pytest.raises(JournalAgentError, match="invalid choice"):
        parser("stale").parse_args(["related", "Atlas"])  # the one command alone


#: Words an argument list is made of: every command's options (and some it does not have,
#: abbreviated or joined to a value), values of every kind argparse takes or refuses, and words
#: it reads in its own ways ("-", "--", negative numbers, a space after a dash).
_OPTIONS = sorted(
    {flag for cmd in COMMANDS.values() for a in cmd.args for flag in a.flags if flag[0] == "-"}
    | {"--vault", "--json", "--help", "-h", "--ag", "--agent=x", "--days=3", "--version", "--"}
)
_VALUES = ["x", "Atlas", "", " ", "-", "-1", "-x y", "3", "2.5", "nan", " 7 ", "1e3", "note"]
_VALUES += ["decision", "resolution", "stale", "list", "flush", "fix", "claude-code", "Stop"]
_ARGUMENTS = st.lists(
    st.one_of(
        st.sampled_from(_OPTIONS + _VALUES).map(lambda word: [word]),
        st.tuples(st.sampled_from(_OPTIONS), st.sampled_from(_VALUES)).map(list),
    ),
    max_size=5,
).map(lambda pieces: [word for piece in pieces for word in piece])


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(sorted(COMMANDS)), _ARGUMENTS)
def test_plain_arguments_are_read_as_the_parser_reads_them(name: str, words: list[str]) -> None:
    """`plain_args` reads what argparse reads the same, or leaves it to argparse (None): for
    every command, and argument lists of its options, values and positional words in any
    order, with forms argparse reads in its own ways among them."""
    argv = [name, *words]
    plain = plain_args(argv)
    if plain is None:
        return
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert vars(plain) == vars(parser(name).parse_args(argv)), argv
    assert (out.getvalue(), err.getvalue()) == ("", "")


@pytest.mark.parametrize(
    "argv",
    [
        ["append", "--vault", "V", "--agent", "bench", "--date", "2026-11-29", "A [[b]]", "c"],
        ["context", "--vault", "V", "--agent", "claude", "--json"],
        ["hook", "claude-code", "SessionStart", "--vault", "V", "--budget", "2.5"],
        ["note", "--agent", "codex", "one", "two"],
        ["status", "Atlas Migration", "--days", "30", "--no-cache"],
        ["pending", "list", "--json"],
    ],
)
def test_a_command_in_the_plain_form_is_read_without_argparse(argv: list[str]) -> None:
    """The forms hooks and scripts write are read by `plain_args`, in a process that does not
    import argparse, as argparse reads them."""
    program = (
        "import sys; from journal_agent.cli import plain_args; args = plain_args(sys.argv[1:]);"
        " print(sorted(vars(args).items()) if args else None, 'argparse' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, *argv], capture_output=True, text=True, check=True
    )
    expected = sorted(vars(parser(argv[0]).parse_args(argv)).items())
    assert done.stdout == f"{expected} False\n"


def test_hook_commands_import_nothing_heavy() -> None:
    """Start-up stays fast: importing the package must not pull yaml, edn, networkx, httpx..."""
    code = (
        "import sys, journal_agent.cli; heavy = {'yaml', 'edn_format', 'networkx', 'httpx',"
        " 'mistune', 'watchdog', 'rapidfuzz', 'dateutil'}; print(sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "argv",
    [
        ["append", "--agent", "bench", "A note on [[Atlas Migration]]"],
        ["context", "--agent", "claude", "--as-of", "2026-11-29"],
    ],
)
def test_a_hook_command_imports_no_typing_argparse_or_platformdirs(
    argv: list[str], logseq_vault: Path, tmp_path: Path
) -> None:
    """What a session hook runs, once the caches are warm, imports neither `typing` (5 ms,
    `records.NamedTuple`), argparse (`plain_args`) nor platformdirs (`cachedir.user_folder`),
    with the user's folders found as a person's are (no ``JOURNAL_AGENT_*`` settings)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOURNAL_AGENT_")}
    env |= {
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "JOURNAL_AGENT_BACKGROUND": "0",
    }
    program = (
        "import sys; from journal_agent import quick; code = quick.main(sys.argv[1:]);"
        " print(code, sorted({'typing', 'argparse', 'platformdirs'} & set(sys.modules)),"
        " file=sys.stderr)"
    )
    words = [*argv, "--vault", str(logseq_vault)]
    said = [
        subprocess.run(
            [sys.executable, "-c", program, *words], env=env, capture_output=True, text=True
        ).stderr.splitlines()[-1]
        for _ in range(2)
    ]
    assert said[1] == "0 []", said


def test_stale_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "stale", "--vault", str(SAMPLE_VAULT), "--as-of", "2026-11-29")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "7 stale thread(s) as of 2026-11-29 (silent > 21 days)"
    code, out, _ = run(
        capsys,
        "stale",
        "--vault",
        str(SAMPLE_VAULT),
        "--as-of",
        "2026-11-29",
        "--days",
        "30",
        "--json",
    )
    data = json.loads(out)
    assert (data["as_of"], data["days"]) == ("2026-11-29", 30)
    assert [t["topic"] for t in data["threads"]][:2] == [
        "Designing Data-Intensive Applications",
        "Onboarding: first week",
    ]


def test_status_topics_timeline_related(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    vault = ["--vault", str(SAMPLE_VAULT), "--as-of", "2026-11-29"]
    code, out, _ = run(capsys, "status", "flaky ci", *vault)
    assert (code, out) == (
        0,
        "Flaky CI: resolved, last mentioned 2026-11-10 (19 days ago), 8 mention(s)\n",
    )
    code, out, _ = run(capsys, "topics", *vault, "--json")
    assert json.loads(out)["topics"][0]["topic"] == "Atlas Migration"
    html = tmp_path / "t.html"
    code, out, _ = run(capsys, "timeline", "Vendor Contract", *vault, "--html", str(html))
    assert code == 0 and out.startswith("Vendor Contract (pages/Vendor Contract.md)\n2026-10-02")
    assert "<h1>Vendor Contract</h1>" in html.read_text()
    code, out, _ = run(capsys, "related", "Vendor Contract", *vault)
    assert "Omar Haddad (stale)" in out


def test_unknown_topic_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "status", "Atlas Migratoin", "--vault", str(SAMPLE_VAULT))
    assert code == 2
    assert err.startswith("journal-agent: 'Atlas Migratoin' is not a page of this vault (did you")


def test_append_from_stdin(
    capsys: pytest.CaptureFixture[str], logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    pin_today(monkeypatch, "2026-11-29")  # the one day whose page an append may create
    monkeypatch.setattr("sys.stdin", io.StringIO("first [[Grafana]]\n\nsecond\n"))
    code, out, _ = run(
        capsys,
        "append",
        "--vault",
        str(logseq_vault),
        "--agent",
        "codex",
        "--date",
        "2026-11-29",
        "--session",
        "s1",
        "--json",
        "-",
    )
    assert code == 0
    assert json.loads(out) == {
        "page": "Nov 29th, 2026",
        "path": "journals/2026_11_29.md",
        "written": ["first [[Grafana]]", "second"],
        "duplicates": [],
        "refused": [],
        "created": True,
    }
    page = (logseq_vault / "journals" / "2026_11_29.md").read_text()
    assert page == "- codex log\n\t- first [[Grafana]]\n\t- second\n"
    ledger = (logseq_vault / ".journal-agent" / "ledger.jsonl").read_text().splitlines()
    assert [json.loads(line)["session"] for line in ledger] == ["s1", "s1"]


@pytest.mark.parametrize("bytes_in", [False, True])  # a text stream (embedding), or the bytes
@pytest.mark.parametrize(
    "sep", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]
)
def test_stdin_splits_bullets_at_line_ends_only(
    capsys: pytest.CaptureFixture[str],
    logseq_vault: Path,
    monkeypatch: pytest.MonkeyPatch,
    sep: str,
    bytes_in: bool,
) -> None:
    """A bullet holding another line break reaches the guard whole and is refused, as the same
    text given as an argument is; \\r\\n and \\r end lines."""

    def stdin(text: str) -> io.TextIOBase:
        return io.TextIOWrapper(io.BytesIO(text.encode())) if bytes_in else io.StringIO(text)

    pin_today(monkeypatch, "2026-11-29")  # the one day whose page an append may create
    page = logseq_vault / "journals" / "2026_11_29.md"
    where = ["--vault", str(logseq_vault), "--date", "2026-11-29", "--json"]
    text = f"Moved cut-over{sep}to Friday [[Grafana]]"
    monkeypatch.setattr("sys.stdin", stdin(text + "\n"))
    piped = run(capsys, "append", *where, "-")
    assert piped == run(capsys, "append", *where, text)
    assert piped[0] == 2 and not page.exists()
    assert [r["bullet"] for r in json.loads(piped[1])["refused"]] == [text]
    monkeypatch.setattr("sys.stdin", stdin("one [[Grafana]]\r\ntwo\rthree\n"))
    code, out, _ = run(capsys, "append", *where, "-")
    assert code == 0 and json.loads(out)["written"] == ["one [[Grafana]]", "two", "three"]


@pytest.mark.parametrize("day", ["1999-01-01", "9999-12-31"])
def test_append_creates_no_page_but_todays(
    capsys: pytest.CaptureFixture[str], logseq_vault: Path, day: str
) -> None:
    before = snapshot(logseq_vault)
    code, out, err = run(capsys, "append", "--vault", str(logseq_vault), "--date", day, "x")
    assert (code, out) == (2, "")
    assert err.startswith(
        f"journal-agent: journals/{day.replace('-', '_')}.md: there is no journal page of {day}, "
        "and journal-agent creates only today's ("
    )
    assert err.count("\n") == 1 and err.endswith("nothing was written\n")
    assert snapshot(logseq_vault) == before


def test_append_refusal_json_and_exit_2(
    capsys: pytest.CaptureFixture[str], logseq_vault: Path
) -> None:
    code, out, err = run(
        capsys,
        "append",
        "--vault",
        str(logseq_vault),
        "--date",
        "2026-11-29",
        "--json",
        "ok",
        "about [[Nope]]",
    )
    assert code == 2
    assert json.loads(out)["refused"] == [
        {"bullet": "about [[Nope]]", "reason": "no page named 'Nope'; writing it would create one"}
    ]
    assert err.count("\n") == 1 and "nothing written" in err
    assert not (logseq_vault / "journals" / "2026_11_29.md").exists()


def test_lint_lists_problems_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], logseq_vault: Path
) -> None:
    from .conftest import snapshot

    before = snapshot(logseq_vault)
    code, out, _ = run(
        capsys,
        "lint",
        "--vault",
        str(logseq_vault),
        "--json",
        "Fixed [[Flaky CI]]",
        "see [[Atlas Migratoin]]",
        "status:: done",
    )
    assert code == 0
    problems = json.loads(out)["problems"]
    assert [(p["bullet"], p["kind"], p["name"]) for p in problems] == [
        ("see [[Atlas Migratoin]]", "unknown-page", "Atlas Migratoin"),
        ("status:: done", "property", None),
    ]
    assert problems[0]["suggestions"][0] == "Atlas Migration"
    assert snapshot(logseq_vault) == before
    code, out, _ = run(capsys, "lint", "--vault", str(logseq_vault), "Fixed [[Flaky CI]]")
    assert (code, out) == (0, "no problems: every bullet may be appended\n")


@pytest.mark.parametrize("value", ["nan", "inf", "Infinity", "1e999"])
@pytest.mark.parametrize("argv", [["pending", "flush", "--budget"], ["append", "x", "--wait"]])
def test_a_time_that_is_no_number_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], value: str
) -> None:
    """A budget or a wait of NaN or an infinity makes no deadline: refused by name, by both
    readers of the arguments (`plain_args` leaves it to argparse), and nothing is written."""
    assert plain_args([*argv, value]) is None
    code, out, err = run(capsys, *argv, value, "--vault", str(tmp_path))
    assert code == 2 and out == ""
    assert f"invalid seconds value: '{value}'" in err
    assert list(tmp_path.iterdir()) == []
