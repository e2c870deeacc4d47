"""journal-agent's backlinks and journal days equal what Logseq itself computes for a graph.

The oracle is Logseq's own file-graph parser (logseq/og 0.10.15, ``deps/graph-parser``), run by
tests/logseq_og.py from ``<repo root>/../shared/oracles/logseq-og`` (these tests skip when it is
absent). For ``sample_vault/``, a generated graph (tests/graph_gen.py `generate`), journals of the
mldoc conformance generator (`graph_gen.mldoc_journals`) and one small graph per case
(`graph_gen.CASES`), every page of either side is compared (``ORACLE_SEEDS`` adds the two
generated graphs of more seeds, ``ORACLE_GRAPHS`` graph folders of one's own):

* backlinks: ``journal_agent.timeline(page)`` as (file, line) pairs equals the page's Linked
  References in Logseq (a page journal-agent does not know, or not as a topic, has none);
* journal days: the day of the page journal-agent resolves the name to equals Logseq's
  ``:block/journal-day`` of the page the name opens (an empty alias page shows its page);
* pages: each Logseq page name resolves in journal-agent to the same page (same file; an empty
  alias page to the page that declares it), and journal-agent has no page Logseq lacks.

Logseq's rules these tests hold journal-agent to (``deps/graph-parser/src/logseq/...``):

* A block refers to the pages of ``[[X]]``, ``#X``, ``#[[X]]``, ``[l]([[X]])``, ``{{embed
  [[X]]}}`` (also inside ``{{{…}}}``) found in its whole mldoc AST, except inside
  ``#+BEGIN_QUERY`` (skipped by name), ``#+BEGIN_SRC``/``EXAMPLE`` and code (no inline parse
  there); plus its task marker and priority as pages (``TODO``, ``A``) and, in property values,
  the refs mldoc finds (comma lists for ``alias``, ``tags`` and ``:property/separated-by-commas``)
  and every property *key* but the built-in ones: ``graph_parser/block.cljs``
  ``with-page-refs``, ``get-page-reference``, ``get-page-ref-names-from-properties``;
  ``graph_parser/property.cljs`` (built-in keys).
* For each ref written ``A/B/C``, Logseq adds ``A`` and ``A/B``, from the name *as written*,
  whatever page an alias makes it: ``block.cljs`` ``with-page-refs`` (``children-pages``).
* A page name is lower-cased and loses one leading and one trailing ``/`` (``[[/X/]]`` is X),
  nothing else (``[[X ]]`` is page ``x ``); a name that parses as a date in the title format,
  ``yyyy-MM-dd`` or ``yyyy_MM_dd`` is that day's journal page, renamed to its title:
  ``block.cljs`` ``page-name->map``, ``convert-page-if-journal``; ``util.cljs``
  ``page-name-sanity-lc``. So journals are decided by page *name*, not by folder: a file's
  ``title::``, YAML ``title:`` or org ``#+TITLE:`` names its page (``extract.cljc``
  ``get-page-name``), else its file name (``util.cljs`` ``title-parsing``).
* ``:block/path-refs`` = the block's page, its refs, and the refs of its ancestors (by level):
  ``block.cljs`` ``with-path-refs``, ``extract.cljc`` ``extract-pages-and-blocks``.
* Linked References of a page (frontend ``model.cljs`` ``get-page-referenced-blocks-full``,
  ``reference.cljs`` ``references*``): blocks whose path-refs hold the page or an alias of it
  (``deps/db/src/logseq/db/rules.cljc`` ``:alias``, either direction, also through one page),
  not on the page itself, that refer to one of them directly or sit under a block that does.
  An alias page without blocks shows the page that declares the alias (``get-redirect-page-name``).
* Org-mode files are pages like Markdown ones (``*`` headlines are blocks); mldoc reads
  ``#+BEGIN_EXAMPLE``/``QUOTE`` bodies as one block's text, so ``- `` lines there are no blocks.
* Built-in pages exist in every graph: the markers, ``A``/``B``/``C``, Contents, Favorites,
  card (``deps/db/src/logseq/db/default.cljs``).

Many pages disagree today: the failure messages list them (counts and a few examples each), and
the per-graph figures are printed at the end of the run.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import journal_agent
from journal_agent.errors import JournalAgentError, PageNotFound
from journal_agent.scanner import decode

from . import graph_gen
from .conftest import ORACLE_FIGURES, SAMPLE_VAULT
from .logseq_og import (
    LogseqGraph,
    OBlock,
    OracleError,
    graph_files,
    og_name,
    require_oracle,
    run_oracle,
)
from .test_mldoc_conformance import run_oracle as run_mldoc

FAR_FUTURE = "9999-12-31"  # every mention is dated up to it: timelines hold all of them
PAGES_SHOWN = 25  # differing pages spelled out in a failure message
EXAMPLES = 3  # differing entries shown per page
#: More seeds of the two generated graphs (``ORACLE_SEEDS="2 3 4"``), for a longer hunt than CI's.
SEEDS = [int(s) for s in os.environ.get("ORACLE_SEEDS", "").split()]
#: Graph folders of your own (``ORACLE_GRAPHS="/a/graph:/b/graph"``), compared too: a real graph
#: finds what generated ones do not. Only read (the oracle and journal-agent read its copy).
FOLDERS = {
    f"folder-{Path(f).name}": Path(f)
    for f in os.environ.get("ORACLE_GRAPHS", "").split(os.pathsep)
    if f
}
GRAPHS = [
    "sample_vault",
    "generated",
    "mldoc-journals",
    *(f"case-{name}" for name in graph_gen.CASES),
    *(f"{graph}-seed-{seed}" for seed in SEEDS for graph in ("generated", "mldoc-journals")),
    *FOLDERS,
]


# ---------------------------------------------------------------------------------------------
# one oracle run per graph per session


class OracleRuns:
    """The oracle's answer for each graph, computed on first use and kept for the session."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.done: dict[str, LogseqGraph | OracleError] = {}

    def source(self, graph: str) -> Path:
        """The graph's folder: sample_vault/ itself, or a generated one under the session's tmp."""
        if graph == "sample_vault":
            if not SAMPLE_VAULT.is_dir():
                pytest.skip("no sample_vault/")
            return SAMPLE_VAULT
        if graph in FOLDERS:
            return FOLDERS[graph]
        root = self.factory.mktemp(f"src-{graph}")
        graph, _, seed = graph.partition("-seed-")
        if graph == "generated":
            return graph_gen.write_graph(root, graph_gen.generate(seed=int(seed or 1)))
        if graph == "mldoc-journals":
            return graph_gen.write_graph(root, graph_gen.mldoc_journals(seed=int(seed or 11)))
        return graph_gen.write_graph(root, graph_gen.CASES[graph.removeprefix("case-")].files)

    def get(self, graph: str) -> LogseqGraph:
        if graph not in self.done:
            try:
                self.done[graph] = run_oracle(
                    self.source(graph), self.factory.mktemp(f"og-{graph}")
                )
            except OracleError as exc:
                self.done[graph] = exc
        found = self.done[graph]
        if isinstance(found, OracleError):
            pytest.fail(str(found), pytrace=False)
        return found


