"""Org-mode pages of a Logseq graph: the org scanner agrees with Logseq's parser (mldoc, Org mode).

Like tests/test_mldoc_conformance.py for Markdown: each text is run through
``tests/oracle/mldoc_outline.js`` in Org mode and compared per block (line, level, marker,
sorted references as Logseq's graph parser takes them from mldoc's AST, headline tags) and for
the page properties. Generated pages come from tests/org_gen.py `org_page`.
"""

from __future__ import annotations

import random
from typing import Any

from journal_agent.org import scan_org
from journal_agent.outline import COMMA_PROPERTIES, line_count

from .org_gen import org_page
from .test_mldoc_conformance import names, run_oracle

GENERATED = 200


def ours(text: str) -> dict[str, Any]:
    outline = scan_org(text, line_count(text), COMMA_PROPERTIES)
    blocks = [
        {
            "line": b.line,
            "level": b.level,
            "marker": b.marker,
            "refs": names(b.refs),
            "tags": list(b.tags),
        }
        for b in outline.blocks
        if b.kind != "preamble"
    ]
    return {"page_refs": names(outline.page_refs), "blocks": blocks}


def check(texts: list[str]) -> None:
    failures = []
    for text, theirs in zip(texts, run_oracle(texts, "Org"), strict=True):
        mine = ours(text)
        if mine != theirs:
            failures.append(f"{text}\n  ours  {mine}\n  mldoc {theirs}")
    assert not failures, f"{len(failures)} of {len(texts)} differ:\n\n" + "\n\n".join(failures[:3])


def test_org_constructs_match_mldoc() -> None:
    check(
        [
            "#+TITLE: T\n#+ALIAS: A, [[B c]]\n\n* one [[X]] :t1:t2:\n** TODO [#A] two #tag\n",
            "* a `[[Tick]]` =[[Verb]]= ~[[Code]]~ word=[[W]]= [[P][label]] [[file:x.org][F L]]\n",
            "* h\n:PROPERTIES:\n:foo: [[Bar]]\n:END:\nbody [[Body]]\n: fixed [[No]]\n# c [[No]]\n",
            "* q\n#+BEGIN_QUOTE\n- [[Quoted]]\n#+END_QUOTE\n#+BEGIN_SRC\n[[No]]\n#+END_SRC\n",
            "*\n* DONE\n*not a headline [[N]]\n- list [[L]]\n** title :notag: more\n",
            "text before [[Pre]]\n* [[https://x.com][web]] {{embed [[E]]}} #[[Multi word]]\n",
            "* TODO t\nSCHEDULED: <2024-01-05 Fri>\n[[Dropped]] with the schedule\n\n[[Kept]]\n",
        ]
    )


def test_directives_anywhere_are_page_properties() -> None:
    """``#+KEY:`` lines are the page's properties wherever they stand (never a headline's text),
    in place of a drawer's; right after a drawer they join it; in a list item they are text."""
    check(
        [
            "* h [[X]]\n#+NAME: blk\n#+BEGIN_SRC sh\nls\n#+END_SRC\n#+RESULTS: blk\n: out\n"
            "#+CAPTION: a [[Cap]]\n",
            "intro\n* h\n- item\n  #+ALIAS: InItem\n#+ALIAS: Late, [[L2]]\n- a\n  - b\n"
            "    #+FOO: [[Nested]]\n",
            ":PROPERTIES:\n:alias: Drawer\n:END:\n* h\n#+STARTUP: overview\n",
            ":PROPERTIES:\n:alias: Drawer\n:END:\n\n#+TITLE: Joined\n* h\n",
            "* h\n#+BEGIN_QUOTE\n#+ALIAS: Q [[InQuote]]\n#+END_QUOTE\n",
            "#+FOO: [[A]]\n* h\n#+FOO: [[B]]\n",
            ":PROPERTIES:\n:foo: [[A]]\n:foo: [[B]]\n:END:\n* h\n",
            "* h\n:LOGBOOK:\nx\n:END:\n#+FOO: [[AfterLogbook]]\n",
        ]
    )
    props = {
        "* h\n#+TITLE: Late\n": {"title": "Late"},
        ":PROPERTIES:\n:alias: A\n:END:\n* h\n  #+STARTUP: x\n": {"startup": "x"},
        ":PROPERTIES:\n:alias: A\n:END:\n\n#+TITLE: T\n* h\n": {"alias": "A", "title": "T"},
        "text\n:PROPERTIES:\n:title: T\n:alias: A\n:END:\n* h\n": {"alias": "A"},
        "* h\n:PROPERTIES:\n:a: 1\n:END:\n#+TITLE: T\n": {},
        "* h\n- item\n  #+TITLE: T\n": {},
    }
    for text, want in props.items():
        assert scan_org(text, line_count(text), COMMA_PROPERTIES).page_properties == want, text


