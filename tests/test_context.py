"""`context`: the session-start projection. Deterministic (twice, and across hash seeds), within
its budget for any budget, facts only from the vault, and it always says which scope it used."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from journal_agent import ConfigError, PageNotFound
from journal_agent.api import Query, append
from journal_agent.api_context import context
from journal_agent.api_pending import note
from journal_agent.cli import main
from journal_agent.guide import HOW_TO, instructions
from journal_agent.projection import MIN_BUDGET, Inputs, build
from journal_agent.queries import by_recency
from journal_agent.scope import SCOPE_FILE, ScopeRequest, resolve

from .conftest import SAMPLE_VAULT, copy_vault, snapshot
from .test_queries import logseq

AS_OF = "2026-11-29"
TOPICS = [f"Topic {n:02}" for n in range(40)]


def rich_vault(root: Path, days: int = 120, seed: int = 7) -> Path:
    """A Logseq graph with 40 topics and ``days`` days of journals up to AS_OF: people's bullets,
    an agent's owned block, resolutions and a frontier page."""
    rng = random.Random(seed)
    end = dt.date.fromisoformat(AS_OF)
    journals: dict[str, str] = {}
    for back in range(days):
        if rng.random() < 0.3:
            continue
        day = end - dt.timedelta(days=back)
        lines = []
        for _ in range(rng.randint(1, 4)):
            # a few topics are hot, most are rarely mentioned: some go stale
            a, b = rng.choices(TOPICS, weights=[1 / (i + 1) for i in range(40)], k=2)
            marker = "DONE " if rng.random() < 0.08 else ""
            lines.append(f"- {marker}worked on [[{a}]] with [[{b}]] step {rng.randint(1, 99)}")
        lines.append("- claude log")
        lines.append(f"\t- Decision: ship [[{rng.choice(TOPICS)}]] because it is ready")
        journals[day.isoformat()] = "\n".join(lines) + "\n"
    pages = {t: f"- about {t}\n" for t in TOPICS}
    pages["Now"] = "alias:: Frontier\n\n- ship [[Topic 00]]\n\t- then [[Topic 01]]\n- rest\n"
    root = logseq(root, pages, journals)
    (root / ".journal-agent.toml").write_text('frontier = "Now"\nexclude = ["Now"]\n')
    return root


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return rich_vault(tmp_path_factory.mktemp("rich") / "v")


@dataclass
class Item:
    """A pending bullet as the session loop's store would hand it over."""

    text: str
    reason: str | None


def project(root: Path, **kw: object) -> str:
    return context(vault=root, as_of=AS_OF, agent="claude", **kw).markdown  # type: ignore[arg-type]


# -- deterministic ------------------------------------------------------------------------------


def test_byte_identical_twice_and_with_or_without_the_cache(rich: Path) -> None:
    first = project(rich, use_scope_file=False)
    assert project(rich, use_scope_file=False) == first
    assert project(rich, use_scope_file=False, use_cache=False) == first
    assert project(rich, topics=["Topic 03"]) == project(rich, topics=["topic 03"])


