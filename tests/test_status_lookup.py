"""`status` answered from the status summary says exactly what the graph says.

A warm `status TOPIC` looks the topic up in the summary by its query key (`Summary.find`)
instead of loading the index and building the registry; a name the summary does not know for
certain (ambiguous, a journal or unlisted page, a spelling it never saw) falls back to the
graph. For every page of every fixture vault, under every spelling we can think of, the
answer (or the refusal) must be the graph's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from journal_agent import api
from journal_agent.errors import JournalAgentError
from journal_agent.registry import load_registry
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
    try:
        return api.status(name, vault=root, as_of=AS_OF, use_cache=use_cache).to_json()
    except JournalAgentError as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize(
    "fixture", ["logseq_vault", "obsidian_vault", "markdown_vault", *[r.name for r in RULES]]
)
def test_status_from_the_summary_is_the_graphs(
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

    names = spellings(root)
    api.topics(vault=root, as_of=AS_OF)  # the summary, cached
    monkeypatch.setattr(queries.Graph, "__init__", counted)
    found = 0
    for name in names:
        graphs.clear()
        warm = answer(root, name, True)
        from_summary = not graphs
        assert warm == answer(root, name, False), name
        found += from_summary and isinstance(warm, dict)
    assert found > 0  # the summary answered for some
