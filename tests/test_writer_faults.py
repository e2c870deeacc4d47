"""Fault injection: every file-system call of one append fails in turn, as SQLite tests its VFS.

The calls are enumerated, not listed: a first run of the append (in a fresh interpreter, see
``tests/faultfs.py``) counts every call it makes on a path inside the vault (journal-agent's
state folder is inside it), by kind: open, read, write, flush, fsync, close, rename, exchange
(``renameat2``), link, unlink, mkdir, chmod, chown, truncate, list, ...; then, for each kind and
each index k, a fresh copy of the vault runs the same append with the k-th call of that kind
raising ``OSError`` (EIO, ENOSPC or EACCES; EPERM for chmod/chown, ENOLCK for locks). A
rewritten writer or backend is enumerated the same way: nothing here names a function of
journal-agent.

After each fault:

* the journal page is byte for byte the old page (absent, for a new page) or the new one (what
  the same append writes without a fault): never torn, never anything else;
* no file appeared other than the page and what is inside journal-agent's own ``.journal-agent/``
  folder (no temporary file left in the journal folder), except that a hidden file whose
  removal was the failed call may stay until the next append removes it;
* the ledger agrees with the page: the bullets are in it (all of them) iff the new page is on
  disk, or, if the ledger write itself failed, not at all;
* the caller got either success with the new page, or a `JournalAgentError` with a one-line
  message (the CLI: exit 1 or 2 and exactly one line on stderr, no traceback, no "internal
  error"); an error that says "nothing was written" while the new page is on disk is a lie;
* the hook retried without a fault (the same bullets and one more) ends with the page an
  uninterrupted run gives, each bullet once on the page and once in the ledger, and no litter.

Each scenario runs every fault through the API, and the first and last of each kind through
the CLI (every fault with ``FAULTS_FULL=1``, which also fails each ``stat``). The counts of
injected faults and their outcomes are printed: ``pytest -rP tests/test_writer_faults.py``.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import journal_agent

from .conftest import SAMPLE_VAULT, copy_vault, journal, ledger_counts, pin_today

CHILD = Path(__file__).resolve().parent / "faultfs.py"
FULL = os.environ.get("FAULTS_FULL") == "1"
AGENT = "claude"
BULLETS = ["Fault drill on [[Flaky CI]]: the disk said no", "Second note of the drill"]
EXTRA = "One more note, after the drill"
ERRNOS: dict[str, tuple[int, ...]] = {
    "open": (errno.EACCES, errno.EIO, errno.ENOSPC),
    "read": (errno.EIO,),
    "write": (errno.ENOSPC, errno.EIO),
    "flush": (errno.ENOSPC,),
    "fsync": (errno.EIO,),
    "close": (errno.EIO,),
    "mkdir": (errno.ENOSPC, errno.EACCES),
    "chmod": (errno.EPERM,),
    "chown": (errno.EPERM,),
    "lock": (errno.ENOLCK, errno.EIO),
    "stat": (errno.EACCES, errno.EIO),
}
DEFAULT_ERRNOS = (errno.EACCES, errno.EIO)  # rename, exchange, link, unlink, list, ...
SKIPPED_KINDS = () if FULL else ("stat",)
NOTHING_WRITTEN = "nothing was written"


@dataclass
class Scenario:
    name: str
    day: str
    setup: list[str] = field(default_factory=list)  # days appended to first, without faults
    no_exchange: bool = False  # a file system without renameat2's RENAME_EXCHANGE


SCENARIOS = [
    # the page exists (with claude's block); the vault has no journal-agent state yet
    Scenario("existing-page-first-append", "2026-11-25"),
    # the page does not exist; the ledger and lock folder exist from an earlier append
    Scenario("new-page-after-earlier-append", "2026-11-26", setup=["2026-11-24"]),
    # the page exists, on a file system that cannot exchange two names atomically
    Scenario("existing-page-no-exchange", "2026-11-25", setup=["2026-11-24"], no_exchange=True),
]


def errno_for(kind: str, k: int) -> int:
    options = ERRNOS.get(kind, DEFAULT_ERRNOS)
    return options[k % len(options)]


def all_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if not p.is_dir()}


@dataclass
class Base:
    """A scenario's vault before the faulty append, and the pages a run without faults gives."""

    scenario: Scenario
    vault: Path
    rel: str
    old: bytes | None
    new: bytes
    final: bytes
    calls: list[tuple[str, str]]


