"""``journal-agent hook HOST EVENT`` as each host runs it: the installed CLI as a subprocess, fed
the payloads the hosts send, its stdout read the way that host reads it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .hookkit import (
    HOSTS,
    assert_quiet,
    context_of,
    count_on_page,
    environment,
    hook,
    journal_text,
    payload,
    pending_texts,
    reply,
    run,
    system_message,
    write_transcript,
)

PROJECTION = "# What is live\n\n- [[Atlas Migration]]: active, 3 mentions this week"
ALL = sorted(HOSTS)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return environment(tmp_path, JA_TEST_PROJECTION=PROJECTION)


@pytest.mark.parametrize("host", ALL)
def test_start_prints_the_projection_in_the_hosts_form(
    host: str, logseq_vault: Path, env: dict[str, str]
) -> None:
    done = hook(host, "SessionStart", payload(host, "start", "s1"), env, logseq_vault)
    assert (done.returncode, done.stderr) == (0, "")
    context = context_of(host, done.stdout)
    assert context.startswith(PROJECTION)
    assert "fenced block tagged `journal`" in context  # how to hand bullets over
    assert "Pending" not in context and system_message(host, done.stdout) is None


def test_a_cwd_that_is_no_path_gets_the_whole_vaults_projection(
    logseq_vault: Path, tmp_path: Path
) -> None:
    call = payload("claude-code", "start", "s1", cwd="/x\0y")
    done = hook("claude-code", "SessionStart", call, environment(tmp_path), logseq_vault)
    assert (done.returncode, done.stderr) == (0, "")
    assert "whole vault" in context_of("claude-code", done.stdout)


def test_codex_never_gets_half_json(logseq_vault: Path, tmp_path: Path) -> None:
    """A projection that begins like JSON goes out as a whole hookSpecificOutput object."""
    env = environment(tmp_path, JA_TEST_PROJECTION='{"not": "json"} and then prose')
    done = hook("codex", "SessionStart", payload("codex", "start", "s1"), env, logseq_vault)
    data = json.loads(done.stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert data["hookSpecificOutput"]["additionalContext"].startswith('{"not"')


@pytest.mark.parametrize("host", ALL)
def test_a_turn_records_and_writes_its_bullets_and_prints_no_context(
    host: str, logseq_vault: Path, env: dict[str, str]
) -> None:
    bullets = [f"{host} fixed the runner of [[Flaky CI]]", f"{host} checked [[Grafana]]"]
    message = {HOSTS[host]["message"]: reply(*bullets)}
    done = hook(
        host, HOSTS[host]["turn"], payload(host, "turn", "s1", **message), env, logseq_vault
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert_quiet(host, done.stdout)
    assert [count_on_page(logseq_vault, b) for b in bullets] == [1, 1]
    assert f"- {HOSTS[host]['agent']} log" in journal_text(logseq_vault).splitlines()


@pytest.mark.parametrize("host", ALL)
def test_a_turns_bullets_land_in_the_order_of_its_journal_block(
    host: str, logseq_vault: Path, env: dict[str, str]
) -> None:
    bullets = [f"{host} {n} on [[Grafana]]" for n in ("one", "two", "three", "four")]
    message = {HOSTS[host]["message"]: reply(*bullets)}
    done = hook(
        host, HOSTS[host]["turn"], payload(host, "turn", "s1", **message), env, logseq_vault
    )
    assert done.returncode == 0, done.stderr
    page = [line.strip()[2:] for line in journal_text(logseq_vault).splitlines()]
    assert [line for line in page if line in bullets] == bullets


@pytest.mark.parametrize("host", [*ALL, "gemini-log"])
@pytest.mark.parametrize("phase", ["compact", "end"])
def test_compaction_and_end_take_every_reply_of_the_transcript(
    host: str, phase: str, logseq_vault: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Gemini CLI's transcript is one JSON document before 0.39, a JSONL log since."""
    name = {"gemini": "chat.json", "gemini-log": "session-s.jsonl"}.get(host, "rollout.jsonl")
    host = host.removesuffix("-log")
    first, second = f"{host} {phase} one on [[Grafana]]", f"{host} {phase} two on [[Flaky CI]]"
    transcript = write_transcript(host, tmp_path / name, [reply(first), "no block", reply(second)])
    call = payload(host, phase, "s1", transcript_path=str(transcript))
    done = hook(host, HOSTS[host][phase], call, env, logseq_vault)
    assert (done.returncode, done.stderr) == (0, "")
    assert_quiet(host, done.stdout)
    # at the end, what did not fit the host's budget is written by a detached process
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and count_on_page(logseq_vault, second) == 0:
        time.sleep(0.05)
    assert [count_on_page(logseq_vault, first), count_on_page(logseq_vault, second)] == [1, 1]


