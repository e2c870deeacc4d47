"""The no-loss matrix: however a session ends, every bullet an agent handed over ends written
exactly once, or pending and shown at the next session start — never lost, never twice.

Each case runs over several rounds (``JOURNAL_AGENT_HEAVY=1``: many more) against the installed
``journal-agent`` as the hosts run it, with the faults injected into the child process
(`tests/faults/sitecustomize.py`): a refused link, a page locked past the budget, a hook SIGKILLed
at a random point, a read-only vault, a missing vault, a full disk, two sessions ending at once,
the same Stop payload delivered twice. After each round the fault is kept for one session start
(what is not written must be listed there, with its reason), then removed for another (everything
must now be on the page exactly once).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from journal_agent.state import PageLock, StateDir
from journal_agent.vault import open_vault

from .hookkit import (
    CLI,
    context_of,
    count_on_page,
    environment,
    hook,
    payload,
    pending_texts,
    reply,
    write_transcript,
)

HEAVY = bool(os.environ.get("JOURNAL_AGENT_HEAVY"))
ROUNDS = 30 if HEAVY else 4
HOST = "claude-code"


def rounds(n: int = ROUNDS) -> Iterator[int]:
    yield from range(n)


def bullets(case: str, n: int, k: int = 3) -> list[str]:
    return [f"{case} round {n} bullet {i} on [[Grafana]]" for i in range(k)]


def stop(env: dict[str, str], vault: Path, session: str, texts: list[str], *args: str) -> None:
    call = payload(HOST, "turn", session, last_assistant_message=reply(*texts))
    done = hook(HOST, "Stop", call, env, vault, *args)
    assert done.returncode in (0, 1) and done.stdout == "", (done.stdout, done.stderr)


def start(env: dict[str, str], vault: Path, *args: str) -> str:
    """A session start; its context (it must exit 0 whatever happened)."""
    done = hook(HOST, "SessionStart", payload(HOST, "start", "next"), env, vault, *args)
    assert done.returncode == 0, done.stderr
    return context_of(HOST, done.stdout)


def accounted(env: dict[str, str], vault: Path, texts: list[str], shown: str) -> None:
    """Each bullet is on today's page exactly once, or not at all and pending and ``shown``."""
    waiting = pending_texts(vault, env) if vault.exists() else []
    for text in texts:
        on_page = count_on_page(vault, text) if vault.exists() else 0
        if on_page:
            assert on_page == 1 and text not in waiting, f"twice: {text}"
        else:
            assert waiting.count(text) == 1, f"lost: {text}"
            assert text in shown, f"not shown at the next start: {text}"


def written_once(env: dict[str, str], vault: Path, texts: list[str]) -> None:
    assert [count_on_page(vault, t) for t in texts] == [1] * len(texts)
    assert not set(texts) & set(pending_texts(vault, env))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return environment(tmp_path, JA_TEST_PROJECTION="")


def test_a_refused_link(logseq_vault: Path, env: dict[str, str]) -> None:
    for n in rounds():
        good = bullets("refused", n, 2)
        bad = f"refused round {n} links [[Missing {n}]]"
        stop(env, logseq_vault, f"s{n}", [good[0], bad, good[1]])
        shown = start(env, logseq_vault)
        accounted(env, logseq_vault, [*good, bad], shown)
        assert count_on_page(logseq_vault, bad) == 0 and f"no page named 'Missing {n}'" in shown
        (logseq_vault / "pages" / f"Missing {n}.md").write_text("- now it exists\n")
        start(env, logseq_vault)
        written_once(env, logseq_vault, [*good, bad])


def today_lock(vault: Path) -> PageLock:
    page = open_vault(vault).journal_page(dt.date.today())
    return PageLock(StateDir.of(vault), page.path, 1.0)


def test_a_page_locked_past_the_budget(logseq_vault: Path, env: dict[str, str]) -> None:
    for n in rounds():
        texts = bullets("locked", n)
        with today_lock(logseq_vault):
            stop(env, logseq_vault, f"s{n}", texts, "--budget", "0.3")
            shown = start(env, logseq_vault, "--budget", "0.3")
            accounted(env, logseq_vault, texts, shown)
            assert "held the page" in shown
        start(env, logseq_vault)
        written_once(env, logseq_vault, texts)


