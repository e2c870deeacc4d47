"""Derived status: every rule of DESIGN.md's "What counts as a mention" and "Derived status"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from journal_agent import BadArgument, PageNotFound
from journal_agent.api import pages, related, stale, status, timeline, topics

from .conftest import SAMPLE_VAULT

AS_OF = "2026-11-29"


def logseq(root: Path, pages: dict[str, str], journals: dict[str, str]) -> Path:
    """A Logseq graph: page title -> text, day "2026-11-20" -> journal text."""
    (root / "logseq").mkdir(parents=True)
    (root / "logseq" / "config.edn").write_text("{:file/name-format :triple-lowbar}")
    (root / "pages").mkdir()
    (root / "journals").mkdir()
    for title, text in pages.items():
        (root / "pages" / f"{title.replace('/', '___')}.md").write_text(text)
    for day, text in journals.items():
        (root / "journals" / f"{day.replace('-', '_')}.md").write_text(text)
    return root


def obsidian(root: Path, files: dict[str, str]) -> Path:
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "daily-notes.json").write_text('{"folder": "Daily"}')
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def state(root: Path, topic: str, **kw: object) -> tuple[str, str | None]:
    s = status(topic, vault=root, as_of=kw.pop("as_of", AS_OF), **kw).to_json()  # type: ignore[arg-type]
    return s["status"], s["last_mentioned"]


# -- what counts as a mention -------------------------------------------------------------------


@pytest.mark.parametrize(
    "bullet",
    [
        "- [[Topic]]",
        "- #Topic",
        "- #[[Topic]]",
        "- [see]([[Topic]])",
        "- {{embed [[Topic]]}}",
        "- x\n  tags:: Topic, other",
        "- x\n  rel:: [[Topic]]",
        "- [[topic]] (case)",
        "- [[Alias]]",
        "- DONE nothing\n\t- child under [[Topic]]",
        "- word#Topic",  # Logseq 0.10's parser (mldoc 1.5) takes a # after a word too
    ],
)
def test_logseq_mention_syntaxes(tmp_path: Path, bullet: str) -> None:
    root = logseq(
        tmp_path,
        {"Topic": "alias:: Alias\n\n- t\n", "other": "- o\n"},
        {"2026-11-20": bullet + "\n"},
    )
    assert state(root, "Topic") == ("active", "2026-11-20")


@pytest.mark.parametrize(
    "bullet",
    [
        "- `[[Topic]]`",
        "- ```\n  [[Topic]]\n  ```",
        "- ``a [[Topic]] b``",
        "- \\[[Topic]]",
        "- x\n  id:: [[Topic]]",
        "- https://x.org/#Topic",
    ],
)
def test_logseq_not_mentions(tmp_path: Path, bullet: str) -> None:
    root = logseq(tmp_path, {"Topic": "- t\n"}, {"2026-11-20": bullet + "\n"})
    assert state(root, "Topic") == ("unmentioned", None)


def test_page_properties_after_a_blank_line_still_alias_but_do_not_retitle(
    tmp_path: Path,
) -> None:
    """Logseq's graph parser takes a page's first property drawer before its first block as its
    properties wherever it stands, but a ``title::`` only from a drawer that opens the page
    (checked with the oracle, tests/graph_gen.py case ``late_page_properties``)."""
    root = logseq(
        tmp_path,
        {"Blank First": "\nalias:: BF\n\n- body\n", "Late": "\ntitle:: Renamed\n- body\n"},
        {"2026-11-20": "- see [[BF]]\n- and [[Late]]\n"},
    )
    assert state(root, "Blank First") == ("active", "2026-11-20")
    assert state(root, "Late") == ("active", "2026-11-20")
    with pytest.raises(PageNotFound):
        status("Renamed", vault=root, as_of=AS_OF)


def test_a_comma_inside_brackets_belongs_to_the_listed_name(tmp_path: Path) -> None:
    """``alias:: [[Smith, John]]`` and ``tags:: [[Dallas, TX]]`` each name one page: Logseq's
    graph parser splits a comma list around bracketed names, not inside them (checked with the
    oracle, tests/graph_gen.py case ``comma_in_brackets``)."""
    root = logseq(
        tmp_path,
        {
            "Contacts": "alias:: [[Smith, John]]\n\n- contact card\n",
            "Trip": "tags:: [[Dallas, TX]], travel\n\n- trip notes\n",
        },
        {"2026-11-20": "- call [[Smith, John]]\n- lunch\n  tags:: [[Doe, Jane]]\n"},
    )
    assert state(root, "Contacts") == ("active", "2026-11-20")
    assert state(root, "Doe, Jane") == ("active", "2026-11-20")
    entries = timeline("Dallas, TX", vault=root, as_of=AS_OF).to_json()["entries"]
    assert [(e["path"], e["line"]) for e in entries] == [("pages/Trip.md", 0)]
    listed = topics(vault=root, as_of=AS_OF, all_pages=True).to_json()["topics"]
    names = {t["topic"] for t in listed}
    assert {"Dallas, TX", "Doe, Jane", "travel"} <= names
    assert not names & {"[[Dallas", "TX]]", "[[Doe", "Jane]]", "[[Smith", "John]]"}


@pytest.mark.parametrize(
    "line",
    [
        "- [[Topic]]",
        "- [[Topic|label]]",
        "- [[Topic#Heading]]",
        "- [[Topic#^abc123]]",
        "- ![[Topic]]",
        "- [text](Notes/Topic.md)",
        "- [text](Topic.md#part)",
        "- [[notes/topic]]",
        "- [[Real|Alias]]",
    ],
)
def test_obsidian_mention_syntaxes(tmp_path: Path, line: str) -> None:
    topic = "---\naliases: [Alias]\n---\nbody\n" if "Real" not in line else "body\n"
    files = {
        "Notes/Topic.md": topic,
        "Daily/2026-11-20.md": line + "\n",
        "Real.md": "---\naliases: [Alias]\n---\n",
    }
    root = obsidian(tmp_path, files)
    name = "Real" if "Real" in line else "Topic"
    assert state(root, name) == ("active", "2026-11-20")


@pytest.mark.parametrize(
    "line",
    [
        "- #Topic is a tag",
        "- [[Alias]] bare alias",
        "- `[[Topic]]`",
        "```\n[[Topic]]\n```",
        "%% [[Topic]] %%",
        "- [[Topics]]",
    ],
)
def test_obsidian_not_mentions(tmp_path: Path, line: str) -> None:
    files = {"Topic.md": "---\naliases: [Alias]\n---\n", "Daily/2026-11-20.md": line + "\n"}
    assert state(obsidian(tmp_path, files), "Topic") == ("unmentioned", None)


def test_markdown_folder_wikilinks(tmp_path: Path) -> None:
    (tmp_path / "journals").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "Topic.md").write_text("---\naliases: [T]\n---\n")
    (tmp_path / "journals" / "2026-11-20.md").write_text("- [[topic|label]] and [[T]]\n")
    assert state(tmp_path, "Topic") == ("active", "2026-11-20")
    assert timeline("Topic", vault=tmp_path, as_of=AS_OF).to_json()["entries"][0]["line"] == 0


def test_namespace_reference_also_mentions_the_parent(tmp_path: Path) -> None:
    root = logseq(tmp_path, {"Area/Leaf": "- l\n"}, {"2026-11-20": "- [[Area/Leaf]]\n"})
    assert state(root, "Area") == ("active", "2026-11-20")
    assert state(root, "area/leaf") == ("active", "2026-11-20")


@pytest.mark.parametrize("use_cache", [True, False])
def test_blocks_indented_under_a_pages_leading_text_inherit_its_references(
    tmp_path: Path, use_cache: bool
) -> None:
    """Logseq makes a page's leading text (its properties most often) a block at level 1, the
    pre-block: the indented blocks before the first block at level 1 are its children (as
    Logseq's graph parser reads it: graph case ``pre_block_children``)."""
    root = logseq(
        tmp_path,
        {"Keyboard": "- k\n", "Mouse": "- m\n"},
        {
            "2026-11-10": "tags:: Keyboard, Mouse\n\n\t- soldered the switches\n",
            "2026-11-20": "tags:: Keyboard\n\t- notes\n\t\t- DONE shipped it\n",
            "2026-11-21": "tags:: Mouse\n- a sibling, not a child\n\t- under the sibling\n",
        },
    )
    entries = timeline("Keyboard", vault=root, as_of=AS_OF, use_cache=use_cache).entries
    assert [(e.date.isoformat() if e.date else None, e.line, e.text) for e in entries] == [
        ("2026-11-20", 2, "DONE shipped it"),
        ("2026-11-20", 1, "notes"),
        ("2026-11-20", 0, "tags:: Keyboard"),
        ("2026-11-10", 2, "soldered the switches"),
        ("2026-11-10", 0, "tags:: Keyboard, Mouse"),
    ]
    assert state(root, "Keyboard", use_cache=use_cache) == ("resolved", "2026-11-20")
    mouse = timeline("Mouse", vault=root, as_of=AS_OF).entries
    # 2026-11-21's sibling and the block under it are not the pre-block's children
    assert [(e.page, e.line) for e in mouse] == [
        ("Nov 21st, 2026", 0),
        ("Nov 10th, 2026", 2),
        ("Nov 10th, 2026", 0),
    ]


def test_self_references_do_not_count(tmp_path: Path) -> None:
    root = logseq(tmp_path, {"Topic": "- see [[Topic]]\n"}, {})
    assert state(root, "Topic") == ("unmentioned", None)
    assert timeline("Topic", vault=root, as_of=AS_OF).entries == []


def test_undated_backlinks_show_in_the_timeline_but_do_not_move_recency(tmp_path: Path) -> None:
    root = logseq(
        tmp_path,
        {"Topic": "- t\n", "Other": "- about [[Topic]]\n"},
        {"2026-10-01": "- [[Topic]] old\n"},
    )
    assert state(root, "Topic") == ("stale", "2026-10-01")
    entries = timeline("Topic", vault=root, as_of=AS_OF).to_json()["entries"]
    assert [(e["date"], e["page"]) for e in entries] == [
        ("2026-10-01", "Oct 1st, 2026"),
        (None, "Other"),
    ]


@pytest.mark.parametrize("use_cache", [True, False])
def test_mentions_counts_the_dated_mentions_up_to_the_day(tmp_path: Path, use_cache: bool) -> None:
    """``mentions`` is the number of dated mentions up to the as-of day: a later one and the
    undated ones (here three, on two pages) do not count; the undated ones stay in the
    timeline. Alike from the status summary (cache) and from the graph."""
    root = logseq(
        tmp_path,
        {"Topic": "- t\n", "Other": "- about [[Topic]]\n- and [[Topic]]\n", "Third": "- #Topic\n"},
        {"2026-10-01": "- [[Topic]] old\n", "2026-11-28": "- [[Topic]] later\n"},
    )
    day, cache = "2026-11-15", use_cache
    for _run in range(2):  # the summary built, then read back from the cache
        found = status("Topic", vault=root, as_of=day, use_cache=cache)
        assert found.to_json()["mentions"] == found.mentions == 1
        listed = topics(vault=root, as_of=day, use_cache=cache).to_json()["topics"]
        assert [(t["topic"], t["mentions"]) for t in listed] == [
            ("Topic", 1),
            ("Other", 0),
            ("Third", 0),
        ]
        threads = stale(vault=root, as_of=day, use_cache=cache).to_json()["threads"]
        assert [(t["topic"], t["mentions"]) for t in threads] == [("Topic", 1)]
        line = timeline("Topic", vault=root, as_of=day, use_cache=cache)
        assert line.topic.mentions == 1
        assert [e.date is None for e in line.entries] == [False, True, True, True]


# -- derived status -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bullet",
    [
        "- DONE [[Topic]] shipped",
        "- CANCELED [[Topic]]",
        "- CANCELLED [[Topic]]",
        "- Resolved: [[Topic]] fixed",
        "- [[Topic]]\n\t- DONE the fix",
    ],
)
def test_resolution_markers(tmp_path: Path, bullet: str) -> None:
    root = logseq(
        tmp_path,
        {"Topic": "- t\n"},
        {"2026-11-01": "- [[Topic]] opened\n", "2026-11-20": bullet + "\n"},
    )
    assert state(root, "Topic") == ("resolved", "2026-11-20")