@pytest.mark.parametrize("host", ALL)
def test_a_turn_without_the_message_reads_the_transcripts_last_reply(
    host: str, logseq_vault: Path, env: dict[str, str], tmp_path: Path
) -> None:
    old, last = f"{host} older on [[Grafana]]", f"{host} last on [[Flaky CI]]"
    name = "chat.json" if host == "gemini" else "t.jsonl"
    transcript = write_transcript(host, tmp_path / name, [reply(old), reply(last)])
    call = payload(host, "turn", "s1", transcript_path=str(transcript))
    call.pop(HOSTS[host]["message"], None)
    done = hook(host, HOSTS[host]["turn"], call, env, logseq_vault)
    assert done.returncode == 0, done.stderr
    assert (count_on_page(logseq_vault, old), count_on_page(logseq_vault, last)) == (0, 1)


@pytest.mark.parametrize("host", ALL)
def test_the_event_comes_from_the_payload_when_omitted(
    host: str, logseq_vault: Path, env: dict[str, str]
) -> None:
    bullet = f"{host} named no event, [[Grafana]]"
    call = payload(host, "turn", "s1", **{HOSTS[host]["message"]: reply(bullet)})
    done = hook(host, None, call, env, logseq_vault)
    assert done.returncode == 0 and count_on_page(logseq_vault, bullet) == 1


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_subagents_are_skipped(host: str, logseq_vault: Path, env: dict[str, str]) -> None:
    bullet = f"{host} subagent note on [[Grafana]]"
    call = payload(host, "turn", "s1", last_assistant_message=reply(bullet), agent_id="sub-1")
    done = hook(host, "Stop", call, env, logseq_vault)
    assert (done.returncode, done.stdout) == (0, "")
    assert count_on_page(logseq_vault, bullet) == 0 and pending_texts(logseq_vault, env) == []


@pytest.mark.parametrize("host", ALL)
def test_a_reply_after_another_hook_blocked_is_taken_once(
    host: str, logseq_vault: Path, env: dict[str, str]
) -> None:
    """``stop_hook_active``: the host went on (another Stop hook blocked; Gemini retried) and
    this is the new reply. Nothing is printed that could make the host go on again, and the
    same reply taken twice is written once."""
    bullet = f"{host} reply after a retry on [[Grafana]]"
    message = {HOSTS[host]["message"]: reply(bullet), "stop_hook_active": True}
    for _ in range(2):
        done = hook(host, HOSTS[host]["turn"], payload(host, "turn", "s1", **message), env,
                    logseq_vault)  # fmt: skip
        assert done.returncode == 0
        assert_quiet(host, done.stdout) if host != "gemini" else json.loads(done.stdout)
    assert count_on_page(logseq_vault, bullet) == 1 and pending_texts(logseq_vault, env) == []


@pytest.mark.parametrize("host", ALL)
def test_a_refused_bullet_stays_pending_and_shows_at_the_next_start(
    host: str, logseq_vault: Path, env: dict[str, str]
) -> None:
    good, bad = f"{host} good on [[Grafana]]", f"{host} links [[No Such Page]]"
    call = payload(host, "turn", "s1", **{HOSTS[host]["message"]: reply(bad, good)})
    done = hook(host, HOSTS[host]["turn"], call, env, logseq_vault)
    assert done.returncode == 0 and "No Such Page" in done.stderr
    assert_quiet(host, done.stdout) if host != "gemini" else json.loads(done.stdout)
    assert count_on_page(logseq_vault, good) == 1 and count_on_page(logseq_vault, bad) == 0
    assert pending_texts(logseq_vault, env) == [bad]
    start = hook(host, "SessionStart", payload(host, "start", "s2"), env, logseq_vault)
    context = context_of(host, start.stdout)
    assert bad in context and "no page named 'No Such Page'" in context


@pytest.mark.parametrize("host", ALL)
def test_start_fails_open_with_a_one_line_note(host: str, tmp_path: Path) -> None:
    env = environment(tmp_path, JA_TEST_PROJECTION="!raise")
    missing = tmp_path / "unmounted"
    done = hook(host, "SessionStart", b"not json at all", env, missing)
    assert done.returncode == 0
    note = f"journal-agent: {missing}: no such folder"
    assert context_of(host, done.stdout).startswith(note)
    if host != "codex":
        assert system_message(host, done.stdout) == note


@pytest.mark.parametrize("host", ALL)
def test_a_broken_projection_still_shows_the_pending_bullets(
    host: str, logseq_vault: Path, tmp_path: Path
) -> None:
    env = environment(tmp_path, JA_TEST_PROJECTION="!raise")
    bad = "links [[No Such Page]]"
    run(["note", "--vault", str(logseq_vault), "--agent", HOSTS[host]["agent"], bad], env)
    done = hook(host, "SessionStart", payload(host, "start", "s1"), env, logseq_vault)
    context = context_of(host, done.stdout)
    assert done.returncode == 0
    assert "no projection: internal error" in context and bad in context


