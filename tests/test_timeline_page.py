"""The HTML timeline links references with the scanner's grammar: labels shown, code left alone."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from journal_agent.api import TimelineResult
from journal_agent.queries import Backlink, Topic
from journal_agent.registry import Page
from journal_agent.timeline_page import guess_syntax, render_timeline


def result(*texts: str) -> TimelineResult:
    day = dt.date(2026, 11, 20)
    entries = [
        Backlink(day, "Nov 20th, 2026", "journals/x.md", i, t, False) for i, t in enumerate(texts)
    ]
    return TimelineResult(Topic(Page("Topic", "pages/Topic.md")), entries)


def body(page: str) -> str:
    return page.split("<ul>", 1)[1]


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("see [the notes]([[Flaky CI]])", 'see <a href="#Flaky%20CI">the notes</a>'),
        ("![a picture]([[Topic]])", '<a href="#Topic">a picture</a>'),
        (
            "[[Topic]] in `[[Topic]]` code",
            '<a href="#Topic">Topic</a> in <code>[[Topic]]</code> code',
        ),
        ("`#tag` and #tag", '<code>#tag</code> and <a href="#tag">#tag</a>'),
        ("#[[Multi word]]", '<a href="#Multi%20word">#Multi word</a>'),
        ("{{embed [[Topic]]}}", '<a href="#Topic">Topic</a>'),
        ("**bold [[Topic]]**", '<strong>bold <a href="#Topic">Topic</a></strong>'),
        ("[a_b*c]([[Topic]])", '<a href="#Topic">a_b*c</a>'),
        ("[[Topic]] <script>x()</script>", "&lt;script&gt;"),
    ],
)
def test_logseq_references_render_as_links(text: str, html: str) -> None:
    assert html in body(render_timeline(result(text), "logseq"))


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("[[Topic|the label]]", '<a href="#Topic">the label</a>'),
        ("[[Topic#Heading]]", '<a href="#Topic">Topic</a>'),
        ("![[Topic]]", '<a href="#Topic">Topic</a>'),
        ("[text](Topic.md)", '<a href="#Topic">text</a>'),
        ("`[[Topic]]` stays", "<code>[[Topic]]</code> stays"),
    ],
)
def test_wiki_references_render_as_links(text: str, html: str) -> None:
    assert html in body(render_timeline(result(text), "wiki"))


def test_the_syntax_is_guessed_from_wiki_only_link_forms(tmp_path: Path) -> None:
    assert guess_syntax(result("[[Topic|label]] x")) == "wiki"
    assert guess_syntax(result("[label]([[Topic]])", "[[bug #42]]")) == "logseq"
    result("[[Topic|label]]").write_html(tmp_path / "t.html")
    assert '<a href="#Topic">label</a>' in (tmp_path / "t.html").read_text()
