"""The journal-first pass (`firstpass`) answers a cold `stale` exactly as the full graph does.

It scans the journal pages and only the heads of the other pages, so every test here compares
it with the graph of every page in full (`api` with ``use_cache=False``): the stale list, and,
stronger, every topic that has a dated mention (status, last mention and its text, silence,
count) on several days and windows. Vaults: the three flavor fixtures, the Obsidian rule vaults,
sample_vault, every case graph of tests/graph_gen.py (namespaces, aliases, property pages,
journals by title ... each checked against Logseq's own parser elsewhere), generated graphs, and
the fixtures after random changes (tests/test_summary_patch.py's `change_at_random`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journal_agent import api, api_context, firstpass, index, queries
from journal_agent.api import Query
from journal_agent.errors import JournalAgentError
from journal_agent.facts import PageFacts, facts_from, page_facts
from journal_agent.index import _fingerprint, _read_cache, cache_path, load_index
from journal_agent.properties import PROPERTY_LINE
from journal_agent.queries import Graph, derive
from journal_agent.summary_store import summary_path

from . import graph_gen
from .conftest import FIXTURE_VAULTS, ROOT, copy_vault
from .test_summary_patch import FLAVORS, change_at_random


@pytest.fixture
def spy_graph(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many graphs of every page `queries.vault_graph` built (the first pass builds none)."""
    built: list[int] = []
    real = queries.vault_graph

    def graph(*args: Any, **kw: Any) -> Graph:
        built.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(queries, "vault_graph", graph)
    return built


