"""Opening vaults: flavor detection, settings, journal paths, and every bad input."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest

from journal_agent import (
    BadDateFormat,
    ConfigError,
    NotAVault,
    UnreadablePage,
    VaultNotFound,
    lint,
    open_vault,
    stale,
    topics,
)
from journal_agent import vault as vault_module
from journal_agent.index import load_index
from journal_agent.vault import PageFile

from .conftest import FIXTURE_VAULTS, ROOT, SAMPLE_VAULT, snapshot

NOV29 = dt.date(2026, 11, 29)


def logseq(tmp_path: Path, config: str) -> Path:
    root = tmp_path / "graph"  # beside, not around, the test's cache folder
    (root / "logseq").mkdir(parents=True)
    (root / "logseq" / "config.edn").write_text(config, encoding="utf-8")
    (root / "pages").mkdir()
    return root


def test_detects_each_flavor() -> None:
    assert open_vault(SAMPLE_VAULT).flavor.name == "logseq"
    assert open_vault(FIXTURE_VAULTS / "obsidian").flavor.name == "obsidian"
    assert open_vault(FIXTURE_VAULTS / "markdown").flavor.name == "markdown"


def test_vault_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOURNAL_AGENT_VAULT", str(SAMPLE_VAULT))
    assert open_vault().root == SAMPLE_VAULT.resolve()


def test_logseq_settings_from_config_edn() -> None:
    vault = open_vault(SAMPLE_VAULT)
    s = vault.settings
    assert (s.journal_dir, s.pages_dir) == ("journals", "pages")
    assert (s.journal_file_format, s.journal_title_format) == ("yyyy_MM_dd", "MMM do, yyyy")
    assert s.file_name_format == "triple-lowbar"
    assert s.hidden == ("/archive",)
    assert s.indent == "\t"
    assert "people" in s.comma_properties and "alias" in s.comma_properties
    assert vault.journal_rel(NOV29) == "journals/2026_11_29.md"
    assert vault.journal_title(NOV29) == "Nov 29th, 2026"


def test_logseq_custom_folders_formats_and_indent(tmp_path: Path) -> None:
    root = logseq(
        tmp_path,
        """{:journals-directory "daily/" :pages-directory "notes"
        :journal/file-name-format "yyyy-MM-dd" :date-formatter "yyyy/MM/dd"
        :export/bullet-indentation :two-spaces}""",
    )
    vault = open_vault(root)
    assert vault.journal_rel(NOV29) == "daily/2026-11-29.md"
    assert vault.journal_title(NOV29) == "2026/11/29"
    assert vault.settings.indent == "  "
    assert vault.settings.file_name_format == "legacy"  # key absent: an old graph


def test_logseq_old_journal_file_names_still_found(tmp_path: Path) -> None:
    root = logseq(tmp_path, '{:journal/file-name-format "yyyy-MM-dd"}')
    (root / "journals").mkdir()
    (root / "journals" / "2026_11_28.md").write_text("- old name\n", encoding="utf-8")
    vault = open_vault(root)
    assert vault.date_of("journals/2026_11_28.md") == dt.date(2026, 11, 28)
    assert vault.journal_path(dt.date(2026, 11, 28)) == root / "journals" / "2026_11_28.md"
    assert vault.journal_path(NOV29) == root / "journals" / "2026-11-29.md"


def test_obsidian_daily_notes_settings_with_subfolders() -> None:
    vault = open_vault(FIXTURE_VAULTS / "obsidian")
    assert vault.journal_rel(NOV29) == "Daily/2026/11/2026-11-29.md"
    assert vault.date_of("Daily/2026/11/2026-11-27.md") == dt.date(2026, 11, 27)
    assert vault.date_of("Projects/Atlas.md") is None
    assert vault.settings.template == "Templates/Daily"
    assert vault.settings.indent == "    "  # app.json: useTab false, tabSize 4


def obsidian(root: Path, daily: dict[str, str]) -> Path:
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "daily-notes.json").write_text(json.dumps(daily))
    return root


@pytest.mark.parametrize(
    ("daily", "days"),
    [
        # notes filed by year, and one of a subfolder whose name is no date
        (
            {"folder": "Daily", "format": "YYYY-MM-DD"},
            {"Daily/2025/2025-12-01.md": "2025-12-01", "Daily/2025/old/2025-01-02.md": "2025-01-02"}
            | {"Daily/2026-11-29.md": "2026-11-29", "Daily/2025/notes.md": None},
        ),
        # flat notes left after the format took folders
        (
            {"folder": "Daily", "format": "YYYY/MM/YYYY-MM-DD"},
            {"Daily/2026-11-25.md": "2026-11-25", "Daily/2026/11/2026-11-29.md": "2026-11-29"}
            | {"Daily/2026/2026-11-28.md": "2026-11-28", "Projects/2026-11-25.md": None},
        ),
        # the format's last part names no day by itself: only the whole path does
        (
            {"folder": "Daily", "format": "YYYY/MM/DD"},
            {"Daily/2026/11/29.md": "2026-11-29", "Daily/x/29.md": None},
        ),
        # no folder: the whole vault, where a note named by a date in a folder is no journal
        (
            {"format": "YYYY-MM-DD"},
            {"2026-11-29.md": "2026-11-29", "Meetings/2026-11-29.md": None},
        ),
    ],
)
def test_obsidian_daily_notes_anywhere_below_the_folder(
    tmp_path: Path, daily: dict[str, str], days: dict[str, str | None]
) -> None:
    """As obsidian-daily-notes-interface (Calendar, Periodic Notes) reads them: a note anywhere
    below the daily folder named by the format's last part is that day's; today's note is still
    made where the format says."""
    vault = open_vault(obsidian(tmp_path, daily))
    for rel, day in days.items():
        assert vault.date_of(rel) == (dt.date.fromisoformat(day) if day else None), rel
    folder = daily.get("folder", "")
    assert vault.journal_rel(NOV29).startswith(f"{folder}/" if folder else "2026-11-29")
    assert vault.journal_rel(NOV29).endswith("29.md")


def test_obsidian_daily_notes_filed_by_year_are_journals(tmp_path: Path) -> None:
    root = obsidian(tmp_path, {"folder": "Daily"})
    (root / "Topic.md").write_text("a topic\n")
    (root / "Daily" / "2025").mkdir(parents=True)
    (root / "Daily" / "2025" / "2025-12-01.md").write_text("- archived [[Topic]]\n")
    found = {t.page.title: t.status for t in topics(vault=root, as_of="2025-12-05").topics}
    assert found == {"Topic": "active"}
    assert [t.page.title for t in stale(vault=root, as_of="2026-01-30").topics] == ["Topic"]


def test_obsidian_periodic_notes_plugin_overrides_daily_notes(tmp_path: Path) -> None:
    config = tmp_path / ".obsidian"
    (config / "plugins" / "periodic-notes").mkdir(parents=True)
    (config / "daily-notes.json").write_text('{"folder": "Ignored", "format": "YYYY"}')
    (config / "community-plugins.json").write_text('["periodic-notes"]')
    (config / "plugins" / "periodic-notes" / "data.json").write_text(
        json.dumps(
            {
                "daily": {
                    "enabled": True,
                    "folder": "Journal",
                    "format": "DD-MM-YYYY",
                    "template": "",
                }
            }
        )
    )
    assert open_vault(tmp_path).journal_rel(NOV29) == "Journal/29-11-2026.md"


@pytest.mark.parametrize(
    ("fmt", "rel"),
    [
        ("YYYY-MM-DD[.md]", "Daily/2026-11-29.md"),
        ("YYYY/YYYY-MM-DD[ log.md]", "Daily/2026/2026-11-29 log.md"),
        ("YYYY-MM-DD[.MD]", "Daily/2026-11-29.MD.md"),  # Obsidian's check is for ".md"
    ],
)
def test_obsidian_format_ending_in_md_gives_one_extension(
    tmp_path: Path, fmt: str, rel: str
) -> None:
    """obsidian-daily-notes-interface adds ``.md`` only to a name without it (``getNotePath``)."""
    vault = open_vault(obsidian(tmp_path, {"folder": "Daily", "format": fmt}))
    assert vault.journal_rel(NOV29) == rel
    assert vault.date_of(rel) == NOV29
    assert vault.journal_title(NOV29) == PurePosixPath(rel).stem


def periodic_notes(root: Path, data: dict[str, object]) -> Path:
    config = root / ".obsidian"
    (config / "plugins" / "periodic-notes").mkdir(parents=True)
    (config / "daily-notes.json").write_text('{"folder": "Daily"}')
    (config / "community-plugins.json").write_text('["periodic-notes"]')
    (config / "plugins" / "periodic-notes" / "data.json").write_text(json.dumps(data))
    return root


def calendar_set(name: str, enabled: bool, folder: str) -> dict[str, object]:
    day = {"enabled": enabled, "folder": folder, "format": "YYYY/YYYY-MM-DD"}
    return {"id": name, "ctime": "2026-01-01T00:00:00Z", "day": day | {"templatePath": "T/Day"}}


@pytest.mark.parametrize(
    ("sets", "active", "rel"),
    [
        ([calendar_set("Default", True, "Journal")], "Default", "Journal/2026/2026-11-29.md"),
        (
            [calendar_set("Work", True, "Work"), calendar_set("Home", True, "Home/Days")],
            "Home",
            "Home/Days/2026/2026-11-29.md",
        ),
        # the active set's days are off, or no set is active: the core plugin makes them
        ([calendar_set("Default", False, "Journal")], "Default", "Daily/2026-11-29.md"),
        ([calendar_set("Default", True, "Journal")], "Gone", "Daily/2026-11-29.md"),
    ],
)
def test_obsidian_periodic_notes_calendar_sets(
    tmp_path: Path, sets: list[dict[str, object]], active: str, rel: str
) -> None:
    """Periodic Notes 1.0 keeps its settings in calendar sets, the active one in force."""
    data: dict[str, object] = {"calendarSets": sets, "activeCalendarSet": active}
    data["daily"] = {"enabled": True, "folder": "Old", "format": "YYYY"}  # 0.x, moved into a set
    vault = open_vault(periodic_notes(tmp_path, data))
    assert vault.journal_rel(NOV29) == rel
    assert vault.settings.template == ("T/Day" if rel.endswith("2026/2026-11-29.md") else None)


def test_obsidian_defaults_without_settings(tmp_path: Path) -> None:
    (tmp_path / ".obsidian").mkdir()
    assert open_vault(tmp_path).journal_rel(NOV29) == "2026-11-29.md"


def test_markdown_own_config(tmp_path: Path) -> None:
    (tmp_path / ".journal-agent.toml").write_text(
        '[journal]\nfolder = "log"\nformat = "YYYY/MM-DD"\n'
    )
    assert open_vault(tmp_path).journal_rel(NOV29) == "log/2026/11-29.md"


# -- bad input ------------------------------------------------------------------------------------


def test_missing_vault(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFound, match="no such folder"):
        open_vault(tmp_path / "nope")


def test_vault_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "f.md").write_text("x")
    with pytest.raises(VaultNotFound, match="not a folder"):
        open_vault(tmp_path / "f.md")


def test_no_vault_given() -> None:
    with pytest.raises(VaultNotFound, match="JOURNAL_AGENT_VAULT"):
        open_vault()


def test_folder_that_is_not_a_vault(tmp_path: Path) -> None:
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(NotAVault, match="not a vault"):
        open_vault(tmp_path)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("{:journal/page-title-format ", "not valid EDN"),
        ('["not" "a" "map"]', "expected a map"),
        ("{:export/bullet-indentation :three-spaces}", "bullet-indentation"),
        ('{:journals-directory "../outside"}', "outside the vault"),
        ("{:journal/file-name-format 42}", "must be a non-empty string"),
    ],
)
def test_malformed_config_edn(tmp_path: Path, config: str, message: str) -> None:
    root = logseq(tmp_path, config)
    before = snapshot(root)
    with pytest.raises(ConfigError, match=message):
        open_vault(root)
    assert snapshot(root) == before


def test_config_edn_with_tagged_values_reads_them_where_its_reader_imports_them_late(
    tmp_path: Path,
) -> None:
    """``#inst`` is read by pyRFC3339, which `edn_format` imports and which imports
    `importlib.metadata` (50 ms): `logseq_config.edn_reader` imports it only where a tag is
    read, so a config.edn without one does not pay for it, and one with it reads as before. In
    fresh processes: this one has imported both long ago."""
    root = logseq(tmp_path, "{}")
    config = root / "logseq" / "config.edn"
    program = (
        "import sys; from pathlib import Path; from journal_agent.logseq_config import"
        " read_edn_config as read; print(read(Path(sys.argv[1]), use_cache=False));"
        " print(sorted({'pyrfc3339', 'importlib.metadata'} & set(sys.modules)))"
    )

    def run() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", program, str(config)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    config.write_text('{:journal/file-name-format "yyyy_MM_dd"}')
    assert run() == ["{'journal/file-name-format': 'yyyy_MM_dd'}", "[]"]
    config.write_text(
        '{:since #inst "2024-02-29T10:30:00.5+01:00"'
        ' :id #uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6" :hidden ["/a"]}'
    )
    assert run() == [
        "{'since': '2024-02-29 10:30:00.500000+01:00',"
        " 'id': 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6', 'hidden': ['/a']}",
        "['importlib.metadata', 'pyrfc3339']",
    ]


def test_config_edn_is_read_without_writing_beside_the_reader(tmp_path: Path) -> None:
    """`edn_format`'s parser (ply) writes its parse tables into its own installed package unless
    told not to, and prints a warning on stderr where it may not (a read-only install): reading
    a config must do neither. A copy of `edn_format` without its tables, first on the path of a
    fresh process, stands in for a fresh install (as root, a read-only folder is no test)."""
    import edn_format

    copy = tmp_path / "site" / "edn_format"
    shutil.copytree(
        Path(edn_format.__file__).parent,
        copy,
        ignore=shutil.ignore_patterns("parsetab*", "__pycache__"),
    )
    before = sorted(p.name for p in copy.iterdir())
    root = logseq(tmp_path, '{:journal/file-name-format "yyyy_MM_dd" :hidden ["/a"]}')
    program = (
        "import sys; from pathlib import Path; from journal_agent.logseq_config import"
        " read_edn_config as read; import edn_format; print(edn_format.__file__);"
        " print(read(Path(sys.argv[1]), use_cache=False))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy.parent), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", program, str(root / "logseq" / "config.edn")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        str(copy / "__init__.py"),
        "{'journal/file-name-format': 'yyyy_MM_dd', 'hidden': ['/a']}",
    ]
    assert done.stderr == ""
    assert sorted(p.name for p in copy.iterdir() if p.name != "__pycache__") == before


def test_config_edn_not_utf8(tmp_path: Path) -> None:
    root = logseq(tmp_path, "")
    (root / "logseq" / "config.edn").write_bytes(b'{:hidden ["\xff"]}')
    with pytest.raises(ConfigError, match="not UTF-8"):
        open_vault(root)


@pytest.mark.parametrize("text", ['{"folder": ', '["folder"]', '{"format": 5}'])
def test_malformed_daily_notes_json(tmp_path: Path, text: str) -> None:
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "daily-notes.json").write_text(text)
    with pytest.raises(ConfigError, match="daily"):
        open_vault(tmp_path)


@pytest.mark.parametrize("fmt", ["[../]YYYY-MM-DD", "[/etc/]YYYY-MM-DD", "YYYY/[..]/DD-MM"])
def test_date_format_that_leaves_the_vault(tmp_path: Path, fmt: str) -> None:
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "daily-notes.json").write_text(json.dumps({"format": fmt}))
    with pytest.raises(BadDateFormat, match="not a file inside the vault"):
        open_vault(tmp_path)


def test_unreadable_pages_are_reported_and_skipped(tmp_path: Path) -> None:
    root = logseq(tmp_path, "{}")
    (root / "pages" / "good.md").write_text("- fine [[x]]\n", encoding="utf-8")
    (root / "pages" / "latin1.md").write_bytes("- caf\xe9\n".encode("latin-1"))
    (root / "pages" / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    index = load_index(open_vault(root))
    assert sorted(index.files) == ["pages/good.md"]
    assert any("latin1.md: not UTF-8 text" in w for w in index.warnings)
    assert any("binary.md: binary file" in w for w in index.warnings)
    assert sorted(load_index(open_vault(root)).warnings) == sorted(index.warnings)  # warm too
    with pytest.raises(UnreadablePage, match="not UTF-8"):
        open_vault(root).read_page("pages/latin1.md")


def test_hidden_and_ignored_paths_are_not_pages(tmp_path: Path) -> None:
    root = logseq(tmp_path, '{:hidden ["/archive"]}')
    for rel in ["archive/old.md", "logseq/bak/pages/x.md", ".git/x.md", "pages/kept.md"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("- x\n")
    assert [p.rel for p in open_vault(root).page_files()] == ["pages/kept.md"]


#: Files a vault of each flavor might hold: Logseq's own folders among them, dot-named ones, a
#: ``.markdown`` file.
EVERY_KIND = [
    "assets/House.md",
    "draws/d.md",
    "logseq/bak/x.md",
    "node_modules/n.md",
    "whiteboards/w.md",
    ".trash/t.md",
    "Notes/.hidden/h.md",
    "Notes/a.md",
    "Notes/b.markdown",
    "Notes/assets/c.md",
]


@pytest.mark.parametrize(
    ("marker", "listed"),
    [
        # Obsidian: every folder but dot-named ones; notes are .md files only
        (
            ".obsidian/app.json",
            ["assets/House.md", "draws/d.md", "logseq/bak/x.md", "node_modules/n.md"]
            + ["Notes/a.md", "Notes/assets/c.md", "whiteboards/w.md"],
        ),
        # plain Markdown: every folder but dot-named ones, .markdown files too
        (
            "journals/2026-11-29.md",
            ["assets/House.md", "draws/d.md", "journals/2026-11-29.md", "logseq/bak/x.md"]
            + ["node_modules/n.md", "Notes/a.md", "Notes/assets/c.md", "Notes/b.markdown"]
            + ["whiteboards/w.md"],
        ),
        # Logseq: its own top-level folders hold no pages
        (
            "logseq/config.edn",
            ["Notes/a.md", "Notes/assets/c.md", "Notes/b.markdown"],
        ),
    ],
)
def test_each_flavor_lists_the_files_its_outliner_shows(
    tmp_path: Path, marker: str, listed: list[str]
) -> None:
    root = tmp_path / "v"
    for rel in [marker, *EVERY_KIND]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("{}" if rel.startswith(("logseq/c", ".obs")) else "- x\n")
    vault = open_vault(root)
    assert [p.rel for p in vault.page_files()] == sorted(listed)
    assert vault.page_paths() == sorted(listed)


def test_obsidian_links_to_a_note_in_an_assets_folder(tmp_path: Path) -> None:
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "House.md").write_text("- the house\n")
    assert lint(["see [[House]]"], vault=tmp_path).problems == []


def test_symlink_out_of_the_vault_is_skipped(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("- secret\n")
    (tmp_path / "v").mkdir()
    root = logseq(tmp_path / "v", "{}")
    os.symlink(outside / "secret.md", root / "pages" / "link.md")
    os.symlink(outside, root / "pages" / "linked-folder")
    warnings: list[str] = []
    assert open_vault(root).page_files(warnings) == []
    assert sorted(warnings) == [
        "pages/link.md: symbolic link to outside the vault, skipped",
        "pages/linked-folder: symbolic link to outside the vault, skipped",
    ]


def test_daily_notes_folder_outside_the_vault(tmp_path: Path) -> None:
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "daily-notes.json").write_text('{"folder": "../elsewhere"}')
    with pytest.raises(ConfigError, match="outside the vault"):
        open_vault(tmp_path)


def test_daily_notes_folder_with_leading_slash_is_vault_relative(tmp_path: Path) -> None:
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "daily-notes.json").write_text('{"folder": "/Daily/"}')
    assert open_vault(tmp_path).journal_rel(NOV29) == "Daily/2026-11-29.md"


def test_parsed_config_edn_is_cached_until_the_file_changes(tmp_path: Path) -> None:
    root = logseq(tmp_path, '{:journal/file-name-format "yyyy-MM-dd"}')
    assert open_vault(root).journal_rel(NOV29) == "journals/2026-11-29.md"
    assert len(list((tmp_path / "cache").glob("config-*.marshal"))) == 1
    (root / "logseq" / "config.edn").write_text('{:journal/file-name-format "yyyyMMdd"}')
    assert open_vault(root).journal_rel(NOV29) == "journals/20261129.md"
    (tmp_path / "cache").joinpath("junk").write_text("x")
    for cached in (tmp_path / "cache").glob("config-*.marshal"):
        cached.write_bytes(b"{\x00")  # a corrupt cache entry is parsed again
    assert open_vault(root).journal_rel(NOV29) == "journals/20261129.md"
    assert open_vault(root, use_cache=False).journal_rel(NOV29) == "journals/20261129.md"


@pytest.mark.parametrize("stat", [True, False])
def test_a_listed_file_is_read_as_read_bytes_reads_it(
    tmp_path: Path, stat: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Vault.read_listed` reads in one call only a file that still has its listed size (or,
    listed without a stat, the size it has when opened); whatever changed since the listing is
    read (or refused) as `read_bytes` would."""
    root = logseq(tmp_path, "{}")
    pages = root / "pages"
    for name, text in [("same", "- same\n"), ("grew", "- a\n"), ("shrank", "- a longer one\n")]:
        (pages / f"{name}.md").write_text(text)
    (pages / "empty.md").write_bytes(b"")
    (pages / "gone.md").write_text("- soon gone\n")
    (pages / "pipe.md").write_text("- a file, then a FIFO\n")
    vault = open_vault(root)
    listing = map(PageFile._make, vault.listing(stat=stat))
    listed = {PurePosixPath(f.rel).stem: f for f in listing}
    assert all(f.size for n, f in listed.items() if n != "empty") == stat
    (pages / "grew.md").write_text("- a, and more\n")
    (pages / "shrank.md").write_text("- b\n")
    (pages / "gone.md").unlink()
    (pages / "pipe.md").unlink()
    os.mkfifo(pages / "pipe.md")
    for name in ("same", "grew", "shrank", "empty"):
        assert vault.read_listed(listed[name]) == (pages / f"{name}.md").read_bytes()
    with pytest.raises(UnreadablePage, match="gone"):
        vault.read_listed(listed["gone"])
    with pytest.raises(UnreadablePage, match="FIFO"):
        vault.read_listed(listed["pipe"])
    monkeypatch.setattr(vault_module, "MAX_PAGE_BYTES", 4)  # over the limit: refused
    with pytest.raises(UnreadablePage, match="reads files up to"):
        vault.read_listed(listed["same"])
