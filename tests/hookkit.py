"""Running the installed ``journal-agent`` the way agent hosts do, and reading its answers the way
each host reads them. Payload shapes follow shared/reference/agent-hosts.md and the hosts'
published schemas (Claude Code hooks.md, Codex ``codex-rs/hooks/schema``, Gemini CLI
``docs/hooks/reference.md``)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CLI = Path(sys.executable).with_name("journal-agent")
FAULTS = Path(__file__).resolve().parent / "faults"

#: Each host's events by phase, and the payload field of the reply that just ended.
HOSTS: dict[str, dict[str, str]] = {
    "claude-code": {
        "start": "SessionStart",
        "turn": "Stop",
        "compact": "PreCompact",
        "end": "SessionEnd",
        "message": "last_assistant_message",
        "agent": "claude",
    },
    "codex": {
        "start": "SessionStart",
        "turn": "Stop",
        "compact": "PreCompact",
        "end": "SessionEnd",
        "message": "last_assistant_message",
        "agent": "codex",
    },
    "gemini": {
        "start": "SessionStart",
        "turn": "AfterAgent",
        "compact": "PreCompress",
        "end": "SessionEnd",
        "message": "prompt_response",
        "agent": "gemini",
    },
}


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A child environment that writes only under ``tmp_path``: its own HOME, XDG folders,
    config file and cache; the fault injector on PYTHONPATH (inactive unless asked)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JOURNAL_AGENT_", "JA_TEST_", "XDG_", "CODEX_", "CLAUDE_"))
    }
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(tmp_path / "xdg-state"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
        JOURNAL_AGENT_CACHE=str(tmp_path / "cache"),
        JOURNAL_AGENT_CONFIG=str(tmp_path / "journal-agent.toml"),
        PYTHONPATH=str(FAULTS),
    )
    env.update(extra)
    return env


def run(
    argv: list[str],
    env: Mapping[str, str],
    stdin: bytes | str = b"",
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run the installed CLI with ``argv``; text output."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run(
        [str(CLI), *argv], input=data, env=dict(env), capture_output=True, timeout=timeout
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def hook(
    host: str,
    event: str | None,
    payload: dict[str, Any] | bytes,
    env: Mapping[str, str],
    vault: Path | None = None,
    *args: str,
) -> subprocess.CompletedProcess[str]:
    """``journal-agent hook HOST [EVENT]`` with the host's JSON on stdin."""
    argv = ["hook", host] + ([event] if event else [])
    argv += ["--vault", str(vault)] if vault is not None else []
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return run(argv + list(args), env, data)