def test_a_host_or_event_not_ours_is_a_note_never_a_block(
    logseq_vault: Path, env: dict[str, str]
) -> None:
    for argv in (["hook", "cursor", "stop"], ["hook", "claude-code", "Notification"]):
        done = run(argv + ["--vault", str(logseq_vault)], env, b"{}")
        assert (done.returncode, done.stdout) == (0, "") and done.stderr.count("\n") == 1
    done = run(["hook", "gemini", "BeforeTool"], env, b"{}")
    assert (done.returncode, json.loads(done.stdout)) == (0, {})
    done = run(["hook", "claude-code", "Stop", "--no-such-option"], env, b"{}")
    assert done.returncode == 1  # never 2: Claude Code would keep the session going


def test_the_vault_comes_from_the_config_file(logseq_vault: Path, tmp_path: Path) -> None:
    env = environment(tmp_path)
    Path(env["JOURNAL_AGENT_CONFIG"]).write_text(f'vault = "{logseq_vault}"\n')
    bullet = "configured vault note on [[Grafana]]"
    call = payload("claude-code", "turn", "s1", last_assistant_message=reply(bullet))
    done = hook("claude-code", "Stop", call, env)
    assert done.returncode == 0 and count_on_page(logseq_vault, bullet) == 1
    env["JOURNAL_AGENT_VAULT"] = str(tmp_path / "elsewhere")
    done = hook("claude-code", "SessionStart", payload("claude-code", "start", "s2"), env)
    assert "elsewhere: no such folder" in context_of("claude-code", done.stdout)


def test_note_and_pending_commands(logseq_vault: Path, env: dict[str, str]) -> None:
    vault = ["--vault", str(logseq_vault)]
    done = run(["note", *vault, "--agent", "claude", "Noted [[Grafana]]", "See [[Nowhere]]"], env)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "written  Noted [[Grafana]]" in lines[0]
    assert "pending: no page named 'Nowhere'" in lines[1]
    listed = json.loads(run(["pending", *vault, "--json"], env).stdout)["pending"]
    [item] = listed
    fixed = run(["pending", "fix", item["id"][:8], "See [[Grafana]] instead", *vault], env)
    assert fixed.returncode == 0 and fixed.stdout.startswith("written")
    assert run(["pending", *vault], env).stdout == "nothing pending\n"
    assert count_on_page(logseq_vault, "See [[Grafana]] instead") == 1
    run(["note", *vault, "--agent", "claude", "Again [[Nowhere]]"], env)
    [item] = json.loads(run(["pending", *vault, "--json"], env).stdout)["pending"]
    dropped = run(["pending", "drop", item["id"], *vault], env)
    assert dropped.stdout.startswith("dropped") and pending_texts(logseq_vault, env) == []
    again = run(["note", *vault, "--agent", "claude", "Again [[Nowhere]]"], env)
    assert "recorded before" in again.stdout  # a dropped bullet does not come back
    assert run(["pending", "drop", "zzzz", *vault], env).returncode == 2


def test_a_refused_bullets_terminal_escapes_are_never_printed_raw(
    logseq_vault: Path, tmp_path: Path
) -> None:
    """A bullet refused for its control characters stays pending; every listing of it (the
    pending list, note, context, the start hook) escapes them as the warnings do."""
    env, vault = environment(tmp_path), ["--vault", str(logseq_vault)]
    bullet = "esc \x1b]0;PWNED\x07 \x1b[2J bullet"
    call = payload("claude-code", "turn", "s1", last_assistant_message=reply(bullet))
    assert hook("claude-code", "Stop", call, env, logseq_vault).returncode == 0
    shown = "esc \\x1b]0;PWNED\\x07 \\x1b[2J bullet"
    start = hook(
        "claude-code", "SessionStart", payload("claude-code", "start", "s2"), env, logseq_vault
    )
    outputs = [
        run(["pending", *vault], env).stdout,
        run(["note", *vault, "--agent", "claude", "--budget", "0", bullet], env).stdout,
        run(["context", *vault, "--agent", "claude"], env).stdout,
        context_of("claude-code", start.stdout),
    ]
    for out in outputs:
        assert shown in out and "\x1b" not in out and "\x07" not in out


