"""The guest writer: byte-exact appends (property-based), the four guest rules, every refusal."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import journal_agent
from journal_agent import BadArgument, BulletsRefused, UnsafePage
from journal_agent.scanner import scan

from .conftest import pin_today, snapshot
from .test_mldoc_conformance import run_oracle

DAY = dt.date(2026, 11, 29)
JOURNAL = "journals/2026_11_29.md"
PAGES = ["Atlas Migration", "Flaky CI", "Grafana", "Café Crème", "Projects/Atlas Dashboard"]


@pytest.fixture(autouse=True)
def today_is_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """DAY is today: the one day whose journal page these appends may create."""
    pin_today(monkeypatch, DAY)


def make_vault(root: Path, indentation: str = ":tab") -> Path:
    """A small Logseq graph with a few pages to link."""
    (root / "logseq").mkdir(parents=True)
    (root / "logseq" / "config.edn").write_text(
        f"{{:file/name-format :triple-lowbar :export/bullet-indentation {indentation}}}"
    )
    (root / "pages").mkdir()
    (root / "journals").mkdir()
    for title in PAGES:
        (root / "pages" / (title.replace("/", "___") + ".md")).write_text("- a page\n")
    return root


# -- generated journal files ----------------------------------------------------------------------

WORDS = st.sampled_from(
    [
        "plan",
        "fix",
        "[[Grafana]]",
        "#[[Flaky CI]]",
        "naïve",
        "日本語",
        "`[[x]]`",
        "TODO",
        "done",
        "50%",
        "a:b",
        "([[Grafana]])",  # (not "(#[[Grafana]])": Logseq tags the page "[[Grafana]])")
        "😀",
        "—",
    ]
)
TEXT = st.lists(WORDS, min_size=1, max_size=5).map(" ".join)
INDENT = st.sampled_from(["\t", "  ", "    "])


@st.composite
def journal_text(draw: st.DrawFn) -> str:
    """A Logseq journal page as people and apps leave them."""
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["title:: Nov 29th, 2026", "tags:: [[Grafana]]", ""]
    unit = draw(INDENT)
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["bullet", "owned", "child", "cont", "prop", "code", "blank"]))
        if kind == "owned":
            lines.append("- claude log")
            lines += [f"{unit}- human note {draw(TEXT)}" for _ in range(draw(st.integers(0, 2)))]
        elif kind == "bullet" or not lines:
            lines.append(f"- {draw(TEXT)}")
        elif kind == "child":
            lines.append(f"{unit * draw(st.integers(1, 2))}- {draw(TEXT)}")
        elif kind == "cont":
            lines.append(f"  {draw(TEXT)}")
        elif kind == "prop":
            lines.append("  collapsed:: true")
        elif kind == "code":
            lines += [f"{unit}- ```python", f"{unit}  x = '[[not a ref]]'", f"{unit}  ```"]
        else:
            lines.append("")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines)
    if lines and draw(st.booleans()):  # type: ignore[arg-type]
        text += newline
    return text


_EXAMPLES = itertools.count()


def insertions(old: bytes, new: bytes) -> list[bytes]:
    """Every way ``new`` is ``old`` with one run of bytes inserted; fails if anything else changed.

    (An insertion can often be placed at several offsets: "- a" + "\n- a" == "- a\n- a" + "".)
    """
    assert len(new) > len(old)
    prefix = len(os.path.commonprefix([old, new]))
    suffix = min(len(os.path.commonprefix([old[::-1], new[::-1]])), len(old))
    assert prefix + suffix >= len(old), "bytes outside the inserted lines changed"
    added = len(new) - len(old)
    return [new[k : k + added] for k in range(len(old) - suffix, min(prefix, len(old)) + 1)]


def our_lines(inserted: str, newline: str) -> list[str] | None:
    """The bullets in an inserted run, if it is only whole bullet lines in the file's newline."""
    if inserted.startswith(newline):
        inserted = inserted[len(newline) :]
    elif inserted.endswith(newline):
        inserted = inserted[: -len(newline)]
    else:
        return None
    lines = inserted.split(newline)
    if "\r" in inserted.replace("\r\n", "") or not all(
        ln.lstrip(" \t").startswith("- ") for ln in lines
    ):
        return None
    return [ln.lstrip(" \t")[2:] for ln in lines if ln != "- claude log"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=journal_text(),
    bom=st.booleans(),
    bullets=st.lists(TEXT, min_size=1, max_size=3, unique=True),
)
def test_append_inserts_lines_and_changes_nothing_else(
    tmp_path: Path, text: str, bom: bool, bullets: list[str]
) -> None:
    root = tmp_path / f"v{next(_EXAMPLES)}"
    make_vault(root)
    old = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    (root / JOURNAL).write_bytes(old)
    result = journal_agent.append(bullets, vault=root, agent="claude", date=DAY)
    new = (root / JOURNAL).read_bytes()
    written = [b for b in bullets if b not in result.duplicates]
    if not result.written:
        assert new == old
        return
    newline = "\r\n" if text.split("\n", 1)[0].endswith("\r") else "\n"
    candidates = [
        our_lines(run.decode("utf-8", "replace"), newline) for run in insertions(old, new)
    ]
    assert written in candidates, f"inserted runs {candidates} are not the bullets {written}"
    outline = scan(new.decode("utf-8-sig"), "logseq")
    owners = [i for i, b in enumerate(outline.blocks) if b.depth == 0 and b.text == "claude log"]
    children = {b.text for b in outline.blocks if b.parent == owners[-1]}
    assert set(written) <= children


