"""Reliability and safety: each case a hostile or unlucky user found, as a regression test.

Every refusal leaves every file byte-for-byte as it was and says in one line what was wrong;
nothing is written outside the vault or into a human page; nothing hangs; no traceback.
(The slow-save race harness and the fault injection have files of their own.)
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import journal_agent
from journal_agent import (
    BadAgentName,
    BadArgument,
    ConfigError,
    JournalAgentError,
    LockTimeout,
    NotAVault,
    StorageError,
    UnsafePage,
    UnsafePath,
)
from journal_agent.cli import main
from journal_agent.ledger import Ledger
from journal_agent.state import PageLock, StateDir

from .conftest import journal, pin_today, snapshot

DAY = "2026-11-29"
NOTE = "Checked [[Grafana]] dashboards"


@pytest.fixture(autouse=True)
def today_is_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """DAY is today: the one day whose journal page these appends may create."""
    pin_today(monkeypatch, DAY)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    return lines[0]


# -- 2. journal-agent's own files stay in .journal-agent/ and never follow a link ----------------


@pytest.mark.parametrize("where", ["/elsewhere/ledger.jsonl", "pages/Grafana.md"])
def test_the_vault_cannot_move_the_ledger(logseq_vault: Path, where: str) -> None:
    (logseq_vault / ".journal-agent.toml").write_text(f'ledger = "{where}"\n')
    before = snapshot(logseq_vault)
    with pytest.raises(ConfigError, match="'ledger' is not a vault setting"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    assert snapshot(logseq_vault) == before


@pytest.mark.parametrize("link", [".journal-agent", ".journal-agent/ledger.jsonl"])
def test_a_linked_state_folder_or_ledger_is_not_written_through(
    logseq_vault: Path, tmp_path: Path, link: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside if link == ".journal-agent" else outside / "ledger.jsonl"
    if link != ".journal-agent":
        (logseq_vault / ".journal-agent").mkdir()
        target.write_text("")
    (logseq_vault / link).symlink_to(target)
    page = journal(logseq_vault, DAY)
    with pytest.raises(UnsafePath, match="symbolic link"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    assert not page.exists()
    assert [p.read_text() for p in outside.rglob("*") if p.is_file()] in ([], [""])


def test_the_state_folder_moves_only_outside_the_vault(
    logseq_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOURNAL_AGENT_STATE", str(logseq_vault / "pages"))
    with pytest.raises(ConfigError, match="inside the vault"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    monkeypatch.setenv("JOURNAL_AGENT_STATE", str(tmp_path / "state"))
    journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    assert not (logseq_vault / ".journal-agent").exists()
    (folder,) = (tmp_path / "state").iterdir()
    assert (folder / "ledger.jsonl").read_text().count(NOTE) == 1


def test_a_file_where_the_state_folder_should_be_is_one_line(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (logseq_vault / ".journal-agent").write_text("not a folder")
    code, _out, err = run_cli(capsys, "append", "--vault", str(logseq_vault), "--date", DAY, NOTE)
    assert code == 1
    assert "a file is in the way" in one_line(err)
    assert not journal(logseq_vault, DAY).exists()


def test_a_ledger_that_is_a_folder_stops_the_append_before_the_page(logseq_vault: Path) -> None:
    (logseq_vault / ".journal-agent" / "ledger.jsonl").mkdir(parents=True)
    with pytest.raises(JournalAgentError, match="ledger.jsonl"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    assert not journal(logseq_vault, DAY).exists()


# -- 16. a ledger that cannot be written: nothing is written, and the reason is said ------------


def test_an_unwritable_ledger_stops_the_append_before_the_page(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.open

    def deny(path: str, flags: int, *args: object, **kw: object) -> int:
        if os.fsdecode(path).endswith("ledger.jsonl") and flags & os.O_APPEND:
            raise PermissionError(13, "Permission denied")
        return real(path, flags, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", deny)
    before = journal(logseq_vault, "2026-11-25").read_bytes()
    with pytest.raises(StorageError, match=r"ledger.jsonl: permission denied"):
        journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25")
    assert journal(logseq_vault, "2026-11-25").read_bytes() == before


# -- 3 and 10. daily templates ------------------------------------------------------------------


@pytest.mark.parametrize("template", ["/etc/hostname", "../outside", "Templates/Linked"])
def test_a_template_outside_the_vault_is_not_copied(
    obsidian_vault: Path, tmp_path: Path, template: str
) -> None:
    (tmp_path / "outside.md").write_text("SECRET from outside\n")
    (obsidian_vault / "Templates" / "Linked.md").symlink_to(tmp_path / "outside.md")
    settings = obsidian_vault / ".obsidian" / "daily-notes.json"
    settings.write_text(
        json.dumps({"folder": "Daily", "format": "YYYY-MM-DD", "template": template})
    )
    result = journal_agent.append(["Noted [[Vendor Contract]]"], vault=obsidian_vault, date=DAY)
    text = (obsidian_vault / result.path).read_text()
    assert "SECRET" not in text and "root" not in text
    assert any("template" in w for w in result.warnings)


def test_obsidian_template_time_and_week_variables(obsidian_vault: Path) -> None:
    (obsidian_vault / "Templates" / "Daily.md").write_text(
        "# {{date:YYYY}} week {{date:gggg-[W]ww}}\nat {{time:HH:mm}} {{date+1M:MMMM}} "
        "{{date:Z}}\n\n"
    )
    result = journal_agent.append(["Noted [[Vendor Contract]]"], vault=obsidian_vault, date=DAY)
    text = (obsidian_vault / result.path).read_text()
    first, second = text.splitlines()[:2]
    assert first == "# 2026 week 2026-W49"
    clock, month, zone = second.split()[1:]
    assert len(clock) == 5 and clock[2] == ":" and (month, zone) == ("December", "{{date:Z}}")


@pytest.mark.parametrize(
    "variable",
    [
        "{{date+100000y:YYYY}}",
        "{{date+99999999999999999999999d}}",
        "{{date-800000d:YYYY}}",
        "{{time-99999999999999999999s}}",
        "{{date+" + "9" * 5000 + "w}}",
    ],
)
def test_an_obsidian_template_offset_past_the_calendar_stays_as_written(
    obsidian_vault: Path, variable: str
) -> None:
    """Python's dates end at the years 1 and 9999: such an offset is a variable that cannot be
    rendered, left as written, not a failed append."""
    (obsidian_vault / "Templates" / "Daily.md").write_text(f"# {variable} {{{{date+1y:YYYY}}}}\n")
    result = journal_agent.append(["Noted [[Vendor Contract]]"], vault=obsidian_vault)
    assert result.created and result.written == ["Noted [[Vendor Contract]]"]
    first = (obsidian_vault / result.path).read_text().splitlines()[0]
    assert first.startswith(f"# {variable} ") and first[-4:].isdigit(), first


# -- 4. the agent name heads the owned block: it mints nothing ------------------------------------


@pytest.mark.parametrize(
    "agent",
    [
        "[[New Page]]",
        "claude\nx",
        "a\rb",
        "#tag",
        "key:: value",
        "((5f8f0a52-2b3c-4d5e-8f90-1a2b3c4d5e6f))",
        "- list",
        "",
        "  ",
        "evil\u202ename",
        "x" * 200,
    ],
)
def test_an_agent_name_that_would_mint_or_restructure_is_refused(
    logseq_vault: Path, agent: str
) -> None:
    before = snapshot(logseq_vault)
    with pytest.raises(BadAgentName):
        journal_agent.append([NOTE], vault=logseq_vault, agent=agent, date=DAY)
    assert snapshot(logseq_vault) == before


# -- 6. --html never writes into the vault, and never leaves a broken file ----------------------


def test_timeline_html_refuses_a_path_in_the_vault(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(logseq_vault)
    target = logseq_vault / "pages" / "Grafana.md"
    code, _out, err = run_cli(
        capsys, "timeline", "Grafana", "--vault", str(logseq_vault), "--html", str(target)
    )
    assert code == 2 and "inside the vault" in one_line(err)
    assert snapshot(logseq_vault) == before


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "socket", "loop"])
def test_timeline_html_refuses_anything_but_a_file(
    logseq_vault: Path, tmp_path: Path, kind: str
) -> None:
    """``--html /dev/null`` run as root once replaced the device with a file: a target that
    exists and is no regular file is refused, and left as it was (a null device made here,
    never the system's, stands for it)."""
    target = tmp_path / "out.html"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    elif kind == "loop":
        target.symlink_to(target)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(target))
        server.close()
    elif os.geteuid() == 0:
        os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:
        pytest.skip("making a device needs root")
    before = os.lstat(target)
    result = journal_agent.timeline("Grafana", vault=logseq_vault, as_of=DAY)
    with pytest.raises(UnsafePath, match="not a file"):
        result.write_html(target, logseq_vault)
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (
        before.st_mode,
        before.st_ino,
        before.st_rdev,
    )
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_timeline_html_writes_through_a_link(logseq_vault: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.html"
    real.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    journal_agent.timeline("Grafana", vault=logseq_vault, as_of=DAY).write_html(link, logseq_vault)
    assert link.is_symlink() and real.read_text().startswith("<!doctype html>")


def test_timeline_html_is_written_atomically(logseq_vault: Path, tmp_path: Path) -> None:
    result = journal_agent.timeline("Grafana", vault=logseq_vault, as_of=DAY)
    target = tmp_path / "out" / "grafana.html"
    target.parent.mkdir()
    result.write_html(target, logseq_vault)
    assert target.read_text().startswith("<!doctype html>")
    assert sorted(p.name for p in target.parent.iterdir()) == ["grafana.html"]
    with pytest.raises(StorageError, match="cannot write the timeline page"):
        result.write_html(tmp_path / "missing" / "x.html", logseq_vault)


# -- 7. the page keeps its identity, or is not written -------------------------------------------


def test_a_hard_linked_page_is_refused(logseq_vault: Path, tmp_path: Path) -> None:
    page = journal(logseq_vault, "2026-11-25")
    os.link(page, tmp_path / "other-name.md")
    before = page.read_bytes()
    with pytest.raises(UnsafePage, match="hard links"):
        journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25")
    assert page.read_bytes() == before == (tmp_path / "other-name.md").read_bytes()


def test_a_read_only_page_is_refused(logseq_vault: Path) -> None:
    page = journal(logseq_vault, "2026-11-25")
    page.chmod(0o444)
    before = page.read_bytes()
    with pytest.raises(UnsafePage, match="read-only"):
        journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25")
    assert page.read_bytes() == before


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_owner_group_and_mode_are_kept(logseq_vault: Path) -> None:
    page = journal(logseq_vault, "2026-11-25")
    os.chown(page, 4242, 4343)
    page.chmod(0o640)
    journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25")
    st = page.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (4242, 4343, 0o640)
    assert NOTE in page.read_text()


# -- 8 and 9. what resolves a thread ---------------------------------------------------------------


def test_a_link_labelled_x_is_not_a_checked_box(logseq_vault: Path) -> None:
    journal_agent.append(
        ["[X](https://example.com) thread about [[Grafana]]"], vault=logseq_vault, date=DAY
    )
    assert journal_agent.status("Grafana", vault=logseq_vault, as_of=DAY).status == "active"


def test_a_resolution_spelled_in_lower_case_resolves(logseq_vault: Path) -> None:
    result = journal_agent.append(
        ["resolved: dashboards fixed in [[Grafana]]"],
        vault=logseq_vault,
        date=DAY,
        kind="resolution",
    )
    assert result.written == ["Resolved: dashboards fixed in [[Grafana]]"]
    assert journal_agent.status("Grafana", vault=logseq_vault, as_of=DAY).status == "resolved"


def test_an_invalid_kind_is_a_clear_error(logseq_vault: Path) -> None:
    with pytest.raises(BadArgument, match="kind 'urgent'"):
        journal_agent.append([NOTE], vault=logseq_vault, kind="urgent")  # type: ignore[arg-type]


# -- 11. one page per day, whatever its extension --------------------------------------------------


@pytest.mark.parametrize("ext", [".markdown", ".MD"])
def test_an_existing_journal_with_another_extension_is_the_page(
    logseq_vault: Path, ext: str
) -> None:
    page = logseq_vault / "journals" / f"2026_11_29{ext}"
    page.write_text("- a human note\n")
    result = journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    assert result.path == f"journals/2026_11_29{ext}"
    assert sorted(p.name for p in page.parent.glob("2026_11_29*")) == [page.name]


def test_org_journals_are_refused_not_doubled(logseq_vault: Path) -> None:
    (logseq_vault / "journals" / "2026_11_29.org").write_text("* a human note\n")
    before = snapshot(logseq_vault)
    with pytest.raises(UnsafePage, match="Org-mode"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    assert snapshot(logseq_vault) == before


def test_preferred_format_org_is_read(logseq_vault: Path) -> None:
    config = logseq_vault / "logseq" / "config.edn"
    config.write_text(config.read_text().replace('"Markdown"', '"Org"'))
    assert journal_agent.info(vault=logseq_vault, date=DAY).journal_page.endswith(".org")


# -- 12. a page ending inside an open code block ---------------------------------------------------


def test_a_note_ending_in_an_unclosed_fence_is_refused(markdown_vault: Path) -> None:
    page = markdown_vault / "journals" / f"{DAY}.md"
    page.write_text("- notes\n\n```\ncode that never ends\n")
    before = snapshot(markdown_vault)
    with pytest.raises(UnsafePage, match="code block opened on line 3"):
        journal_agent.append(["plain note"], vault=markdown_vault, date=DAY)
    assert snapshot(markdown_vault) == before


def test_a_fence_inside_a_list_item_ends_with_the_item(markdown_vault: Path) -> None:
    page = markdown_vault / "journals" / f"{DAY}.md"
    page.write_text("- notes\n  ```\n  code\n- agent log\n  - first\n")
    journal_agent.append(["second"], vault=markdown_vault, date=DAY)
    journal_agent.append(["third"], vault=markdown_vault, date=DAY)
    text = page.read_text()
    assert text.count("- agent log") == 1
    assert text.endswith("- agent log\n  - first\n  - second\n  - third\n")


# -- 13. a folder that is not a vault --------------------------------------------------------------


def test_a_code_project_is_not_a_vault(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# project\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "notes.md").write_text("notes\n")
    with pytest.raises(NotAVault):
        journal_agent.append(["x"], vault=tmp_path, date=DAY)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "src"]


# -- 14. settings are validated, by name and file --------------------------------------------------


@pytest.mark.parametrize(
    ("app", "message"),
    [
        ({"useTab": False, "tabSize": 100000000}, "tabSize"),
        ({"useTab": False, "tabSize": -2}, "tabSize"),
        ({"useTab": "no"}, "useTab"),
        ({"userIgnoreFilters": "Archive"}, "userIgnoreFilters"),
    ],
)
def test_obsidian_settings_are_checked(
    obsidian_vault: Path, app: dict[str, object], message: str
) -> None:
    (obsidian_vault / ".obsidian" / "app.json").write_text(json.dumps(app))
    with pytest.raises(ConfigError, match=f"app.json: {message}"):
        journal_agent.open_vault(obsidian_vault)


@pytest.mark.parametrize(
    ("setting", "value", "why"),
    [
        (':journals-directory "journals"', ':journals-directory ".daily"', "'.daily' starts"),
        (':journals-directory "journals"', ':journals-directory "logseq"', "'logseq' is a top"),
        ('"yyyy_MM_dd"', '"yyyy_MM_dd/"', "'.md' starts with a dot"),
        ('"yyyy_MM_dd"', "\"'.'yyyy_MM_dd\"", "'.2026_11_29.md' starts with a dot"),
        (':hidden ["/archive"]', ':hidden ["/journals/"]', "'/journals/' is hidden"),
        ("daily-notes.json", {"format": "YYYY-MM-DD[/]"}, "'.md' starts with a dot"),
        ("daily-notes.json", {"format": "[.]YYYY-MM-DD"}, "'.2026-11-29.md' starts with a dot"),
        ("daily-notes.json", {"folder": ".hidden"}, "'.hidden' starts with a dot"),
        ("daily-notes.json", {"folder": "Archive"}, "'Archive/' is hidden"),
    ],
)
def test_a_journal_page_the_listing_skips_is_refused(
    logseq_vault: Path, obsidian_vault: Path, setting: str, value: object, why: str
) -> None:
    """What is written where the vault's own listing (`walk`) does not look is seen by no query:
    refused, nothing written; reading the vault still works."""
    if setting == "daily-notes.json":
        vault = obsidian_vault
        (vault / ".obsidian" / setting).write_text(json.dumps(value))
    else:
        vault = logseq_vault
        config = vault / "logseq" / "config.edn"
        config.write_text(config.read_text().replace(setting, str(value)))
    before = snapshot(vault)
    with pytest.raises(ConfigError, match=f"listing skips it \\({why}"):
        journal_agent.append(["Noted [[Vendor Contract]]"], vault=vault, date=DAY)
    assert snapshot(vault) == before
    assert journal_agent.status("Vendor Contract", vault=vault, as_of=DAY).status


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('exclude = "Name"', "exclude must be a list"),
        ('days = "x"', "days must be a whole number"),
        ("days = 0", "days must be a whole number"),
        ('[journal]\nindent = "\\n# heading"', "journal.indent"),
        ("[journal]\nfolder = 3", "folder must be a non-empty string"),
        ("colour = 1", "unknown setting 'colour'"),
        ("x = " + "[" * 2000 + "]" * 2000, "not valid TOML"),
    ],
)
def test_own_settings_are_checked(markdown_vault: Path, toml: str, message: str) -> None:
    (markdown_vault / ".journal-agent.toml").write_text(toml + "\n")
    with pytest.raises(ConfigError, match=message) as caught:
        journal_agent.open_vault(markdown_vault)
    assert ".journal-agent.toml" in str(caught.value)


