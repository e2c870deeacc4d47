#!/usr/bin/env python3
"""Hook latency: ``journal-agent hook claude-code EVENT`` on generated vaults, against ripgrep.

    .venv/bin/python bench/hooks.py [--sizes 1000,20000] [--repeat 5] [--quick]

Run it with bytecode compiled (``PYTHONDONTWRITEBYTECODE`` unset: the warm-up round writes it).
For each size the vault of ``bench/run`` is reused (generated into bench/out/ if missing) and
copied once; every hook writes into the copy. Each contender is a fresh process of the real CLI
fed the host's JSON on stdin, stdout to /dev/null, the index cache warm; ``rg -F -c
"[[Atlas Migration]]"`` runs between every two contenders and is the reference of the ratios.
Medians of ``--repeat`` interleaved rounds after one unrecorded warm-up round. The table is
printed and (except with ``--quick``) written to bench/RESULTS-hooks.md.

Contenders: the interpreter alone (``python -c pass``); ``append`` of one bullet (what a hook
writes with); SessionStart with nothing pending, after editing one journal page, and with three
bullets left pending by an earlier session (prepared outside the timing with ``note --budget
0``); Stop with a reply of three bullets; SessionEnd with a transcript of three new bullets, and
with a transcript whose bullets the Stop hooks already wrote (the usual case).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import itertools
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.machinery import SourceFileLoader
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def _bench_run() -> object:
    """bench/run (a script without .py) as a module: its vaults, tables and machine notes."""
    loader = SourceFileLoader("bench_run", str(BENCH / "run"))
    spec = importlib.util.spec_from_loader("bench_run", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module  # its dataclasses look their module up
    loader.exec_module(module)
    return module


base: object = _bench_run()
CLI: Path = base.CLI  # type: ignore[attr-defined]
HOT: str = base.HOT  # type: ignore[attr-defined]
COUNTER = itertools.count(1)


@dataclass(frozen=True)
class Contender:
    """One thing to time: argv, the stdin it gets, and what to do before it (untimed)."""

    argv: tuple[str, ...]
    stdin: Callable[[], bytes] = lambda: b""
    before: Callable[[], None] = lambda: None


def timed(argv: tuple[str, ...], stdin: bytes, env: dict[str, str]) -> float:
    """Wall seconds of one run (it must exit 0)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    _, err = proc.communicate(stdin)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{shlex.join(argv)} failed ({proc.returncode}): {err.decode()}")
    return seconds


def reply(n: int) -> str:
    block = "\n".join(f"- Hook bench {n}.{i} about [[{HOT}]]" for i in range(3))
    return f"Done.\n\n```journal\n{block}\n```\n"


def contenders(copy: Path, python: str, scratch: Path) -> dict[str, Contender]:
    vault = ("--vault", str(copy))
    hook = (str(CLI), "hook", "claude-code")

    def payload(event: str, **fields: object) -> Callable[[], bytes]:
        def make() -> bytes:
            data = {"session_id": f"bench-{next(COUNTER)}", "hook_event_name": event, **fields}
            return json.dumps(data).encode()

        return make

    def stop() -> bytes:
        n = next(COUNTER)
        return json.dumps(
            {
                "session_id": f"stop-{n}",
                "hook_event_name": "Stop",
                "last_assistant_message": reply(n),
            }
        ).encode()

    def transcript(n: int) -> str:
        path = scratch / f"t{n}.jsonl"
        line = {"type": "assistant", "message": {"role": "assistant", "content": reply(n)}}
        path.write_text(json.dumps(line) + "\n")
        return str(path)

    def end_new() -> bytes:
        n = next(COUNTER)
        data = {"session_id": f"end-{n}", "hook_event_name": "SessionEnd"}
        return json.dumps({**data, "transcript_path": transcript(n)}).encode()

    written = {"n": 0}

    def end_done_before() -> None:  # the Stop hook of the same reply ran (untimed)
        n = written["n"] = next(COUNTER)
        data = {
            "session_id": f"end-{n}",
            "hook_event_name": "Stop",
            "last_assistant_message": reply(n),
        }
        timed((*hook, "Stop", *vault), json.dumps(data).encode(), dict(os.environ))

    def end_done() -> bytes:
        n = written["n"]
        data = {"session_id": f"end-{n}", "hook_event_name": "SessionEnd"}
        return json.dumps({**data, "transcript_path": transcript(n)}).encode()

    journals = sorted((copy / "journals").iterdir(), reverse=True)

    def edit() -> None:
        base.edit_one_word(journals[1], next(COUNTER))  # type: ignore[attr-defined]

    def leave_pending() -> None:
        n = next(COUNTER)
        texts = [f"Left pending {n}.{i} about [[{HOT}]]" for i in range(3)]
        argv = (str(CLI), "note", *vault, "--agent", "claude", "--budget", "0", *texts)
        timed(argv, b"", dict(os.environ))

    return {
        "python -c pass": Contender((python, "-c", "pass")),
        "append (1 bullet)": Contender(
            (str(CLI), "append", *vault, "--agent", "bench", f"Bench append {{n}} [[{HOT}]]")
        ),
        "SessionStart, warm": Contender((*hook, "SessionStart", *vault), payload("SessionStart")),
        "SessionStart, after an edit": Contender(
            (*hook, "SessionStart", *vault), payload("SessionStart"), edit
        ),
        "SessionStart, 3 pending": Contender(
            (*hook, "SessionStart", *vault), payload("SessionStart"), leave_pending
        ),
        "Stop, 3 bullets": Contender((*hook, "Stop", *vault), stop),
        "SessionEnd, 3 new bullets": Contender((*hook, "SessionEnd", *vault), end_new),
        "SessionEnd, already written": Contender(
            (*hook, "SessionEnd", *vault), end_done, end_done_before
        ),
    }