# -- the guest rules ------------------------------------------------------------------------------


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return make_vault(tmp_path / "vault")


def test_new_page_gets_the_owned_block(vault: Path) -> None:
    result = journal_agent.append(["Checked [[Grafana]]"], vault=vault, agent="claude", date=DAY)
    assert (vault / JOURNAL).read_text() == "- claude log\n\t- Checked [[Grafana]]\n"
    assert result.to_json() == {
        "page": "Nov 29th, 2026",
        "path": JOURNAL,
        "written": ["Checked [[Grafana]]"],
        "duplicates": [],
        "refused": [],
        "created": True,
    }


@pytest.mark.parametrize("day", ["1999-01-01", "2026-11-28", "2026-11-30", "9999-12-31"])
def test_only_todays_page_is_created(vault: Path, day: str) -> None:
    """Another day's page is written only if it exists: the outliner makes today's page each
    day, never a past or a future one, and neither does journal-agent."""
    before = snapshot(vault)
    with pytest.raises(
        BadArgument, match=rf"no journal page of {day}, .* only today's \(2026-11-29"
    ):
        journal_agent.append(["x"], vault=vault, agent="c", date=day)
    assert snapshot(vault) == before
    page = vault / "journals" / f"{day.replace('-', '_')}.md"
    page.write_text("- a human note\n")
    result = journal_agent.append(["x"], vault=vault, agent="c", date=day)
    assert page.read_text() == "- a human note\n- c log\n\t- x\n" and not result.created


def test_appends_after_human_children_with_their_indentation(vault: Path) -> None:
    page = "- morning\n- claude log\n  - first\n    - human reply\n- evening\n"
    (vault / JOURNAL).write_text(page)
    journal_agent.append(["second"], vault=vault, agent="claude", date=DAY)
    assert (vault / JOURNAL).read_text() == (
        "- morning\n- claude log\n  - first\n    - human reply\n  - second\n- evening\n"
    )


def test_uses_the_page_indentation_then_the_vault_setting(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "v", ":four-spaces")
    (root / JOURNAL).write_text("- a\n")
    journal_agent.append(["x"], vault=root, agent="claude", date=DAY)
    assert (root / JOURNAL).read_text() == "- a\n- claude log\n    - x\n"
    (root / JOURNAL).write_text("- a\n\t- b\n")
    journal_agent.append(["y"], vault=root, agent="codex", date=DAY)
    assert (root / JOURNAL).read_text() == "- a\n\t- b\n- codex log\n\t- y\n"


