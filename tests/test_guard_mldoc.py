"""Whatever the guard lets through, Logseq's parser reads as one plain bullet that mints no page.

The guard (journal_agent.guard) is what stands between an agent and guest rule 2 ("never create
pages") and the bullet rules (no structure, no properties). These tests hold it to mldoc 1.5.7 —
the parser of Logseq 0.10 — and to Logseq's graph-parser rules for which pages a block references
(tests/oracle/mldoc_blocks.js): for every generated bullet that `guard.lint` accepts, the page

    - agent log
    \t- BULLET
    - next

must parse as exactly those three blocks, the bullet a plain level-2 bullet (no heading, no
property, no code or other block of its own), and every page it references (links, tags, nested
links, embeds, file links' labels, task markers, priorities, namespace parents) must be a page of
the registry (Logseq's name rules: case-insensitive, spaces kept) or one Logseq ships with.
Whatever `guard.unlink` makes of a bullet refused for unknown names is checked the same way,
because the writer writes it without asking the guard again; so is what it makes of any bullet
with every name it references taken for unknown (it must refuse, or write only plain text).

mldoc runs in one node process for the whole module (`Oracle`), each Hypothesis example sends
a batch of bullets as one line of JSON. ``GUARD_EXAMPLES`` raises the number of examples (e.g.
to 3000 while hunting); the count of bullets checked is printed at the end of the module (-s).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from journal_agent.errors import BulletsRefused, Refused
from journal_agent.flavors import LogseqFlavor
from journal_agent.guard import lint, unlink
from journal_agent.logseq_pages import logseq_pages_of
from journal_agent.registry import Page, PageRegistry
from journal_agent.scanner import inline_refs

ORACLE = Path(__file__).parent / "oracle" / "mldoc_blocks.js"
EXAMPLES = int(os.environ.get("GUARD_EXAMPLES", "200"))
BATCH = 25  # bullets per example at most: one request to the oracle each

TITLES = [
    "Gorul",
    "Flaky CI",
    "Café Müller",
    "Projects/Website",
    "C++",
    "a.b",
    "x",
    "中文",
    "journal-agent",
    "Q3 planning",
    "AI & ethics",
    "bug #42",
    "Onboarding (draft)",
    "v1.2",
]
ALIASES = {"Flaky CI": ["FCI"]}
UNKNOWN = [
    "NoSuch",
    "New Page",
    "Gorul2",
    "Gorul ",
    " Gorul",
    "Projects/Nope",
    "Nope/Website",
    "-",
    "```",
    "a]b",
    "[x]",
    "Zeta",
    "ci",
    "flaky",
    "#",
    "/Gorul/",
    "Gorul/",
    "x y",
    "Ünknown",
]
BUILT_IN = {  # logseq/db/default.cljs: pages every graph has
    "now",
    "later",
    "doing",
    "done",
    "canceled",
    "cancelled",
    "in-progress",
    "todo",
    "wait",
    "waiting",
    "a",
    "b",
    "c",
    "favorites",
    "contents",
    "card",
}
KNOWN_ID = "6512c3b8-1d0f-4e3a-9a4b-2c1d5e6f7a8b"
UNKNOWN_ID = "0000c3b8-1d0f-4e3a-9a4b-2c1d5e6f7a8b"
PAGE = "- agent log\n\t- {}\n- next\n"


def registry() -> PageRegistry:
    pages = [Page(t, f"pages/{t}.md", ALIASES.get(t, [])) for t in TITLES]
    return logseq_pages_of([*pages, Page("Projects", None)], LogseqFlavor())


REGISTRY = registry()
IDS = frozenset({KNOWN_ID})


def logseq_key(name: str) -> str:
    """How Logseq names a page (gp-util/page-name-sanity-lc): lower case, one boundary slash
    off each end, NFC. Spaces are kept: ``[[X ]]`` is not ``[[X]]``."""
    name = name.lower()
    name = name[1:] if name.startswith("/") else name
    name = name[:-1] if name.endswith("/") else name
    return unicodedata.normalize("NFC", name)


KNOWN = BUILT_IN | {logseq_key(n) for p in REGISTRY for n in [p.title, *p.aliases]}


class Oracle:
    """One node process running mldoc; `ask` sends a batch of texts and reads the answer."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None or not (ORACLE.parent / "node_modules" / "mldoc").is_dir():
            pytest.fail("the mldoc oracle is not installed: run `npm ci --prefix tests/oracle`")
        self.proc = subprocess.Popen(
            [node, str(ORACLE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.texts = 0
        self.bullets = 0  # generated bullets checked

    def ask(self, texts: list[str]) -> list[list[dict[str, Any]]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"texts": texts}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            pytest.fail(f"the mldoc oracle died (exit {self.proc.wait()})")
        self.texts += len(texts)
        result: list[list[dict[str, Any]]] = json.loads(line)
        return result

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait()
        self.proc.stdout.close()


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    o = Oracle()
    yield o
    o.close()
    print(f"\n{o.bullets} generated bullets checked; mldoc read {o.texts} pages")


def violation(nodes: list[dict[str, Any]]) -> str | None:
    """What is wrong with a page that should be three plain blocks, or None."""
    kinds = [(n["type"], n.get("level")) for n in nodes]
    if kinds != [("Heading", 1), ("Heading", 2), ("Heading", 1)]:
        return f"the page parses as {kinds}"
    block = nodes[1]
    if block["size"] is not None or not block["unordered"]:
        return "the bullet became a heading"
    if block["properties"] or block["timestamps"]:
        return "the bullet carries properties or timestamps"
    unknown = [p for p in block["pages"] if logseq_key(p) not in KNOWN]
    if unknown:
        return f"it references pages that do not exist: {unknown}"
    ids = [i for i in block["blocks"] if i not in IDS]
    if ids:
        return f"it references blocks that do not exist: {ids}"
    return None


def written(bullet: str) -> str | None:
    """What the guard lets the writer put on the page for this bullet: the bullet itself, or
    its unlinked form when only unknown names are wrong; None when it is refused."""
    problems = lint(bullet, REGISTRY, "logseq", block_ids=IDS)
    if not problems:
        return bullet
    if all(p.kind == "unknown-page" for p in problems):
        try:
            return unlink(bullet, {p.name for p in problems if p.name}, "logseq")
        except Refused:
            return None
    return None


def unlinked(bullet: str) -> str | None:
    """``bullet`` with every name it references written as plain text when the guard refuses
    it for unknown names only, or None if it is refused."""
    problems = lint(bullet, REGISTRY, "logseq", block_ids=IDS)
    if not all(p.kind == "unknown-page" for p in problems):
        return None
    names = {r.target for r in inline_refs(bullet, "logseq") if r.kind != "block"}
    names |= {p.name for p in problems if p.name}
    try:
        return unlink(bullet, names, "logseq")
    except Refused:
        return None


def check(oracle: Oracle, bullets: list[str]) -> None:
    """The property, for a batch: every bullet written parses as it should."""
    oracle.bullets += len(bullets)
    pairs = [(b, w) for b in bullets for w in (written(b), unlinked(b)) if w is not None]
    answers = oracle.ask([PAGE.format(w) for _, w in pairs]) if pairs else []
    failures = [
        f"{b!r} (written as {w!r}): {why}"
        for (b, w), nodes in zip(pairs, answers, strict=True)
        if (why := violation(nodes)) is not None
    ]
    assert not failures, "\n".join(failures[:10])


# -- bullets ---------------------------------------------------------------------------------------

WORDS = [
    "fixed",
    "the",
    "retry",
    "bug",
    "in",
    "a",
    "see",
    "→",
    "naïve",
    "日本語",
    "😀",
    "42",
    "e.g.",
    "(draft)",
    "x+y",
    "a/b",
    "50%",
    "&",
    "C#",
    "issue#123",
    "it's",
    "snake_case",
    "2*3",
    "a=b",
    "~x",
    "$5",
    "@alice",
    "{x}",
    "<3",
    "re:",
    "--",
    "ok!",
    "related",
    "-related",
    "v2.0",
]
PUNCT = list("[](){}#!*_~^=$`<>|:-+.,;'\"/\\@%&? ") + ["::", "[[", "]]", "((", "))", "{{", "}}"]
LEADERS = [
    "DONE ",
    "TODO ",
    "LATER ",
    "NOW ",
    "CANCELED ",
    "STARTED ",
    "IN-PROGRESS ",
    "WAIT ",
    "[#A] ",
    "[#Z] ",
    "DONE [#B] ",
    "- ",
    "* ",
    "+ ",
    "# ",
    "## ",
    "> ",
    "1. ",
    "1) ",
    "```",
    "~~~",
    "$$",
    "#+BEGIN_QUOTE ",
    "#+title: ",
    ":PROPERTIES:",
    "|a|b|",
    "---",
    "***",
    "<div>",
    "<!-- x -->",
    "[^1]: ",
    "SCHEDULED: <2024-01-01 Mon>",
    "DEADLINE: <2024-01-01 Mon>",
    ":",
    "id:: ",
    "Resolved: ",
    "Decision: ",
    "\\",
    "[ ] ",
    "[x] ",
    "    ",
    "\u00a0",
]
URLS = [
    "https://ex.com/a",
    "http://x.y/[[Gorul]]",
    "https://ex.com/#Gorul",
    "file:///tmp/a",
    "https://ex.com/a_(b)",
    "mailto:a@b.c",
]


def names() -> st.SearchStrategy[str]:
    """Existing and unknown names, in any case, and bits of odd text."""
    fixed = st.sampled_from(TITLES + ["FCI", "Projects", "done", "A", "card"] + UNKNOWN)
    cased = st.tuples(fixed, st.sampled_from(["", "lower", "upper", "swapcase"])).map(
        lambda t: getattr(t[0], t[1])() if t[1] else t[0]
    )
    odd = st.text(alphabet="Gorul []()#!:|/-_*`$\\.,é", min_size=0, max_size=6)
    return st.one_of(cased, cased, cased, odd)


def fragment(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """One piece of a bullet: a word, punctuation, or a construct around a name or ``inner``."""
    n, uid = names(), st.sampled_from([KNOWN_ID, UNKNOWN_ID, KNOWN_ID.upper(), "not-a-uuid"])
    return st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(PUNCT),
        st.sampled_from(URLS),
        n.map(lambda s: f"[[{s}]]"),
        n.map(lambda s: f"#{s}"),
        n.map(lambda s: f"#[[{s}]]"),
        st.tuples(inner, n).map(lambda t: f"[{t[0]}]([[{t[1]}]])"),
        st.tuples(inner, n).map(lambda t: f"![{t[0]}]([[{t[1]}]])"),
        st.tuples(inner, n).map(lambda t: f'[{t[0]}]([[{t[1]}]] "t")'),
        st.tuples(inner, n).map(lambda t: f"[{t[0]}](<[[{t[1]}]]>)"),
        st.tuples(inner, st.sampled_from(["a.md", "pages/x.md", "x", "#h", "https://e.x"])).map(
            lambda t: f"[{t[0]}]({t[1]})"
        ),
        st.tuples(n, n).map(lambda t: f"[[{t[0]} [[{t[1]}]]]]"),
        st.tuples(n, n).map(lambda t: f"[[{t[0]}|{t[1]}]]"),
        n.map(lambda s: f"{{{{embed [[{s}]]}}}}"),
        n.map(lambda s: f"{{{{embed {s}}}}}"),
        uid.map(lambda u: f"(({u}))"),
        uid.map(lambda u: f"{{{{embed (({u}))}}}}"),
        st.tuples(inner, uid).map(lambda t: f"[{t[0]}]((({t[1]})))"),
        inner.map(lambda s: f"`{s}`"),
        inner.map(lambda s: f"**{s}**"),
        inner.map(lambda s: f"_{s}_"),
        inner.map(lambda s: f"~~{s}~~"),
        inner.map(lambda s: f"<span>{s}</span>"),
        inner.map(lambda s: f"${s}$"),
        st.tuples(n, inner).map(lambda t: f"{t[0]}:: {t[1]}"),
        st.sampled_from("\\[\\]#*_`").map(lambda c: f"\\{c}"),
        st.text(alphabet="[]()#!:{}|`*_~=^$\\<>/- aé", max_size=8),
    )


def inline(depth: int = 2) -> st.SearchStrategy[str]:
    """A few fragments, glued together or with spaces between them; ``depth`` levels of
    constructs inside constructs."""
    inner = (
        st.sampled_from(["x", "Gorul", "a b", "#", "]", "[[", "`"])
        if depth == 0
        else inline(depth - 1)
    )
    return st.lists(
        st.tuples(fragment(inner), st.sampled_from(["", " ", " "])), min_size=1, max_size=depth + 2
    ).map(lambda parts: "".join(p + sep for p, sep in parts).rstrip())


def bullets() -> st.SearchStrategy[str]:
    leader = st.one_of(st.just(""), st.just(""), st.sampled_from(LEADERS))
    # No .filter: a rejected draw makes Hypothesis describe this (huge) strategy in an event,
    # which it warns about, and warnings are errors here. A blank bullet becomes a word.
    return st.tuples(leader, inline()).map(lambda t: "".join(t) if "".join(t).strip() else "x")


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(bullets(), min_size=BATCH // 2, max_size=BATCH))
def test_what_the_guard_accepts_mldoc_reads_as_one_plain_bullet(
    oracle: Oracle, batch: list[str]
) -> None:
    check(oracle, batch)


# -- fixed cases -----------------------------------------------------------------------------------

ORDINARY = [
    "Fixed the retry bug in [[Flaky CI]]",
    "#Gorul",
    "tagged #Gorul and #[[Flaky CI]], then #x.",
    'see [the notes]([[Flaky CI]]) and ![a picture]([[Gorul]]) and [x]([[Gorul]] "title")',
    "ran `make test`; `[[NoSuch]]` and `#NoSuch` stay code",
    "docs at https://example.com/docs#section and https://en.wikipedia.org/wiki/Tag_(metadata)",
    "**bold** and _italic_ and ~~struck~~ and ==marked== about [[Gorul]]",
    "DONE shipped [[Gorul]]",
    "TODO look at #Gorul",
    "LATER [#A] check [[Q3 planning]]",
    "Decision: keep [[Café Müller]] (for now)",
    "Resolved: [[FCI]] is green again",
    "{{embed [[Gorul]]}}",
    f"see (({KNOWN_ID}))",
    "[[Projects/Website]] launched; C++ and C# notes in [[C++]]",
    '50% done (draft) e.g. x+y, a=b, 2*3, it\'s "quoted" — ok!',
    "日本語 and 😀 in [[中文]]",
    "q: is [[gorul]] done? see [[a.b]].",
    "the ticket is [[bug #42]]",
    "[[AI & ethics]] and [[Onboarding (draft)]] and [[v1.2]]",
    "a $5 fee and $10 more",
]


def test_ordinary_bullets_are_accepted_and_read_as_written(oracle: Oracle) -> None:
    refused = {
        b: [p.message for p in problems]
        for b in ORDINARY
        if (problems := lint(b, REGISTRY, "logseq", block_ids=IDS))
    }
    assert not refused
    failures = [
        f"{b!r}: {why}"
        for b, nodes in zip(ORDINARY, oracle.ask([PAGE.format(b) for b in ORDINARY]), strict=True)
        if (why := violation(nodes)) is not None
    ]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    ("bullet", "kind"),
    [
        ("(see #[[Gorul]])", "unknown-page"),  # mldoc: the tag is "[[Gorul]])"
        ("#[[Gorul]]-related", "unknown-page"),  # the tag "[[Gorul]]-related"
        ("#[[NoSuch]", "unknown-page"),  # the tag "[[NoSuch]"
        ("[[a]([[Gorul]])", "unknown-page"),  # the page "a]([[Gorul"
        ("#Gorul[[x]]", "unknown-page"),  # the tag "Gorul[[x]]"
        ("[[Gorul ]]", "unknown-page"),  # not Gorul: Logseq keeps the space
        ("bug #42", "unknown-page"),  # the tag "42"
        ("STARTED the work", "unknown-page"),  # a marker page Logseq does not ship
        ("[#Z] x", "unknown-page"),  # so is a priority other than A, B, C
        (f"{{{{embed (({KNOWN_ID}))}}}}", "link-form"),  # Logseq makes a page of the id
        ("[notes](notes.md)", "link-form"),  # links the page "notes"
        ("a]{{embed [[NoSuch]]}}", "link-form"),  # no macro after "]": the page NoSuch
        ("[[Gorul\\]]]", "link-form"),  # the page "Gorul]"
        ("---", "structure"),
        ("| a | b |", "structure"),
        ("$$x$$", "structure"),
        ("<div>x</div>", "structure"),
        ("[#A]x", "structure"),
        ("DONE a:: b", "property"),
        ("[[Gorul]]:: v", "property"),
    ],
)
def test_what_logseq_reads_otherwise_is_refused(oracle: Oracle, bullet: str, kind: str) -> None:
    problems = lint(bullet, REGISTRY, "logseq", block_ids=IDS)
    assert [p.kind for p in problems][:1] == [kind], problems
    (nodes,) = oracle.ask([PAGE.format(bullet)])
    assert violation(nodes) is not None  # the refusal was needed


@pytest.mark.parametrize(
    "bullet",
    [
        "{{embed Gorul}}",  # links Gorul, but only {{embed [[Page]]}} is read for sure
        "see [x](<[[Gorul]]>)",
        "a \\[not a link\\]",
        "`` a ` b ``",
        "x https://example.com/a[[Gorul]]",
        "x)<span>y</span>",
        "[a `b](c)` d",  # where the label ends depends on how mldoc pairs the backticks
    ],
)
def test_what_the_guard_cannot_be_sure_of_is_refused(bullet: str) -> None:
    problems = lint(bullet, REGISTRY, "logseq", block_ids=IDS)
    assert [p.kind for p in problems] == ["link-form"], problems
    assert len(problems[0].message) < 200


@pytest.mark.parametrize("bullet", ["[[NoSuch]]:: v", "[[-]] x", "[[```]]", "#[[- x]]"])
def test_unlink_refuses_what_would_not_be_plain_text(bullet: str) -> None:
    with pytest.raises(BulletsRefused, match="cannot write the unknown names"):
        unlink(bullet, {bullet.split("]]")[0].lstrip("#[")}, "logseq")


def test_unlink_writes_unknown_names_as_their_text() -> None:
    bullet = "[[NoSuch]] and #Zeta, [the label]([[Nope]]) and [[Gorul]] [[a [[NoSuch]]]]"
    assert unlink(bullet, {"nosuch", "zeta", "Nope", "a [[NoSuch]]"}, "logseq") == (
        "NoSuch and Zeta, the label and [[Gorul]] a NoSuch"
    )
