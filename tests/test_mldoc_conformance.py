"""The Logseq scanner agrees with Logseq's own parser (mldoc) on blocks, levels, markers and refs.

Logseq's Linked References are what the person sees, so the derived status is only right if our
fast line scanner finds the same page references in the same blocks as mldoc does. Each test runs
``tests/oracle/mldoc_outline.js`` (Logseq's parser, npm ``mldoc``) once over a batch of texts and
compares, per text: the page-property refs (sorted), and per block (bullets and headings, not the
preamble) its 0-based line, its level, its task marker and its sorted refs (a block ref is written
``((uuid))``, lower-cased).

CRLF files: mldoc reads ``\\r\\n`` as one line break, and the oracle counts lines by ``\\n``; our
scanner splits on ``\\n`` and drops one trailing ``\\r`` per line. So line numbers compare as
they are, and a ref equals mldoc's exactly (a ``\\r`` is never part of a name on either side).
A BOM is dropped on both sides (Logseq reads files without it; mldoc does not strip it itself).

Excluded on purpose: tests/outline_gen.py never writes the few constructs where mldoc's answer
is an accident of its grammar (text glued to a bracketed tag like ``#[[a]]b``, nested inline
HTML, Markdown quotes and lists inside a bullet ...); its docstring lists them with what mldoc does.

The oracle is the mldoc that tests/oracle/package.json pins: 1.5.x, what Logseq OG 0.10.x uses,
with one inline grammar. (mldoc 1.6 added a fast inline parser with its own #tag rules; the
scanner does not emulate it.)
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from journal_agent.scanner import Block, Ref, decode, scan

from .outline_gen import logseq_page

HERE = Path(__file__).parent
ORACLE = HERE / "oracle" / "mldoc_outline.js"
SAMPLE_VAULT = HERE.parent / "sample_vault"
GENERATED = 400
SHOWN = 5  # mismatches spelled out in a failure message


def run_oracle(texts: list[str], fmt: str = "Markdown") -> list[dict[str, Any]]:
    """mldoc's outline of every text (``fmt``: "Markdown" or "Org"), in one node process."""
    node = shutil.which("node")
    if node is None or not (ORACLE.parent / "node_modules" / "mldoc").is_dir():
        pytest.fail(
            "the mldoc oracle is not installed: run `npm ci --prefix tests/oracle` "
            "(needs node on PATH)"
        )
    proc = subprocess.run(
        [node, str(ORACLE)],
        input=json.dumps({"texts": texts, "format": fmt}),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(f"mldoc oracle failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    result: list[dict[str, Any]] = json.loads(proc.stdout)
    assert len(result) == len(texts)
    return result


def ours(text: str) -> dict[str, Any]:
    """Our scan in the oracle's shape."""
    outline = scan(text, "logseq")
    lines = text.split("\n")
    blocks = [
        {
            "line": b.line,
            "level": mldoc_level(b, lines[b.line]),
            "marker": b.marker,
            "refs": names(b.refs),
            "tags": list(b.tags),
        }
        for b in outline.blocks
        if b.kind != "preamble"
    ]
    return {"page_refs": names(outline.page_refs), "blocks": blocks}


def mldoc_level(block: Block, line: str) -> int:
    """mldoc's level of a block: 1 + its indentation (our outline keeps the graph parser's
    level, which is 1 for a heading without a bullet however indented)."""
    if block.kind == "heading":
        return len(line) - len(line.lstrip(" \t")) + 1
    return block.level


def names(refs: list[Ref]) -> list[str]:
    return sorted(f"(({r.target}))" if r.kind == "block" else r.target for r in refs)


def explain(name: str, text: str, mine: dict[str, Any], theirs: dict[str, Any]) -> str:
    """Where two outlines first differ, with the text around it."""
    lines = text.split("\n")
    if mine["page_refs"] != theirs["page_refs"]:
        where, what = 0, f"page refs: ours {mine['page_refs']}  mldoc {theirs['page_refs']}"
    else:
        pairs = zip(
            mine["blocks"] + [None] * len(theirs["blocks"]),
            theirs["blocks"] + [None] * len(mine["blocks"]),
            strict=True,
        )
        a, b = next((a, b) for a, b in pairs if a != b)
        where = (a or b)["line"]
        what = f"ours  {a or 'no block here'}\n  mldoc {b or 'no block here'}"
    start = max(0, where - 3)
    excerpt = "\n".join(
        f"  {i:4} {line!r}" for i, line in enumerate(lines[start : where + 4], start)
    )
    return f"{name}, line {where}:\n{excerpt}\n  {what}"


def check(named_texts: list[tuple[str, str]]) -> None:
    """Assert that our scan equals mldoc's for every text; show the first few mismatches."""
    texts = [decode(text.encode("utf-8"))[0] for _, text in named_texts]
    failures = []
    for (name, _), text, theirs in zip(named_texts, texts, run_oracle(texts), strict=True):
        mine = ours(text)
        if mine != theirs:
            failures.append(explain(name, text, mine, theirs))
    assert not failures, (
        f"{len(failures)} of {len(texts)} texts differ from mldoc:\n\n"
        + "\n\n".join(failures[:SHOWN])
    )


def sample_vault_pages() -> list[Path]:
    """The vault's Logseq pages: files under a graph root (a folder with logseq/config.edn),
    or every .md file if no folder is marked as a Logseq graph; backups and hidden folders out."""
    roots = [p.parent.parent for p in SAMPLE_VAULT.rglob("logseq/config.edn")]
    files = sorted(SAMPLE_VAULT.rglob("*.md"))
    if roots:
        files = [f for f in files if any(root in f.parents for root in roots)]
    return [
        f
        for f in files
        if not any(
            part.startswith(".") or part in ("bak", "version-files")
            for part in f.relative_to(SAMPLE_VAULT).parts
        )
    ]


def test_sample_vault_matches_mldoc() -> None:
    if not SAMPLE_VAULT.is_dir():
        pytest.skip("no sample_vault/ yet")
    files = sample_vault_pages()
    assert files, f"{SAMPLE_VAULT} holds no Logseq .md page"
    check([(str(f.relative_to(SAMPLE_VAULT)), f.read_bytes().decode("utf-8")) for f in files])


def test_generated_pages_match_mldoc() -> None:
    check([(f"seed {seed}", logseq_page(random.Random(seed))) for seed in range(GENERATED)])


# Constructs that hide the references inside them, with variants around their edges: each text
# holds [[Hidden]] where mldoc finds none, and [[Seen]] where it does.
INLINE_CASES = [
    "- \\( [[Hidden]] \\) [[Seen]]",
    "- \\[ [[Hidden]] \\]x[[Seen]]",
    "- x\n  a \\( y\n  [[Hidden]] \\) [[Seen]]",  # across a paragraph's lines
    "- \\( [[Seen]]",  # unclosed: an escaped bracket
    "- \\\\( [[Seen]] \\)",  # an escaped backslash
    "- **\\( [[Seen]] \\)**",  # no math inside emphasis
    '- [:div "[[Hidden]]"] [[Seen]]',
    "- hiccup [:div [[Hidden]]] [[Seen]]",  # up to the first "]" outside a string
    "- x[:span.c [:b [[Hidden]]]] [[Seen]]",
    "- [:foo [[Seen]]]",  # not an HTML tag
    "- x\n  y [:div x\n  [[Hidden]]] [[Seen]]",
    "- @@html: [[Hidden]]@@ [[Seen]]",
    "- x@@html: [[Seen]]@@",  # glued to a word
    "- @@html:[[Seen]]@@",
    "- see <https://example.com/[[Hidden]]> [[Seen]]",
    "- see <foo:[[Hidden]]> <x [[Seen]]>",
    "- see <https://example.com/ [[Seen]]>",
    "- x<https://e.com/[[Seen]]>",
    "- x <span><span>x</span> [[Hidden]]</span> [[Seen]]",  # nested: mldoc counts the tags
    "- x <span>a<span>b</span> [[Seen]]",  # unclosed
    # code of two or more backticks runs across a paragraph's lines (one backtick's does not)
    "- x\n  b ``y\n  [[Hidden]]`` [[Seen]]",
    "- x\n  b ``y\n\n  [[Hidden]]`` c\n  `y\n  [[Seen]]`",
    "- x\n  **b ``y\n  [[Hidden]]`` c** [[Seen]]",
    "- x\n  ``y\n  [[Hidden]]\n  ``` [[Seen]]",
    "- ``y\n  [[Seen]]``",  # the first line is read on its own
    "- x\n  ``y\n  > [[Seen]]``",  # a quote is a block of its own
    "- #+BEGIN_NOTE\n  - ```md\n    arr[[Hidden]] = 1\n    ```\n  [[Seen]]\n  #+END_NOTE",
    "- #+BEGIN_NOTE\n  - a\n    - [[Seen]] ```md\n      [[Hidden]]\n      ```\n  #+END_NOTE",
]


def test_inline_math_hiccup_snippets_and_autolinks_match_mldoc() -> None:
    check_hidden(INLINE_CASES)


def check_hidden(cases: list[str]) -> None:
    """Each case reads as mldoc reads it, and so refers to "Seen" and not to "Hidden"."""
    check([(repr(text), text) for text in cases])
    for text in cases:
        found = {name for block in ours(text)["blocks"] for name in block["refs"]}
        assert "Hidden" not in found, text
        assert "Seen" in found, text


# '_' emphasis opens after white space or punctuation, line breaks not counted (after none, at
# a text's start, it opens); a #+BEGIN block's text loses its first line's indentation.
UNDERSCORE_CASES = [
    "- x\na\n_see #tag_\n",
    "- x\n  b\n  _see #tag_\n",  # the indentation before it is white space
    "- x\n  a \n_see #tag_\n",
    "- x\n  a.\n_see #tag_\n",
    "- x\n  a\n\n_see #tag_\n",
    "- x\n\n\n_see #tag_\n",
    "- #+BEGIN_NOTE\n  _see #tag_\n  #+END_NOTE\n",
    "- #+BEGIN_NOTE\n  a\n  _see #tag_\n  #+END_NOTE\n",
    "- #+BEGIN_NOTE\n  a\n   _see #tag_\n  #+END_NOTE\n",
    "- #+BEGIN_QUOTE\n  a\n\n  _see #tag_\n  #+END_QUOTE\n",
    "- x\n  #+BEGIN_NOTE\n    a\n  b\n    _see #tag_\n  #+END_NOTE\n",
    "- x\n  #+BEGIN_NOTE\n  a\n    _see #tag_\n  #+END_NOTE\n",
    "- x\n\t#+BEGIN_NOTE\n\ta\n\t_see #tag_\n\t#+END_NOTE\n",
    "- x\n  #+BEGIN_NOTE\n  a\n  #+BEGIN_TIP\n  b\n  _see #tag_\n  #+END_TIP\n  #+END_NOTE\n",
]


def test_underscore_emphasis_after_a_line_break_matches_mldoc() -> None:
    check([(repr(text), text) for text in UNDERSCORE_CASES])


# HTML and LaTeX environments at the start of a line are blocks of their own, to their end
# across lines (bullets and all); the rest of their last line starts a paragraph.
BLOCK_CASES = [
    "- <div>\n  [[Hidden]]\n  </div>\n  [[Seen]]",
    "- <div>\n  [[Hidden]]\n- y [[Hidden]]\n  </div> [[Seen]]",
    "- <div>\n  [[Seen]]",  # unclosed: text
    "- x <div>\n  [[Seen]]\n  </div>",  # not at the start of the line
    "- x\n  <details>\n  [[Hidden]]\n\n  [[Hidden]]\n  </details> [[Seen]]",
    "- x\n  <div>\n  <div>\n  [[Hidden]]\n  </div>\n  [[Hidden]]\n  </div> [[Seen]]",
    "- x\n  <div>\n  [[Seen]] <div>\n  </div>",  # one element left open: text
    "- <span><span>x</span> [[Hidden]]</span> [[Seen]]",
    "- x\n  \\begin{equation}\n  [[Hidden]]\n  \\end{equation}\n  [[Seen]]",
    "- \\begin{align*} [[Hidden]]\n  \\END{ALIGN*} [[Seen]]",
    "- TODO \\begin{eq}\n  [[Hidden]]\n- y [[Hidden]]\n  \\end{eq} [[Seen]]",
    "- [[Seen]]\n  \\begin{eq}\n  [[Hidden]]\n- y [[Hidden]]",  # unclosed: to the page's end
    "- x\n  a \\begin{eq}\n  [[Seen]]\n  \\end{eq}",  # not at the start of the line
    "- x\n  \\begin{eq}\n  [[Hidden]]\n  \\end{eq} <span>[[Hidden]]</span> [[Seen]]",
    # the line break after HTML is the block's, so a timestamp starts the next paragraph
    "- [[Seen]]\n  <span>x</span>\n  a <2024-01-05 Fri> [[Hidden]]",
    # in a #+BEGIN block's text too, closed within it (emphasis does not run into them)
    "- #+BEGIN_TIP\n  a *x\n  <span>[[Hidden]]</span> y* [[Seen]]\n  #+END_TIP",
    "- #+BEGIN_TIP\n  a\n  \\begin{x}\n  [[Hidden]]\n  \\end{x} [[Seen]]\n  #+END_TIP",
    "- #+BEGIN_QUOTE\n  <div>\n  #+BEGIN_NOTE\n  [[Hidden]]\n  #+END_NOTE\n  </div> [[Seen]]\n"
    "  #+END_QUOTE",
    "- #+BEGIN_QUOTE\n  <div>\n  [[Seen]]\n  #+END_QUOTE\n  </div>",  # unclosed within it
]


def test_html_and_latex_blocks_match_mldoc() -> None:
    check_hidden(BLOCK_CASES)


# A paragraph that starts with a timestamp is its block's schedule, of which Logseq's graph
# parser keeps no reference; a line that mldoc reads as a block of its own (a quote, a list
# item, displayed math, hiccup, a rule, a table row) ends it. A rule or a table
# row is all of its line; the others take the lines after them.
_SCHEDULE = "- TODO call\n  SCHEDULED: <2024-01-05 Fri> [[Hidden]]\n"
SCHEDULE_CASES = [
    _SCHEDULE + "  > asked about [[Seen]]",
    _SCHEDULE + "  >[[Seen]]",
    _SCHEDULE + "  >> nested [[Seen]]",
    _SCHEDULE + "  > q\n  DEADLINE: <2024-01-05 Fri> [[Seen]]",  # the quote's own line
    _SCHEDULE + "  * an item [[Seen]]\n  then [[Seen]]",
    _SCHEDULE + "  + [ ] a task [[Seen]]",
    _SCHEDULE + "  2024. a year [[Seen]]",
    _SCHEDULE + "  $$x$$ then [[Seen]]",
    _SCHEDULE + '  [:div.note "[[Hidden]]"] then [[Seen]]',
    _SCHEDULE + "  ---\n  [[Seen]]",
    _SCHEDULE + "  | a | [[Seen]] |\n  [[Seen]]",
    _SCHEDULE + "  | a |\n  SCHEDULED: <2024-01-05 Fri> [[Hidden]]\n  x [[Hidden]]\n- [[Seen]]",
    # none of these is a block of its own: the schedule goes on
    _SCHEDULE + "  >\n  [[Hidden]]\n- [[Seen]]",
    _SCHEDULE + "  *emph* [[Hidden]]\n  1.5 [[Hidden]]\n  :key [[Hidden]]\n- [[Seen]]",
    _SCHEDULE + "  [:div-x] [[Hidden]]\n  --- x [[Hidden]]\n  | a [[Hidden]]\n- [[Seen]]",
    _SCHEDULE + "  $$x [[Hidden]]\n  1) [[Hidden]]\n- [[Seen]]",
    # a list item that starts with a timestamp is no schedule
    "- TODO call\n  * SCHEDULED: <2024-01-05 Fri> [[Seen]]",
    # after hiccup or displayed math, the rest of the line (or the next) starts a paragraph,
    # which a timestamp makes a schedule
    "- y\n  [:span.c [[Hidden]]] <2024-01-05 Fri> [[Hidden]]\n- [[Seen]]",
    "- y\n  b\n  $$x$$ a <2024-01-05 Fri> [[Hidden]]\n- [[Seen]]",
    "- y\n  [:div]\n  <2024-01-05 Fri> [[Hidden]]\n- [[Seen]]",
    "- y\n  [:span x] a [[Seen]] <2024-01-05 Fri> [[Seen]]",
    "- y\n  [:div] \n  <2024-01-05 Fri> [[Seen]]",  # the rest, a space, comes first
    # so does white space after a property drawer's :END: (not another drawer's)
    "- x\n  :properties:\n  :id: 1\n  :END: \n  <2024-01-05 Fri> [[Seen]]",
    "- x\n  :LOGBOOK:\n  CLOCK: [2024-01-05 Fri 10:00:00]\n  :END: \n  <2024-01-05 Fri> [[Hidden]]"
    "\n- [[Seen]]",
]


def test_blocks_of_their_own_end_a_schedule_match_mldoc() -> None:
    check_hidden(SCHEDULE_CASES)


def test_page_directives_keep_the_last_value_of_a_key() -> None:
    """Front matter and ``#+KEY:`` lines are one map of page properties to the graph parser
    (``mldoc.cljc`` ``collect-page-properties``): a key given again replaces the first value,
    and its references."""
    check(
        [
            ("front matter", "---\ntags: [[A]], b\ntags: c, [[D]]\n---\n- x\n"),
            ("directives", "#+FOO: [[A]]\n#+foo: [[B]]\n#+ALIAS: x, y\n#+alias: z\n- x\n"),
        ]
    )
