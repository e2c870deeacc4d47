"""`status` and `timeline` answered from the status summary say exactly what the graph says.

A warm `status TOPIC` looks the topic up in the summary by its query key (`Summary.find`)
instead of loading the index and building the registry, and a warm `timeline TOPIC` adds the
undated mentions of the few files the summary's side file names (`backlinks`); a name the
summary does not know for certain (ambiguous, a journal or unlisted page, a spelling it never
saw) falls back to the graph. For every page of every fixture vault, under every spelling we
can think of, before and after edits that patch the summary, the answer (or the refusal) must
be the graph's.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Any

import pytest

from journal_agent import api
from journal_agent.api import Query
from journal_agent.errors import JournalAgentError
from journal_agent.registry import load_registry, query_keys
from journal_agent.vault import open_vault

from .conftest import ROOT, copy_vault

AS_OF = "2026-11-29"
RULES = sorted((ROOT / "tests" / "vaults" / "obsidian_rules").iterdir())


def spellings(root: Path) -> list[str]:
    """Every page's title, aliases and path, in other cases and with odd edges, and a few
    names no page has."""
    registry, _ = load_registry(open_vault(root), use_cache=False)
    names: list[str] = ["Nope", "", "pages/", "2026-11-29", "Nov 29th, 2026"]
    for page in registry:
        for name in (page.title, *page.aliases, *((page.path,) if page.path else ())):
            names += [name, name.lower(), name.upper(), f"/{name}", f"{name}.md", f" {name}"]
    return list(dict.fromkeys(names))


def answer(root: Path, name: str, use_cache: bool) -> Any:
    """``status`` and ``timeline`` of ``name`` (or the refusal)."""
    try:
        status = api.status(name, vault=root, as_of=AS_OF, use_cache=use_cache).to_json()
        found = api.timeline(name, vault=root, as_of=AS_OF, use_cache=use_cache)
        return status, found.to_json(), found.warnings
    except JournalAgentError as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize(
    "fixture", ["logseq_vault", "obsidian_vault", "markdown_vault", *[r.name for r in RULES]]
)
def test_lookups_from_the_summary_are_the_graphs(
    request: pytest.FixtureRequest, tmp_path: Path, fixture: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if fixture.endswith("_vault"):
        root: Path = request.getfixturevalue(fixture)
    else:
        root = copy_vault(ROOT / "tests" / "vaults" / "obsidian_rules" / fixture, tmp_path)
    from journal_agent import queries

    graphs: list[int] = []
    real = queries.Graph.__init__

    def counted(self: Any, *args: Any, **kw: Any) -> None:
        graphs.append(1)
        real(self, *args, **kw)

    mention_itself(root)
    api.topics(vault=root, as_of=AS_OF)  # the summary, cached
    monkeypatch.setattr(queries.Graph, "__init__", counted)
    found = 0
    for round_ in range(3):
        names = spellings(root)
        summary = Query.of(root, AS_OF, None, True).summary()
        key = query_keys(open_vault(root))
        for name in names:
            graphs.clear()
            warm = answer(root, name, True)
            if summary.find(key(name)) is not None:  # known for certain: no graph was needed
                assert not graphs, name
                found += 1
            assert warm == answer(root, name, False), name
        if round_ == 0:
            edit_some(root)
        elif round_ == 1:
            come_and_go(root)
    assert found > 0


def mention_itself(root: Path) -> None:
    """Make a few pages link themselves (a page's references to itself are no backlinks), and
    one page that nothing names (`come_and_go` deletes it)."""
    registry, _ = load_registry(open_vault(root), use_cache=False)
    own = [p for p in registry if p.path and p.date is None and not p.path.startswith(".")]
    for page in own[:3]:
        assert page.path is not None
        path = root / page.path
        path.write_text(path.read_text().rstrip("\n") + f"\n- about [[{page.title}]] itself\n")
    known = next(p for p in registry if p.path and p.date is None and "/" not in p.title)
    assert known.path is not None
    (root / known.path).parent.joinpath("Scratch.md").write_text("- a scratch note\n")


def come_and_go(root: Path) -> None:
    """The new day's journal page about a known page and a name nobody used, a new page that
    nothing names yet, and a page that nothing named deleted: each patches the summary."""
    vault = open_vault(root)
    registry, _ = load_registry(vault, use_cache=False)
    known = next(p for p in registry if p.path and p.date is None and "/" not in p.title)
    day = root / vault.journal_rel(dt.date(2026, 11, 30))
    day.parent.mkdir(parents=True, exist_ok=True)
    day.write_text(f"- more on [[{known.title}]] and [[Quite New Thing]]\n")
    assert known.path is not None
    folder = (root / known.path).parent
    (folder / "Fresh Page.md").write_text(f"- notes on [[{known.title}]]\n")
    (folder / "Scratch.md").unlink(missing_ok=True)
    stamp = time.time_ns() - 3_000_000_000
    for path in (day, folder / "Fresh Page.md"):
        os.utime(path, ns=(stamp, stamp))


def edit_some(root: Path) -> None:
    """Repeat the first bullet of every page at its end (journals too), three seconds back:
    the summary is patched, not rebuilt, and the side file follows."""
    for path in sorted(root.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        lines = path.read_text().splitlines()
        bullets = [ln for ln in lines if ln.startswith("- ")]
        if bullets:
            path.write_text("\n".join([*lines, bullets[0]]) + "\n")
            stamp = time.time_ns() - 3_000_000_000
            os.utime(path, ns=(stamp, stamp))


@pytest.mark.parametrize("seed", range(20))
def test_a_topics_undated_counts_are_found_as_a_step_per_pair_finds_them(seed: int) -> None:
    """`backlinks._undated_counts` searches the side file's (topic, count) pairs as bytes:
    it must find exactly what a Python step per pair finds, in file order, where a topic's
    bytes also stand across two numbers (large positions make such matches common)."""
    import bisect
    import random
    from array import array

    from journal_agent.backlinks import _undated_counts

    rng = random.Random(seed)
    topics = [rng.choice([0, 1, 256, 65536, 65537, 16777216, 16777472, rng.randrange(2**31)])
              for _ in range(rng.randrange(0, 400))]  # fmt: skip
    spans, pairs, n = array("i", [0]), array("i"), 0
    for t in topics:
        pairs.extend((t, rng.randrange(1, 9)))
        n += 1
        if rng.random() < 0.4:  # the next pair starts a new file
            spans.append(n)
    spans.append(n)
    for i in {*topics, 0, 1, 256, 65536, 7}:
        expected = {
            bisect.bisect_right(spans, k // 2) - 1: pairs[k + 1]
            for k in range(0, len(pairs), 2)
            if pairs[k] == i
        }
        found = _undated_counts(pairs, spans, i)
        assert found == expected and list(found) == sorted(expected), i