def test_verbatim_and_code_open_where_mldoc_tries_them() -> None:
    """``=x=`` and ``~x~`` hold no mark of their own kind, and open only after white space, an
    org plain delimiter or another construct (mldoc's plain text runs over anything else), never
    inside a link."""
    check(
        [
            "* a ~~b [[X]]~ c ==b [[Y]]= ~ [[Z]] ~ d\n",
            "* (~[[X]]~) a]~[[Y]]~ -~[[Z]]~ .~[[W]]~ 'x=[[V]]=' word=[[U]]=\n",
            "* [~[[X]]~ *b*~[[Y]]~ ~a~~[[Z]]~ [[L]]~[[W]]~ =a ~[[V]]~\n",
            "* h\nx ~[[X]]\n~ ~a=[[Y]]=b~\n=[[Z]]= at a line's start\n",
            "* [[a =b= c]] [[a ~b~ c]] #[[a =b= c]] =x [[H]] y= [[c =d= e]]=f= [[T][=a=]]\n",
        ]
    )


# HTML and LaTeX environments at the start of a line are blocks of their own, to their end
# across lines (headlines and all), as in Markdown; the rest of their last line is text.
RAW_CASES = [
    "* h\n<div>\n[[Hidden]]\n</div>\n[[Seen]]\n",
    "* h\n<div>\n[[Hidden]]\n* y [[Hidden]]\n</div> [[Seen]]\n",
    "* h\n<div>\n[[Seen]]\n",  # unclosed: text
    "* h\ntext\n<details>\n[[Hidden]]\n\n[[Hidden]]\n</details> [[Seen]]\n",
    "* x\n\\begin{equation}\n[[Hidden]]\n\\end{equation}\n[[Seen]]\n",
    "* x\n  \\BEGIN{align*} [[Hidden]]\n\\end{ALIGN*} [[Seen]]\n",
    "* [[Seen]]\n\\begin{eq}\n[[Hidden]]\n* y [[Hidden]]\n",  # unclosed: to the page's end
    "* x\na \\begin{eq}\n[[Seen]]\n\\end{eq}\n",  # not at the start of the line
    "* x\n\\begin{eq}\n[[Hidden]]\n\\end{eq} <span>[[Hidden]]</span> [[Seen]]\n",
    "* x\n- item\n  \\begin{eq}\n  [[Hidden]]\n  \\end{eq}\n[[Seen]]\n",  # in a list item
    "pre\n\\begin{eq}\n[[Hidden]]\n\\end{eq}\n* h [[Seen]]\n",  # before the first headline
]


def test_html_and_latex_blocks_match_mldoc() -> None:
    check(RAW_CASES)
    for text in RAW_CASES:
        found = {name for block in ours(text)["blocks"] for name in block["refs"]}
        found |= set(ours(text)["page_refs"])
        assert "Hidden" not in found and "Seen" in found, text


