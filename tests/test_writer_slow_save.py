"""Agents racing an editor that saves in place, slowly: no human line may be lost.

The bug this proves fixed: an app that saves a page by truncating it and writing the full text a
few milliseconds later (``open(path, "w")``, pause, write), or that writes half the text, pauses
and writes the rest, was racing agents that appended one after another. An agent that read, or
compare-and-swapped against, the page during the pause built its version on an empty or torn
base and swapped it in: the app's write then went into the displaced file, and the person's lines
were gone (the page's first human line in 2 of 2 runs; 37 and 115 of 200 lines with torn saves).

The editor (a real process) behaves like an outliner that reloads a page changed on disk: at each
save it reloads the page if it differs from its buffer, adds one human line (``- human N ...``,
alternately at the top and at the bottom of the page), and saves in place, slowly:

* ``truncate``: truncate the file, pause 1-20 ms, write the whole text;
* ``torn``: truncate, write the first half, pause 1-20 ms, write the rest;

saving every few milliseconds, with now and then a quiet moment (a person reading). Agents
(real processes: one appending many times in a row, or several at once through the API and the
CLI) append bullets meanwhile. After the agents are done the editor saves once more; that final
save is the page the test checks.

Why a lost human line can only be the agent's doing (the editor is designed so):

* The editor never writes from a stale buffer. It opens the page without truncating it, checks
  through that descriptor that the page is still the file at the path and still holds what it
  saved or loaded last (else it reloads), and only then truncates and writes through the same
  descriptor. An agent write landing before that check is reloaded, never overwritten (a real
  app's stale-buffer overwrite, logseq/logseq#11327, is a different hazard, not tested here).
* A save counts as saved (its lines are then owed to the final page) only if, once written, its
  file is still the page. An agent that swapped its file in after the check leaves the editor's
  bytes in the displaced file: that save is not counted, and the editor keeps its unsaved line
  and writes it again on top of the page it reloads, as an app keeping its buffer would.
* The editor reloads only complete pages: it is the only in-place writer, it never reads while
  it writes, and agents put a page in place whole (a rename). So a page it reloads that lacks one
  of its saved lines was put there by an agent, built on a base that lacked it (an empty or torn
  page, read during the editor's pause). The editor does not repair such a page (an app would
  not know): the loss stays, is reported at the reload where it was seen, and fails the test.
* What the editor can lose by its own fault is agent bullets (a save from a stale buffer); the
  check above rules that out, so a missing bullet is the agents' doing too.

Asserted over every round: every human line the editor saved is on the final page, once; every
bullet is written exactly once (reported in ``written`` by exactly one attempt, on the page
once, in the ledger once) or reported as not written (the append raised a `JournalAgentError`
with a one-line message, or the CLI exited 1 or 2 with one line on stderr, and the bullet is
nowhere); no temporary file is left and no other file appears.

Without a lease (the ``no-lease`` agents), a page is planned on once it has stood unmodified
for `backends.file.QUIET` (`SUSPICIOUS_QUIET` if empty): an editor whose save really leaves the
page incomplete that long cannot be told from one that finished. The pauses here are shorter,
but a loaded machine can stretch one (a CI run lost a line so, once, after a torn save): the
editor measures how long each save really took, and a loss after a save past that window is
counted apart ("lost past the no-lease window", printed) rather than failed; any other loss
fails.

Rounds per case: ``ROUNDS`` (set ``SLOW_SAVE_ROUNDS`` for a heavier run). The counts (rounds,
appends, editor saves, losses) are printed: ``pytest -rP tests/test_writer_slow_save.py``.
"""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import journal_agent
from journal_agent.backends import file as file_backend

from .conftest import journal, ledger_counts, visible_files

SPAWN = multiprocessing.get_context("spawn")
ROUNDS = int(os.environ.get("SLOW_SAVE_ROUNDS", "5"))  # pages per case, one after another
FIRST_DAY = dt.date(2026, 12, 1)  # no page yet in sample_vault: each round seeds its own
SEED = b"- human 0: the first line of the day, about [[Atlas Migration]]\n"
EVERY = (0.001, 0.005)  # seconds between two saves of a burst ("every few ms")
PAUSE = (0.001, 0.020)  # inside a save: after the truncate, or between the two halves
BURST = (4, 30)  # saves before a quiet moment
QUIET = (0.05, 0.4)  # a quiet moment: a writer that waits for the page to settle gets through
GAP = (0.0, 0.04)  # seconds between two appends of one agent
RETRIES = 3  # attempts per append (a hook that meets a busy page may try again)
DEADLINE = 90.0  # seconds; a hung process fails the test instead of hanging the suite