def test_obsidian_checked_box_resolves(tmp_path: Path) -> None:
    files = {"Topic.md": "", "Daily/2026-11-20.md": "- [ ] [[Topic]] open\n- [x] [[Topic]] done\n"}
    assert state(obsidian(tmp_path, files), "Topic") == ("resolved", "2026-11-20")


def test_a_later_mention_reopens(tmp_path: Path) -> None:
    root = logseq(
        tmp_path,
        {"Topic": "- t\n"},
        {"2026-11-10": "- DONE [[Topic]]\n", "2026-11-20": "- [[Topic]] broke again\n"},
    )
    assert state(root, "Topic") == ("active", "2026-11-20")


def test_within_a_day_the_last_in_page_order_wins(tmp_path: Path) -> None:
    root = logseq(
        tmp_path, {"Topic": "- t\n"}, {"2026-11-20": "- DONE [[Topic]]\n- [[Topic]] reopened\n"}
    )
    assert state(root, "Topic")[0] == "active"
    root2 = logseq(
        tmp_path / "b",
        {"Topic": "- t\n"},
        {"2026-11-20": "- [[Topic]] reopened\n- DONE [[Topic]]\n"},
    )
    assert state(root2, "Topic")[0] == "resolved"


def test_todo_is_not_a_resolution_and_no_fuzzy_words(tmp_path: Path) -> None:
    root = logseq(
        tmp_path, {"Topic": "- t\n"}, {"2026-11-20": "- TODO [[Topic]] resolved? fixed! done.\n"}
    )
    assert state(root, "Topic")[0] == "active"