@pytest.mark.parametrize(
    ("edn", "message"),
    [
        ("{:hidden :all}", ":hidden must be a list"),
        ("{:export/bullet-indentation :three}", ":export/bullet-indentation"),
        ("{:journal/file-name-format 7}", ":journal/file-name-format must be"),
        ("{:preferred-format :word}", ":preferred-format"),
        ("{:default-templates [1]}", ":default-templates must be a map"),
        ("{:a " * 3000 + "}" * 3000, "config.edn"),
    ],
)
def test_logseq_settings_are_checked(logseq_vault: Path, edn: str, message: str) -> None:
    (logseq_vault / "logseq" / "config.edn").write_text(edn)
    with pytest.raises(ConfigError, match=message):
        journal_agent.open_vault(logseq_vault, use_cache=False)


def test_a_date_format_leaving_the_vault_says_so(logseq_vault: Path) -> None:
    (logseq_vault / "logseq" / "config.edn").write_text(
        '{:journal/file-name-format "../../tmp/x-yyyy_MM_dd"}'
    )
    with pytest.raises(ConfigError, match="outside the vault"):
        journal_agent.open_vault(logseq_vault, use_cache=False)


@pytest.mark.parametrize(
    ("edn", "said"),
    [
        (
            '{:journal/file-name-format "yyyy_MM_dd\\u0000"}',
            "journal file format 'yyyy_MM_dd\\x00'",
        ),
        ('{:journals-directory "journals\\u0000"}', ":journals-directory: folder 'journals\\x00'"),
        ('{:pages-directory "pa\\u0000ges"}', ":pages-directory: folder 'pa\\x00ges'"),
    ],
)
def test_a_nul_in_a_file_name_setting_is_refused(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str], edn: str, said: str
) -> None:
    """No file system takes a NUL in a name: every command refuses the setting, ``info`` too."""
    (logseq_vault / "logseq" / "config.edn").write_text(edn)
    before = snapshot(logseq_vault)
    for command in (["append", NOTE], ["info"], ["stale"]):
        code, _, err = run_cli(capsys, *command, "--vault", str(logseq_vault))
        assert code == 2 and f"{said} holds a NUL character" in one_line(err), err
    assert snapshot(logseq_vault) == before


