#!/usr/bin/env python3
"""Profile a cold scan of a vault: the top functions by own time (cProfile).

    .venv/bin/python bench/profile_scan.py bench/out/p20000-y5 [--index] [--top 15]

By default it profiles reading, decoding and scanning every page file (what ``Vault.scan()``
did); ``--index`` profiles ``load_index(vault, use_cache=False)`` instead.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable

from journal_agent.index import load_index
from journal_agent.scanner import decode, scan
from journal_agent.vault import Vault, open_vault


def scan_all(vault: Vault) -> int:
    """Read, decode and scan every page file (as bench/run's scan does); return how many."""
    pages = vault.page_files()
    for page in pages:
        text, bom = decode((vault.root / page.rel).read_bytes(), page.rel)
        scan(text, vault.flavor.syntax, comma_properties=vault.settings.comma_properties, bom=bom)
    return len(pages)


def main() -> None:
    """Time one plain run, then profile a second one and print the top entries."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("vault")
    ap.add_argument("--index", action="store_true", help="profile load_index(use_cache=False)")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    vault = open_vault(args.vault)
    work: Callable[[], object] = (
        (lambda: load_index(vault, use_cache=False)) if args.index else (lambda: scan_all(vault))
    )
    started = time.perf_counter()
    work()
    print(f"without profiler: {time.perf_counter() - started:.2f} s")
    profile = cProfile.Profile()
    profile.runcall(work)
    pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