def test_one_owned_block_per_agent(vault: Path) -> None:
    journal_agent.append(["a1"], vault=vault, agent="claude", date=DAY)
    journal_agent.append(["b1"], vault=vault, agent="codex", date=DAY)
    journal_agent.append(["a2"], vault=vault, agent="claude", date=DAY)
    assert (vault / JOURNAL).read_text() == ("- claude log\n\t- a1\n\t- a2\n- codex log\n\t- b1\n")


def test_retried_append_is_idempotent(vault: Path) -> None:
    journal_agent.append(["same [[Grafana]]"], vault=vault, agent="claude", date=DAY)
    before = (vault / JOURNAL).read_bytes()
    again = journal_agent.append(
        ["same [[Grafana]]", "same [[Grafana]]"], vault=vault, agent="claude", date=DAY
    )
    assert again.written == [] and again.duplicates == ["same [[Grafana]]", "same [[Grafana]]"]
    assert (vault / JOURNAL).read_bytes() == before


def test_a_deleted_bullet_is_never_restored(vault: Path) -> None:
    journal_agent.append(["keep", "drop"], vault=vault, agent="claude", date=DAY)
    (vault / JOURNAL).write_text("- claude log\n\t- keep\n")  # the human deleted "drop"
    result = journal_agent.append(["drop", "new"], vault=vault, agent="claude", date=DAY)
    assert result.duplicates == ["drop"] and result.written == ["new"]
    assert (vault / JOURNAL).read_text() == "- claude log\n\t- keep\n\t- new\n"


def test_a_deleted_owned_block_is_not_recreated_with_its_content(vault: Path) -> None:
    journal_agent.append(["old one"], vault=vault, agent="claude", date=DAY)
    (vault / JOURNAL).write_text("- the human's own note\n")
    journal_agent.append(["old one", "fresh"], vault=vault, agent="claude", date=DAY)
    assert (vault / JOURNAL).read_text() == "- the human's own note\n- claude log\n\t- fresh\n"


def test_a_human_edited_bullet_is_not_fixed(vault: Path) -> None:
    journal_agent.append(["typo here"], vault=vault, agent="claude", date=DAY)
    (vault / JOURNAL).write_text("- claude log\n\t- typo fixed by a human\n")
    journal_agent.append(["typo here"], vault=vault, agent="claude", date=DAY)
    assert (vault / JOURNAL).read_text() == "- claude log\n\t- typo fixed by a human\n"


def test_bullet_kinds_get_their_prefix(vault: Path) -> None:
    journal_agent.append(
        ["use DNS flip for rollback"], vault=vault, agent="c", date=DAY, kind="decision"
    )
    journal_agent.append(
        ["[[Flaky CI]] fixed"], vault=vault, agent="c", date=DAY, kind="resolution"
    )
    assert (vault / JOURNAL).read_text() == (
        "- c log\n\t- Decision: use DNS flip for rollback\n\t- Resolved: [[Flaky CI]] fixed\n"
    )


def test_resolution_checked_by_case_and_alias(vault: Path) -> None:
    (vault / "pages" / "Atlas Migration.md").write_text("alias:: Atlas\n\n- x\n")
    journal_agent.append(
        ["[[atlas]] and [[ATLAS MIGRATION]] and [[projects/atlas dashboard]]"],
        vault=vault,
        agent="c",
        date=DAY,
    )
    assert "[[atlas]]" in (vault / JOURNAL).read_text()


# -- refusals: each names the problem and leaves every file as it was -----------------------------


@pytest.mark.parametrize(
    ("bullet", "message"),
    [
        (
            "Fixed [[Atlas Migratoin]]",
            "no page named 'Atlas Migratoin'; writing it would create one "
            "(did you mean 'Atlas Migration'",
        ),
        ("tagged #newtopic", "no page named 'newtopic'"),
        ("see [notes]([[Nowhere]])", "no page named 'Nowhere'"),
        ("two\nlines", "contains a line break"),
        ("bell \x07", "control characters U+0007"),
        ("- nested marker", "starts with a list, heading, quote or code marker"),
        ("# heading", "starts with a list"),
        ("> quote", "starts with a list"),
        ("status:: done", "would become a property"),
        ("x" * 1001, "1001 characters; the limit is 1000"),
        ("   ", "the bullet is empty"),
        ("ref ((6551e92e-fb34-4d24-a386-d9698c2e93f7))", "no block has the id"),
    ],
)
def test_refusals(vault: Path, bullet: str, message: str) -> None:
    (vault / JOURNAL).write_text("- human\n")
    before = snapshot(vault)
    with pytest.raises(BulletsRefused) as refused:
        journal_agent.append(["a fine bullet", bullet], vault=vault, agent="c", date=DAY)
    assert message in str(refused.value)
    assert snapshot(vault) == before  # nothing written, not even the ledger