@pytest.mark.parametrize(
    ("name", "settings"),
    [
        (".obsidian/daily-notes.json", '{"format": "YYYY-MM-DD\\u0000"}'),
        (".obsidian/daily-notes.json", '{"folder": "Dai\\u0000ly"}'),
        (".journal-agent.toml", '[journal]\nformat = "YYYY-MM-DD\\u0000"\n'),
        (".journal-agent.toml", '[journal]\nfolder = "jour\\u0000nals"\n'),
    ],
)
def test_a_nul_in_a_file_name_setting_is_refused_in_every_flavor(
    tmp_path: Path, name: str, settings: str
) -> None:
    (tmp_path / name).parent.mkdir(exist_ok=True)
    (tmp_path / name).write_text(settings)
    with pytest.raises(ConfigError, match="holds a NUL character"):
        journal_agent.open_vault(tmp_path, use_cache=False)


# -- 15. dates are days in one form ----------------------------------------------------------------


@pytest.mark.parametrize("value", ["2026-W48-1", "20261129", "", "2026-11-29T10:00"])
def test_only_yyyy_mm_dd_is_a_date(logseq_vault: Path, value: str) -> None:
    with pytest.raises(BadArgument, match="YYYY-MM-DD"):
        journal_agent.stale(vault=logseq_vault, as_of=value)


