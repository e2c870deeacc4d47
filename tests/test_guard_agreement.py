"""The append guard and the derived status follow the same rules.

A bullet the guard accepts must land, once written, on the page the outliner opens for its
links, and that page's status must count it; a bullet that would make the outliner create a page
is refused. The guard first tries a cheap lookup (`registry.KnownPages`: file names, the linked
pages' own properties, Logseq's built-in pages) and falls back to the full registry; wherever the
cheap lookup answers, it must answer as the full registry does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import journal_agent
from journal_agent import BulletsRefused, open_vault
from journal_agent.api import status, timeline
from journal_agent.index import load_index
from journal_agent.registry import KnownPages, build_registry, file_stem

from .conftest import FIXTURE_VAULTS, SAMPLE_VAULT, copy_vault, journal, pin_today

DAY = "2026-11-30"


def _names(root: Path) -> list[str]:
    """Names worth linking: every page and alias, Logseq's built-ins and odd spellings, dates,
    file names a title:: renamed, and names that are no page."""
    registry = build_registry(load_index(open_vault(root), use_cache=False))
    names = [p.title for p in registry] + [a for p in registry for a in p.aliases]
    names += [p.path.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p in registry if p.path]
    names += ["TODO", "done", "Contents", "card", "A", "2026-11-24", "nov 24th, 2026"]
    names += ["Atlas Migration ", "/Atlas Migration/", "Onboarding notes", "Nope", "Work/Meeting"]
    names += ["Meeting", "meeting.md", "Old/Meeting", "../Work/Meeting"]
    return sorted(set(names))


@pytest.mark.parametrize(
    "root",
    [
        SAMPLE_VAULT,
        FIXTURE_VAULTS / "obsidian",
        FIXTURE_VAULTS / "obsidian_rules" / "duplicate_names",
    ],
)
def test_the_quick_lookup_answers_as_the_full_registry(root: Path) -> None:
    vault = open_vault(root)
    source = vault.journal_page(journal_agent.api.parse_day(DAY)).path
    full = build_registry(load_index(vault, use_cache=False)).seen_from(source)
    answered = 0
    for name in _names(root):
        quick = KnownPages(vault, use_cache=False)._quick([f"see [[{name}]]"], False, source)
        if quick is None:
            continue  # the guard then asks the full registry
        answered += 1
        mine, theirs = quick.seen_from(source).resolve(name), full.resolve(name)
        assert theirs is not None, name
        assert mine is not None and (mine.path, full.key(mine.title)) == (
            theirs.path,
            full.key(theirs.title),
        ), name
    assert answered > 5


def test_built_in_pages_exist_and_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Logseq's built-in pages exist in every graph: linking them mints nothing, and the link
    counts in their timeline like Logseq's Linked References."""
    root = copy_vault(SAMPLE_VAULT, tmp_path)
    pin_today(monkeypatch, DAY)  # the one day whose page an append may create
    journal_agent.append(["filed under [[Contents]] and #card"], vault=root, date=DAY)
    lines = {(e.path, e.line) for e in timeline("card", vault=root, as_of=DAY).entries}
    assert ("journals/2026_11_30.md", 1) in lines
    assert status("Contents", vault=root, as_of=DAY).status == "active"


def test_a_property_key_would_mint_a_page(tmp_path: Path) -> None:
    """``key:: value`` makes Logseq create the page ``key``: refused, nothing written."""
    root = copy_vault(SAMPLE_VAULT, tmp_path)
    with pytest.raises(BulletsRefused, match="property"):
        journal_agent.append(["owner:: [[Dana Ruiz]]"], vault=root, date=DAY)
    assert not journal(root, DAY).exists()


def test_a_date_link_is_that_days_journal_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[[2026-11-24]]`` is the journal page Nov 24th, 2026 (Logseq renames the date): it
    exists because its file does, and the link counts in that day's timeline."""
    root = copy_vault(SAMPLE_VAULT, tmp_path)
    pin_today(monkeypatch, DAY)
    journal_agent.append(["follow-up of [[2026-11-24]]"], vault=root, date=DAY)
    lines = {(e.path, e.line) for e in timeline("Nov 24th, 2026", vault=root, as_of=DAY).entries}
    assert ("journals/2026_11_30.md", 1) in lines
    with pytest.raises(BulletsRefused, match="no page named '2031-01-01'"):
        journal_agent.append(["see [[2031-01-01]]"], vault=root, date=DAY)


@pytest.mark.parametrize(
    "root",
    [
        SAMPLE_VAULT,
        FIXTURE_VAULTS / "obsidian",
        FIXTURE_VAULTS / "obsidian_rules" / "duplicate_names",
    ],
)
def test_lint_says_what_the_full_registry_says(root: Path, tmp_path: Path) -> None:
    """`lint` checks bullets as `append` does (the cheap lookup first): for a link to every
    name, its problems (and suggestions) are those of the full registry."""
    from journal_agent.api import lint
    from journal_agent.guard import lint as lint_bullet

    root = copy_vault(root, tmp_path)
    vault = open_vault(root)
    index = load_index(vault, use_cache=False)
    source = vault.journal_page(journal_agent.api.parse_day(DAY)).path
    full = build_registry(index).seen_from(source)
    ids = frozenset(i for facts in index.files.values() for i in facts.block_ids)
    for name in _names(root):
        bullet = f"see [[{name}]]"
        found = lint_bullet(bullet, full, vault.flavor.syntax, block_ids=ids)
        expected = [p.to_json() for p in found]
        assert [p.to_json() for p in lint(bullet, vault=root).problems] == expected, name


def test_files_are_found_by_name_as_each_file_name_reads(tmp_path: Path) -> None:
    """The quick lookup finds a name's files in one text of every path: it finds exactly the
    files whose own name (NFC, lower-cased, without extension) is the name, however the names
    are spelled (decomposed accents, a final sigma at a name's end or a word's, a dotted capital
    I, a dot in the name, a folder named like a page)."""
    root = tmp_path / "v"
    names = [
        "ΟΔΟΣ.md", "pages/οδοσ.md", "pages/Cafe\u0301.md", "pages/Café.md", "pages/İstanbul.md",
        "pages/notes.md", "pages/notes.bak.md", "pages/notes.d/notes.md", "Notes.md",
        "sub/NOTES.md", "pages/stem./stem.md", "pages/x/stem.md", "pages/a\u0301b\u0301.md",
        "pages/ΟΔΟΣ ΑΒ.md",
    ]  # fmt: skip
    for rel in names:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("- a page\n")
    (root / "logseq").mkdir()
    (root / "logseq" / "config.edn").write_text("{}")
    vault = open_vault(root)
    known = KnownPages(vault, use_cache=False)
    rels = vault.page_paths()
    assert len(rels) == len(names)
    for stem in {file_stem(rel) for rel in rels} | {"οδος", "nope", "", "note", "stem."}:
        assert known._files_named(stem) == [r for r in rels if file_stem(r) == stem], stem
