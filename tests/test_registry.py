"""Page titles from file names, and resolution of references by each outliner's rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal_agent import BadPageName, load_registry, open_vault
from journal_agent.flavors import LogseqFlavor, ObsidianFlavor, Settings
from journal_agent.registry import Page, closest
from journal_agent.wiki_pages import WikiPages

from .conftest import FIXTURE_VAULTS, SAMPLE_VAULT

TRI = Settings("journals", "yyyy_MM_dd", "logseq", file_name_format="triple-lowbar")
LEGACY = Settings("journals", "yyyy_MM_dd", "logseq", file_name_format="legacy")
LOGSEQ = LogseqFlavor()


@pytest.mark.parametrize(
    ("stem", "title"),
    [
        ("Atlas Migration", "Atlas Migration"),
        ("Projects___Atlas Dashboard", "Projects/Atlas Dashboard"),
        ("a___b___c", "a/b/c"),
        ("What%3F Why%2A", "What? Why*"),
        ("C%23 notes", "C# notes"),
        ("%2Ehidden", ".hidden"),
        ("100%25 done", "100% done"),
        ("snake%5Fcase___x", "snake_case/x"),
        ("CON___", "CON"),
    ],
)
def test_logseq_triple_lowbar_titles(stem: str, title: str) -> None:
    assert LOGSEQ.title_of(stem, TRI) == title


@pytest.mark.parametrize(
    ("stem", "title"),
    [
        ("Logseq%2FFeatures", "Logseq/Features"),
        ("Logseq.Features", "Logseq/Features"),
        ("Plain", "Plain"),
    ],
)
def test_logseq_legacy_titles(stem: str, title: str) -> None:
    assert LOGSEQ.title_of(stem, LEGACY) == title


@pytest.mark.parametrize(
    "title",
    [
        "Atlas Migration",
        "Projects/Atlas Dashboard",
        "What? Why*",
        "C# notes",
        ".hidden",
        "100% done",
        "a: b",
        "snake_/x",
        "CON",
        "end.",
        'quote"s <and> |pipes|',
        "café/ünïcode",
    ],
)
def test_logseq_file_names_round_trip(title: str) -> None:
    name = LOGSEQ.file_name_of(title, TRI)
    assert not any(c in name for c in ':\\*?"<>|#/')
    assert LOGSEQ.title_of(name, TRI) == title


def test_reserved_page_names_are_refused() -> None:
    with pytest.raises(BadPageName, match="cannot be a Logseq page file name"):
        LOGSEQ.file_name_of("  ", TRI)
    with pytest.raises(BadPageName, match="cannot be a file name in a obsidian vault"):
        open_vault(FIXTURE_VAULTS / "obsidian").flavor.file_name_of("a/b", TRI)


def test_logseq_resolution() -> None:
    registry, warnings = load_registry(open_vault(SAMPLE_VAULT))
    assert warnings == []
    resolve = registry.resolve
    atlas = resolve("Atlas Migration")
    assert atlas is not None and atlas.path == "pages/Atlas Migration.md"
    assert resolve("atlas migration") is atlas  # case-insensitive
    assert resolve("Atlas") is atlas and resolve("project atlas") is atlas  # aliases fold in
    onboarding = resolve("Onboarding: first week")  # title:: overrides the file name
    assert onboarding is not None and onboarding.path == "pages/Onboarding notes.md"
    assert resolve("Onboarding notes") is None
    dashboard = resolve("projects/atlas dashboard")
    assert dashboard is not None and dashboard.path == "pages/Projects___Atlas Dashboard.md"
    nov24 = resolve("Nov 24th, 2026")
    assert nov24 is not None and nov24.path == "journals/2026_11_24.md"
    assert resolve("Atlas Migratoin") is None
    assert "Atlas Migration" in registry.suggest("Atlas Migratoin")


def test_logseq_namespace_parents_exist_without_a_file(tmp_path: Path) -> None:
    (tmp_path / "logseq").mkdir()
    (tmp_path / "logseq" / "config.edn").write_text("{:file/name-format :triple-lowbar}")
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "Area___Sub___Leaf.md").write_text("- x\n")
    registry, _ = load_registry(open_vault(tmp_path))
    parent = registry.resolve("area/sub")
    assert parent is not None and parent.path is None
    assert registry.resolve("Area") is not None


def test_obsidian_resolution() -> None:
    registry, _ = load_registry(open_vault(FIXTURE_VAULTS / "obsidian"))
    resolve = registry.resolve
    atlas = resolve("atlas")  # base name anywhere, case-insensitive
    assert atlas is not None and atlas.title == "Atlas"
    projects_atlas = resolve("Projects/Atlas")  # path suffix picks the folder
    assert projects_atlas is not None and projects_atlas.path == "Projects/Atlas.md"
    notes_atlas = resolve("notes/atlas.md")
    assert notes_atlas is not None and notes_atlas.path == "Notes/Atlas.md"
    assert resolve("Project Atlas") is None  # a bare alias does not resolve in Obsidian
    assert resolve("Old") is None  # Archive/ is in userIgnoreFilters
    assert resolve("diagram.png") is None  # attachments are not pages
    assert "Atlas Migration" not in registry.names()


def test_a_query_names_an_obsidian_note_by_its_alias() -> None:
    """A bare alias links nothing, but a query's topic may be an alias: where no note has the
    name, the notes that declare it (shortest path first); a note of that name comes first."""
    registry = WikiPages(
        [
            Page("Project A", "Work/Project A.md", ["PA", "Plan.md"]),
            Page("Other", "Other.md", ["pa", "Shared"]),
            Page("Shared", "Notes/Shared.md"),
        ],
        ObsidianFlavor(),
    )
    assert registry.resolve("PA") is None
    assert [p.path for p in registry.candidates("pa")] == ["Other.md", "Work/Project A.md"]
    assert [p.path for p in registry.candidates("Plan")] == ["Work/Project A.md"]
    assert [p.path for p in registry.candidates("plan.md")] == ["Work/Project A.md"]
    assert [p.path for p in registry.candidates("Shared")] == ["Notes/Shared.md"]
    assert registry.candidates("Project") == []


def test_markdown_resolution() -> None:
    registry, _ = load_registry(open_vault(FIXTURE_VAULTS / "markdown"))
    assert registry.resolve("topic") is not None
    assert registry.resolve("deep/leaf") is not None
    assert registry.resolve("Topic Alias") is None
    assert registry.resolve("2026-11-28") is not None
    topic = registry.resolve("topic")
    assert topic is not None and topic.aliases == ["Topic Alias"]


@pytest.mark.parametrize("seed", range(5))
def test_the_closest_names_do_not_depend_on_their_order(seed: int) -> None:
    """The names offered for an unknown one are the same from the registry's list and from the
    summary's (`Summary.suggested`, in another order): best first, ties by name, each once."""
    import random

    rng = random.Random(seed)
    stems = ["Atlas Migration", "Alias Migration", "Atlas Migrations", "Atlas", "Gateway"]
    names = [rng.choice(stems) + rng.choice(["", " 2", " X", "s"]) for _ in range(40)]
    for typo in ("Atlas Migratoin", "Atlas Migration", "Alias", "Gateway 3", "Nope"):
        found = closest(typo, names)
        shuffled = names[:]
        rng.shuffle(shuffled)
        assert found == closest(typo, shuffled) == closest(typo, set(names))
        assert len(found) == len(set(found)) <= 3