def test_odd_lines_never_hold_back_the_others(logseq_vault: Path, env: dict[str, str]) -> None:
    """A journal block line too large to be a bullet, or holding a lone surrogate (JSON allows
    one), is dealt with on its own; the other bullets are recorded and written."""
    good = "kept despite its neighbours, [[Grafana]]"
    text = reply("x" * 20000, "half a character \ud800 here", good)
    call = payload("claude-code", "turn", "s1", last_assistant_message=text)
    done = hook("claude-code", "Stop", call, env, logseq_vault)
    assert (done.returncode, done.stdout) == (0, "")
    assert "over 16384 bytes left out" in done.stderr
    assert count_on_page(logseq_vault, good) == 1
    assert count_on_page(logseq_vault, "half a character ? here") == 1


def test_a_journal_block_inside_another_fenced_block_is_said_not_taken(
    logseq_vault: Path, env: dict[str, str]
) -> None:
    """A reply that left a code fence open above its journal block: by CommonMark the journal
    fence is the code block's content (and its closing fence closes the code block), so no
    bullet is taken, and the hook says so rather than drop them silently."""
    text = "Fixed it:\n```python\nx = 1\n\n```journal\n- Fixed the [[Grafana]] alert\n```\n"
    call = payload("claude-code", "turn", "s1", last_assistant_message=text)
    done = hook("claude-code", "Stop", call, env, logseq_vault)
    assert (done.returncode, done.stdout) == (0, "")
    assert "1 journal block(s) inside another fenced block not taken" in done.stderr
    assert count_on_page(logseq_vault, "Fixed the [[Grafana]] alert") == 0


def test_a_huge_transcript_is_read_from_its_end_and_what_is_left_said(
    logseq_vault: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """A long session's transcript past the 64 MB a hook reads: its newest replies are taken,
    the megabyte tool results skipped unparsed, and the part left unread is said in one line."""
    early, late = "early in a long session [[Grafana]]", "late in a long session [[Flaky CI]]"
    path = write_transcript("claude-code", tmp_path / "long.jsonl", [reply(early)])
    tool = {"type": "user", "toolUseResult": {}, "message": {"role": "user", "content": "x"}}
    line = json.dumps(tool).replace('"x"', '"' + "x" * (1 << 20) + '"') + "\n"
    with path.open("a", encoding="utf-8") as out:
        out.writelines(line for _ in range(66))
    write_transcript("claude-code", tmp_path / "last.jsonl", [reply(late)])
    with path.open("a", encoding="utf-8") as out:
        out.write((tmp_path / "last.jsonl").read_text(encoding="utf-8"))
    call = payload("claude-code", "end", "s1", transcript_path=str(path))
    done = hook("claude-code", "SessionEnd", call, env, logseq_vault)
    assert done.returncode == 0 and done.stdout == ""
    [note] = done.stderr.splitlines()
    assert f"transcript {path}: its first " in note and "MB not read" in note
    deadline = time.monotonic() + 20  # what did not fit the budget is written detached
    while time.monotonic() < deadline and count_on_page(logseq_vault, late) == 0:
        time.sleep(0.05)
    assert (count_on_page(logseq_vault, early), count_on_page(logseq_vault, late)) == (0, 1)


HEAVY = ("networkx", "mistune", "httpx", "yaml", "edn_format", "rapidfuzz", "watchdog", "mcp")


@pytest.mark.parametrize("phase", ["start", "turn", "end"])
def test_the_hook_path_imports_nothing_heavy(
    phase: str, logseq_vault: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Measured with ``python -X importtime``; config.edn's reader runs once per change of the
    file (its result is cached), so the warm path is measured, as hooks run it."""
    transcript = write_transcript("claude-code", tmp_path / "t.jsonl", [reply("a [[Grafana]]")])
    call = payload(
        "claude-code",
        phase,
        "s1",
        transcript_path=str(transcript),
        last_assistant_message=reply(f"imports {phase} [[Grafana]]"),
    )
    event = HOSTS["claude-code"][phase]
    assert hook("claude-code", event, call, env, logseq_vault).returncode == 0  # warms the cache
    argv = [sys.executable, "-X", "importtime", "-m", "journal_agent", "hook", "claude-code"]
    done = subprocess.run(
        [*argv, event, "--vault", str(logseq_vault)],
        input=json.dumps(call).encode(),
        env=env,
        capture_output=True,
        check=True,
    )
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:")
    }
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))


def test_each_agent_is_shown_its_own_pending_bullets(
    logseq_vault: Path, env: dict[str, str]
) -> None:
    """Every start writes what any agent left; each agent is shown what is still its own."""
    bad = "codex links [[Nowhere Yet]]"
    run(["note", "--vault", str(logseq_vault), "--agent", "codex", bad], env)
    claude = hook(
        "claude-code", "SessionStart", payload("claude-code", "start", "s"), env, logseq_vault
    )
    codex = hook("codex", "SessionStart", payload("codex", "start", "s"), env, logseq_vault)
    assert bad not in context_of("claude-code", claude.stdout)
    assert bad in context_of("codex", codex.stdout)