# (agent name, worker id, how it appends, appends per round, bullets per append)
SEQUENTIAL = [("claude", "s", "api", 10, 2)]
# The same without read leases (another user's file, a network file system, macOS): the writer
# then relies on the page having been quiet for a moment, and on watching the displaced file.
NO_LEASE = [("claude", "n", "api-no-lease", 10, 2)]
PARALLEL = [
    ("claude", "p", "api", 4, 2),
    ("claude", "q", "api", 4, 1),
    ("codex", "c", "cli", 3, 2),
]


def day_of(r: int) -> str:
    return (FIRST_DAY + dt.timedelta(days=r)).isoformat()


def bullets_of(worker: str, r: int, k: int, n: int) -> list[str]:
    return [f"Note {worker}{r}.{k}.{j} from the slow-save race" for j in range(n)]


def one_line(message: str) -> bool:
    return bool(message.strip()) and "\n" not in message.strip()


# ---------------------------------------------------------------------------------------------
# the editor


def _read_fd(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 16, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def _insert(buffer: bytes, line: bytes, top: bool) -> bytes:
    if top:
        return line + b"\n" + buffer
    return buffer + (b"" if not buffer or buffer.endswith(b"\n") else b"\n") + line + b"\n"


def _save(fd: int, data: bytes, torn: bool, rng: random.Random) -> float:
    """Save in place through ``fd``, slowly: truncate, pause, write all; or truncate, write the
    first half, pause, write the rest. Returns how long the page really stood incomplete (the
    pause, and however long this process was not scheduled on a loaded machine)."""
    start = time.monotonic()
    os.ftruncate(fd, 0)
    if torn:
        half = len(data) // 2
        os.pwrite(fd, data[:half], 0)
        time.sleep(rng.uniform(*PAUSE))
        os.pwrite(fd, data[half:], half)
    else:
        time.sleep(rng.uniform(*PAUSE))
        os.pwrite(fd, data, 0)
    return time.monotonic() - start


def _editor_round(path: Path, torn: bool, rng: random.Random, done: Any) -> dict[str, Any]:
    buffer = path.read_bytes()  # the round's seed page, written before the round began
    saved = {line for line in buffer.split(b"\n") if line.strip()}  # owed to the final page
    pending: list[tuple[bytes, bool]] = []  # lines in the buffer whose save did not land
    lost: list[dict[str, Any]] = []  # where a reload found saved lines gone
    seen_gone: set[bytes] = set()
    stats: Counter[str] = Counter()
    slowest = 0.0  # the longest a save of this round left the page incomplete, so far
    n, burst, deadline = 0, rng.randint(*BURST), time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if burst <= 0:
            time.sleep(rng.uniform(*QUIET))
            burst = rng.randint(*BURST)
        else:
            time.sleep(rng.uniform(*EVERY))
        final = bool(done())  # read before the save: this save starts after the agents ended
        fd = os.open(path, os.O_RDWR)
        try:
            disk = _read_fd(fd)
            if not _same_file(fd, path):
                stats["reopened"] += 1
                continue
            if disk != buffer:  # changed on disk: reload, as the app does
                stats["reloads"] += 1
                lines = set(disk.split(b"\n"))
                gone = saved - lines - seen_gone  # reported once, still owed to the final page
                if gone:
                    seen_gone |= gone
                    lost.append(
                        {
                            "at_save": stats["saves"],
                            "gone": sorted(x.decode() for x in gone),
                            "page": disk.decode(),
                            "slowest_save": slowest,
                        }
                    )
                buffer = disk
                for line, top in pending:  # still in the app's buffer, never saved: keep them
                    if line not in lines:
                        buffer = _insert(buffer, line, top)
            n += 1
            line = b"- human %d: typed %s" % (n, b"at the top" if n % 2 else b"at the bottom")
            buffer = _insert(buffer, line, top=bool(n % 2))
            pending.append((line, bool(n % 2)))
            slowest = max(slowest, _save(fd, buffer, torn, rng))
            landed = _same_file(fd, path)
        finally:
            os.close(fd)
        burst -= 1
        if not landed:  # an agent swapped the page out under this save
            stats["not_landed"] += 1
            continue
        stats["saves"] += 1
        saved.update(line for line, _top in pending)
        pending = []
        if final:
            return {
                "saved": sorted(x.decode() for x in saved),
                "final": buffer.decode(),
                "lost": lost,
                "stats": stats,
            }
    raise RuntimeError(f"{path.name}: the editor's final save never landed")


def _editor(
    pages: list[str], torn: bool, barrier: Any, finished: Any, agents: int, out: str
) -> None:
    rng = random.Random(out)
    reports = []
    for r, page in enumerate(pages):
        barrier.wait()
        reports.append(
            _editor_round(Path(page), torn, rng, lambda r=r: finished.value >= agents * (r + 1))
        )
    Path(out).write_text(json.dumps(reports))


# ---------------------------------------------------------------------------------------------
# the agents


def _append_api(vault: str, agent: str, day: str, session: str, texts: list[str]) -> dict[str, Any]:
    try:
        r = journal_agent.append(texts, vault=vault, agent=agent, date=day, session=session)
    except journal_agent.JournalAgentError as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "clean": one_line(str(exc))}
    except Exception as exc:  # not one of ours: a failure of the contract
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "clean": False}
    return {"ok": True, "written": r.written, "duplicates": r.duplicates}