def test_byte_identical_across_hash_seeds(tmp_path: Path) -> None:
    """Each run is a fresh process with its own PYTHONHASHSEED and an empty cache, except the
    last, which reuses a warm one: set and dict order must never reach the output."""
    root = rich_vault(tmp_path / "v")
    append(["A bullet on [[Topic 02]]"], vault=root, agent="claude", date=AS_OF)
    (tmp_path / "proj" / "sub").mkdir(parents=True)
    (tmp_path / "proj" / ".git").mkdir()
    (tmp_path / "proj" / SCOPE_FILE).write_text('topics = ["Topic 00", "Topic 05", "Nope"]\n')
    outputs = set()
    for n, seed in enumerate(["0", "1", "2", "12345", "random", "3"]):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        env["JOURNAL_AGENT_CACHE"] = str(tmp_path / ("warm" if n >= 4 else f"cache{n}"))
        argv = [sys.executable, "-m", "journal_agent", "context", "--vault", str(root)]
        argv += ["--as-of", AS_OF, "--agent", "claude", "--budget", "3000"]
        done = subprocess.run(
            argv, cwd=tmp_path / "proj" / "sub", env=env, capture_output=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    text = outputs.pop().decode()
    assert "Topic 00" in text and f"(from {tmp_path / 'proj' / SCOPE_FILE})" in text
    assert '"Nope"' in text  # a topic the project names that this vault lacks is reported


# -- within budget ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rich_inputs(rich: Path) -> Inputs:
    q = Query.of(rich, AS_OF, None, True)
    summary = q.summary()
    scope = resolve(ScopeRequest(), summary, q.as_of, q.days, lambda n: None)
    return Inputs(q.as_of, q.days, "claude", 6000, summary, scope)


@pytest.fixture(scope="module")
def rich_active(rich_inputs: Inputs) -> list[str]:
    """Every active thread the projection names when it has all the room it wants."""
    inputs = rich_inputs
    whole = Inputs(inputs.as_of, inputs.days, "claude", 100_000, inputs.summary, inputs.scope)
    return build(whole).active


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    budget=st.integers(MIN_BUDGET, 20_000),
    pending=st.lists(st.text(min_size=1, max_size=300), max_size=12),
    frontier=st.lists(st.text(max_size=400), max_size=30),
)
def test_within_budget_for_any_budget(
    rich_inputs: Inputs,
    rich_active: list[str],
    budget: int,
    pending: list[str],
    frontier: list[str],
) -> None:
    from journal_agent.projection import Frontier, frontier_lines

    inputs = Inputs(
        rich_inputs.as_of,
        rich_inputs.days,
        "claude",
        budget,
        rich_inputs.summary,
        rich_inputs.scope,
        Frontier("Now", frontier_lines("\n".join(frontier))),
        pending=[Item(p, "the page was locked") for p in pending],
    )
    result = build(inputs)
    text = result.markdown
    assert len(text) <= budget and text.endswith("\n")
    active = [t.page.title for t in rich_inputs.summary.topics(inputs.as_of, inputs.days)]
    assert set(result.active) <= set(active)
    # the threads named are the newest ones, in order: a prefix of every active thread
    assert result.active == rich_active[: len(result.active)]
    if budget >= 3000:  # room for a little of every section: each shows its first item
        assert result.shown["active"] >= 1 and result.shown["stale"] >= 1
        assert all(line in text for line in HOW_TO)
        assert bool(pending) == ("## Pending from earlier sessions" in text)


@pytest.mark.parametrize("budget", [MIN_BUDGET, 500, 1000, 2500, 6000, 10_000])
def test_within_budget_through_the_api(rich: Path, budget: int) -> None:
    result = context(vault=rich, as_of=AS_OF, budget=budget, use_scope_file=False)
    assert len(result.markdown) <= budget
    assert result.to_json()["chars"] == len(result.markdown)


def test_a_larger_budget_names_more_threads(rich: Path) -> None:
    named = [
        len(context(vault=rich, as_of=AS_OF, budget=b, use_scope_file=False).active)
        for b in (1000, 2000, 4000, 8000)
    ]
    assert named == sorted(named) and named[0] < named[-1]


def test_the_stale_line_names_the_freshest_as_stale_lists_them(tmp_path: Path) -> None:
    """Of thousands of stale topics only the freshest few are named, so only those mentioned as
    recently as the last of them are ranked (`projection._threads`): with ties on that day,
    in titles that sort differently lower-cased, the names are still `stale`'s first ones, and
    the count is every stale topic's."""
    from journal_agent import stale
    from journal_agent.projection import STALE_NAMED

    titles = ["beta", "Alpha", "gamma", "Delta", "epsilon", "Zeta", "eta", "Theta", "iota"]
    days = ["2026-10-20", "2026-10-10", "2026-10-10", "2026-10-10", "2026-10-10", "2026-09-01"]
    journals: dict[str, str] = {}
    for n, title in enumerate(titles):
        day = days[min(n, len(days) - 1)]
        journals[day] = journals.get(day, "") + f"- on [[{title}]]\n"
    root = logseq(tmp_path / "v", {t: f"- {t}\n" for t in titles}, journals)
    listed = stale(vault=root, as_of=AS_OF).to_json()["threads"]
    assert len(listed) == len(titles) > STALE_NAMED
    freshest = ", ".join(f"[[{t['topic']}]] ({t['last_mentioned']})" for t in listed[:STALE_NAMED])
    result = context(vault=root, as_of=AS_OF, use_scope_file=False)
    assert f"- {len(titles)} thread(s) silent for more than 21 days; the freshest: {freshest}." in (
        result.markdown
    )
    assert [t["topic"] for t in listed[:STALE_NAMED]] == ["beta", "Alpha", "Delta"]