def _for(phase: str, table: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return table[phase]


def payload(host: str, phase: str, session: str, **fields: Any) -> dict[str, Any]:
    """A payload of ``host`` for ``phase`` (start, turn, compact, end) as the host sends it."""
    spec = HOSTS[host]
    event = spec[phase]
    base: dict[str, Any] = {
        "session_id": session,
        "transcript_path": fields.pop("transcript_path", None),
        "cwd": "/home/person/project",
        "hook_event_name": event,
    }
    extra: dict[str, Any]
    if host == "claude-code":
        base["permission_mode"] = "default"
        extra = _for(
            phase,
            {
                "start": {"source": "startup", "model": "claude-sonnet-4-5"},
                "turn": {"stop_hook_active": False},
                "compact": {"trigger": "auto", "custom_instructions": ""},
                "end": {"reason": "prompt_input_exit"},
            },
        )
    elif host == "codex":
        base["model"] = "gpt-5-codex"
        extra = _for(
            phase,
            {
                "start": {"source": "startup", "permission_mode": "default"},
                "turn": {
                    "turn_id": "turn-1",
                    "permission_mode": "default",
                    "stop_hook_active": False,
                    "last_assistant_message": None,
                },
                "compact": {"turn_id": "turn-1", "trigger": "auto"},
                "end": {"reason": "exit"},
            },
        )
    else:
        base["timestamp"] = "2026-11-30T10:00:00.000Z"
        extra = _for(
            phase,
            {
                "start": {"source": "startup"},
                "turn": {"prompt": "fix the test", "stop_hook_active": False},
                "compact": {"trigger": "auto"},
                "end": {"reason": "exit"},
            },
        )
    return {**base, **extra, **fields}


def reply(*bullets: str, prose: str = "Done: the test passes again.") -> str:
    """An assistant reply ending in a ``journal`` block."""
    block = "\n".join(f"- {b}" for b in bullets)
    return f"{prose}\n\n```journal\n{block}\n```\n"


def write_transcript(host: str, path: Path, replies: list[str]) -> Path:
    """A transcript file of ``host`` holding these assistant replies (with user turns between)."""
    now = dt.datetime.now(dt.timezone.utc).isoformat().replace("+00:00", "Z")
    if host == "gemini":
        messages: list[dict[str, Any]] = []
        for i, text in enumerate(replies):
            messages.append({"id": f"u{i}", "timestamp": now, "type": "user", "content": "go"})
            messages.append({"id": f"g{i}", "timestamp": now, "type": "gemini", "content": text})
        doc = {"sessionId": "s", "projectHash": "h", "startTime": now, "lastUpdated": now}
        if path.suffix == ".jsonl":  # its session log since Gemini CLI 0.39
            log = [doc, *messages, {"$set": {"lastUpdated": now}}]
            path.write_text("".join(json.dumps(x) + "\n" for x in log), encoding="utf-8")
        else:
            path.write_text(json.dumps({**doc, "messages": messages}), encoding="utf-8")
        return path
    lines: list[dict[str, Any]] = []
    for text in replies:
        if host == "codex":
            user = {"type": "message", "role": "user", "content": [{"type": "input_text"}]}
            lines.append({"timestamp": now, "type": "response_item", "payload": user})
            content = [{"type": "output_text", "text": text}]
            item = {"type": "message", "role": "assistant", "content": content}
            lines.append({"timestamp": now, "type": "response_item", "payload": item})
        else:
            lines.append(
                {"type": "user", "timestamp": now, "message": {"role": "user", "content": "go"}}
            )
            lines.append({"type": "assistant", "isMeta": True, "message": {"role": "assistant"}})
            content = [{"type": "thinking", "thinking": "…"}, {"type": "text", "text": text}]
            message = {"role": "assistant", "content": content}
            lines.append({"type": "assistant", "timestamp": now, "message": message})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


# -- reading the answer the way each host reads it -----------------------------------------------


def context_of(host: str, stdout: str) -> str:
    """The context a host makes of a session-start hook's stdout (exit 0), failing the way the
    host fails: Gemini takes JSON only; Codex fails a hook whose stdout looks like JSON but does
    not parse; Claude Code parses stdout as JSON when it starts with ``{``."""
    text = stdout.strip()
    if host == "gemini" or (host == "codex" and text[:1] in "{[" and text) or text[:1] == "{":
        data = json.loads(stdout)  # raises as the host would reject it
        return str(data["hookSpecificOutput"]["additionalContext"])
    return stdout


def system_message(host: str, stdout: str) -> str | None:
    """What the host shows the person from a hook's JSON answer (Claude Code, Gemini)."""
    text = stdout.strip()
    if host == "codex" or not text.startswith("{"):
        return None
    return json.loads(text).get("systemMessage")  # type: ignore[no-any-return]


def assert_quiet(host: str, stdout: str) -> None:
    """A turn or end hook's answer: nothing a host could take as context. Claude Code and Codex:
    no output at all; Gemini: a JSON object without context."""
    if host == "gemini":
        data = json.loads(stdout)
        assert isinstance(data, dict) and "hookSpecificOutput" not in data, stdout
    else:
        assert stdout == "", repr(stdout)


def journal_text(vault: Path, day: dt.date | None = None) -> str:
    """The Logseq journal page of ``day`` (default today) in ``vault``; empty if missing."""
    day = day or dt.date.today()
    path = vault / "journals" / f"{day:%Y_%m_%d}.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def count_on_page(vault: Path, bullet: str, day: dt.date | None = None) -> int:
    """How many times ``bullet`` is a bullet line of the day's journal page."""
    return sum(1 for line in journal_text(vault, day).splitlines() if line.strip() == f"- {bullet}")


def pending_texts(vault: Path, env: Mapping[str, str]) -> list[str]:
    """The texts ``journal-agent pending`` lists (the vault's and the outbox's)."""
    done = run(["pending", "--vault", str(vault), "--json"], env)
    assert done.returncode == 0, done.stderr
    return [item["text"] for item in json.loads(done.stdout)["pending"]]