def test_as_of_ignores_later_mentions(tmp_path: Path) -> None:
    root = logseq(
        tmp_path,
        {"Topic": "- t\n"},
        {"2026-10-01": "- [[Topic]]\n", "2026-11-28": "- DONE [[Topic]]\n"},
    )
    assert state(root, "Topic", as_of="2026-10-15") == ("active", "2026-10-01")
    assert state(root, "Topic", as_of="2026-11-27") == ("stale", "2026-10-01")
    assert state(root, "Topic", as_of="2026-09-30") == ("unmentioned", None)


@pytest.mark.parametrize(("days", "expected"), [(19, "active"), (18, "stale")])
def test_the_window_edge(tmp_path: Path, days: int, expected: str) -> None:
    root = logseq(tmp_path, {"Topic": "- t\n"}, {"2026-11-10": "- [[Topic]]\n"})
    assert state(root, "Topic", days=days)[0] == expected  # 19 days before Nov 29


def test_journal_pages_are_not_topics_and_unknown_names_are_refused(tmp_path: Path) -> None:
    """A journal page is no topic (`topics` leaves it out), but it has Linked References like
    any page in Logseq, so its timeline and status answer."""
    root = logseq(
        tmp_path,
        {"Topic": "- t\n"},
        {"2026-11-20": "- [[Topic]]\n", "2026-11-22": "- follow-up of [[Nov 20th, 2026]]\n"},
    )
    assert state(root, "Nov 20th, 2026") == ("active", "2026-11-22")
    assert state(root, "2026-11-20") == ("active", "2026-11-22")  # Logseq renames the date
    entries = timeline("Nov 20th, 2026", vault=root, as_of=AS_OF).to_json()["entries"]
    assert [e["path"] for e in entries] == ["journals/2026_11_22.md"]
    with pytest.raises(
        PageNotFound, match=r"'Topc' is not a page of this vault \(did you mean 'Topic'"
    ):
        status("Topc", vault=root, as_of=AS_OF)
    assert [t["topic"] for t in topics(vault=root, as_of=AS_OF).to_json()["topics"]] == ["Topic"]


