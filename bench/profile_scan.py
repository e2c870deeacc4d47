#!/usr/bin/env python3
"""Profile journal-agent on a vault (cProfile): where a cold or warm run spends its time.

    .venv/bin/python bench/profile_scan.py bench/out/p20000-y5 [--index] [--top 15]
    .venv/bin/python bench/profile_scan.py bench/out/p20000-y5 --cli stale [--warm]

By default it profiles reading, decoding and scanning every page file (what ``Vault.scan()``
did); ``--index`` profiles ``load_index(vault, use_cache=False)`` instead. ``--cli COMMAND``
profiles the command itself (``journal-agent COMMAND --vault VAULT --as-of 2026-11-29 --json``, the
hot topic for ``timeline``; stdout discarded) on an empty cache folder, or with ``--warm`` on one
a first run has filled, and prints the time of each phase (walk, scan, cache, graph, ...).
A cold index of many files is scanned in forked workers, which cProfile does not see (the main
process only waits): ``--serial`` scans in-process instead, to see the scan's own phases.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import tempfile
import time
from collections.abc import Callable

from genvault import HOT_TOPIC

from journal_agent.index import load_index
from journal_agent.scanner import decode, scan
from journal_agent.vault import Vault, open_vault

#: (phase, file name, function): the phases of a CLI run, by cumulative time (they nest: scan
#: is inside index, index inside graph).
PHASES = [
    ("walk the vault (page_files)", "walk.py", "page_files"),
    ("index: load (all)", "index.py", "_load_index"),
    ("  read the index cache", "index.py", "_read_cache"),
    ("  scan changed files (_fresh_entry)", "index.py", "_fresh_entry"),
    ("    parse (scanner)", "vault.py", "parse_page"),
    ("    facts (page_facts)", "index.py", "page_facts"),
    ("  write the index cache", "index.py", "_write_cache"),
    ("registry (build_registry)", "registry.py", "build_registry"),
    ("graph: backlinks (Graph._collect)", "queries.py", "_collect"),
    ("summary: build (Summary.of)", "summary.py", "of"),
    ("summary: read", "summary_store.py", "read"),
    ("summary: save", "summary_store.py", "save"),
    ("JSON output (json.dumps)", "__init__.py", "dumps"),
]


def scan_all(vault: Vault) -> int:
    """Read, decode and scan every page file; return how many."""
    pages = vault.page_files()
    for page in pages:
        text, bom = decode((vault.root / page.rel).read_bytes(), page.rel)
        scan(text, vault.flavor.syntax, comma_properties=vault.settings.comma_properties, bom=bom)
    return len(pages)


def cli_run(vault: str, command: str) -> Callable[[], object]:
    """One CLI run of ``command`` on ``vault``, stdout discarded."""
    from journal_agent.quick import main  # the console script's entry: the warm path first

    argv = [command, *([HOT_TOPIC] if command == "timeline" else [])]
    argv += ["--vault", vault, "--as-of", "2026-11-29", "--json"]

    def work() -> object:
        with contextlib.redirect_stdout(io.StringIO()):
            return main(argv)

    return work


def phases(profile: cProfile.Profile, total: float) -> None:
    """Print the cumulative time of each phase in PHASES that ran."""
    stats: dict[tuple[str, int, str], tuple[int, int, float, float, object]]
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    print(f"{'phase':40} {'cum s':>7} {'share':>6}")
    for label, file, func in PHASES:
        cum = sum(v[3] for (f, _, fn), v in stats.items() if fn == func and f.endswith(file))
        if cum:
            print(f"{label:40} {cum:7.3f} {cum / total:6.0%}")
    print(f"{'total (profiled)':40} {total:7.3f}")


def main() -> None:
    """Time one plain run, then profile a second one and print the top entries."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("vault")
    ap.add_argument("--index", action="store_true", help="profile load_index(use_cache=False)")
    ap.add_argument("--cli", metavar="COMMAND", help="profile the CLI: stale, topics, timeline")
    ap.add_argument("--warm", action="store_true", help="with --cli: a filled cache")
    ap.add_argument("--serial", action="store_true", help="with --cli: no forked scan workers")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    if args.serial:
        import journal_agent.index

        journal_agent.index._can_fork = lambda: False
    if args.cli:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["JOURNAL_AGENT_CACHE"] = cache
            work = cli_run(args.vault, args.cli)
            started = time.perf_counter()
            work()  # fills the cache (and imports the modules)
            took = time.perf_counter() - started
            print(f"first run, cold, without profiler: {took:.2f} s (imports included)")
            if not args.warm:
                for name in os.listdir(cache):
                    os.unlink(os.path.join(cache, name))
            profile = cProfile.Profile()
            started = time.perf_counter()
            profile.runcall(work)
            phases(profile, time.perf_counter() - started)
    else:
        vault = open_vault(args.vault)
        work = (
            (lambda: load_index(vault, use_cache=False))
            if args.index
            else (lambda: scan_all(vault))
        )
        started = time.perf_counter()
        work()
        print(f"without profiler: {time.perf_counter() - started:.2f} s")
        profile = cProfile.Profile()
        profile.runcall(work)
    pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
