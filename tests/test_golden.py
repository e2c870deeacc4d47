"""Golden files: each case under tests/golden/<syntax>/ is paired with <case>.result.json.

The result is what the scanner must find: blocks (line, level, depth, parent, kind, first line,
marker, properties, references) and page properties. A missing result file fails the test; to
add a case, write the .md, inspect the scanner's output by hand, and save it as the result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from journal_agent import Outline, open_vault
from journal_agent.registry import load_registry
from journal_agent.scanner import decode, scan

from .conftest import FIXTURE_VAULTS, SAMPLE_VAULT

if TYPE_CHECKING:
    from journal_agent.scanner import Syntax

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(GOLDEN.glob("*/*.md"))


def outline_json(outline: Outline) -> dict[str, Any]:
    return {
        "bom": outline.bom,
        "newline": outline.newline,
        "final_newline": outline.final_newline,
        "indent_unit": outline.indent_unit,
        "page_properties": outline.page_properties,
        "page_refs": [[r.target, r.kind, r.line] for r in outline.page_refs],
        "warnings": outline.warnings,
        "blocks": [
            {
                "line": b.line,
                "end": b.end,
                "subtree_end": b.subtree_end,
                "level": b.level,
                "depth": b.depth,
                "parent": b.parent,
                "kind": b.kind,
                "text": b.text,
                "marker": b.marker,
                "properties": b.properties,
                "refs": [[r.target, r.kind, r.line] for r in b.refs],
            }
            for b in outline.blocks
        ],
    }


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scan_golden(case: Path) -> None:
    result = case.with_suffix(".result.json")
    if not result.exists():
        pytest.fail(f"{result.name} does not exist")
    text, bom = decode(case.read_bytes(), case.name)
    syntax: Syntax = "logseq" if case.parent.name == "logseq" else "wiki"
    assert outline_json(scan(text, syntax, bom=bom)) == json.loads(result.read_text("utf-8"))


VAULTS = {
    "sample_vault": SAMPLE_VAULT,
    "obsidian": FIXTURE_VAULTS / "obsidian",
    "markdown": FIXTURE_VAULTS / "markdown",
}


@pytest.mark.parametrize("name", sorted(VAULTS))
def test_pages_golden(name: str) -> None:
    result = GOLDEN / f"{name}.pages.json"
    if not result.exists():
        pytest.fail(f"{result.name} does not exist")
    registry, _ = load_registry(open_vault(VAULTS[name]))
    pages = [dict(p.to_json(), origin=p.origin) for p in registry]
    assert {"pages": pages} == json.loads(result.read_text("utf-8"))