def test_excluded_pages(tmp_path: Path) -> None:
    root = logseq(
        tmp_path,
        {"Topic": "- t\n", "Template": "- x\n"},
        {"2026-10-01": "- [[Template]] [[Topic]]\n"},
    )
    (root / ".journal-agent.toml").write_text('exclude = ["template"]\ndays = 90\n')
    result = topics(vault=root, as_of=AS_OF).to_json()
    assert [t["topic"] for t in result["topics"]] == ["Topic"] and result["days"] == 90


def test_referenced_only_logseq_pages_are_topics_without_a_file(tmp_path: Path) -> None:
    root = logseq(tmp_path, {}, {"2026-10-01": "- met about [[Budget 2027]]\n"})
    assert status("budget 2027", vault=root, as_of=AS_OF).to_json() == {
        "topic": "Budget 2027",
        "path": None,
        "status": "stale",
        "last_mentioned": "2026-10-01",
        "days_silent": 59,
        "mentions": 1,
    }


def test_unmentioned_is_never_stale(tmp_path: Path) -> None:
    root = logseq(tmp_path, {"Reference": "- r\n"}, {})
    assert stale(vault=root, as_of=AS_OF).to_json()["threads"] == []


# -- the sample vault, end to end ----------------------------------------------------------------


def test_sample_vault_has_an_active_a_resolved_and_a_stale_thread() -> None:
    by_topic = {t["topic"]: t for t in topics(vault=SAMPLE_VAULT, as_of=AS_OF).to_json()["topics"]}
    assert by_topic["Atlas Migration"]["status"] == "active"
    assert by_topic["Flaky CI"]["status"] == "resolved"
    assert by_topic["Vendor Contract"]["status"] == "stale"
    assert by_topic["Reading List"]["status"] == "unmentioned"
    threads = stale(vault=SAMPLE_VAULT, as_of=AS_OF).to_json()["threads"]
    vendor = next(t for t in threads if t["topic"] == "Vendor Contract")
    assert vendor == {
        "topic": "Vendor Contract",
        "path": "pages/Vendor Contract.md",
        "last_mentioned": "2026-10-02",
        "days_silent": 58,
        "mentions": 5,
        "last_text": "[[Vendor Contract]] Acme came back with a quote; waiting on "
        "[[Omar Haddad]] to decide about the archive tier",
    }