def test_every_active_thread_is_named_when_there_is_room(rich: Path) -> None:
    from journal_agent.projection import BULLETED

    result = context(vault=rich, as_of=AS_OF, budget=20_000, use_scope_file=False)
    assert result.shown == result.totals and result.totals["active"] > BULLETED
    lines = result.markdown.split("## Active threads")[1].split("\n## ")[0].splitlines()
    threads = [ln for ln in lines if ln.startswith("- [[")]
    tail = [ln for ln in lines if ln.startswith("- also active")]
    assert len(threads) == BULLETED and len(tail) == 1  # past these, named on one line
    assert tail[0].count("[[") == result.totals["active"] - BULLETED
    assert len(result.markdown) < 20_000  # the budget is a ceiling, not a target


@pytest.mark.parametrize("as_of", [None, "2026-10-01"])  # some topics mentioned after it only
def test_summary_rows_and_topic_agree_with_topics(rich_inputs: Inputs, as_of: str | None) -> None:
    """The projection builds only the topics it prints, of those with a dated mention
    (`Summary.rows` of `Summary.mentioned`, `Summary.topic`): they must say what
    `Summary.topics` says of every topic, and every other topic is unmentioned; `topics` lists
    them most recently mentioned first."""
    s, days = rich_inputs.summary, rich_inputs.days
    day = rich_inputs.as_of if as_of is None else dt.date.fromisoformat(as_of)
    every = [s.topic(i, day, days) for i in range(len(s.titles))]  # by position
    # `topics` sorts on the columns: as `by_recency` sorts the topics themselves
    assert s.topics(day, days, all_pages=True) == by_recency(every)
    rows = s.rows(day.toordinal(), days, all_pages=True, among=s.mentioned())
    assert {i: status for i, status, *_ in rows} == {
        i: t.status for i, t in enumerate(every) if s.starts[i] != s.starts[i + 1]
    }
    found = {r[0] for r in rows}
    assert all(t.status == "unmentioned" for i, t in enumerate(every) if i not in found)
    assert any(t.status != "unmentioned" for t in every)
    for only in ("active", "resolved", "stale"):
        assert [r[0] for r in s.rows(day.toordinal(), days, only)] == [
            i for i, t in enumerate(every) if t.status == only and not s.extra[i]
        ]


def test_bad_budgets_are_refused(rich: Path) -> None:
    from journal_agent import BadArgument

    for bad in (0, MIN_BUDGET - 1, 10**9):
        with pytest.raises(BadArgument):
            context(vault=rich, budget=bad)


# -- facts only from the vault -------------------------------------------------------------------


def test_a_deleted_bullet_is_shown_only_as_a_correction(tmp_path: Path) -> None:
    today = dt.date.today()
    root = logseq(
        tmp_path / "v",
        {"Backups": "- b\n", "Grafana": "- g\n"},
        {(today - dt.timedelta(days=1)).isoformat(): "- checked [[Backups]] yesterday\n"},
    )
    kept = "Restored the [[Backups]] snapshot in 14 minutes"
    gone = "The [[Backups]] bucket is in eu-west-1"
    changed = "Alert on p99 in [[Grafana]]"
    append([kept, gone, changed], vault=root, agent="claude")
    before = project_today(root)
    assert gone in before and "Corrections" not in before  # written, then shown as a fact
    path = root / "journals" / f"{today:%Y_%m_%d}.md"
    text = path.read_text().replace(f"\t- {gone}\n", "").replace("p99", "p99.9")
    path.write_text(text)
    after = project_today(root)
    corrections = after.split("## Corrections")[1].split("\n## ")[0]
    facts = after.replace(corrections, "")
    assert gone not in facts and changed not in facts  # never a fact once the person removed it
    assert f'deleted by the person from the {today.isoformat()} journal: "{gone}"' in corrections
    assert f'"{changed}" now reads "{changed.replace("p99", "p99.9")}"' in corrections
    assert kept in facts and changed.replace("p99", "p99.9") in facts