@pytest.fixture(scope="session")
def oracle_runs(tmp_path_factory: pytest.TempPathFactory) -> OracleRuns:
    require_oracle()
    return OracleRuns(tmp_path_factory)


@pytest.fixture(params=GRAPHS)
def og(request: pytest.FixtureRequest, oracle_runs: OracleRuns) -> LogseqGraph:
    """Logseq's database of one graph. Its folder (``og.root``) is the oracle's copy, which
    journal-agent reads too (its index cache lives under the test's tmp_path)."""
    graph: LogseqGraph = oracle_runs.get(request.param)
    return graph


# ---------------------------------------------------------------------------------------------
# comparing


@dataclass
class Report:
    """Per page of one graph, what Logseq and journal-agent say, where they differ."""

    graph: str
    what: str
    compared: int = 0
    differ: list[str] = field(default_factory=list)

    @property
    def agree(self) -> int:
        return self.compared - len(self.differ)

    def figures(self) -> str:
        return f"{self.graph}: {self.what}: {self.compared} pages compared, {self.agree} agree"

    def message(self, totals: str = "") -> str:
        head = f"{self.figures()}, {len(self.differ)} differ{totals}"
        shown = self.differ[:PAGES_SHOWN]
        more = len(self.differ) - len(shown)
        return "\n".join([head, *shown, *([f"... and {more} more pages"] if more else [])])