def test_unlink_writes_unknown_names_as_plain_text(vault: Path) -> None:
    result = journal_agent.append(
        ["[[Nowhere]] and #newtag and [[Grafana]]"], vault=vault, agent="c", date=DAY, unlink=True
    )
    assert result.written == ["Nowhere and newtag and [[Grafana]]"]


def test_block_refs_to_existing_ids_are_fine(vault: Path) -> None:
    uid = "6551e92e-fb34-4d24-a386-d9698c2e93f7"
    (vault / "pages" / "Grafana.md").write_text(f"- a block\n  id:: {uid}\n")
    journal_agent.append([f"see (({uid}))"], vault=vault, agent="c", date=DAY)


def test_superseded_page_is_refused_with_its_successor(vault: Path) -> None:
    (vault / "pages" / "Grafana.md").write_text("superseded-by:: [[Atlas Migration]]\n\n- old\n")
    with pytest.raises(BulletsRefused, match="superseded by 'Atlas Migration'"):
        journal_agent.append(["look at [[Grafana]]"], vault=vault, agent="c", date=DAY)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"- a\n<<<<<<< HEAD\n- mine\n=======\n- theirs\n>>>>>>> other\n",
            "merge-conflict markers",
        ),
        (b"- caf\xe9\n", "not UTF-8 text"),
        (b"\x00\x01binary", "binary file"),
        (b"- a\n- " + b"x" * 9000 + b"\n- \x00 past the first 8 KB\n", "binary file"),
    ],
)
def test_unsafe_journal_is_refused(vault: Path, content: bytes, message: str) -> None:
    (vault / JOURNAL).write_bytes(content)
    before = snapshot(vault)
    with pytest.raises(UnsafePage, match=message):
        journal_agent.append(["x"], vault=vault, agent="c", date=DAY)
    assert snapshot(vault) == before