def project_today(root: Path) -> str:
    return context(vault=root, agent="claude", use_scope_file=False).markdown


def first_note_cut(tmp_path: Path) -> tuple[Path, Path, dt.datetime, dict[str, Any]]:
    """Two notes the agent wrote ten minutes ago (by the ledger) on today's page, then the
    person cut the first: the vault, the page, now, and the first note's ledger entry."""
    root = logseq(tmp_path / "v", {"Backups": "- b\n"}, {})
    append(["First note on [[Backups]]", "Second note on [[Backups]]"], vault=root, agent="claude")
    ledger = root / ".journal-agent" / "ledger.jsonl"
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    for e in entries:
        e["time"] = (now - dt.timedelta(minutes=10)).isoformat()
    ledger.write_text("".join(json.dumps(e) + "\n" for e in entries))
    path = root / "journals" / f"{dt.date.today():%Y_%m_%d}.md"
    path.write_text(path.read_text().replace("\t- First note on [[Backups]]\n", ""))
    return root, path, now, entries[0]


def test_corrections_already_seen_before_the_agent_wrote_again_are_not_repeated(
    tmp_path: Path,
) -> None:
    root, _, now, first = first_note_cut(tmp_path)
    assert "First note" in project_today(root)  # its page changed after the agent last wrote
    later = dict(first, page="journals/other.md", hash="x", text="a later write elsewhere")
    later["time"] = (now + dt.timedelta(seconds=10)).isoformat()
    with (root / ".journal-agent" / "ledger.jsonl").open("a") as f:  # the agent wrote again
        f.write(json.dumps(later) + "\n")  # after the edit (on another page)
    assert "First note" not in project_today(root)


def test_an_edit_whose_mtime_was_set_back_still_shows_as_a_correction(tmp_path: Path) -> None:
    """Whether the person changed a page since the agent last wrote is read from its change
    time, not its mtime (`corrections.recent_corrections`): a tool that keeps file times
    (``cp -p``, ``rsync -t``) does not hide an edit."""
    root, path, now, _ = first_note_cut(tmp_path)
    hour_ago = (now - dt.timedelta(hours=1)).timestamp()
    os.utime(path, (hour_ago, hour_ago))  # before the agent wrote, by its mtime
    assert "First note" in project_today(root)


def test_stored_texts_are_not_facts_once_the_person_changes_the_page(tmp_path: Path) -> None:
    """The cached summary is only trusted while no file changed: an edit is seen at once."""
    root = copy_vault(SAMPLE_VAULT, tmp_path)
    first = project(root, use_scope_file=False)
    assert "Removed the `atlas_read_path` flag" in first
    page = root / "journals" / "2026_11_25.md"
    page.write_text(page.read_text().replace("Removed the `atlas_read_path` flag", "Dropped it"))
    assert "Removed the `atlas_read_path` flag" not in project(root, use_scope_file=False)


def test_context_writes_nothing_in_the_vault(tmp_path: Path) -> None:
    root = rich_vault(tmp_path / "v")
    before = snapshot(root)
    project(root, topics=["Topic 01"])
    project(root, use_scope_file=False)
    assert snapshot(root) == before


# -- scope ----------------------------------------------------------------------------------------


def scope_line(markdown: str) -> str:
    return markdown.splitlines()[1].split("Scope: ", 1)[1].removesuffix(".")


def test_whole_vault_scope_is_said(rich: Path) -> None:
    assert scope_line(project(rich, use_scope_file=False)).startswith("the whole vault")


