"""Seeded generator of org-mode pages of a Logseq graph, for tests/test_org.py: headlines with
markers, priorities and tags, org inline text (verbatim, code, org links, emphasis), drawers,
#+BEGIN blocks, #+KEY: lines, lists, HTML and LaTeX, schedules and property values, with the
reference forms of tests/outline_gen.py. It is a pure function of the generator's state.
"""

from __future__ import annotations

import random

from .outline_gen import LABELS, MARKERS, PAGE_NAMES, WORDS, _ref

ORG_NOISE = [
    lambda rng, name: f"`[[{name}]]`",  # backticks are no code in org: a reference
    lambda rng, name: f"=[[{name}]]=",  # verbatim hides it
    lambda rng, name: f"~{rng.choice(WORDS)} [[{name}]]~",  # code hides it
    lambda rng, name: f"word=[[{name}]]=",  # no verbatim after a letter
    lambda rng, name: f"[[{name}][{rng.choice(LABELS)}]]",  # a link to the page
    lambda rng, name: f"[[{name}][{rng.choice(LABELS)} [draft]]]",  # brackets in its label
    lambda rng, name: f"[[{name}: notes][{rng.choice(LABELS)}]]",  # ":" and a label: a URL
    lambda rng, name: f"[[file:../pages/{rng.choice(['a', 'b'])}.org][{rng.choice(LABELS)}]]",
    lambda rng, name: f"[[https://example.com/x][{rng.choice(LABELS)}]]",
    lambda rng, name: f"*bold [[{name}]]*",
    lambda rng, name: f"/italic [[{name}]]/",
    lambda rng, name: f"_under [[{name}]]_",
]


def _org_inline(rng: random.Random) -> str:
    """A line of org text. Left out: a ``+`` next to a word (``+1``, ``[[C++]]``), where org's
    +strike-through+ starts or ends depends on mldoc's grammar."""
    parts = []
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        if r < 0.2:
            parts.append(_ref(rng))
        elif r < 0.35:
            parts.append(rng.choice(ORG_NOISE)(rng, rng.choice(PAGE_NAMES)))
        else:
            parts.append(rng.choice(WORDS))
    text = " ".join(parts).replace("+", "plus")
    return text.lstrip("*:#-=~/ ") or "x"  # no headline, drawer, comment or list by accident


def _org_value(rng: random.Random) -> str:
    """A property value of org text. Left out: what org's inline grammar reads unlike
    Logseq Markdown's beyond links, code and verbatim (sub- and superscripts such as
    ``snake_case``, ``*bold*``, ``[label](url)``), which the scanner reads as Markdown."""
    a, b, c, d, e = rng.sample(PAGE_NAMES, 5)  # (a name twice is a reference twice to mldoc)
    parts = [
        f"[[{a}]]",
        f"=[[{b}]]=",
        f"~a [[{c}]]~",
        f"`[[{d}]]`",
        f"[[{e}][{rng.choice(LABELS)}]]",
        f"[[https://example.com/x][{rng.choice(LABELS)}]]",
        rng.choice(["alpha", "beta gamma", "a =b= c", "`e`", "#tag"]),
    ]
    return rng.choice([", ", " "]).join(rng.sample(parts, rng.randint(1, 3)))


def _org_body(rng: random.Random) -> list[str]:
    name = rng.choice(PAGE_NAMES)
    choices = [
        [_org_inline(rng)],
        [f"- list item {_org_inline(rng)}"],
        [":PROPERTIES:", f":{rng.choice(['type', 'owner', 'rating'])}: [[{name}]]", ":END:"],
        [":PROPERTIES:", f":{rng.choice(['source', 'tags'])}: {_org_value(rng)}", ":END:"],
        [":LOGBOOK:", "CLOCK: [2024-01-05 Fri 10:00]", ":END:"],
        [f": fixed width [[{name}]]"],
        [f"# a comment [[{name}]]"],
        ["#+BEGIN_QUOTE", _org_inline(rng), "#+END_QUOTE"],
        ["#+BEGIN_SRC python", f"x = '[[{name}]]'", "#+END_SRC"],
        ["#+BEGIN_EXAMPLE", f"- [[{name}]]", "#+END_EXAMPLE"],
        ["#+BEGIN_NOTE", _org_inline(rng), "#+END_NOTE"],
        # #+KEY: lines: page properties anywhere, joining a drawer right before them, text when
        # indented in a list item. (Left out: references in one that joins a drawer: mldoc
        # gives no AST of its value, which tests/oracle/mldoc_outline.js reads them from.)
        [
            rng.choice(WORDS),
            f"#+{rng.choice(['NAME', 'RESULTS', 'CAPTION', 'ALIAS', 'title'])}: "
            + rng.choice([f"[[{name}]]", rng.choice(WORDS)]),
        ],
        ["- list item", f"  #+{rng.choice(['ALIAS', 'NAME'])}: {rng.choice(WORDS)}"],
        [":PROPERTIES:", ":type: x", ":END:", *[""] * rng.randint(0, 1), "#+RESULTS: out"],
        # HTML and LaTeX environments: blocks of their own, to their end across lines
        ["\\begin{equation}", f"x = [[{name}]]", "\\end{equation}" + rng.choice(["", " [[X]]"])],
        ["<div>", f"[[{name}]]", "</div>"],
        # a schedule: a timestamp as a paragraph's first or second piece (one empty line is one)
        [
            *[""] * rng.randint(0, 2),
            f"{rng.choice(['', 'SCHEDULED: '])}<2024-01-05 Fri> [[{name}]]",
        ],
    ]
    return rng.choice(choices)


def org_page(rng: random.Random) -> str:
    """One random org-mode page of a Logseq graph."""
    lines = []
    if rng.random() < 0.5:
        lines.append(f"#+TITLE: {rng.choice(PAGE_NAMES)}")
    if rng.random() < 0.3:
        lines.append(f"#+ALIAS: {rng.choice(PAGE_NAMES).replace(',', '')}")
    if rng.random() < 0.2:
        lines.append(_org_inline(rng))
    depth = 1
    for i in range(rng.randint(1, 8)):
        depth = 1 if i == 0 else max(1, min(depth + rng.choice((-1, 0, 1)), 4))
        marker = rng.choice(MARKERS) + " " if rng.random() < 0.2 else ""
        priority = f"[#{rng.choice('ABC')}] " if rng.random() < 0.1 else ""
        tags = (
            f" :{rng.choice(['work', 'home'])}:{rng.choice(['x', 'y_z'])}:"
            if rng.random() < 0.15
            else ""
        )
        lines.append("*" * depth + " " + marker + priority + _org_inline(rng) + tags)
        for _ in range(rng.choices([0, 1, 2], [5, 3, 2])[0]):
            lines += _org_body(rng)
    return "\n".join(lines) + "\n"