def test_session_end_hands_a_locked_page_to_a_detached_process(
    logseq_vault: Path, env: dict[str, str], tmp_path: Path
) -> None:
    for n in rounds(max(2, ROUNDS // 2)):
        texts = bullets("detached", n)
        transcript = write_transcript(HOST, tmp_path / f"t{n}.jsonl", [reply(*texts)])
        call = payload(HOST, "end", f"s{n}", transcript_path=str(transcript))
        with today_lock(logseq_vault):
            began = time.monotonic()
            argv = [str(CLI), "hook", HOST, "SessionEnd", "--vault", str(logseq_vault)]
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True
            )
            out, _ = proc.communicate(json.dumps(call).encode(), timeout=30)
            assert (proc.returncode, out) == (0, b"") and time.monotonic() - began < 2.5
            try:  # the host ends the hook's process group: the detached writer is not in it
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            assert [count_on_page(logseq_vault, t) for t in texts] == [0] * len(texts)
            time.sleep(0.3)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and count_on_page(logseq_vault, texts[-1]) == 0:
            time.sleep(0.05)
        written_once(env, logseq_vault, texts)  # by the detached process, not by a start


def killed(argv: list[str], env: dict[str, str], stdin: bytes, after: float) -> float | None:
    """Run the CLI and SIGKILL it ``after`` seconds in: None if it was killed (not done yet),
    else how long it ran."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(CLI), *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    while proc.poll() is None and time.monotonic() - started < after:
        time.sleep(0.002)
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return None if proc.wait() == -signal.SIGKILL else time.monotonic() - started


def test_hooks_sigkilled_at_random_points(
    logseq_vault: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Stop killed (the session end finds the reply in the transcript), a flush killed, a
    session start killed half-way through its sweep: each recovered by the next hook."""
    rng = random.Random(20261130)
    vault = ["--vault", str(logseq_vault)]
    kills = 0
    # per kind of run, the longest delay drawn: within a run (0.05 to 0.4 s, by machine), lowered
    # to how long a run of that kind took when it was not cut, so that most runs are cut short
    bound = [0.25, 0.25, 0.25]
    for n in rounds(3 * ROUNDS):
        texts = bullets("killed", n)
        kind = n % 3
        after = rng.uniform(0.0, bound[kind])
        if kind == 0:
            call = payload(HOST, "turn", f"s{n}", last_assistant_message=reply(*texts))
            took = killed(["hook", HOST, "Stop", *vault], env, json.dumps(call).encode(), after)
            transcript = write_transcript(HOST, tmp_path / f"t{n}.jsonl", [reply(*texts)])
            end = payload(HOST, "end", f"s{n}", transcript_path=str(transcript))
            assert hook(HOST, "SessionEnd", end, env, logseq_vault).returncode == 0
        else:
            args = ["note", *vault, "--agent", "claude", "--session", f"s{n}", "--budget", "0"]
            done = subprocess.run([str(CLI), *args, *texts], env=env, capture_output=True)
            assert done.returncode == 0
            argv = (
                ["pending", "flush", *vault]
                if kind == 1
                else ["hook", HOST, "SessionStart", *vault]
            )
            took = killed(argv, env, b"{}", after)
        if took is None:
            kills += 1
        else:
            bound[kind] = min(bound[kind], took)
        shown = start(env, logseq_vault)
        accounted(env, logseq_vault, texts, shown)
        written_once(env, logseq_vault, texts)
    assert kills >= ROUNDS  # most runs were cut short, not finished before the signal


def test_a_read_only_vault(logseq_vault: Path, env: dict[str, str]) -> None:
    """Everything under the vault refuses writes (EROFS): the bullets wait outside it."""
    faulty = dict(env, JA_TEST_FAULT=f"readonly:{logseq_vault}")
    for n in rounds():
        texts = bullets("readonly", n)
        stop(faulty, logseq_vault, f"s{n}", texts)
        shown = start(faulty, logseq_vault)
        accounted(env, logseq_vault, texts, shown)
        assert "read-only" in shown and all(count_on_page(logseq_vault, t) == 0 for t in texts)
        start(env, logseq_vault)
        written_once(env, logseq_vault, texts)


def test_a_read_only_journal_page(logseq_vault: Path, env: dict[str, str]) -> None:
    for n in rounds():
        texts = bullets("readonly-page", n)
        page = logseq_vault / "journals" / f"{dt.date.today():%Y_%m_%d}.md"
        if not page.exists():
            page.write_text("- the person's own note\n")
        page.chmod(0o444)
        stop(env, logseq_vault, f"s{n}", texts)
        shown = start(env, logseq_vault)
        accounted(env, logseq_vault, texts, shown)
        assert "is read-only" in shown
        page.chmod(0o644)
        start(env, logseq_vault)
        written_once(env, logseq_vault, texts)


def test_a_missing_vault(logseq_vault: Path, env: dict[str, str], tmp_path: Path) -> None:
    away = tmp_path / "unmounted"
    for n in rounds():
        texts = bullets("missing", n)
        logseq_vault.rename(away)
        stop(env, logseq_vault, f"s{n}", texts)
        shown = start(env, logseq_vault)
        assert f"{logseq_vault}: no such folder" in shown
        assert all(t in shown for t in texts)
        assert sorted(pending_texts(logseq_vault, env)) == sorted(texts)
        away.rename(logseq_vault)
        start(env, logseq_vault)
        written_once(env, logseq_vault, texts)


def test_a_full_disk(logseq_vault: Path, env: dict[str, str]) -> None:
    """Writing the page's new version fails half-way with ENOSPC: the page stays as it was."""
    faulty = dict(env, JA_TEST_FAULT=f"enospc:{logseq_vault}")
    for n in rounds():
        texts = bullets("full", n)
        page = logseq_vault / "journals" / f"{dt.date.today():%Y_%m_%d}.md"
        before = page.read_bytes() if page.exists() else None
        stop(faulty, logseq_vault, f"s{n}", texts)
        shown = start(faulty, logseq_vault)
        accounted(env, logseq_vault, texts, shown)
        assert "the disk is full" in shown
        assert (page.read_bytes() if page.exists() else None) == before
        start(env, logseq_vault)
        written_once(env, logseq_vault, texts)


def test_two_sessions_ending_at_once(
    logseq_vault: Path, env: dict[str, str], tmp_path: Path
) -> None:
    for n in rounds():
        shared = f"both sessions round {n} on [[Flaky CI]]"  # one agent, one page: written once
        mine = {s: [*bullets(f"session {s}", n, 2), shared] for s in ("a", "b")}
        calls = []
        for s, texts in mine.items():
            transcript = write_transcript(HOST, tmp_path / f"{s}{n}.jsonl", [reply(*texts)])
            calls.append(payload(HOST, "end", f"{s}{n}", transcript_path=str(transcript)))
        with ThreadPoolExecutor(4) as pool:
            ends = [pool.submit(hook, HOST, "SessionEnd", c, env, logseq_vault) for c in calls]
            stops = [
                pool.submit(stop, env, logseq_vault, f"{s}{n}", texts) for s, texts in mine.items()
            ]
            assert all(f.result().returncode == 0 for f in ends)
            [f.result() for f in stops]
        every = sorted({t for texts in mine.values() for t in texts})
        accounted(env, logseq_vault, every, start(env, logseq_vault))
        written_once(env, logseq_vault, every)


def test_the_same_stop_payload_twice(logseq_vault: Path, env: dict[str, str]) -> None:
    for n in rounds():
        texts = bullets("twice", n)
        stop(env, logseq_vault, f"s{n}", texts)
        stop(env, logseq_vault, f"s{n}", texts)  # delivered again, one after the other
        both = bullets("twice-at-once", n)
        with ThreadPoolExecutor(2) as pool:
            [f.result() for f in [pool.submit(stop, env, logseq_vault, f"t{n}", both)] * 2]
            again = [pool.submit(stop, env, logseq_vault, f"t{n}", both) for _ in range(2)]
            [f.result() for f in again]
        accounted(env, logseq_vault, texts + both, start(env, logseq_vault))
        written_once(env, logseq_vault, texts + both)