def test_topic_scope_names_its_topics_related_ones_and_its_source(rich: Path) -> None:
    result = context(vault=rich, as_of=AS_OF, topics=["Topic 07"])
    line = scope_line(result.markdown)
    assert line.startswith("[[Topic 07]] and ") and line.endswith("(from --topic)")
    assert result.scope.related and all(f"[[{t}]]" in line for t in result.scope.related)
    assert set(result.active) <= {"Topic 07", *result.scope.related}
    alone = context(vault=rich, as_of=AS_OF, topics=["[[topic 07]]"]).scope
    assert alone.named == ["Topic 07"]


def test_an_alias_names_its_topic(tmp_path: Path) -> None:
    root = copy_vault(SAMPLE_VAULT, tmp_path)
    result = context(vault=root, as_of=AS_OF, topics=["Project Atlas"])
    assert result.scope.named == ["Atlas Migration"]


def test_an_unknown_topic_flag_is_refused(rich: Path) -> None:
    with pytest.raises(PageNotFound, match="Topic 7"):
        context(vault=rich, as_of=AS_OF, topics=["Topic 7"])


def test_scope_file_found_upward_to_the_repository_root(rich: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / SCOPE_FILE).write_text('topics = ["Topic 03", "Not Here"]\nrelated = false\n')
    result = context(vault=rich, as_of=AS_OF, project=repo / "src" / "deep")
    line = scope_line(result.markdown)
    assert line == (
        f'[[Topic 03]] (from {repo / SCOPE_FILE}); not topics of this vault: "Not Here"'
    )
    assert result.active in ([], ["Topic 03"])
    # --topic wins over the file, --no-scope ignores it, and the search stops at .git
    assert "(from --topic)" in scope_line(project(rich, topics=["Topic 04"], project=repo))
    assert scope_line(project(rich, project=repo, use_scope_file=False)).startswith("the whole")
    (tmp_path / SCOPE_FILE).write_text('topics = ["Topic 05"]\n')
    (repo / SCOPE_FILE).unlink()
    assert scope_line(project(rich, project=repo / "src")).startswith("the whole vault")
    for odd in ("/x\0y", "/x\udc80y"):  # a hook's cwd may be no path at all: no scope file
        assert scope_line(project(rich, project=odd)).startswith("the whole vault")


@pytest.mark.parametrize(
    "text",
    [
        "topics = []\n",
        'topics = "Topic 01"\n',
        "topics = [1]\n",
        'topics = ["Topic 01"]\nrelated = "yes"\n',
        'topics = ["Topic 01"]\nvault = "/elsewhere"\n',
        'topics = ["two\\nlines"]\n',
        "topics = [",
    ],
)
def test_a_bad_scope_file_is_refused_with_its_path(rich: Path, tmp_path: Path, text: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / SCOPE_FILE).write_text(text)
    with pytest.raises(ConfigError, match=SCOPE_FILE):
        context(vault=rich, as_of=AS_OF, project=tmp_path)


# -- frontier, pending, how to write ---------------------------------------------------------------


def test_frontier_comes_first_and_is_read_never_written(rich: Path) -> None:
    text = project(rich, use_scope_file=False)
    assert text.split("\n\n")[1].startswith(
        "## Frontier: Now (the person's page)\n- ship [[Topic 00]]"
    )
    assert "alias::" not in text


def test_frontier_takes_at_most_its_share_of_the_budget(tmp_path: Path) -> None:
    root = rich_vault(tmp_path / "v")
    (root / "pages" / "Now.md").write_text("".join(f"- line {n} of the plan\n" for n in range(500)))
    text = project(root, use_scope_file=False, budget=2000)
    frontier = text.split("## Frontier")[1].split("\n## ")[0]
    assert len(frontier) <= 0.4 * 2000 + 60 and "more line(s) on the page" in frontier
    assert "## Active threads" in text


def test_a_missing_frontier_page_is_said(tmp_path: Path) -> None:
    root = rich_vault(tmp_path / "v")
    (root / ".journal-agent.toml").write_text('frontier = "Nowhere"\n')
    assert 'the frontier page "Nowhere" is not in this vault' in project(root)


def test_frontier_setting_is_validated(tmp_path: Path) -> None:
    root = rich_vault(tmp_path / "v")
    (root / ".journal-agent.toml").write_text('frontier = "[[Now]]"\n')
    with pytest.raises(ConfigError, match="frontier"):
        project(root)


