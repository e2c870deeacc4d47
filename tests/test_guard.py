"""The guard without the oracle: the owned block's header, short refusals of huge input, the
wiki syntax (Obsidian and Markdown, for which no parser runs here), and the spans it works on."""

from __future__ import annotations

import pytest

from journal_agent.errors import BadAgentName, BulletsRefused, Refused
from journal_agent.flavors import LogseqFlavor, ObsidianFlavor
from journal_agent.guard import MAX_LENGTH, check_header, lint, refusal, shorten, unlink
from journal_agent.logseq_pages import logseq_pages_of
from journal_agent.registry import Page
from journal_agent.scanner import inline_refs, ref_label
from journal_agent.wiki_pages import WikiPages

LOGSEQ = logseq_pages_of([Page("Gorul", "pages/Gorul.md"), Page("Flaky CI", None)], LogseqFlavor())
WIKI = WikiPages(
    [Page("Gorul", "Gorul.md", ["G"]), Page("Flaky CI", "dir/Flaky CI.md")], ObsidianFlavor()
)
NO_IDS: frozenset[str] = frozenset()


# -- the owned block's header ----------------------------------------------------------------------


@pytest.mark.parametrize("header", ["claude log", "Codex CLI log", "gemini-2.5 log", "Agent Ω log"])
@pytest.mark.parametrize("syntax", ["logseq", "wiki"])
def test_plain_headers_pass(header: str, syntax: str) -> None:
    check_header(header, syntax)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("header", "why"),
    [
        ("[[New Page]] log", "'[['"),
        ("#tag log", "starts with a list, heading"),
        ("a #tag log", "'#'"),
        ("status:: x log", "'::'"),
        ("key:: value", "'::'"),
        ("((6551e92e-fb34-4d24-a386-d9698c2e93f7)) log", "'(('"),
        ("{{embed [[X]]}} log", "'[['"),
        ("[x](y.md) log", "']('"),
        ("two\nlines", "control or format characters (U+000A)"),
        ("carriage\rreturn", "U+000D"),
        ("- claude log", "starts with a list"),
        ("* claude", "starts with a list"),
        ("1. claude", "starts with a list"),
        ("> claude", "starts with a list"),
        ("| claude", "starts with a list"),
        ("```claude", "starts with a list"),
        ("<div>claude", "starts with a list"),
        ("DONE claude", "would reference a page"),
        ("[^1]: claude", "would not be a plain bullet"),
        ("[#A] claude", "'#'"),
        ("", "is empty"),
        ("   ", "is empty"),
        (" claude log", "white space"),
        ("claude\u202elog", "U+202E"),
        ("claude\u200flog", "U+200F"),
        ("claude\u061clog", "U+061C"),
        ("claude\u2066log\u2069", "U+2066, U+2069"),
        ("claude\u200blog", "U+200B"),
        ("claude\x00log", "U+0000"),
        ("x" * 101, "101 characters long; the limit is 100"),
    ],
)
def test_headers_that_would_mint_or_mislead_are_refused(header: str, why: str) -> None:
    with pytest.raises(BadAgentName) as refused:
        check_header(header, "logseq")
    message = str(refused.value)
    assert why in message and "\n" not in message and len(message) < 200
    assert isinstance(refused.value, Refused) and refused.value.exit_code == 2


def test_wiki_header_refuses_its_own_links() -> None:
    for header in ("[[Note|x]] log", "#tag log", "[t](Note.md) log"):
        with pytest.raises(BadAgentName):
            check_header(header, "wiki")


# -- huge input, short refusals --------------------------------------------------------------------


def test_a_huge_bullet_is_refused_in_one_short_line() -> None:
    bullet = "[[NoSuch]] " + "x" * 1_000_000
    (problem,) = lint(bullet, LOGSEQ, "logseq", block_ids=NO_IDS)
    assert problem.kind == "too-long"
    assert len(problem.bullet) < 100 and problem.bullet.endswith("(1000011 characters)")
    line = refusal([problem])
    assert "\n" not in line and len(line) < 200, line
    assert "1000011 characters; the limit is 1000" in line


def test_huge_multiline_and_control_input_is_shown_short() -> None:
    for bullet in ("a\n" * 500_000, "\x07" * 500_000):
        (problem,) = lint(bullet, LOGSEQ, "logseq", block_ids=NO_IDS)
        assert len(problem.line()) < 200


def test_long_names_are_cut_short_in_messages() -> None:
    name = "N" * (MAX_LENGTH - 10)
    (problem,) = lint(f"[[{name}]]", LOGSEQ, "logseq", block_ids=NO_IDS)
    assert problem.name == name and len(problem.message) < 200
    assert problem.bullet == f"[[{name}]]"  # under the limit: the bullet itself, to match it by