def record(request: pytest.FixtureRequest, report: Report) -> None:
    """Keep the figures for the end-of-run summary (and the JUnit XML)."""
    request.config.stash.setdefault(ORACLE_FIGURES, []).append(report.figures())
    request.node.user_properties.append(("pages_compared", report.compared))
    request.node.user_properties.append(("pages_agreeing", report.agree))


def graph_name(request: pytest.FixtureRequest) -> str:
    return str(request.node.callspec.params["og"])


def timeline_of(vault: journal_agent.Vault, name: str) -> tuple[set[tuple[str, int]], str]:
    """journal-agent's timeline of ``name`` as (path, line) pairs, and why it has none."""
    try:
        result = journal_agent.timeline(name, vault=vault, as_of=FAR_FUTURE)
    except PageNotFound as exc:
        return set(), f"PageNotFound: {exc}"
    except JournalAgentError as exc:
        return set(), f"{type(exc).__name__}: {exc}"
    return {(e.path, e.line) for e in result.entries}, ""


def describe_entry(og: LogseqGraph, entry: tuple[str, int]) -> str:
    """``path:line`` with the block's text (Logseq's block, else the file's line) and refs."""
    path, line = entry
    block: OBlock | None = og.block_at(path, line)
    if block is not None:
        text = " ⏎ ".join(ln.strip() for ln in block.content.split("\n") if ln.strip())
        refs = ", ".join(og.names(block.refs))
        return f"{path}:{line}  {text[:110]!r}  [Logseq refs: {refs}]"
    try:
        text = (og.root / path).read_text(encoding="utf-8").split("\n")[line]
    except (OSError, IndexError):
        text = "?"
    return f"{path}:{line}  {text.strip()[:110]!r}  [no Logseq block starts here]"


def page_pairs(
    og: LogseqGraph, vault: journal_agent.Vault
) -> Iterator[tuple[str, int | None, journal_agent.Page | None]]:
    """Every page of either side: (name, Logseq page id or None, journal-agent's page or None).
    Logseq's pages come first, by name; then journal-agent's pages Logseq does not have. The
    page of empty name that ``[[/]]`` or a namespace parent ``/`` (``[[//x]]``) makes in
    Logseq's database is left out: nothing can link to it or list it, and journal-agent has
    no topic without a name."""
    registry, _ = journal_agent.load_registry(vault)
    for page in sorted(og.pages.values(), key=lambda p: p.name):
        if not page.name:
            continue
        yield page.original, page.id, registry.resolve(page.original)
    for mine in registry:
        if og.page(mine.title) is None:
            yield mine.title, None, mine


def pages_by_path(vault: journal_agent.Vault) -> dict[str, journal_agent.Page]:
    registry, _ = journal_agent.load_registry(vault)
    return {p.path: p for p in registry if p.path}


def of_file(by_path: dict[str, journal_agent.Page], path: str | None) -> str:
    """What journal-agent makes of a file whose Logseq page it cannot find by name."""
    page = by_path.get(path) if path else None
    if page is None:
        return ""
    day = f", journal day {page.date.isoformat()}" if page.date else ""
    return f" (its file {path} is its page {page.title!r}{day})"


# ---------------------------------------------------------------------------------------------
# the tests


def test_backlinks_match_logseq(og: LogseqGraph, request: pytest.FixtureRequest) -> None:
    """Every page's timeline in journal-agent is its Linked References in Logseq."""
    vault = journal_agent.open_vault(og.root)
    report = Report(graph_name(request), "backlinks")
    only_logseq = only_ours = 0
    for name, page_id, _mine in page_pairs(og, vault):
        if page_id is None:
            want: set[tuple[str, int]] = set()
            shown_as = "not a Logseq page"
        else:
            target = og.redirect(page_id)
            want = og.linked_references(target)
            shown_as = "" if target == page_id else f"shows {og.pages[target].original!r}"
        got, why = timeline_of(vault, name)
        report.compared += 1
        if got == want:
            continue
        missing, extra = sorted(want - got), sorted(got - want)
        only_logseq += len(missing)
        only_ours += len(extra)
        head = (
            f"  {name!r}{f' ({shown_as})' if shown_as else ''}: Logseq {len(want)}, "
            f"journal-agent {len(got)}{f' ({why})' if why else ''}; "
            f"{len(missing)} only in Logseq, {len(extra)} only in journal-agent"
        )
        lines = [head]
        lines += [f"      only Logseq:        {describe_entry(og, e)}" for e in missing[:EXAMPLES]]
        lines += [f"      only journal-agent: {describe_entry(og, e)}" for e in extra[:EXAMPLES]]
        report.differ.append("\n".join(lines))
    record(request, report)
    totals = f" ({only_logseq} entries only in Logseq, {only_ours} only in journal-agent)"
    if report.differ:
        pytest.fail(report.message(totals), pytrace=False)