@pytest.mark.parametrize("day", ["0001-01-01", "0001-01-05", "9999-12-31"])
def test_a_day_at_either_end_of_the_calendar_is_answered(
    logseq_vault: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    day: str,
) -> None:
    """A window reaching before 1 January of year 1 starts there (no day precedes it)."""
    pin_today(monkeypatch, day)  # the one day whose page an append may create
    journal_agent.append([NOTE], vault=logseq_vault, agent="a", date=day)  # an active thread
    queries = [["stale"], ["topics"], ["status", "Grafana"], ["timeline", "Grafana"]]
    queries += [["context", "--agent", "a"], ["context", "--topic", "Grafana"]]
    queries += [["related", "Grafana"], ["why", "Grafana"]]
    for days in ("1", "21", "36500"):
        for query in queries:
            where = ["--vault", str(logseq_vault), "--as-of", day, "--days", days]
            code, out, err = run_cli(capsys, *query, *where)
            assert code == 0 and "internal error" not in err, (query, days, err)
    assert "Grafana" in out


# -- 17. huge pages --------------------------------------------------------------------------------


def test_a_huge_journal_is_refused_and_a_huge_page_skipped(logseq_vault: Path) -> None:
    big = "- " + "x" * 99 + "\n"
    page = journal(logseq_vault, "2026-11-25")
    page.write_text(big * 110_000)  # 11 MB
    with pytest.raises(UnsafePage, match="MB"):
        journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25")
    result = journal_agent.stale(vault=logseq_vault, as_of=DAY)
    assert any("2026_11_25.md" in w and "MB" in w for w in result.warnings)