def _append_cli(vault: str, agent: str, day: str, session: str, texts: list[str]) -> dict[str, Any]:
    argv = ["append", "--json", "--vault", vault, "--agent", agent, "--date", day]
    proc = subprocess.run(
        [sys.executable, "-m", "journal_agent", *argv, "--session", session, *texts],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    if proc.returncode == 0:
        data = json.loads(proc.stdout)
        return {"ok": True, "written": data["written"], "duplicates": data["duplicates"]}
    lines = proc.stderr.splitlines()
    clean = proc.returncode in (1, 2) and len(lines) == 1 and "Traceback" not in proc.stderr
    clean = clean and "internal error" not in proc.stderr
    return {"ok": False, "error": f"exit {proc.returncode}: {proc.stderr.strip()}", "clean": clean}


def _agent(
    vault: str,
    pages: list[str],
    who: tuple[str, str, str, int, int],
    barrier: Any,
    finished: Any,
    out: str,
) -> None:
    agent, worker, how, appends, per = who
    if how == "api-no-lease":
        import journal_agent.backends.disk as disk

        disk.take_lease = lambda fd: "none"
    append = _append_cli if how == "cli" else _append_api
    rng = random.Random(out)
    reports = []
    for r, page in enumerate(pages):
        barrier.wait()
        calls = []
        for k in range(appends):
            time.sleep(rng.uniform(*GAP))
            texts = bullets_of(worker, r, k, per)
            attempts = []
            for _ in range(RETRIES):
                outcome = append(vault, agent, day_of(r), f"{worker}-{r}", texts)
                lines = {x.strip() for x in Path(page).read_text().split("\n")}
                outcome["there"] = [t for t in texts if f"- {t}" in lines]  # right after
                attempts.append(outcome)
                if outcome["ok"]:
                    break
                time.sleep(rng.uniform(0.01, 0.05))
            calls.append({"agent": agent, "bullets": texts, "attempts": attempts})
        with finished.get_lock():
            finished.value += 1
        reports.append(calls)
    Path(out).write_text(json.dumps(reports))


# ---------------------------------------------------------------------------------------------
# the test


def _run(procs: list[Any]) -> None:
    """Start every process and wait for all; one that fails stops the others at once."""
    for p in procs:
        p.start()
    deadline = time.monotonic() + DEADLINE * ROUNDS
    try:
        while any(p.is_alive() for p in procs) and time.monotonic() < deadline:
            if any(p.exitcode for p in procs):
                break
            time.sleep(0.05)
        assert [p.exitcode for p in procs] == [0] * len(procs), [p.exitcode for p in procs]
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join()


def _check_round(
    vault: Path,
    page: Path,
    editor: dict[str, Any],
    calls: list[dict[str, Any]],
    window: float | None = None,
) -> tuple[list[str], Counter[str]]:
    """The problems of one round's page, and its counts. ``window``: without a lease, how long
    a page must have stood unmodified to be read (`backends.file.QUIET`, and
    `SUSPICIOUS_QUIET` for an empty one): a save that really left the page incomplete that
    long (its process not scheduled on a loaded machine) is past what that rule can tell from
    a finished one, and a loss after it is counted apart, not as a problem."""
    problems: list[str] = []
    counts: Counter[str] = Counter()
    text = page.read_text()
    lines = text.split("\n")
    name = page.name
    if text != editor["final"]:
        problems.append(f"{name}: the page is not the editor's final save (written after it)")

    # the human's lines: every one the editor saved is there, once
    missing = [x for x in editor["saved"] if lines.count(x) != 1]
    counts["human lines"] += len(editor["saved"])
    counts["human lines lost"] += len(missing)
    first = editor["lost"][0] if editor["lost"] else None
    if missing and window is not None and first and first["slowest_save"] >= window:
        counts["human lines lost past the no-lease window"] += len(missing)
    elif missing:
        seen = f"; first seen gone at save {first['at_save']}: {first['gone'][:3]}" if first else ""
        slowest = f" (slowest save so far {first['slowest_save']:.3f} s)" if first else ""
        problems.append(
            f"{name}: {len(missing)} human line(s) lost, e.g. {missing[:3]}{seen}{slowest}"
        )
    counts["editor saves"] += editor["stats"].get("saves", 0)
    counts["editor saves displaced"] += editor["stats"].get("not_landed", 0)
    counts["editor reloads"] += editor["stats"].get("reloads", 0)

    # the bullets: written once, or reported as not written and nowhere
    rel = page.relative_to(vault).as_posix()
    ledgers = {a: ledger_counts(vault, rel, a) for a in {call["agent"] for call in calls}}
    bad: dict[str, list[str]] = {}
    for call in calls:
        attempts = call["attempts"]
        counts["appends"] += 1
        counts["attempts"] += len(attempts)
        succeeded = attempts[-1]["ok"]
        counts["appends written" if succeeded else "appends refused"] += 1
        for a in attempts:
            if not a["ok"] and not a["clean"]:
                bad.setdefault("failed without a one-line JournalAgentError", []).append(a["error"])
            if not a["ok"] and a["there"]:
                bad.setdefault("on the page right after a failed append", []).extend(a["there"])
        for t in call["bullets"]:
            counts["bullets"] += 1
            on_page = sum(1 for x in lines if x.strip() == f"- {t}")
            reported = sum(a.get("written", []).count(t) for a in attempts)
            in_ledger = ledgers[call["agent"]][t]
            if on_page > 1:
                bad.setdefault("duplicated on the page", []).append(t)
            if succeeded and on_page == 0:
                bad.setdefault("reported written, missing from the page", []).append(t)
            if succeeded and (reported, in_ledger) != (1, 1):
                what = f"{t!r}: reported written {reported}, in the ledger {in_ledger} time(s)"
                bad.setdefault("not reported written once, or not in the ledger once", []).append(
                    what
                )
            if not succeeded and (on_page, in_ledger) != (0, 0):
                what = f"{t!r}: on the page {on_page}, in the ledger {in_ledger} time(s)"
                bad.setdefault("reported not written, yet there", []).append(what)
    for what, items in bad.items():
        counts[f"bullets {what}"] += len(items)
        problems.append(f"{name}: {len(items)} {what}, e.g. {items[:2]}")
    return problems, counts


@pytest.mark.parametrize("torn", [False, True], ids=["truncate-pause-write", "torn-half-save"])
@pytest.mark.parametrize(
    "agents", [SEQUENTIAL, PARALLEL, NO_LEASE], ids=["sequential", "parallel", "no-lease"]
)
def test_no_human_line_lost_to_agents_racing_a_slow_in_place_save(
    logseq_vault: Path, tmp_path: Path, torn: bool, agents: list[tuple[str, str, str, int, int]]
) -> None:
    before = visible_files(logseq_vault)
    pages = [journal(logseq_vault, day_of(r)) for r in range(ROUNDS)]
    for page in pages:
        assert not page.exists()
        page.write_bytes(SEED)
    barrier = SPAWN.Barrier(len(agents) + 1)
    finished = SPAWN.Value("i", 0)
    args = ([str(p) for p in pages], barrier, finished)
    procs = [
        SPAWN.Process(
            target=_agent, args=(str(logseq_vault), args[0], who, *args[1:], str(tmp_path / w))
        )
        for who in agents
        for w in [f"agent-{who[1]}.json"]
    ]
    editor_out = tmp_path / "editor.json"
    editor_args = (args[0], torn, *args[1:], len(agents), str(editor_out))
    procs.append(SPAWN.Process(target=_editor, args=editor_args))
    _run(procs)

    editors = json.loads(editor_out.read_text())
    reports = [json.loads((tmp_path / f"agent-{who[1]}.json").read_text()) for who in agents]
    problems: list[str] = []
    counts: Counter[str] = Counter(rounds=ROUNDS)
    leased = agents is not NO_LEASE
    window = None if leased else file_backend.QUIET if torn else file_backend.SUSPICIOUS_QUIET
    for r, page in enumerate(pages):
        calls = [call for report in reports for call in report[r]]
        found, n = _check_round(logseq_vault, page, editors[r], calls, window)
        problems += found
        counts.update(n)
    leftovers = sorted(p.name for p in pages[0].parent.iterdir() if p.name.startswith("."))
    if leftovers:
        problems.append(f"hidden files left in journals/: {leftovers}")
    appeared = (
        visible_files(logseq_vault)
        - before
        - {p.relative_to(logseq_vault).as_posix() for p in pages}
    )
    if appeared:
        problems.append(f"files appeared: {sorted(appeared)}")

    summary = ", ".join(f"{k}: {v}" for k, v in counts.items())
    print(f"slow-save race ({'torn' if torn else 'truncate'}): {summary}")
    assert counts["editor saves"] >= 5 * ROUNDS, summary  # it really raced
    assert counts["appends written"] > 0, (
        f"no append went through, the race proved nothing: {summary}"
    )
    assert not problems, f"{len(problems)} problem(s) ({summary}):\n" + "\n".join(problems[:30])