def test_symlinked_journal_is_refused(vault: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.md"
    target.write_text("- outside\n")
    (vault / JOURNAL).symlink_to(target)
    with pytest.raises(UnsafePage, match="symbolic link"):
        journal_agent.append(["x"], vault=vault, agent="c", date=DAY)
    assert target.read_text() == "- outside\n"


def test_journal_folder_linked_outside_the_vault_is_refused(vault: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / "journals").rmdir()
    (vault / "journals").symlink_to(outside)
    with pytest.raises(UnsafePage, match="outside the vault"):
        journal_agent.append(["x"], vault=vault, agent="c", date=DAY)
    assert list(outside.iterdir()) == []


def test_file_mode_is_kept(vault: Path) -> None:
    (vault / JOURNAL).write_text("- a\n")
    os.chmod(vault / JOURNAL, 0o600)
    journal_agent.append(["x"], vault=vault, agent="c", date=DAY)
    assert (vault / JOURNAL).stat().st_mode & 0o777 == 0o600


# -- new pages from the daily template -----------------------------------------------------------


def test_obsidian_new_daily_note_from_template(obsidian_vault: Path) -> None:
    (obsidian_vault / "Templates" / "Daily.md").write_text(
        "# {{title}}\n{{date:dddd, MMMM Do YYYY}} · prev {{yesterday}}\n\n## Log\n"
    )
    journal_agent.append(
        ["Checked [[Atlas]]"], vault=obsidian_vault, agent="claude", date="2026-11-29"
    )
    text = (obsidian_vault / "Daily/2026/11/2026-11-29.md").read_text()
    assert text == (
        "# 2026/11/2026-11-29\nSunday, November 29th 2026 · prev 2026/11/2026-11-28\n\n"
        "## Log\n- claude log\n    - Checked [[Atlas]]\n"
    )


@pytest.mark.parametrize("fmt", ["YYYY-MM-DD", "YYYY/MM/YYYY-MM-DD"])
def test_obsidian_daily_note_is_the_md_file_obsidian_opens(obsidian_vault: Path, fmt: str) -> None:
    """Obsidian opens only ``.md`` files as notes: beside a ``.markdown`` file of the day, it
    makes (and opens) the ``.md`` one, so that is where the bullets go."""
    settings = {"folder": "Daily", "format": fmt}
    (obsidian_vault / ".obsidian" / "daily-notes.json").write_text(json.dumps(settings))
    day = DAY.strftime("%Y/%m/%Y-%m-%d" if "/" in fmt else "%Y-%m-%d")
    other = obsidian_vault / f"Daily/{day}.markdown"
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text("- a human note\n")
    result = journal_agent.append(["Checked [[Atlas]]"], vault=obsidian_vault, agent="c", date=DAY)
    assert result.path == f"Daily/{day}.md"
    assert journal_agent.info(vault=obsidian_vault, date=DAY).journal_page == result.path
    assert other.read_text() == "- a human note\n"
    assert (obsidian_vault / result.path).read_text() == "- c log\n    - Checked [[Atlas]]\n"


def test_a_journal_of_a_nested_format_is_found_whatever_the_case_of_its_extension(
    tmp_path: Path,
) -> None:
    """An existing page of the day wins over making another, where the format makes folders."""
    (tmp_path / ".journal-agent.toml").write_text('[journal]\nformat = "YYYY/MM/YYYY-MM-DD"\n')
    page = tmp_path / "journals/2026/11/2026-11-29.MD"
    page.parent.mkdir(parents=True)
    page.write_text("- a human note\n")
    result = journal_agent.append(["x"], vault=tmp_path, agent="c", date=DAY)
    assert result.path == "journals/2026/11/2026-11-29.MD"
    assert sorted(p.name for p in page.parent.iterdir()) == [page.name]


@pytest.mark.parametrize(
    "setting", ["Daily template", "daily TEMPLATE.md", "Templates/Daily template"]
)
def test_obsidian_template_named_as_a_link_names_it(obsidian_vault: Path, setting: str) -> None:
    """Obsidian finds the template as a link from the vault root finds a note: a bare file name
    finds it in any folder, the shortest path first."""
    daily = {"folder": "Daily", "template": setting}
    (obsidian_vault / ".obsidian" / "daily-notes.json").write_text(json.dumps(daily))
    (obsidian_vault / "Templates" / "Daily template.md").write_text("## Log {{date}}\n")
    (obsidian_vault / "Projects" / "Old").mkdir()
    (obsidian_vault / "Projects" / "Old" / "Daily template.md").write_text("## Old\n")
    result = journal_agent.append(["Checked [[Atlas]]"], vault=obsidian_vault, agent="c", date=DAY)
    assert (obsidian_vault / result.path).read_text().startswith("## Log 2026-11-29\n- c log\n")
    assert result.warnings == []


def test_obsidian_template_names_the_note_as_its_format_writes_it(obsidian_vault: Path) -> None:
    daily = {"folder": "Daily", "format": "YYYY-MM-DD[.md]", "template": "Templates/Daily"}
    (obsidian_vault / ".obsidian" / "daily-notes.json").write_text(json.dumps(daily))
    (obsidian_vault / "Templates" / "Daily.md").write_text("# {{title}} after {{yesterday}}\n")
    result = journal_agent.append(["Checked [[Atlas]]"], vault=obsidian_vault, agent="c", date=DAY)
    assert result.path == "Daily/2026-11-29.md"
    text = (obsidian_vault / result.path).read_text()
    assert text.startswith("# 2026-11-29.md after 2026-11-28.md\n- c log\n")


def test_obsidian_template_not_found_says_so(obsidian_vault: Path) -> None:
    (obsidian_vault / ".obsidian" / "daily-notes.json").write_text('{"template": "Nowhere"}')
    result = journal_agent.append(["Checked [[Atlas]]"], vault=obsidian_vault, agent="c", date=DAY)
    assert (obsidian_vault / result.path).read_text() == "- c log\n    - Checked [[Atlas]]\n"
    assert result.warnings == ["daily-note template 'Nowhere' not found: the page starts empty"]


@pytest.mark.parametrize("data", [b"# {{date}}\x00\n", b"# \xff{{date}}\n"])
def test_obsidian_template_that_is_no_text_is_not_used(obsidian_vault: Path, data: bytes) -> None:
    (obsidian_vault / "Daily.md").write_bytes(data)
    (obsidian_vault / ".obsidian" / "daily-notes.json").write_text('{"template": "Daily"}')
    result = journal_agent.append(["Checked [[Atlas]]"], vault=obsidian_vault, agent="c", date=DAY)
    assert (obsidian_vault / result.path).read_bytes() == b"- c log\n    - Checked [[Atlas]]\n"
    [warning] = result.warnings
    assert warning.startswith("daily-note template 'Daily' cannot be used (the file: ")


def test_obsidian_alias_link_must_name_the_real_page(obsidian_vault: Path) -> None:
    with pytest.raises(BulletsRefused, match=r"write \[\[Atlas\|Project Atlas\]\]"):
        journal_agent.append(["[[Project Atlas]]"], vault=obsidian_vault, agent="c", date=DAY)
    journal_agent.append(
        ["[[Atlas|Project Atlas]] and #anytag"], vault=obsidian_vault, agent="c", date=DAY
    )


@pytest.mark.parametrize(
    "head",
    ["- Daily\n  template:: Daily\n", "- template:: Daily\n"],  # the property on the first line
)
def test_logseq_new_journal_from_default_template(vault: Path, head: str) -> None:
    (vault / "logseq" / "config.edn").write_text(
        '{:file/name-format :triple-lowbar :default-templates {:journals "Daily"}}'
    )
    (vault / "pages" / "Templates.md").write_text(
        head + "  template-including-parent:: false\n"
        "\t- ## Morning\n\t\t- plan for <% today %>\n\t- ## Notes\n"
    )
    journal_agent.append(["x"], vault=vault, agent="c", date=DAY)
    assert (vault / JOURNAL).read_text() == (
        "- ## Morning\n\t- plan for [[Nov 29th, 2026]]\n- ## Notes\n- c log\n\t- x\n"
    )


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (
            "## Log\n```\n",
            "would be made from the daily-note template 'Templates/Daily.md', which ends inside "
            "a code block opened on line 2",
        ),
        ("# {{title}}\n\n~~~\n- [[Atlas]]\n", "code block opened on line 3"),
        ("## Log\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> other\n", "merge-conflict markers"),
    ],
)
def test_obsidian_template_no_one_would_write_under_is_refused(
    obsidian_vault: Path, template: str, message: str
) -> None:
    """The guards of an existing page hold for the page a template would make: in an open fence
    the owned block would be code (and its mentions none), so nothing is created."""
    (obsidian_vault / "Templates" / "Daily.md").write_text(template)
    before = snapshot(obsidian_vault)
    with pytest.raises(UnsafePage, match=message):
        journal_agent.append(["Checked [[Atlas]]"], vault=obsidian_vault, agent="claude")
    assert snapshot(obsidian_vault) == before