def test_shorten_keeps_short_text() -> None:
    assert shorten("abc") == "abc"
    assert shorten("a" * 200) == "a" * 60 + "… (200 characters)"


# -- spans ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("syntax", "text", "constructs"),
    [
        (
            "logseq",
            "DONE see [[A]], #b and #[[C d]]; [label]([[E]]) {{embed [[F]]}} `[[not]]`",
            ["[[A]]", "#b", "#[[C d]]", "[label]([[E]])", "{{embed [[F]]}}"],
        ),
        ("logseq", "**bold [[A]]** and [[x [[B]]]]", ["[[A]]", "[[x [[B]]]]", "[[B]]"]),
        (
            "wiki",
            "[[A|a]] ![[B]] [[C#h]] [t](D.md) #e `[[not]]`",
            ["[[A|a]]", "![[B]]", "[[C#h]]", "[t](D.md)", "#e"],
        ),
    ],
)
def test_refs_carry_the_span_of_their_construct(
    syntax: str, text: str, constructs: list[str]
) -> None:
    refs = inline_refs(text, syntax)  # type: ignore[arg-type]
    assert [text[r.start : r.end] for r in refs] == constructs


@pytest.mark.parametrize(
    ("syntax", "construct", "label"),
    [
        ("logseq", "[[A b]]", "A b"),
        ("logseq", "#tag", "tag"),
        ("logseq", "#[[A b]]", "A b"),
        ("logseq", "#[[A]]-x", "[[A]]-x"),
        ("logseq", "[the label]([[A]])", "the label"),
        ("logseq", '![pic]([[A]] "title")', "pic"),
        ("logseq", "{{embed [[A]]}}", "A"),
        ("wiki", "[[A|shown]]", "shown"),
        ("wiki", "[[A#H]]", "A"),
        ("wiki", "![[A]]", "A"),
        ("wiki", "[text](A.md)", "text"),
        ("wiki", "#tag", "tag"),
    ],
)
def test_ref_label_is_what_a_reader_sees(syntax: str, construct: str, label: str) -> None:
    assert ref_label(construct, syntax) == label  # type: ignore[arg-type]


# -- the wiki syntax ------------------------------------------------------------------------------


def test_wiki_links_to_existing_notes_pass() -> None:
    bullet = "see [[Gorul]], [[Gorul|g]], [[Gorul#H]], ![[Gorul]], [x](Gorul.md), [[dir/Flaky CI]]"
    assert lint(bullet, WIKI, "wiki", block_ids=NO_IDS) == []
    assert lint("[x](Gorul) [y](<Gorul.md> 'G') [z](Gorul#H)", WIKI, "wiki", block_ids=NO_IDS) == []
    assert (
        lint("#anything `[[NoSuch]]` [u](#h) [v](https://x.y/a.md)", WIKI, "wiki", block_ids=NO_IDS)
        == []
    )
    assert lint("![pic](NoSuch.png) [doc](NoSuch.pdf)", WIKI, "wiki", block_ids=NO_IDS) == []
    assert lint("a %%note%% and `%%` [[Gorul]]", WIKI, "wiki", block_ids=NO_IDS) == []


@pytest.mark.parametrize(
    ("bullet", "kind"),
    [
        ("[[NoSuch]]", "unknown-page"),
        ("[t](NoSuch.md)", "unknown-page"),
        ("[[G]]", "alias-link"),
        ("[t](NoSuch)", "unknown-page"),  # Obsidian links the note NoSuch
        ("[[a]b]]", "link-form"),
        ("50%% done [[Gorul]]", "structure"),  # a comment to the next %% on the page
        ("x [[", "link-form"),
        ("<div>x</div>", "structure"),
        ("[^1]: x", "structure"),
        ("key:: value", "property"),
    ],
)
def test_wiki_refusals(bullet: str, kind: str) -> None:
    problems = lint(bullet, WIKI, "wiki", block_ids=NO_IDS)
    assert [p.kind for p in problems][:1] == [kind]


def test_wiki_unlink_writes_labels_and_names() -> None:
    bullet = "[[NoSuch|label]], ![[NoSuch]], [t](NoSuch.md), [[NoSuch#h]] and [[Gorul]]"
    assert unlink(bullet, {"nosuch"}, "wiki") == "label, NoSuch, t, NoSuch and [[Gorul]]"


@pytest.mark.parametrize("bullet", ["[[- x]]", "[[key:: v]]", "[[# h]]", "[[a [[Gorul]] b]]"])
def test_wiki_unlink_is_checked_again(bullet: str) -> None:
    names = {r.target for r in inline_refs(bullet, "wiki")}
    with pytest.raises(BulletsRefused, match="cannot write the unknown names"):
        unlink(bullet, names, "wiki")