@pytest.fixture
def passes(spy_graph: list[int], monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Per first pass (`firstpass.first_graph`), how many full graphs were built before it."""
    found: list[int] = []
    real = firstpass.first_graph

    def first_graph(*args: Any) -> Graph:
        found.append(len(spy_graph))
        return real(*args)

    monkeypatch.setattr(firstpass, "first_graph", first_graph)
    return found


DAYS = [("2026-11-29", 21), ("2026-11-29", 3), ("2026-10-01", 14), ("2025-06-30", 60)]


def dated_topics(graph: Graph, as_of: str, days: int) -> dict[tuple[str, str | None], Any]:
    """Every listed topic (built-in and property pages too) that has a dated mention by
    ``as_of``, as `topics` prints it, with its newest mention's text and whether `stale` may
    list it without ``all_pages``."""
    day = dt.date.fromisoformat(as_of)
    out = {}
    for topic in graph.listed(all_pages=True):
        found = derive(topic, day, days)
        if found.status != "unmentioned":
            out[(found.page.title, found.page.path)] = (
                found.to_json(),
                found.last,
                found.page.listed(),
            )
    return out


def assert_first_pass_is_the_graphs(root: Path, known: dict[str, Any] | None = None) -> None:
    """``known``: the entries of an index cached before the vault changed."""
    query = Query.of(root, None, None, True)
    warnings: list[str] = []
    files = query.vault.page_files(warnings)
    first = firstpass.first_graph(query.vault, files, warnings, query.vault.excluded, known)
    full = Query.of(root, None, None, False).graph()  # caches nothing: the vault stays cold
    assert sorted(first.index.warnings) == sorted(full.index.warnings)
    for as_of, days in DAYS:
        assert dated_topics(first, as_of, days) == dated_topics(full, as_of, days), (as_of, days)


def drop_caches(root: Path) -> None:
    vault = Query.of(root, None, None, True).vault
    Path(summary_path(vault)).unlink(missing_ok=True)
    cache_path(vault).unlink(missing_ok=True)


def assert_cold_answers_are_the_graphs(root: Path) -> None:
    """`api.stale` and the projection of the whole vault (`api.context`, every section) on an
    empty cache (the first pass) == without a cache (the full graph)."""
    for as_of, days in DAYS:
        kw: dict[str, Any] = {"vault": root, "as_of": as_of, "days": days}
        for all_pages in (False, True):
            drop_caches(root)
            cold = api.stale(use_cache=True, all_pages=all_pages, **kw)
            full = api.stale(use_cache=False, all_pages=all_pages, **kw)
            assert cold.to_json() == full.to_json()
            assert cold.warnings == full.warnings
        drop_caches(root)
        ask = {"budget": 100_000, "pending": [], "use_scope_file": False, **kw}
        first, whole = (
            api_context.context(use_cache=True, **ask),
            api_context.context(use_cache=False, **ask),
        )
        assert first.to_json() == whole.to_json()
        assert first.warnings == whole.warnings


def status_names(root: Path, rng: random.Random, most: int = 40) -> list[str]:
    """Names to ask `status` of: the titles, aliases and paths of the vault's pages (``most``
    of them at random), each lower-cased too, and a name no page has."""
    registry = Query.of(root, None, None, False).graph().registry
    names = sorted({n for page in registry for n in (page.title, *page.aliases, page.path) if n})
    chosen = rng.sample(names, min(most, len(names)))
    return [*chosen, *(n.lower() for n in chosen[:10]), "Nothing Has This Name"]


def assert_cold_status_is_the_graphs(root: Path, seed: int = 0) -> None:
    """`api.status` of each of `status_names` on an empty cache (the first pass's graph, or
    the full summary for a page it does not hold) == without a cache: the same status, or the
    same refusal."""
    for name in status_names(root, random.Random(seed)):
        answers: list[Any] = []
        for use_cache in (True, False):
            drop_caches(root)
            try:
                found = api.status(name, vault=root, as_of="2026-11-29", use_cache=use_cache)
                answers.append((found.to_json(), found.warnings))
            except JournalAgentError as exc:
                answers.append((type(exc), str(exc)))
        assert answers[0] == answers[1], name


@pytest.mark.parametrize("fixture", FLAVORS)
def test_cold_stale_in_every_flavor(request: pytest.FixtureRequest, fixture: str) -> None:
    root: Path = request.getfixturevalue(fixture)
    assert_cold_answers_are_the_graphs(root)
    assert_first_pass_is_the_graphs(root)
    assert_cold_status_is_the_graphs(root)


@pytest.mark.parametrize(
    "vault", sorted(p.name for p in (FIXTURE_VAULTS / "obsidian_rules").iterdir())
)
def test_the_obsidian_rule_vaults(tmp_path: Path, vault: str) -> None:
    root = copy_vault(FIXTURE_VAULTS / "obsidian_rules" / vault, tmp_path)
    assert_first_pass_is_the_graphs(root)


def test_the_sample_vault(tmp_path: Path) -> None:
    root = copy_vault(ROOT / "sample_vault", tmp_path)
    assert_cold_answers_are_the_graphs(root)
    assert_first_pass_is_the_graphs(root)
    assert_cold_status_is_the_graphs(root)


@pytest.mark.parametrize("case", sorted(graph_gen.CASES))
def test_every_case_graph(tmp_path: Path, case: str) -> None:
    root = graph_gen.write_graph(tmp_path / "g", graph_gen.CASES[case].files)
    assert_first_pass_is_the_graphs(root)
    assert_cold_answers_are_the_graphs(root)
    assert_cold_status_is_the_graphs(root)


@pytest.mark.parametrize("seed", range(4))
def test_generated_graphs(tmp_path: Path, seed: int) -> None:
    root = graph_gen.write_graph(tmp_path / "g", graph_gen.generate(seed, pages=120, days=90))
    assert_first_pass_is_the_graphs(root)
    assert_cold_answers_are_the_graphs(root)
    assert_cold_status_is_the_graphs(root, seed)


@pytest.mark.parametrize("fixture", FLAVORS)
@pytest.mark.parametrize("seed", range(3))
def test_after_random_changes(request: pytest.FixtureRequest, fixture: str, seed: int) -> None:
    root: Path = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    names = ["Atlas Migration", "Pages Alone", "ops/On Call", "new thing", "DONE", "status"]
    for _ in range(4):
        vault = Query.of(root, None, None, True).vault
        load_index(vault)  # cached now, and then read beside what changed since
        for _ in range(rng.randint(1, 4)):
            change_at_random(rng, root, names)
        assert_first_pass_is_the_graphs(root)
        assert_first_pass_is_the_graphs(root, _read_cache(cache_path(vault), _fingerprint(vault)))


def test_stale_where_the_summary_would_be_rebuilt(
    logseq_vault: Path, spy_graph: list[int], passes: list[int]
) -> None:
    """After a change the summary cannot be patched for (a named page deleted), `stale` answers
    from the first pass over the cached index; the full graph is built only for the cache."""
    kw: dict[str, Any] = {"vault": logseq_vault, "as_of": "2026-11-29"}
    api.stale(**kw)
    spy_graph.clear()
    passes.clear()
    (logseq_vault / "pages" / "Atlas Migration.md").unlink()
    found = api.stale(**kw)  # the rebuild: in-process here (JOURNAL_AGENT_BACKGROUND=0), after
    assert passes == [0] and spy_graph == [1]
    assert found.to_json() == api.stale(use_cache=False, **kw).to_json()
    passes.clear()
    assert api.stale(**kw).to_json() == found.to_json()  # from the rebuilt summary
    assert passes == []


def test_a_vault_without_a_cache_is_listed_without_a_stat_per_file(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first query on a vault reads every file, which tells its size: the listing the
    first pass gets takes no stat of each (`summary_current._first_query`). With the index
    cached (its entries are reused by their stat), every file is stat-ed as before."""
    kw: dict[str, Any] = {"vault": logseq_vault, "as_of": "2026-11-29"}
    (logseq_vault / "pages" / "empty.md").write_bytes(b"")  # a size of 0 that is one
    expected = api.stale(use_cache=False, **kw).to_json()
    listed: list[list[Any]] = []
    real = firstpass.first_graph

    def first_graph(vault: Any, files: list[Any], *rest: Any) -> Graph:
        listed.append(files)
        return real(vault, files, *rest)

    monkeypatch.setattr(firstpass, "first_graph", first_graph)
    assert api.stale(**kw).to_json() == expected
    (files,) = listed
    assert files and all(f[1:] == (0, 0, 0) for f in files)
    vault = Query.of(logseq_vault, None, None, True).vault
    Path(summary_path(vault)).unlink()
    assert cache_path(vault).exists()
    listed.clear()
    assert api.stale(**kw).to_json() == expected
    (files,) = listed
    assert all(f.size for f in files if f.rel != "pages/empty.md")


