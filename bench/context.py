#!/usr/bin/env python3
"""The session-start projection: its size against two naive baselines, the share of active
threads it names, and ``context`` latency warm and after an edit, against ripgrep.

    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python bench/context.py [--sizes 1000,20000]
        [--repeat 5] [--budgets 2500,6000,10000] [--results CONTEXT.md] [--quick]

Size: on generated vaults (bench/genvault.py, the same ones bench/run uses, plus one-year vaults
of 1,000 pages: genvault's own agent, which writes on 30 % of days, and a daily agent, which
writes 3 to 8 bullets every journal day), the agent's bullets are the children of every
``- claude log`` block. Baseline 1
is every agent bullet ever written, one line each with its day (what "load the agent's memory"
injects); baseline 2 is every journal page of the last 28 days in full. The projection is
``journal-agent context --agent claude --as-of 2026-11-29 --no-scope --json`` (default budget
6,000 characters, and a few others); its ``totals`` / ``shown`` say how many active threads
there are and how many it names.

Latency: on a copy of the 1k and 20k five-year vaults with a ledger of the agent's last year of
bullets (so the corrections pass reads real entries), interleaved with ``rg -F -c`` as in
bench/run: ``context`` cold (empty cache folder), warm (nothing changed) and after an edit (one
word of the newest journal changed before each run, stamped 3 s back like bench/run's growth
test), with ``stale`` warm and after an edit beside it. Bytecode is compiled first and the
children run without PYTHONDONTWRITEBYTECODE.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.machinery
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent


def _bench_run() -> ModuleType:
    """bench/run (a script without .py) as a module: its vaults, runner and tables."""
    loader = importlib.machinery.SourceFileLoader("bench_run", str(BENCH / "run"))
    spec = importlib.util.spec_from_loader("bench_run", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module  # dataclasses look their module up there
    loader.exec_module(module)
    return module


br = _bench_run()
AS_OF = br.AS_OF
CLI = br.CLI
AGENT_HEADER = "- claude log"


# -- the baselines ----------------------------------------------------------------------------


def journals(root: Path) -> list[tuple[dt.date, Path]]:
    """Every journal file of a generated vault with its day, oldest first."""
    out = []
    for path in (root / "journals").iterdir():
        stamp = path.stem
        out.append((dt.date(int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10])), path))
    return sorted(out)


def agent_bullets(text: str) -> list[str]:
    """The children of the page's ``- claude log`` blocks (first lines only)."""
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        if line == AGENT_HEADER:
            inside = True
        elif inside and line.startswith(("\t", " ")):
            stripped = line.strip()
            if stripped.startswith("- "):
                out.append(stripped[2:])
        else:
            inside = False
    return out


def baseline_all_agent_bullets(root: Path, since: dt.date | None = None) -> str:
    """Baseline 1: every agent bullet ever written (from ``since``), one line each."""
    lines = []
    for day, path in journals(root):
        if since is None or day >= since:
            lines += [f"- {day}: {b}" for b in agent_bullets(path.read_text("utf-8"))]
    return "\n".join(lines) + "\n"


def baseline_recent_journals(root: Path, days: int = 28) -> str:
    """Baseline 2: every journal of the last ``days`` days in full."""
    end = dt.date.fromisoformat(AS_OF)
    parts = [
        f"# {day}\n{path.read_text('utf-8')}"
        for day, path in journals(root)
        if end - dt.timedelta(days=days - 1) <= day <= end
    ]
    return "\n".join(parts)