def test_pending_bullets_with_their_reasons_and_nothing_when_none(rich: Path) -> None:
    items = [Item("Fixed [[Topic 01]]", "the page was locked"), Item("Note", None)]
    text = project(rich, use_scope_file=False, pending=items)
    assert (
        '## Pending from earlier sessions (2)\n- "Fixed [[Topic 01]]": not written yet, the page '
        "was locked" in text
    )
    assert "no reason recorded" in text
    assert "Pending" not in project(rich, use_scope_file=False, pending=[])
    assert "Pending" not in project(rich, use_scope_file=False)


def test_a_projection_of_an_earlier_day_lists_only_what_was_pending_then(tmp_path: Path) -> None:
    root = copy_vault(SAMPLE_VAULT, tmp_path)
    note(["noted today on [[Grafana]]"], vault=root, agent="claude", budget=0)
    today = dt.date.today()
    then = context(vault=root, agent="claude", as_of=today - dt.timedelta(days=1)).markdown
    assert "Pending" not in then
    assert "noted today" in context(vault=root, agent="claude", as_of=today).markdown


def test_how_to_write_lines_and_the_instruction_text_agree() -> None:
    text = instructions("claude")
    assert "`claude log`" in text and "journal-agent note --agent claude" in text
    for line in HOW_TO[:2]:
        assert line in text
    # the seed convention: a handful of dated single-line bullets at human size, decisions with
    # a one-line why, status changes, causes in plain prose, linking existing topics
    for phrase in ("handful", "single-line", "human size", "Decision: … because", "Resolved:"):
        assert phrase in text
    assert "plain prose" in text and "existing pages" in text and "dates the bullets" in text
    assert all(len(line) < 250 for line in HOW_TO)


# -- the command -----------------------------------------------------------------------------------


def test_cli_prints_the_markdown_and_json(rich: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["context", "--vault", str(rich), "--as-of", AS_OF, "--agent", "claude", "--no-scope"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out == project(rich, use_scope_file=False)
    assert main([*argv, "--json", "--budget", "1500", "--topic", "Topic 00"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["budget"] == 1500 and data["chars"] <= 1500
    assert data["scope"]["source"] == "--topic" and data["scope"]["topics"] == ["Topic 00"]
    assert set(data["totals"]) == set(data["shown"])


def test_an_unreadable_ledger_costs_only_the_corrections(
    rich: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOURNAL_AGENT_STATE", "relative/path")  # refused: must be absolute
    result = context(vault=rich, as_of=AS_OF, agent="claude", use_scope_file=False)
    assert "## Active threads" in result.markdown
    assert any(w.startswith("corrections not shown") for w in result.warnings)


def test_pages_search_the_projection_points_to() -> None:
    from journal_agent import BadArgument
    from journal_agent.api import pages

    found = [p.title for p in pages(vault=SAMPLE_VAULT, search="ATLAS").pages]
    assert found == ["Atlas Migration", "Projects/Atlas Dashboard"]
    assert [p.title for p in pages(vault=SAMPLE_VAULT, search="project atlas").pages] == [
        "Atlas Migration"  # by its alias
    ]
    assert "Grafana" in [p.title for p in pages(vault=SAMPLE_VAULT, search="Grafanna").pages]
    with pytest.raises(BadArgument):
        pages(vault=SAMPLE_VAULT, search="  ")


def test_context_imports_nothing_heavy() -> None:
    """It runs at every session start: no networkx, rapidfuzz, yaml… on its usual path (once
    a first run has cached the vault's settings: Logseq's config.edn needs edn_format)."""
    code = (
        "import sys, io, contextlib; from journal_agent.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['context', '--vault', {str(SAMPLE_VAULT)!r}, '--as-of', '{AS_OF}'])\n"
        "heavy = {'yaml', 'edn_format', 'networkx', 'httpx', 'mistune', 'watchdog', 'rapidfuzz',"
        " 'dateutil'}\nprint(sorted(heavy & set(sys.modules)))"
    )
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
    assert done.stdout.strip() == "[]"