def test_a_cold_projection_reads_the_first_pass(
    logseq_vault: Path, spy_graph: list[int], passes: list[int]
) -> None:
    """The projection of the whole vault on an empty cache answers from the first pass; the
    full graph is built only for the cache (in-process here, after the answer). A scope's
    names are looked up among every page (by alias too): it reads the full summary."""
    kw: dict[str, Any] = {"vault": logseq_vault, "as_of": "2026-11-29", "pending": []}
    cold = api_context.context(use_scope_file=False, **kw)
    assert passes == [0] and spy_graph == [1]
    assert (
        cold.to_json() == api_context.context(use_scope_file=False, use_cache=False, **kw).to_json()
    )
    drop_caches(logseq_vault)
    passes.clear()
    spy_graph.clear()
    scoped = api_context.context(topics=["Atlas Migration"], **kw)
    assert passes == [] and spy_graph == [1]
    assert scoped.to_json()["scope"]["topics"] == ["Atlas Migration"]


def test_a_cold_status_reads_the_first_pass(
    logseq_vault: Path, spy_graph: list[int], passes: list[int]
) -> None:
    """`status` on an empty cache answers from the first pass's graph; a page that graph does
    not hold (``type``: Logseq makes it of a property key in a page's head, which is not read
    for mentions) is looked up in the full summary, built once (in-process here, and for the
    cache either way)."""
    kw: dict[str, Any] = {"vault": logseq_vault, "as_of": "2026-11-29"}
    for name, first in (("Atlas Migration", True), ("type", False)):
        drop_caches(logseq_vault)
        passes.clear()
        spy_graph.clear()
        cold = api.status(name, **kw)
        assert passes == [0] and spy_graph == [1]
        assert cold.to_json() == api.status(name, use_cache=False, **kw).to_json()
        assert bool(cold.backlinks) is first  # the graph's topic; the summary's has none