def test_related_and_clusters() -> None:
    result = related("Atlas", vault=SAMPLE_VAULT, as_of=AS_OF).to_json()
    names = [r["topic"] for r in result["related"]]
    assert result["topic"] == "Atlas Migration" and names[0] == "Grafana"
    assert "Vendor Contract" not in names
    cluster = [t["topic"] for t in result["clusters"][0]]
    assert "Atlas Migration" in cluster and "Grafana" in cluster
    everything = related(vault=SAMPLE_VAULT, as_of=AS_OF).to_json()
    assert ["Omar Haddad", "Vendor Contract"] in [
        [t["topic"] for t in g] for g in everything["clusters"]
    ]


@pytest.mark.parametrize("limit", [0, -3, True, 2.5])
def test_a_limit_below_one_is_refused_by_every_query_that_takes_one(limit: Any) -> None:
    calls: list[Callable[[], object]] = [
        lambda: timeline("Atlas", vault=SAMPLE_VAULT, as_of=AS_OF, limit=limit),
        lambda: pages(vault=SAMPLE_VAULT, limit=limit),
        lambda: related("Atlas", vault=SAMPLE_VAULT, as_of=AS_OF, limit=limit),
    ]
    for call in calls:
        with pytest.raises(BadArgument, match="limit must be"):
            call()
    assert len(timeline("Atlas", vault=SAMPLE_VAULT, as_of=AS_OF, limit=2).entries) == 2


def test_timeline_html_page(tmp_path: Path) -> None:
    out = tmp_path / "flaky.html"
    timeline("Flaky CI", vault=SAMPLE_VAULT, as_of=AS_OF).write_html(out, SAMPLE_VAULT)
    page = out.read_text()
    assert "<h1>Flaky CI</h1>" in page and "class='status resolved'" in page
    assert "<svg" in page and "<h2>2026-11-10</h2>" in page and "Pages (undated)" in page
    assert '<a href="#Flaky%20CI">Flaky CI</a>' in page  # wiki-links rendered as links
    assert "<script" not in page and "http" not in page.replace("http://www.w3", "")


def test_timeline_html_escapes_raw_html(tmp_path: Path) -> None:
    root = logseq(
        tmp_path, {"Topic": "- t\n"}, {"2026-11-20": "- [[Topic]] <script>x()</script>\n"}
    )
    timeline("Topic", vault=root, as_of=AS_OF).write_html(tmp_path / "t.html")
    assert "<script>" not in (tmp_path / "t.html").read_text()


_PAGES = ["Zed", "zed", "ZED", "alpha", "Alpha", "ΟΔΟΣ", "οδος", "ǅ", "ǆ", "b"]


@given(
    st.lists(
        st.tuples(st.sampled_from(_PAGES), st.sampled_from(["a.md", "b.md"]), st.integers(0, 5)),
        max_size=40,
    )
)
def test_undated_backlinks_are_ordered_by_page_lower_cased_then_line(
    rows: list[tuple[str, str, int]],
) -> None:
    """`queries.undated_order` (sorted in C, in two passes) orders as its rule says: by page
    title lower-cased, then line, ties in the order given."""
    from journal_agent.queries import Backlink, undated_order

    found = [
        Backlink(None, page, path, line, f"t{n}", False)
        for n, (page, path, line) in enumerate(rows)
    ]
    assert undated_order(found) == sorted(found, key=lambda b: (b.page.lower(), b.line))