def test_logseq_template_with_conflict_markers_is_refused(vault: Path) -> None:
    (vault / "logseq" / "config.edn").write_text(
        '{:file/name-format :triple-lowbar :default-templates {:journals "Daily"}}'
    )
    (vault / "pages" / "Templates.md").write_text(
        "- Daily\n  template:: Daily\n\t- plan\n<<<<<<< HEAD\n\t- a\n=======\n\t- b\n"
        ">>>>>>> other\n"
    )
    before = snapshot(vault)
    with pytest.raises(UnsafePage, match="journal template 'Daily' .*merge-conflict markers"):
        journal_agent.append(["x"], vault=vault, agent="c")
    assert snapshot(vault) == before


# -- what Logseq itself sees ----------------------------------------------------------------------


def test_logseq_parser_sees_bullets_as_children_of_the_owned_block(tmp_path: Path) -> None:
    """mldoc (Logseq's parser) reads each appended bullet as a child of the owned block, with
    the references we meant."""
    rng = random.Random(7)
    texts: list[str] = []
    bullets = ["Fixed [[Flaky CI]] retry", "Decision: watch #[[Atlas Migration]] in [[Grafana]]"]
    for i in range(40):
        root = make_vault(tmp_path / f"v{i}")
        extra = [
            "",
            "\n\t- child",
            "\n  more text",
            "\n  #+BEGIN_QUOTE\n- claude log\n  #+END_QUOTE",
        ]
        lines = [f"- note {j} [[Grafana]]" + rng.choice(extra) for j in range(rng.randint(0, 4))]
        if rng.random() < 0.5:
            lines.append(
                "- claude log\n"
                + rng.choice(
                    [
                        "\t- human says hi",
                        "  - spaced child",
                        "",
                        "\t- human\n\t  #+BEGIN_EXAMPLE\n\t  - not a block\n\t  #+END_EXAMPLE",
                    ]
                )
            )
        text = "\n".join(lines) + rng.choice(["", "\n"])
        (root / JOURNAL).write_text(text.replace("\n\n", "\n"))
        journal_agent.append(bullets, vault=root, agent="claude", date=DAY)
        texts.append((root / JOURNAL).read_text())
    for text, page in zip(texts, run_oracle(texts), strict=True):
        lines = text.split("\n")
        blocks = page["blocks"]
        owner = max(i for i, b in enumerate(blocks) if lines[b["line"]] == "- claude log")
        top: int = blocks[owner]["level"]
        kids: list[dict[str, Any]] = []
        for b in blocks[owner + 1 :]:
            if b["level"] <= top:
                break
            kids.append(b)
        mine = [b for b in kids if lines[b["line"]].lstrip().removeprefix("- ") in bullets]
        assert [b["refs"] for b in mine] == [["Flaky CI"], ["Atlas Migration", "Grafana"]], text
        assert blocks[owner]["refs"] == [] and blocks[owner]["level"] == 1