def _day(value: dt.date | None) -> str:
    return value.isoformat() if value else "none"


def test_journal_days_match_logseq(og: LogseqGraph, request: pytest.FixtureRequest) -> None:
    """Every page is a journal of the same day (or none) in journal-agent and in Logseq."""
    vault = journal_agent.open_vault(og.root)
    report = Report(graph_name(request), "journal days")
    by_path = pages_by_path(vault)
    for name, page_id, mine in page_pairs(og, vault):
        # the page the name opens: an empty alias page shows the page that declares it (as in
        # test_pages_match_logseq), so its day is that page's
        theirs = og.pages[og.redirect(page_id)] if page_id is not None else None
        want = theirs.journal_day if theirs else None
        got = mine.date if mine else None
        report.compared += 1
        if want == got:
            continue
        where = f"file {theirs.file}" if theirs and theirs.file else "no file"
        logseq = f"journal day {_day(want)} ({where})" if theirs else "no such page"
        if mine is not None:
            ours = f"{_day(got)} (page {mine.title!r}, file {mine.path})"
        else:
            ours = "no such page" + of_file(by_path, theirs.file if theirs else None)
        report.differ.append(f"  {name!r}: Logseq {logseq}; journal-agent {ours}")
    record(request, report)
    if report.differ:
        pytest.fail(report.message(), pytrace=False)


def test_pages_match_logseq(og: LogseqGraph, request: pytest.FixtureRequest) -> None:
    """Every Logseq page name lands on the same page in journal-agent (its file; an empty alias
    page on the page that declares it), and journal-agent has no page Logseq lacks. A page
    without a file is spelled as Logseq titles it (by the first file it parses that names it)."""
    vault = journal_agent.open_vault(og.root)
    report = Report(graph_name(request), "pages")
    by_path = pages_by_path(vault)
    for name, page_id, mine in page_pairs(og, vault):
        report.compared += 1
        ours = f"{mine.title!r} (file {mine.path})" if mine else "no such page"
        if page_id is None:
            report.differ.append(f"  {name!r}: Logseq has no such page; journal-agent {ours}")
            continue
        target = og.pages[og.redirect(page_id)]
        if (
            mine is not None
            and og_name(mine.title) == target.name
            and (mine.path == target.file or target.id != page_id)
            and (mine.path or target.id != page_id or mine.title == target.original)
        ):
            continue
        logseq = f"{target.original!r} (file {target.file})"
        if mine is None:
            ours += of_file(by_path, og.pages[page_id].file)
        if target.id != page_id:
            logseq = f"alias page, shows {logseq}"
        report.differ.append(f"  {name!r}: Logseq {logseq}; journal-agent {ours}")
    record(request, report)
    if report.differ:
        pytest.fail(report.message(), pytrace=False)


def test_oracle_blocks_are_placed_on_mldocs_lines(og: LogseqGraph) -> None:
    """Self-check of the harness, not of journal-agent: the lines tests/logseq_og.py gives
    Logseq's blocks (which its database does not hold) are where mldoc, Logseq's parser, starts
    them in each Markdown file (tests/oracle/mldoc_outline.js), and every block has one."""
    unplaced = [b for b in og.blocks.values() if b.file is None or b.line < 0]
    assert not unplaced, f"{len(unplaced)} blocks not placed, e.g. {unplaced[0].content[:80]!r}"
    files = [f for f in graph_files(og.root) if f.endswith(".md")]
    texts = [decode((og.root / f).read_bytes(), f)[0] for f in files]
    placed: dict[str, list[int]] = {f: [] for f in files}
    for b in og.blocks.values():
        if not b.pre and b.file in placed:
            placed[b.file].append(b.line)
    wrong = []
    for rel, outline in zip(files, run_mldoc(texts), strict=True):
        want = sorted(b["line"] for b in outline["blocks"])
        if sorted(placed[rel]) != want:
            wrong.append(f"  {rel}: placed on {sorted(placed[rel])}, mldoc {want}")
    assert not wrong, "blocks placed off mldoc's lines:\n" + "\n".join(wrong[:10])
