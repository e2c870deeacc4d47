"""Obsidian's Backlinks, written by hand from its documented behaviour, one fixture vault per rule.

Each vault under tests/vaults/obsidian_rules/ holds one rule; ``EXPECTED`` gives, per note (by
path), the lines that link it, as the Backlinks pane's "Linked mentions" lists them. Sources
(obsidianmd/obsidian-help, as cited in shared/reference/outliners.md §3.2):

* "Plugins/Backlinks.md": "A backlink for a note is a link from another note to that note";
  Linked mentions "contain an internal link to the active note". The links themselves: a
  child bullet under a bullet that links a note does not link it, and a ``#tag`` is a tag.
* "Linking notes and files/Internal links.md": links are ``[[Name]]`` or Markdown
  ``[text](Name%20URL-encoded.md)`` ("equivalent … links to the same note"), also without
  ``.md`` (Obsidian wrote relative links so: ozntel/obsidian-link-converter#7), read as
  ``[[Name]]``, destination and title as CommonMark reads them; ``[[Name#Heading]]``,
  ``[[Name#H1#H2]]``, ``[[Name#^block]]`` and ``[[Name|text]]`` link the note; a folder in the
  link tells notes of one name apart. Which note a bare name opens when several share it is not
  documented: the rule used (the linking note's folder, then the shortest path, then
  alphabetical) is that of the reimplementations of ``getFirstLinkpathDest`` (outliners.md).
* "Linking notes and files/Embed files.md": ``![[Name]]`` embeds the note (and links it);
  ``![[image.png]]`` embeds an attachment, no note.
* "Editing and formatting/Advanced formatting syntax.md" (Tables): inside a table the ``|`` of a
  link's text is written ``\\|``: ``[[Note\\|text]]``.
* "Editing and formatting/Properties.md": Text and List properties hold links "using the
  ``[[Link]]`` syntax".
* "Editing and formatting/Basic formatting syntax.md" (Comments): ``%%`` comments, "block
  comments can span multiple lines" (blank ones too: Obsidian's own syntax, which list items do
  not stop either); HTML comments as CommonMark reads them.
* "Plugins/Outgoing links.md": links in code blocks are no links; "Basic formatting syntax.md"
  (Code blocks): "indenting the text using Tab or 4 blank spaces" makes one (CommonMark's
  indented code); "Advanced formatting syntax.md" (Math): ``$$…$$`` and ``$…$`` are MathJax,
  read for no link; inline math wants no space before its closing ``$``
  (forum.obsidian.md/t/63551); we also want none after the opening one and no digit after the
  closing one (pandoc's rule), so that fewer texts read as math.
* "Linking notes and files/Aliases.md": an alias is offered by autocomplete, which writes
  ``[[Real name|Alias]]``; a bare ``[[Alias]]`` links a note of that name, which does not exist.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import journal_agent
from journal_agent import AmbiguousPage, PageNotFound, cli, quick
from journal_agent.api import pages, status, timeline, topics

from .conftest import FIXTURE_VAULTS, copy_vault, pin_today, settle

RULES = FIXTURE_VAULTS / "obsidian_rules"
AS_OF = "2026-11-30"

#: vault -> note path -> the (file, line) pairs Obsidian lists as its linked mentions
EXPECTED: dict[str, dict[str, set[tuple[str, int]]]] = {
    # one name, four notes: the linking note's folder first, else the shortest path
    # (Home/Meeting.md and Work/Meeting.md are as long: alphabetical), a folder in the link
    # picks that note, and case does not matter
    "duplicate_names": {
        "Work/Meeting.md": {("Daily/2026-11-20.md", 1), ("Work/Plan.md", 0)},
        "Home/Meeting.md": {
            ("Daily/2026-11-20.md", 0),
            ("Daily/2026-11-20.md", 2),
            ("Home/Chores.md", 0),
            ("Archive/Notes.md", 0),
        },
        "Archive/Old/Meeting.md": {("Archive/Old/Log.md", 0)},
    },
    # Markdown links are paths from the linking note's folder (./ and ../ too), URL-encoded;
    # from the daily note, Notes.md is the one at the vault root (none beside it)
    "relative_links": {
        "Specs/Spec.md": {
            ("Projects/Alpha.md", 0),
            ("Projects/Alpha.md", 4),
            ("Daily/2026-11-21.md", 1),
        },
        "Projects/Notes.md": {("Projects/Alpha.md", 1), ("Projects/Alpha.md", 3)},
        "Projects/My Plan.md": {("Projects/Alpha.md", 2)},
        "Notes.md": {("Daily/2026-11-21.md", 0)},
    },
    # [[Note\|text]] in a table row links Note, an embed with a size too
    "tables": {
        "Topic.md": {("Daily/2026-11-22.md", 2), ("Daily/2026-11-22.md", 4)},
        "Other.md": {("Daily/2026-11-22.md", 3)},
    },
    # embeds, headings, subheadings and blocks link the note; an image is no note; a note's
    # link to its own heading is no backlink
    "embeds_and_headings": {
        "Topic.md": {
            ("Daily/2026-11-23.md", 0),
            ("Daily/2026-11-23.md", 1),
            ("Daily/2026-11-23.md", 2),
            ("Daily/2026-11-23.md", 4),
        },
    },
    # a bare alias links nothing; [[Real|Alias]] links the note
    "aliases": {"Topic.md": {("Daily/2026-11-24.md", 1)}},
    # the links themselves: not a child of a bullet that links, not a #tag
    "links_not_ancestors": {
        "Topic.md": {("Daily/2026-11-25.md", 0)},
        "Other.md": {("Daily/2026-11-25.md", 2), ("Daily/2026-11-25.md", 4)},
    },
    # a property's link is a mention on its line, whatever the body starts with (a heading, a
    # bullet, text, nothing); a Markdown link in a property is text
    "front_matter": {
        "Topic.md": {("Daily/2026-11-20.md", 1), ("Daily/2026-11-22.md", 1), ("Notes.md", 1)},
        "Other.md": {("Daily/2026-11-21.md", 1)},
    },
    # Markdown links by CommonMark's grammar (balanced parentheses, <...>, titles in any
    # quotes, escapes), with or without .md, to a heading too; a URL, an attachment or a
    # heading of the same note links no note
    "markdown_links": {
        "Spec v2.md": {
            ("Daily/2026-11-27.md", 0),
            ("Daily/2026-11-27.md", 1),
            ("Daily/2026-11-27.md", 4),
        },
        "Meeting (2024).md": {("Daily/2026-11-27.md", 2), ("Daily/2026-11-27.md", 5)},
        "Plan.md": {("Daily/2026-11-27.md", 3), ("Daily/2026-11-27.md", 5)},
    },
    # comments over lines hide their links: %% to the next %% (across list items), an HTML
    # comment within its paragraph, or from a line it starts to its closer; unclosed, text
    "comments": {
        "Other.md": {
            ("Daily/2026-11-28.md", 2),
            ("Daily/2026-11-28.md", 5),
            ("Daily/2026-11-28.md", 8),
            ("Daily/2026-11-28.md", 13),
            ("Daily/2026-11-28.md", 14),
        },
    },
    # no link in code (an indented code block, also in a list item; a fence in a block quote)
    # or math ($...$ with no space inside its dollars, $$...$$ over lines too); "$5 and $10"
    # is text, and a list item's paragraphs are no code
    "code_and_math": {
        "Other.md": {
            ("Daily/2026-11-29.md", 0),
            ("Daily/2026-11-29.md", 3),
            ("Daily/2026-11-29.md", 6),
            ("Daily/2026-11-29.md", 9),
            ("Daily/2026-11-29.md", 13),
            ("Daily/2026-11-29.md", 14),
        },
    },
    # a plain Markdown folder resolves as Obsidian does
    "markdown_duplicates": {
        "notes/Topic.md": {("journals/2026-11-26.md", 0)},
        "notes/deep/Topic.md": {("journals/2026-11-26.md", 1), ("notes/deep/Other.md", 0)},
    },
}


def backlinks(root: Path, note: str) -> set[tuple[str, int]]:
    entries = timeline(note, vault=root, as_of=AS_OF).to_json()["entries"]
    return {(e["path"], e["line"]) for e in entries}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_backlinks_are_obsidians(case: str) -> None:
    root = RULES / case
    expected = EXPECTED[case]
    notes = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*.md"))]
    for note in notes:  # every note, by its path: those not listed have no backlink
        assert backlinks(root, note) == expected.get(note, set()), note


def test_a_name_several_notes_share_takes_a_path() -> None:
    root = RULES / "duplicate_names"
    with pytest.raises(AmbiguousPage) as caught:
        status("Meeting", vault=root, as_of=AS_OF)
    assert caught.value.paths == ["Home/Meeting.md", "Work/Meeting.md", "Archive/Old/Meeting.md"]
    assert "give the path" in str(caught.value)
    assert status("Work/Meeting", vault=root, as_of=AS_OF).page.path == "Work/Meeting.md"
    assert status("home/meeting.md", vault=root, as_of=AS_OF).page.path == "Home/Meeting.md"
    listed = topics(vault=root, as_of=AS_OF).to_json()["topics"]
    meetings = sorted(t["path"] for t in listed if t["topic"] == "Meeting")
    assert meetings == ["Archive/Old/Meeting.md", "Home/Meeting.md", "Work/Meeting.md"]


def test_pages_say_how_to_link_notes_that_share_a_name() -> None:
    """From today's daily note (in Daily/), [[Meeting]] opens Home/Meeting.md; the others need
    a folder in the link."""
    found = {p["path"]: p for p in pages(vault=RULES / "duplicate_names").to_json()["pages"]}
    assert "link" not in found["Home/Meeting.md"]
    assert found["Work/Meeting.md"]["link"] == "Work/Meeting"
    assert found["Archive/Old/Meeting.md"]["link"] == "Old/Meeting"
    assert "link" not in found["Work/Plan.md"]


def test_a_bare_alias_links_nothing_but_a_query_finds_its_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], short_racy_window: int
) -> None:
    """``[[T]]`` links no note (only ``[[Topic|T]]`` does), yet TOPIC is a title or an alias:
    ``T`` names Topic.md, from the graph, the cached summary and the warm path alike."""
    root = copy_vault(RULES / "aliases", tmp_path)
    for use_cache in (False, True, True):  # the graph, then a summary built and one read
        for name in ("T", "the topic"):
            found = status(name, vault=root, as_of=AS_OF, use_cache=use_cache)
            assert (found.page.path, found.mentions) == ("Topic.md", 1)
            entries = timeline(name, vault=root, as_of=AS_OF, use_cache=use_cache).entries
            assert [(e.path, e.line) for e in entries] == [("Daily/2026-11-24.md", 1)]
    scoped = journal_agent.context(vault=root, as_of=AS_OF, topics=["T"]).to_json()
    assert scoped["scope"]["topics"] == ["Topic"]
    settle(root)  # out of the racy window: the warm path vouches for the summary
    assert cli.main(["status", "T", "--vault", str(root), "--as-of", AS_OF]) == 0
    said = capsys.readouterr().out
    assert said.startswith("Topic: ")
    assert quick.answer(["status", "T", "--vault", str(root), "--as-of", AS_OF]) == 0
    assert capsys.readouterr().out == said
    with pytest.raises(PageNotFound):
        status("Topi", vault=root, as_of=AS_OF)


@pytest.mark.parametrize(
    ("front", "aliases"),
    [
        ("Aliases: [T, The Topic]", ["T", "The Topic"]),
        ("ALIAS: T", ["T"]),
        ("Alias: Old\naliases:\n  - T", ["T"]),  # aliases over the older alias
        ("aliases: [T]\nAliases: [U]", ["T"]),  # two cases of one key: the first
    ],
)
def test_the_aliases_key_in_any_case(tmp_path: Path, front: str, aliases: list[str]) -> None:
    """Obsidian reads ``aliases`` and the older ``alias`` in any case (``parseFrontMatterAliases``
    matches ``/^alias(es)?$/i``): a note written ``Aliases:`` (as tag-wrangler does) has them."""
    root = copy_vault(RULES / "aliases", tmp_path)
    (root / "Topic.md").write_text(f"---\n{front}\n---\nThe topic.\n")
    found = {p.path: p.aliases for p in pages(vault=root).pages}
    assert found["Topic.md"] == aliases
    assert status(aliases[0], vault=root, as_of=AS_OF).page.path == "Topic.md"


def test_a_daily_notes_property_link_is_dated_by_its_day() -> None:
    """A daily note's property link dates its note as the body's links do (the note's day)."""
    root = RULES / "front_matter"
    found = status("Other", vault=root, as_of=AS_OF)
    assert (found.status, found.mentions) == ("active", 1)
    assert found.to_json()["last_mentioned"] == "2026-11-21"
    entries = timeline("Topic", vault=root, as_of=AS_OF).to_json()["entries"]
    assert [(e["date"], e["text"]) for e in entries] == [
        ("2026-11-22", "related:"),
        ("2026-11-20", 'project: "[[Topic]]"'),
        (None, 'up: "[[Topic]]"'),
    ]


def test_resolution_is_the_linking_bullet_itself() -> None:
    """A checked box resolves the note it links, not the note its parent bullet links."""
    root = RULES / "links_not_ancestors"
    assert status("Topic", vault=root, as_of=AS_OF).status == "active"
    assert status("Other", vault=root, as_of=AS_OF).status == "resolved"


# -- the append guard resolves as Obsidian opens --------------------------------------------------


def test_appended_links_land_on_the_note_obsidian_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written on today's daily note (Daily/2026-11-30.md), [[Meeting]] is Home/Meeting.md,
    [[Work/Meeting]] Work/Meeting.md: the guard accepts both, and each counts where Obsidian
    would open it."""
    root = copy_vault(RULES / "duplicate_names", tmp_path)
    pin_today(monkeypatch, AS_OF)
    journal_agent.append(
        ["talked in [[Meeting]]", "planned in [[Work/Meeting]]"],
        vault=root,
        agent="claude",
        date=AS_OF,
    )
    daily = "Daily/2026-11-30.md"
    assert (daily, 1) in backlinks(root, "Home/Meeting.md")
    assert (daily, 2) in backlinks(root, "Work/Meeting.md")
    assert not {(p, n) for p, n in backlinks(root, "Work/Meeting.md") if p == daily} - {(daily, 2)}
    with pytest.raises(journal_agent.BulletsRefused, match="alias of 'Topic'"):
        journal_agent.append(["see [[T]]"], vault=copy_vault(RULES / "aliases", tmp_path))