def daily_agent_vault(pages: int) -> Path:
    """The one-year vault of ``pages`` pages with an agent that writes every journal day: each
    journal gets an owned block of 3 to 8 bullets (genvault's sentences, with about one topic
    link each) unless it has one; genvault's own agent writes on 30 % of days, 1 to 5 bullets."""
    import random

    import genvault

    base = br.vault_for(pages, 1)
    root = br.OUT / f"p{pages}-y1-daily-agent"
    stamp = root / ".made-from"
    made_from = (BENCH / "genvault.py").read_bytes() + Path(__file__).read_bytes()
    if stamp.is_file() and stamp.read_bytes() == made_from:
        return root
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(base, root)
    gen = genvault.Gen(pages, 2)
    rng = random.Random(2)
    for _day, path in journals(root):
        text = path.read_text("utf-8")
        if AGENT_HEADER in text.split("\n"):
            continue
        kids = [f"\t- {gen.sentence((6, 16), 1.0)}" for _ in range(rng.randint(3, 8))]
        path.write_text(text + "\n".join([AGENT_HEADER, *kids]) + "\n", "utf-8")
    stamp.write_bytes(made_from)
    return root


def projection(root: Path, budget: int, cache: Path) -> dict[str, object]:
    env = dict(os.environ, JOURNAL_AGENT_CACHE=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = [str(CLI), "context", "--vault", str(root), "--as-of", AS_OF, "--agent", "claude"]
    argv += ["--no-scope", "--json", "--budget", str(budget)]
    done = subprocess.run(argv, env=env, capture_output=True, check=True, text=True)
    data: dict[str, object] = json.loads(done.stdout)
    return data


def size_rows(vaults: list[tuple[int, int, bool]], budgets: list[int]) -> list[dict[str, str]]:
    rows = []
    for pages, years, daily in vaults:
        root = daily_agent_vault(pages) if daily else br.vault_for(pages, years)
        agent = "daily agent" if daily else "genvault agent"
        one = baseline_all_agent_bullets(root)
        year = baseline_all_agent_bullets(root, dt.date.fromisoformat(AS_OF) - dt.timedelta(365))
        two = baseline_recent_journals(root)
        for budget in budgets:
            data = projection(root, budget, br.OUT / "cache" / f"ctx-size-{root.name}")
            chars = int(data["chars"])  # type: ignore[call-overload]
            totals, shown = data["totals"], data["shown"]
            assert isinstance(totals, dict) and isinstance(shown, dict)
            rows.append(
                {
                    "vault": f"{pages} pages, {years} y, {agent}",
                    "budget": str(budget),
                    "context chars": str(chars),
                    "B1 all agent bullets": f"{len(one)} ({one.count(chr(10))} bullets)",
                    "vs B1": f"{100 * (1 - chars / len(one)):.1f} % smaller",
                    "B1 last year only": str(len(year)),
                    "vs B1y": f"{100 * (1 - chars / len(year)):.1f} % smaller",
                    "B2 28 days of journals": str(len(two)),
                    "vs B2": f"{100 * (1 - chars / len(two)):.1f} % smaller",
                    "active named": f"{shown['active']} / {totals['active']}",
                    "resolved / stale / corrections shown": (
                        f"{shown['resolved']}/{totals['resolved']}, {totals['stale']} counted, "
                        f"{shown['corrections']}/{totals['corrections']}"
                    ),
                }
            )
    return rows


# -- latency ----------------------------------------------------------------------------------


def write_ledger(copy: Path, days: int = 365) -> int:
    """A ledger of the agent's bullets of the last ``days`` days (the children of its owned
    blocks, as journal-agent reads them), as if it had written them at noon of their day: a
    generated vault has the bullets but no ledger."""
    from journal_agent.ledger import text_hash
    from journal_agent.owned import children_texts
    from journal_agent.vault import open_vault

    vault = open_vault(copy)
    end = dt.date.fromisoformat(AS_OF)
    lines = []
    for day, path in journals(copy):
        if day < end - dt.timedelta(days=days):
            continue
        rel = path.relative_to(copy).as_posix()
        for text in children_texts(vault.read_page(rel), "claude log"):
            entry = {
                "page": rel,
                "agent": "claude",
                "hash": text_hash(text),
                "text": text,
                "time": f"{day}T12:00:00+00:00",
                "session": f"s-{day}",
            }
            lines.append(json.dumps(entry, ensure_ascii=False))
    state = copy / ".journal-agent"
    state.mkdir(exist_ok=True)
    (state / "ledger.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def latency_rows(pages: int, repeat: int) -> list[dict[str, str]]:
    root = br.vault_for(pages, 5)
    copy = br.OUT / f"p{pages}-y5-ctx"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, symlinks=True)
    entries = write_ledger(copy)
    cold, warm = br.OUT / "cache" / "ctx-cold", br.OUT / "cache" / f"ctx-warm-p{pages}"
    shutil.rmtree(warm, ignore_errors=True)
    ref = br.Job(("rg", "-F", "-c", f"[[{br.HOT}]]", str(copy)), pipe=True, ok=(0, 1))
    ctx = (str(CLI), "context", "--vault", str(copy), "--as-of", AS_OF, "--agent", "claude")
    ctx += ("--no-scope",)
    stale = (str(CLI), "stale", "--vault", str(copy), "--as-of", AS_OF, "--json")
    jobs = {
        "context cold": br.Job(ctx, cold, cold=True),
        "context warm": br.Job(ctx, warm),
        "stale warm": br.Job(stale, warm),
    }
    time.sleep(br.BACKDATE_NS / 1e9)  # the ledger and the copy leave the racy window
    runs = br.rounds(jobs, ref, repeat)
    newest = sorted((copy / "journals").iterdir())[-1]
    edited: dict[str, list[float]] = {"context after an edit": [], "stale after an edit": []}
    refs = []
    edits = 0
    for n in range(repeat + 1):  # the first round warms up
        for name, argv in (("context after an edit", ctx), ("stale after an edit", stale)):
            br.edit_one_word(newest, edits)
            edits += 1
            refs.append(br.run(ref).seconds)
            seconds = br.run(br.Job(argv, warm)).seconds
            if n:
                edited[name].append(seconds)
    shutil.rmtree(copy)
    rg = br.median(runs["rg"] + [br.Run(s, 0, "") for s in refs[2:]])
    rows = []
    for name in jobs:
        s = br.median(runs[name])
        rows.append(_row(pages, entries, name, s, rg))
    for name, values in edited.items():
        rows.append(_row(pages, entries, name, sorted(values)[len(values) // 2], rg))
    return rows


def _row(pages: int, entries: int, name: str, seconds: float, rg: float) -> dict[str, str]:
    return {
        "pages": str(pages),
        "ledger entries": str(entries),
        "run": name,
        "s": f"{seconds:.3f}",
        "×rg": f"{seconds / rg:.2f}",
        "rg s": f"{rg:.3f}",
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="1000,20000", help="page counts for the latency runs")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budgets", default="2500,6000,10000")
    ap.add_argument("--results", default="CONTEXT.md", help="file under bench/ (CONTEXT.md)")
    ap.add_argument("--quick", action="store_true", help="1k pages, 2 rounds, no results file")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.repeat = "1000", 2
    subprocess.run(
        [br.interpreter(), "-m", "compileall", "-q", str(BENCH.parent / "journal_agent")],
        check=True,
    )
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    started, load_before = time.perf_counter(), br.load()
    budgets = [int(b) for b in args.budgets.split(",")]
    vaults = [(1000, 1, False), (1000, 1, True)]
    vaults += [(int(s), 5, False) for s in args.sizes.split(",")]
    sizes = size_rows(vaults, budgets)
    latency = []
    for pages in (int(s) for s in args.sizes.split(",")):
        latency += latency_rows(pages, args.repeat)
    report = "\n\n".join(
        [
            "## Projection size against two naive baselines (characters)",
            br.table(sizes, 2),
            "## `context` latency against rg",
            br.table(latency, 2),
            " ".join(" ".join((__doc__ or "").split("\n\n")[2:]).split()),
        ]
    )
    text = (
        f"# Session-start projection\n\n{dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, "
        f"{(time.perf_counter() - started) / 60:.1f} min\n\nMachine: {br.machine(br.interpreter())}"
        f"\n\nLoad average (1, 5, 15 min): {load_before} at the start, {br.load()} at the end\n\n"
        f"Code: {br.revision()}\n\nCommand: `{shlex.join(sys.orig_argv)}`\n\n{report}\n"
    )
    print(text, end="")
    if not args.quick:
        (BENCH / args.results).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