def _prepare(scenario: Scenario, tmp: Path) -> Base:
    base = copy_vault(SAMPLE_VAULT, tmp / "base")
    for day in scenario.setup:
        journal_agent.append(["An earlier note"], vault=base, agent=AGENT, date=day)
    page = journal(base, scenario.day)
    rel = page.relative_to(base).as_posix()
    old = page.read_bytes() if page.exists() else None
    twin = copy_vault(base, tmp / "twin")
    journal_agent.append(BULLETS, vault=twin, agent=AGENT, date=scenario.day)
    new = journal(twin, scenario.day).read_bytes()
    journal_agent.append([*BULLETS, EXTRA], vault=twin, agent=AGENT, date=scenario.day)
    final = journal(twin, scenario.day).read_bytes()
    counting = copy_vault(base, tmp / "count")
    counted = _child(scenario, counting, tmp / "count.json", None, False)
    if not counted["report"]["ok"] or journal(counting, scenario.day).read_bytes() != new:
        raise RuntimeError(f"the counting run did not append: {counted}")
    calls = [(kind, detail) for kind, detail in counted["report"]["calls"]]
    return Base(scenario, base, rel, old, new, final, calls)


def _child(
    scenario: Scenario, vault: Path, report: Path, fail: dict[str, Any] | None, cli: bool
) -> dict[str, Any]:
    spec: dict[str, Any] = {"root": str(vault), "report": str(report), "fail": fail, "cli": cli}
    spec["no_exchange"] = scenario.no_exchange
    spec["today"] = scenario.day  # the one day whose page may be made: a new page's
    if cli:
        spec["argv"] = [
            "append",
            "--vault",
            str(vault),
            "--agent",
            AGENT,
            "--date",
            scenario.day,
            "--session",
            "faulty",
            *BULLETS,
        ]
    else:
        spec["append"] = {
            "bullets": BULLETS,
            "vault": str(vault),
            "agent": AGENT,
            "date": scenario.day,
            "session": "faulty",
        }
    proc = subprocess.run(
        [sys.executable, str(CHILD), json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=vault.parent,
    )
    if not report.exists():
        raise RuntimeError(f"the child wrote no report (exit {proc.returncode}): {proc.stderr}")
    return {
        "report": json.loads(report.read_text()),
        "exit": proc.returncode,
        "stderr": proc.stderr,
    }


@dataclass
class Fault:
    kind: str
    index: int
    errno: int
    detail: str
    cli: bool
    outcome: str = ""
    problems: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        how = "cli" if self.cli else "api"
        return f"{self.kind}#{self.index} {errno.errorcode[self.errno]} on {self.detail} ({how})"


def _inject(base: Base, fault: Fault, tmp: Path) -> Fault:
    where = tmp / f"{fault.kind}-{fault.index}-{'cli' if fault.cli else 'api'}"
    vault = copy_vault(base.vault, where)
    page = vault / base.rel
    before = all_files(vault)
    spec = {"kind": fault.kind, "index": fault.index, "errno": fault.errno}
    run = _child(base.scenario, vault, where / "report.json", spec, fault.cli)
    report, problems = run["report"], fault.problems
    if not report["fired"]:
        problems.append("the call was not made in this run (the enumeration is not repeatable)")
    now = page.read_bytes() if page.exists() else None
    state = "new" if now == base.new else "old" if now == base.old else "OTHER"

    # what the caller was told
    if fault.cli:
        lines = run["stderr"].splitlines()
        failed = run["exit"] != 0
        message = run["stderr"].strip()
        if failed and (run["exit"] not in (1, 2) or len(lines) != 1 or "Traceback" in message):
            problems.append(f"exit {run['exit']} with {len(lines)} line(s) on stderr: {message}")
        elif failed and "internal error" in message:
            problems.append(f"not a JournalAgentError: {message}")
    else:
        error = report["error"]
        failed = error is not None
        message = f"{error['type']}: {error['message']}" if error else ""
        if failed and not error["journal_agent_error"]:
            problems.append(f"not a JournalAgentError: {message}")
        elif failed and "\n" in error["message"].strip():
            problems.append(f"a message of several lines: {message!r}")
    fault.outcome = f"{'error' if failed else 'ok'}/{state}"

    # the page, the files, the ledger
    if state == "OTHER":
        problems.append(f"the page is neither the old one nor the new one: {now!r}")
    if not failed and state != "new":
        problems.append("reported written, but the new page is not on disk")
    if failed and state == "new" and NOTHING_WRITTEN in message:
        problems.append(f"says nothing was written, but the new page is on disk: {message}")
    appeared = _litter(vault, before, base.rel)
    if fault.kind == "unlink":  # the file whose removal failed may stay, hidden, until the retry
        appeared = {f for f in appeared if not f.rsplit("/", 1)[-1].startswith(".")}
    if appeared:
        problems.append(f"files left behind: {sorted(appeared)}")
    recorded = ledger_counts(vault, base.rel, AGENT)
    mine = [b in recorded for b in BULLETS]
    if state == "old" and any(mine):
        problems.append("the ledger holds bullets the page does not (a retry would skip them)")
    if state == "new" and any(mine) and not all(mine):
        problems.append("the ledger holds some of the bullets, not all")

    # the hook retried, without a fault
    try:
        retry = journal_agent.append(
            [*BULLETS, EXTRA], vault=vault, agent=AGENT, date=base.scenario.day, session="retry"
        )
    except journal_agent.JournalAgentError as exc:
        problems.append(f"the retry failed: {type(exc).__name__}: {exc}")
    else:
        expected = [EXTRA] if state == "new" else [*BULLETS, EXTRA]
        if retry.written != expected:
            problems.append(f"the retry wrote {retry.written}, not {expected}")
        if page.read_bytes() != base.final:
            problems.append("after the retry the page is not what a run without faults gives")
        recorded = ledger_counts(vault, base.rel, AGENT)
        counts = [recorded[b] for b in [*BULLETS, EXTRA]]
        if counts != [1, 1, 1]:
            problems.append(f"after the retry the ledger holds the bullets {counts} times")
        if left := _litter(vault, before, base.rel):
            problems.append(f"files left behind after the retry: {sorted(left)}")
    fault.problems = [p.replace(str(vault), "<vault>") for p in problems]
    shutil.rmtree(where, ignore_errors=True)
    return fault


def _litter(vault: Path, before: set[str], page: str) -> set[str]:
    """Files that appeared, other than the page and journal-agent's own folder."""
    return {f for f in all_files(vault) - before - {page} if not f.startswith(".journal-agent/")}


def _faults(base: Base) -> list[Fault]:
    by_kind: dict[str, list[str]] = {}
    for kind, detail in base.calls:
        by_kind.setdefault(kind, []).append(detail)
    faults = []
    for kind, details in sorted(by_kind.items()):
        if kind in SKIPPED_KINDS:
            continue
        for k, detail in enumerate(details):
            faults.append(Fault(kind, k, errno_for(kind, k), detail, cli=False))
            if FULL or k in (0, len(details) - 1):
                faults.append(Fault(kind, k, errno_for(kind, k), detail, cli=True))
    return faults


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_every_failing_file_system_call_leaves_old_or_new_and_a_clear_error(
    tmp_path: Path, scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin_today(monkeypatch, scenario.day)
    base = _prepare(scenario, tmp_path)
    faults = _faults(base)
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda f: _inject(base, f, tmp_path), faults))

    kinds = Counter(f.kind for f in done)
    outcomes = Counter(f.outcome for f in done)
    bad = [f for f in done if f.problems]
    print(
        f"\nfault injection, {scenario.name}: {len(base.calls)} calls counted "
        f"({dict(Counter(k for k, _ in base.calls))}); {len(done)} faults injected "
        f"({dict(kinds)}); outcomes {dict(outcomes)}; {len(bad)} with problems"
    )
    for f in done:
        print(f"  {f}: {f.outcome}" + "".join(f"\n      ! {p}" for p in f.problems))
    assert not bad, f"{len(bad)} of {len(done)} faults went wrong:\n" + "\n".join(
        f"{f}: {f.outcome}: {'; '.join(f.problems)}" for f in bad
    )