@pytest.mark.parametrize("frontier", ["Frontier", "Nick", "Nowhere"])
def test_a_cold_projection_finds_the_frontier_page(tmp_path: Path, frontier: str) -> None:
    """The frontier page by its title (the first pass has every page that has a file, in the
    full summary's order), by an alias (the registry's: the full summary), or none; a page
    without a file whose name differs only by spaces (another page in Logseq) is never it."""
    files = {
        "journals/2026_11_20.md": "- [[Frontier]] work and [[ frontier]]\n",
        "pages/Aside.md": "- see [[ Frontier]] and [[frontier ]]\n",
        "pages/Frontier.md": "alias:: Nick\n\n- the plan\n- the next step\n",
    }
    root = graph_gen.write_graph(tmp_path / "g", files)
    (root / ".journal-agent.toml").write_text(f'frontier = "{frontier}"\n')
    kw: dict[str, Any] = {"vault": root, "as_of": "2026-11-29", "pending": []}
    kw["use_scope_file"] = False
    cold = api_context.context(**kw)
    assert cold.to_json() == api_context.context(use_cache=False, **kw).to_json()
    assert ("the next step" in cold.markdown) == (frontier != "Nowhere")


@pytest.mark.filterwarnings("ignore:subprocess .* is still running:ResourceWarning")
def test_a_frontier_named_by_an_alias_waits_for_the_full_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the registry knows an alias: a cold projection then waits for the summary the
    process of its own is building, rather than index the vault a second time meanwhile."""
    monkeypatch.delenv("JOURNAL_AGENT_BACKGROUND")
    files = {
        "journals/2026_11_20.md": "- [[Frontier]] work\n",
        "pages/Frontier.md": "alias:: Nick\n\n- the plan\n- the next step\n",
    }
    root = graph_gen.write_graph(tmp_path / "g", files)
    (root / ".journal-agent.toml").write_text('frontier = "Nick"\n')
    scanned: list[str] = []
    real = index._scan_all

    def scan_all(vault: Any, files: list[Any], *args: Any) -> Any:
        scanned.extend(f.rel for f in files)
        return real(vault, files, *args)

    monkeypatch.setattr(index, "_scan_all", scan_all)
    kw: dict[str, Any] = {"vault": root, "as_of": "2026-11-29", "pending": []}
    found = api_context.context(use_scope_file=False, **kw)
    assert scanned == [] and "the next step" in found.markdown
    assert cached(root)


# ---------------------------------------------------------------------------------------------
# what a body can still change, each scanned in full


def test_a_property_key_in_a_body_hides_a_page_only_journals_name(tmp_path: Path) -> None:
    """Logseq makes a page of a property key (and leaves it out of `stale`): a page named only
    by journals is hidden by a key in an ordinary page's body, a marker, or a priority."""
    files = {
        "journals/2026_10_01.md": "- [[status]], [[started]], [[Q]], [[kind]] and [[Plain]]\n",
        "pages/Notes.md": "- a block\n  status:: open\n- STARTED work\n- [#Q] urgent\n",
        "pages/Other.md": "title:: Other\n\n- ```\n  plain:: in code\n  ```\n",
        "pages/Kinds.md": "kind:: note\n- body\n",
    }
    root = graph_gen.write_graph(tmp_path / "g", files)
    assert_first_pass_is_the_graphs(root)
    listed = [t["topic"] for t in api.stale(vault=root, as_of="2026-11-29").to_json()["threads"]]
    assert listed == ["Plain"]


def test_a_page_parsed_before_the_journals_spells_a_page_without_a_file(tmp_path: Path) -> None:
    """Logseq parses every path with ``journals/`` first, newest (last by path) first: an
    ordinary page there titles a page a journal names too; any other page comes after the
    journals (Logseq's own parser agrees: tests/graph_cases.py, spellings_in_parse_order)."""
    files = {
        "pages/old journals/notes.md": "- [[ROADMAP review]]\n",
        "journals/2026_10_01.md": "- [[roadmap review]] again\n",
        "Archive/old.md": "- [[Zeta Q]]\n",
        "journals/2026_10_02.md": "- [[ZETA q]] again\n",
    }
    root = graph_gen.write_graph(tmp_path / "g", files)
    assert_first_pass_is_the_graphs(root)
    threads = api.stale(vault=root, as_of="2026-11-29").to_json()["threads"]
    assert sorted(t["topic"] for t in threads) == ["ROADMAP review", "ZETA q"]


