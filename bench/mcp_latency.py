#!/usr/bin/env python3
"""The MCP server on a generated vault: start-up, and the latency of each tool, against ripgrep.

    .venv/bin/python bench/mcp_latency.py [--sizes 20000] [--repeat 5]

Run it with bytecode compiled (``PYTHONDONTWRITEBYTECODE`` unset). For each size the vault of
``bench/run`` is reused (generated into bench/out/ if missing) and copied once, and its caches are
warmed by one ``stale``. Start-up: a fresh ``journal-agent mcp`` process spoken to over stdio by
the SDK's own client, until its list of tools arrives (process start, imports, the vault opened).
Tools: one server, each tool called ``--repeat`` times in turn after one unrecorded call; the
median of each. ``rg -F -c "[[Atlas Migration]]"`` runs between rounds and is the reference of
the ratios. The table is printed and written to bench/RESULTS-mcp.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import genvault  # noqa: E402

CLI = BENCH.parent / ".venv" / "bin" / "journal-agent"
HOT = genvault.HOT_TOPIC
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("context", {}),
    ("stale", {}),
    ("topics", {"only": "active"}),
    ("status", {"topic": HOT}),
    ("timeline", {"topic": HOT, "limit": 20}),
    ("why", {"topic": HOT}),
    ("pages", {"search": "atlas"}),
    ("lint", {"bullets": [f"Checked [[{HOT}]] again"]}),
    ("note", {"bullets": ["Benchmark note {n} about [[" + HOT + "]]"]}),
]


def rg(vault: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["rg", "-F", "-c", f"[[{HOT}]]", str(vault)], capture_output=True, check=False)
    return time.perf_counter() - start


def params(vault: Path, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(CLI), args=["mcp", "--vault", str(vault), "--agent", "bench"], env=env
    )


def startup(vault: Path, env: dict[str, str]) -> float:
    async def main() -> float:
        start = time.perf_counter()
        async with Client(params(vault, env)) as client:
            await client.list_tools()
            return time.perf_counter() - start

    return anyio.run(main)


def tools(vault: Path, env: dict[str, str], repeat: int) -> dict[str, list[float]]:
    async def main() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {name: [] for name, _ in CALLS}
        n = 0
        async with Client(params(vault, env)) as client:
            for round_ in range(repeat + 1):
                for name, arguments in CALLS:
                    n += 1
                    args = {
                        k: [b.replace("{n}", str(n)) for b in v] if k == "bullets" else v
                        for k, v in arguments.items()
                    }
                    start = time.perf_counter()
                    result = await client.call_tool(name, args)
                    took = time.perf_counter() - start
                    if result.is_error:
                        raise RuntimeError(f"{name}: {result.content}")
                    if round_:
                        times[name].append(took)
        return times

    return anyio.run(main)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="20000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--results", default=str(BENCH / "RESULTS-mcp.md"))
    args = parser.parse_args()
    rows = []
    for pages in (int(s) for s in args.sizes.split(",")):
        source = BENCH / "out" / f"p{pages}-y5"
        if not source.is_dir():
            genvault.generate(source, pages, 5)
        with tempfile.TemporaryDirectory() as tmp:
            vault = Path(tmp) / "vault"
            shutil.copytree(source, vault)
            env = {**os.environ, "JOURNAL_AGENT_CACHE": str(Path(tmp) / "cache")}
            env["JOURNAL_AGENT_STATE"] = str(Path(tmp) / "state")
            subprocess.run(
                [str(CLI), "stale", "--vault", str(vault)], env=env, check=True, capture_output=True
            )
            refs = [rg(vault) for _ in range(args.repeat)]
            starts = [startup(vault, env) for _ in range(args.repeat)]
            refs += [rg(vault) for _ in range(args.repeat)]
            calls = tools(vault, env, args.repeat)
            refs += [rg(vault) for _ in range(args.repeat)]
            ref = statistics.median(refs)
            rows.append((pages, "start-up (spawn to tool list)", statistics.median(starts), ref))
            rows += [(pages, f"tool {k}", statistics.median(v), ref) for k, v in calls.items()]
    lines = [
        "| pages | what | s | ×rg | rg s |",
        "|---|---|---:|---:|---:|",
        *(f"| {p} | {w} | {s:.3f} | {s / r:.2f} | {r:.3f} |" for p, w, s, r in rows),
    ]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = (
        "# MCP server: start-up and tool latency\n\n"
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {load}, "
        f"`{' '.join(sys.argv)}`\n\n" + "\n".join(lines) + "\n"
    )
    print(text)
    Path(args.results).write_text(text)


if __name__ == "__main__":
    main()