def test_begin_blocks_are_their_blocks_text(vault: Path) -> None:
    """``- `` lines inside a #+BEGIN block are no blocks (Logseq's parser reads the block as one
    piece of text): they are neither the owned block nor its children, and nothing is inserted
    inside the block."""
    page = (
        "- claude log\n"
        "\t- first\n"
        "\t  #+BEGIN_QUOTE\n"
        "  - claude log\n"
        "- not a child\n"
        "\t  #+END_QUOTE\n"
    )
    (vault / JOURNAL).write_text(page)
    journal_agent.append(["second"], vault=vault, agent="claude", date=DAY)
    assert (vault / JOURNAL).read_text() == page + "\t- second\n"
    page = "- note\n  #+BEGIN_EXAMPLE\n- claude log\n\t- in the example\n  #+END_EXAMPLE\n"
    (vault / JOURNAL).write_text(page)
    journal_agent.append(["third"], vault=vault, agent="claude", date=DAY)
    assert (vault / JOURNAL).read_text() == page + "- claude log\n\t- third\n"


def test_a_file_name_renamed_by_title_is_not_a_page(logseq_vault: Path) -> None:
    """Logseq: pages/Onboarding notes.md has title:: Onboarding: first week, so only the
    title names a page (the quick file-name check must not accept the file name)."""
    with pytest.raises(BulletsRefused, match="no page named 'Onboarding notes'"):
        journal_agent.append(["read [[Onboarding notes]]"], vault=logseq_vault, date=DAY)
    journal_agent.append(["read [[Onboarding: first week]]"], vault=logseq_vault, date=DAY)


def test_pages_known_only_by_reference_or_alias_need_the_index(logseq_vault: Path) -> None:
    (logseq_vault / "journals" / "2026_11_28.md").write_text("- met about [[Budget 2027]]\n")
    result = journal_agent.append(
        ["[[budget 2027]] and [[Project Atlas]]"], vault=logseq_vault, date=DAY
    )
    assert result.written == ["[[budget 2027]] and [[Project Atlas]]"]