def test_heads_that_rename_alias_retire_or_date_a_page(tmp_path: Path) -> None:
    files = {
        "journals/2026_10_01.md": "- [[Old Name]] [[Nick]] [[Renamed]] [[fm]]\n",
        "pages/Old Name.md": "superseded-by:: [[New Name]]\n\n- body [[Elsewhere]]\n",
        "pages/Real.md": "alias:: Nick\n- body\n",
        "pages/file name.md": "title:: Renamed\nid:: 1\n- body\n",
        "pages/day.md": "title:: Oct 2nd, 2026\n- on a day [[Renamed]]\n",
        "pages/front.md": "---\ntitle: fm\ntags:\n  - x\n---\n- body\n",
        "pages/fenced.md": "```\n- not a block\n```\ntitle:: Fenced\n- body\n",
    }
    root = graph_gen.write_graph(tmp_path / "g", files)
    assert_first_pass_is_the_graphs(root)


def test_unreadable_pages_warn_as_the_full_scan_does(tmp_path: Path) -> None:
    files = {"journals/2026_10_01.md": "- [[Topic]]\n", "pages/Topic.md": "- t\n"}
    root = graph_gen.write_graph(tmp_path / "g", files)
    (root / "pages" / "bad.md").write_bytes(b"- \xff\xfe not utf-8\n")
    (root / "journals" / "2026_10_02.md").write_bytes(b"\x00binary")
    assert_cold_answers_are_the_graphs(root)


# ---------------------------------------------------------------------------------------------
# the full index, after the answer


def cached(root: Path) -> bool:
    return os.path.exists(summary_path(Query.of(root, None, None, True).vault))


def test_a_cached_page_whose_mentions_do_not_read_back_is_scanned(logseq_vault: Path) -> None:
    """The first pass decodes a cached page's head alone, and a journal page's mentions after
    it: where only those are damaged, the page is scanned, as the full graph has it."""
    vault = Query.of(logseq_vault, None, None, True).vault
    scanned = load_index(vault).files
    known = _read_cache(cache_path(vault), _fingerprint(vault))
    journal = max(r for r in known if r.startswith("journals/") and scanned[r].mentions)
    mtime, size, inode, blob, digest = known[journal]
    assert isinstance(blob, bytes)
    cut = blob[:-3]  # the mentions cut short, the head intact
    assert facts_from(cut, mentions=False) == scanned[journal]._replace(mentions=())
    with pytest.raises(ValueError):
        facts_from(cut)
    known[journal] = (mtime, size, inode, cut, digest)
    warnings: list[str] = []
    files = vault.page_files(warnings)
    first = firstpass.first_graph(vault, files, warnings, vault.excluded, known)
    assert first.index.files[journal] == scanned[journal]
    assert_first_pass_is_the_graphs(logseq_vault, known)


def test_a_cold_stale_leaves_the_full_cache_behind(logseq_vault: Path) -> None:
    assert not cached(logseq_vault)
    api.stale(vault=logseq_vault, as_of="2026-11-29")
    assert cached(logseq_vault)
    # the summary built after it answers every query, as a warm one
    warm = api.topics(vault=logseq_vault, as_of="2026-11-29").to_json()
    assert warm == api.topics(vault=logseq_vault, as_of="2026-11-29", use_cache=False).to_json()