# -- 19 and 20. FIFOs and link loops never hang or crash -------------------------------------------


def test_fifos_never_hang(logseq_vault: Path) -> None:
    os.mkfifo(logseq_vault / "pages" / "Pipe.md")
    os.mkfifo(journal(logseq_vault, DAY))
    result = journal_agent.stale(vault=logseq_vault, as_of=DAY)
    assert any("Pipe.md" in w and "not a regular file" in w for w in result.warnings)
    with pytest.raises(UnsafePage, match="FIFO"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    os.unlink(journal(logseq_vault, DAY))
    (logseq_vault / ".journal-agent").mkdir()
    os.mkfifo(logseq_vault / ".journal-agent" / "ledger.jsonl")
    with pytest.raises(UnsafePath, match="FIFO"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY)
    assert not journal(logseq_vault, DAY).exists()


def test_fifo_settings_never_hang(logseq_vault: Path) -> None:
    config = logseq_vault / "logseq" / "config.edn"
    config.unlink()
    os.mkfifo(config)
    with pytest.raises(ConfigError, match="FIFO"):
        journal_agent.open_vault(logseq_vault, use_cache=False)


def test_a_link_loop_is_skipped_with_a_warning(logseq_vault: Path) -> None:
    (logseq_vault / "pages" / "loop").symlink_to(logseq_vault / "pages" / "loop")
    (logseq_vault / "pages" / "up").symlink_to(logseq_vault / "pages")
    result = journal_agent.stale(vault=logseq_vault, as_of=DAY, use_cache=False)
    assert any("loop" in w for w in result.warnings)
    titles = [p.title for p in journal_agent.pages(vault=logseq_vault).pages]
    assert titles.count("Grafana") == 1


# -- 21 and 22. the command line: one line, the right code, never a traceback ----------------------


def test_a_bullet_of_a_megabyte_is_refused_in_one_short_line(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run_cli(
        capsys, "append", "--vault", str(logseq_vault), "--date", DAY, "x" * 1_000_000
    )
    assert code == 2 and len(one_line(err)) < 300


def test_argument_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run_cli(capsys, "stale", "--days", "many")
    assert code == 2 and "invalid int value" in one_line(err)
    code, _out, err = run_cli(capsys, "nonsense")
    assert code == 2 and one_line(err)


def test_a_wrong_shaped_cache_is_rebuilt(logseq_vault: Path) -> None:
    from journal_agent.index import cache_path

    vault = journal_agent.open_vault(logseq_vault)
    first = journal_agent.stale(vault=vault, as_of=DAY).to_json()
    path = cache_path(vault)
    import marshal

    fingerprint = marshal.loads(path.read_bytes())["fingerprint"]
    files = {"x": 1, "y": (1,), "pages/z.md": (1, 2, 3, 4, None)}
    path.write_bytes(marshal.dumps({"fingerprint": fingerprint, "files": files}))
    path.with_suffix(".summary").write_bytes(marshal.dumps([1, 2, 3]))
    assert journal_agent.stale(vault=vault, as_of=DAY).to_json() == first


def cli(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "journal_agent", *argv],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_non_utf8_names_input_and_arguments(logseq_vault: Path, tmp_path: Path) -> None:
    name = os.fsencode(logseq_vault / "pages") + b"/Caf\xe9.md"
    with open(name, "wb") as handle:
        handle.write(b"- about [[Grafana]]\n")
    done = cli("pages", "--vault", str(logseq_vault), "--json")
    assert done.returncode == 0, done.stderr
    assert "Caf" in done.stdout.decode()
    done = cli("append", "--vault", str(logseq_vault), "-", stdin=b"bad \xff byte\n")
    assert done.returncode == 2 and b"not UTF-8" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "journal_agent", "append", "--vault", str(logseq_vault), b"\xff"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and b"not UTF-8" in done.stderr
    assert not journal(logseq_vault, time.strftime("%Y-%m-%d")).exists()


def test_a_full_or_closed_stdout(logseq_vault: Path) -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "journal_agent", "pages", "--vault", str(logseq_vault)],
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1 and b"cannot write the output" in done.stderr
    assert b"Traceback" not in done.stderr
    reader = subprocess.Popen(
        [sys.executable, "-m", "journal_agent", "pages", "--vault", str(logseq_vault)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()
    err = reader.stderr.read()
    reader.stderr.close()
    assert reader.wait(60) == 0 and b"Traceback" not in err


def test_ctrl_c_exits_130_quietly(logseq_vault: Path, tmp_path: Path) -> None:
    day = "2026-11-25"  # a page that exists: another process may append to no other day's
    holder = PageLock(StateDir.of(logseq_vault), f"journals/{day.replace('-', '_')}.md", 1)
    with holder:  # the append waits on this lock, and is interrupted while waiting
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "journal_agent",
                "append",
                "--vault",
                str(logseq_vault),
                "--date",
                day,
                "--wait",
                "30",
                NOTE,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and b"Traceback" not in err


# -- 23. every query reports the pages it could not read ------------------------------------------


def test_every_query_warns_of_unreadable_pages(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (logseq_vault / "pages" / "Binary.md").write_bytes(b"\x00\x01binary")
    for argv in (
        ["timeline", "Grafana"],
        ["status", "Grafana"],
        ["related", "Grafana"],
        ["stale"],
        ["topics"],
        ["pages"],
    ):
        code, _out, err = run_cli(capsys, *argv, "--vault", str(logseq_vault))
        assert code == 0 and "Binary.md" in err, argv


# -- 24. a held lock is waited for as long as allowed, and the message says how long -------------


def test_a_held_lock_waits_only_as_long_as_allowed(logseq_vault: Path) -> None:
    rel = f"journals/{DAY.replace('-', '_')}.md"
    with PageLock(StateDir.of(logseq_vault), rel, 1):
        start = time.monotonic()
        with pytest.raises(LockTimeout, match=r"held the page for 0\.[3-9] s"):
            journal_agent.append([NOTE], vault=logseq_vault, date=DAY, wait=0.3)
        assert time.monotonic() - start < 1.5
    assert not journal(logseq_vault, DAY).exists()
    assert list(Ledger.of(logseq_vault).entries()) == []