def measure(pages: int, years: int, repeat: int, python: str) -> list[dict[str, str]]:
    root = base.vault_for(pages, years)  # type: ignore[attr-defined]
    out = BENCH / "out"
    copy = out / f"p{pages}-y{years}-hooks"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, symlinks=True)
    scratch = out / f"hooks-scratch-{pages}"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    cache = out / "cache" / f"hooks-{pages}"
    shutil.rmtree(cache, ignore_errors=True)
    os.environ["JOURNAL_AGENT_CACHE"] = str(cache)
    os.environ.pop("JOURNAL_AGENT_STATE", None)
    env = dict(os.environ)
    ref = (shutil.which("rg") or "rg", "-F", "-c", f"[[{HOT}]]", str(root))
    timed((str(CLI), "stale", "--vault", str(copy)), b"", env)  # the index cache, warm
    jobs = contenders(copy, python, scratch)
    runs: dict[str, list[float]] = {"rg": [], **{name: [] for name in jobs}}
    for round_ in range(repeat + 1):
        for name, job in jobs.items():
            job.before()
            argv = tuple(a.replace("{n}", str(next(COUNTER))) for a in job.argv)
            rg = timed(ref, b"", env)
            seconds = timed(argv, job.stdin(), env)
            if round_:  # the first round warms up (bytecode, page cache)
                runs["rg"].append(rg)
                runs[name].append(seconds)
    shutil.rmtree(copy)
    shutil.rmtree(scratch)
    rg = base.median([_Run(s) for s in runs["rg"]])  # type: ignore[attr-defined]
    rows = []
    for name in jobs:
        seconds = sorted(runs[name])
        med = seconds[len(seconds) // 2]
        rows.append(
            {
                "pages": str(pages),
                "rg s": f"{rg:.3f}",
                "contender": name,
                "median s": f"{med:.3f}",
                "slowest s": f"{seconds[-1]:.3f}",
                "×rg": f"{med / rg:.2f}",
            }
        )
    return rows


@dataclass
class _Run:
    seconds: float


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="1000,20000")
    ap.add_argument("--years", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="1k pages, 2 rounds, nothing written")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.repeat = "1000", 2
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        sys.exit("unset PYTHONDONTWRITEBYTECODE: hooks are measured with bytecode compiled")
    python = base.interpreter()  # type: ignore[attr-defined]
    started, load_before, code = time.perf_counter(), base.load(), base.revision()  # type: ignore[attr-defined]
    rows = [
        r
        for pages in args.sizes.split(",")
        for r in measure(int(pages), args.years, args.repeat, python)
    ]
    elapsed = time.perf_counter() - started
    text = (
        f"# Hook latency\n\n{dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, "
        f"{elapsed / 60:.1f} min\n\n"
        f"Machine: {base.machine(python)}\n\n"  # type: ignore[attr-defined]
        f"Load average: {load_before} at the start, {base.load()} at the end\n\n"  # type: ignore[attr-defined]
        f"Code: {code}\n\nCommand: `{shlex.join(sys.orig_argv)}`\n\n"
        f"{base.table(rows, 2)}\n\n"  # type: ignore[attr-defined]
        f"{' '.join(NOTE.split())}\n"
    )
    print(text, end="")
    if not args.quick:
        (BENCH / "RESULTS-hooks.md").write_text(text)
    return 0


NOTE = """Every figure is a fresh process of `.venv/bin/journal-agent` (`hook claude-code EVENT
--vault COPY` with the host's JSON on stdin; `append --agent bench "Bench append N [[Atlas
Migration]]"`), the index cache warm, median of the rounds after one warm-up round; rg: `rg -F -c
"[[Atlas Migration]]" V` before each contender. SessionStart runs the sweep (outbox, tombstones,
pending bullets) and prints the session-start projection (`context`) with what is pending.
Budgets the hosts give: Claude Code SessionEnd 1.5 s for all its hooks together; Codex
SessionEnd 1 s (at most 3); Gemini does not wait."""


if __name__ == "__main__":
    sys.exit(main())