def test_the_background_build_outlives_the_command(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed command answers and returns; a process of its own builds the cache, and a
    query meanwhile waits for it rather than build the same (it never builds a graph here)."""
    monkeypatch.delenv("JOURNAL_AGENT_BACKGROUND")
    argv = [sys.executable, "-m", "journal_agent", "stale", "--vault", str(logseq_vault)]
    done = subprocess.run([*argv, "--as-of", "2026-11-29", "--json"], capture_output=True)
    assert done.returncode == 0, done.stderr

    def no_graph(*args: Any, **kw: Any) -> Any:
        raise AssertionError("built in the foreground")

    expected = api.topics(vault=logseq_vault, as_of="2026-11-29", use_cache=False).to_json()
    monkeypatch.setattr(queries, "vault_graph", no_graph)
    assert api.topics(vault=logseq_vault, as_of="2026-11-29").to_json() == expected
    assert cached(logseq_vault)
    again = subprocess.run([*argv, "--as-of", "2026-11-29", "--json"], capture_output=True)
    assert again.stdout == done.stdout


def test_a_page_gone_before_its_second_read_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # parsed before the journal page (`flavors.parse_order`): read again in full
    files = {"pages/journals/old.md": "- [[X]]\n", "journals/2026_10_01.md": "- [[x]]\n"}
    root = graph_gen.write_graph(tmp_path / "g", files)
    query = Query.of(root, None, None, True)
    warnings: list[str] = []
    listed = query.vault.page_files(warnings)
    (root / "pages" / "journals" / "old.md").unlink()  # read once for its head, gone for its body
    real = firstpass._read_one
    monkeypatch.setattr(
        firstpass,
        "_read_one",
        lambda v, f: (
            real(v, f)
            if "pages/" not in f.rel
            else (PageFacts("old", None, (), None, (), (), ()), frozenset())
        ),
    )
    graph = firstpass.first_graph(query.vault, listed, warnings, frozenset())
    assert [w for w in warnings if "pages/journals/old.md" in w]
    assert "pages/journals/old.md" not in graph.index.files


def test_an_embedded_interpreter_rebuilds_in_process(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where ``sys.executable`` is no Python to start (embedded, frozen), no process is started:
    the cache is built before the answer returns."""
    monkeypatch.delenv("JOURNAL_AGENT_BACKGROUND")
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # an app's binary, not Python
    api.stale(vault=logseq_vault, as_of="2026-11-29")
    assert cached(logseq_vault)


def test_a_process_of_its_own_runs_this_package_not_the_current_folders(tmp_path: Path) -> None:
    """The background rebuild and the detached flush start ``journal_agent`` anew; a hook runs
    in the project the agent works in, and a ``journal_agent`` folder there (another version's
    checkout) must not be what they run."""
    from journal_agent import __version__
    from journal_agent.rebuild import own_module

    shadow = tmp_path / "journal_agent"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("")
    (shadow / "__main__.py").write_text("print('the shadow ran')\n")
    done = subprocess.run(
        own_module("journal_agent", "--version"), cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0 and __version__ in done.stdout and "shadow" not in done.stdout
    naive = [sys.executable, "-m", "journal_agent", "--version"]  # what they ran before
    assert "shadow" in subprocess.run(naive, cwd=tmp_path, capture_output=True, text=True).stdout


#: What `firstpass.property_keys` must find (at least): the regular expression it replaced.
_KEY = re.compile(r"(?:^|[ \t])([^\s:]+)::", re.M)


@settings(max_examples=3000)
@given(st.lists(st.sampled_from(["a", "b_c", " ", "\t", "\n", "\r", ":", "::", "\u00a0", "\x1c"])))
def test_property_keys_are_never_fewer_than_the_grammar_finds(parts: list[str]) -> None:
    """A key missed would leave a property page out of the pass (a wrong stale list); more
    keys only cost a page scanned in full."""
    text = "".join(parts)
    assert set(_KEY.findall(text)) <= set(firstpass.property_keys(text))


def test_property_keys() -> None:
    keys = firstpass.property_keys(" key:: v\nx:: y::z\n  - TODO k2::\na::b:: c ::\nu:v::")
    assert keys == ["key", "x", "y", "k2", "a"]


_HEAD_LINES = [
    "",
    "  ",
    "tags:: [[P]], q",
    "type:: project",
    "Status:: open",
    "a_b:: x",
    "a-b:: y",
    "x/y:: z",
    "y:: dup",
    "created-at:: 1700000000",
    "icon:: 🚀",
    "public:: true",
    "Ünï:: v",
    "k::",
    "k ::",
    "k::v",
    "k:: v\r",
    "\tkey:: indented",
    "\u00a0nb:: space",
    "bad,key:: v",
    "some text",
    ":PROPERTIES:",
    ":END:",
    ":kind: drawer",
    ":ID: 1",
    "id:: 6566",
    "title:: Named",
    "ALIAS:: Nick",
    "superseded_by:: [[New]]",
    "template:: t",
    "video:: idea",
    "title::",
    "title:: Projects/Q1 2019: Raft Jalapeño",
    "Title::   spaced out   ",
    "title:: Oct 2nd, 2026",
    "alias:: [[A b]], C, #d",
    'alias:: "quoted, not split"',
    "alias:: Named",
    "superseded-by:: [[X]], [[Y]]",
    "tags:: [[P]] and [[Q/R]]",
    "title:: T\r",
]


@pytest.fixture(scope="module")
def head_vaults(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """A graph with the default config, one that excludes two property pages, one without."""
    configs = [
        graph_gen.CONFIG_EDN,
        "{:property-pages/excludelist #{:type :x/y}}",
        "{:property-pages/enabled? false}",
    ]
    roots = [
        graph_gen.write_graph(tmp_path_factory.mktemp("g"), {"logseq/config.edn": c})
        for c in configs
    ]
    return [Query.of(root, None, None, False).vault for root in roots]


@settings(max_examples=1500, deadline=None)
@given(lines=st.lists(st.sampled_from(_HEAD_LINES), min_size=1, max_size=6))
def test_a_head_read_without_the_scanner_has_the_scanners_facts(
    head_vaults: list[Any], lines: list[str]
) -> None:
    """`firstpass.head_facts` reads plain property heads itself: whatever it reads so must be
    what the scanner reads of the same head (title, aliases, tombstone, the pages the keys
    make, in their order), where keys make pages, where some do not, and where none do. A head
    of other lines is not read so: the page is scanned whole."""
    head = "\n".join(lines) + "\n"
    for vault in head_vaults:
        scanned = page_facts(vault, "pages/p.md", vault.scan_text(head, False), mentions=False)
        text = head + "- the first block\n"
        found = firstpass._head(vault, "pages/p.md", text)
        if found is None:
            lines_read = head.rstrip().split("\n")
            assert "\r" in head or any(not PROPERTY_LINE.match(line) for line in lines_read)
            continue
        assert text[found[0] :].lstrip() == "- the first block\n"  # the body is the rest
        assert firstpass.head_facts(vault, "pages/p.md", found[1]) == scanned


def test_a_patch_refused_leaves_its_reads_to_the_first_pass(
    logseq_vault: Path,
    spy_graph: list[int],
    passes: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where a patch read the changed journal pages and then could not be made (one of them
    uses a property key it did not: a property page may come), the first pass takes the facts
    the patch read instead of reading and scanning those pages again; the answer is the full
    graph's."""
    from .conftest import journal, past_racy

    kw: dict[str, Any] = {"vault": logseq_vault, "as_of": "2026-11-29"}
    api.stale(**kw)
    keyed, plain = journal(logseq_vault, "2026-11-20"), journal(logseq_vault, "2026-11-24")
    keyed.write_text(keyed.read_text() + "- mood:: calm\n  back on [[Backups]]\n")
    plain.write_text(plain.read_text() + "- more on [[Backups]]\n")
    past_racy(logseq_vault)
    read: list[str] = []
    real = firstpass._read_one

    def read_one(vault: Any, file: Any) -> Any:
        read.append(file.rel)
        return real(vault, file)

    monkeypatch.setattr(firstpass, "_read_one", read_one)
    spy_graph.clear()
    passes.clear()
    found = api.stale(**kw)
    assert passes == [0]  # the patch was refused: a first pass answered
    changed = {p.relative_to(logseq_vault).as_posix() for p in (keyed, plain)}
    assert changed.isdisjoint(read)  # (nor any other: the index holds the rest)
    assert found.to_json() == api.stale(use_cache=False, **kw).to_json()


def test_the_warm_paths_status_waits_for_a_title_the_first_pass_cannot_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a change no patch covers, the command line's warm path answers `status` from the
    first pass's graph (`quick.partial_status`), as `api.status` does, only where that graph
    titles the page as the full one does: ``foo``, a page without a file that only page
    bodies name, is titled ``FOO`` by the first file in path order, whose body it did not read."""
    from journal_agent import cli, quick

    from .test_summary_patch import backdate, backdate_all

    files = {
        **graph_gen.CASES["reference_spellings_in_pages"].files,
        "journals/2026_11_23.md": "- [[Plain]] work [[Gone]]\n",
        "pages/Gone.md": "- to be deleted\n",
    }
    root = graph_gen.write_graph(tmp_path / "g", files)
    backdate_all(root)
    argv = ["status", "foo", "--vault", str(root), "--as-of", "2026-11-29", "--json"]
    assert cli.main(["stale", *argv[2:]]) == 0  # the cache built
    (root / "pages" / "Gone.md").unlink()  # named by a journal: no patch, the first pass
    (root / "pages" / "b.md").write_text("---\ntitle: bee\n---\n- see [[foo]] again\n")
    backdate(root / "pages" / "b.md")
    capsys.readouterr()
    assert quick.main(argv) == 0
    warm = capsys.readouterr().out
    assert cli.main([*argv, "--no-cache"]) == 0
    assert json.loads(warm) == json.loads(capsys.readouterr().out)
    assert json.loads(warm)["topic"] == "FOO"