def test_a_timestamp_after_one_empty_line_is_a_schedule() -> None:
    """A paragraph whose first or second inline piece is a timestamp is a schedule, its
    references dropped; one empty line before it is a piece (a line break), two put it third,
    unless what comes before takes them. Lists are no part of a paragraph."""
    check(
        [
            "* h\n\n<2024-01-05 Fri> [[Dropped]]\n* h2\n\n\n<2024-01-05 Fri> [[Kept]]\n",
            "* h\n\nSCHEDULED: <2024-01-05 Fri> [[Dropped]]\n* h2\n\n  <2024-01-05 Fri> [[K]]\n",
            "* h\n:PROPERTIES:\n:a: 1\n:END:\n\n<2024-01-05 Fri> [[Dropped]]\n",
            "* h\n\\begin{x}y\\end{x}\n<2024-01-05 Fri> [[Dropped]]\n",
            "* h\ntext\n\n<2024-01-05 Fri> [[Kept]]\n",
            # #+BEGIN blocks, comments, fixed-width text and #+KEY: lines take the blank lines
            # after them; a list takes one
            "* h\n#+BEGIN_SRC\nx\n#+END_SRC\n\n\n<2024-01-05 Fri> [[Dropped]]\n",
            "* h\n# c\n\n\n<2024-01-05 Fri> [[Dropped]]\n* h2\n: f\n\n\n<2024-01-05 Fri> [[D]]\n",
            "* h\n- item\n\n<2024-01-05 Fri> [[Dropped]]\n",
            "* h\n- item\n\n\n<2024-01-05 Fri> [[Dropped]]\n",
            "* h\n- item\n\n\n\n<2024-01-05 Fri> [[Kept]]\n",
            # a list is no part of the paragraph before it, and its items are no schedules
            "* h\nSCHEDULED: <2024-01-05 Fri>\n- book [[Kept]]\n- <2024-01-05 Fri> [[Kept2]]\n",
            "* h\n<2024-01-05 Fri>\n- a\n  - b [[Dropped]]\n",  # an item in an item: text
        ]
    )


def test_org_links_and_backticks_match_mldoc() -> None:
    """``[[url][label]]``: a label holds balanced brackets and a lone ``]``; with a label, a url
    holding ``:`` is a URL, without one a page. A backtick is no code and stays in a name."""
    check(
        [
            "* [[T][[[W]]]] x [[T][a [b] c]] [[T][a]b]] [[T][a[b]] [[T][x]] y]]\n",
            "* [[My Team: Alpha][lbl]] [[a: b][]] [[https://x.com][]] [[:x][l]] [[x:][l]]\n",
            "* [[a[b][lbl]] [[T\\]x][lbl]] [[file:][x]] [[FILE:x.org][X]] [[file:y.md][ ]]\n",
            "* [[a`b]] #c`d `[[X]]` #[[e `f]]\n",
        ]
    )


def test_property_values_are_read_as_org() -> None:
    """A property value in an org page is org text: =verbatim= and ~code~ hide references, a
    backtick is no code, a [[url][label]] link refers to nothing, and in a comma-separated value
    each of them parts the plain items."""
    check(
        [
            "* h\n:PROPERTIES:\n:source: [[https://x.com/a][the title]]\n"
            ":link: [[Some Page][the title]]\n:code: `[[Tick]]` =[[Verb]]= ~[[Code]]~\n"
            ":tags: [[https://x.com][t]], b, a =b= c, `e`\n:END:\n",
            "#+SOURCE: `[[Tick]]` =[[Verb]]= ~[[Code]]~ [[Plain]]\n#+TAGS: a =b= c, #d, `e`\n* h\n",
        ]
    )


def test_headline_tags_follow_a_space_or_a_link() -> None:
    """Headline tags are the title's last plain text: after spaces or right after a link, not
    after a tab (Emacs may align them with tabs: they are then title text)."""
    check(["* a\t:tab:\n* a \t:t:\n* a [[X]]:t:\n* a  :t1:t2: \t\n* a:notag:\n* :only:\n"])


def test_generated_org_pages_match_mldoc() -> None:
    check([org_page(random.Random(seed)) for seed in range(GENERATED)])
