"""The session loop's commands: the projection, decisions, the audit, pending bullets, the
hooks, the MCP server and watch. Declared like every command (`cli.command`); `cli` imports this
module so that they register."""

from __future__ import annotations

import os
import sys

from .cli import BULLETS, KIND, QUERY, STARTED, TOPIC, _bullets, _query, arg, command, seconds
from .errors import BadArgument, escaped
from .render import fail

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    import argparse
    from typing import Any


def text_context(result: dict[str, Any]) -> str:
    return str(result["markdown"]).removesuffix("\n")


@command(
    arg("--agent", default="agent", help="the agent's name (its corrections and pending bullets)"),
    arg("--budget", type=int, metavar="CHARS", help="the most characters to print (6000)"),
    arg(
        "--topic",
        action="append",
        default=[],
        metavar="TOPIC",
        help="narrow to this topic and its related ones (repeatable)",
    ),
    arg("--project", metavar="DIR", help="where to look for .journal-agent-scope.toml (cwd)"),
    arg("--no-scope", action="store_true", help="ignore .journal-agent-scope.toml"),
    *QUERY,
    text=text_context,
    example="journal-agent context --vault ~/notes --agent claude --budget 6000",
)
def cmd_context(args: argparse.Namespace) -> Any:
    """Print the session-start projection: what is live in the vault, as Markdown."""
    from .api_context import context

    return context(
        **_query(args),
        agent=args.agent,
        budget=args.budget,
        topics=args.topic,
        project=args.project,
        use_scope_file=not args.no_scope,
    )


def text_why(result: dict[str, Any]) -> str:
    last = result["last_mentioned"]
    lines = [
        f"Decisions about {result['topic']} ({result['status']}"
        + (f", last mentioned {last}" if last else "")
        + f"): {len(result['decisions'])}",
        result["note"],
    ]
    for d in result["decisions"]:
        since = f" ({d['mentions_since']} mention(s) since)" if d["mentions_since"] else ""
        lines.append(f"{d['date'] or 'undated':<10}  {d['text']}  — {d['page']}{since}")
        lines += [f"{'':<10}    · {detail}" for detail in d["details"]]
    return "\n".join(lines)


@command(
    TOPIC,
    *QUERY,
    text=text_why,
    example='journal-agent why "Atlas Migration" --vault ~/notes',
)
def cmd_why(args: argparse.Namespace) -> Any:
    """Show the decision bullets about a topic, newest first (rationale, not current truth)."""
    from .api_context import why

    return why(args.topic, **_query(args))


def text_audit(result: dict[str, Any]) -> str:
    from .corrections import Finding

    who = f"{result['agent']}'s" if result["agent"] else "every agent's"
    since = f" since {result['since']}" if result["since"] else ""
    changed = len(result["findings"])
    lines = [
        f"{who} bullets{since}: {result['checked']} checked, {result['intact']} as written, "
        f"{changed} changed by people or lost"
    ]
    for f in result["findings"]:
        finding = Finding(**f)
        lines.append(f"{f['kind']:<13}  {f['written'][:10]}  {f['agent']}  {finding.describe()}")
    return "\n".join(lines)


@command(
    arg("--agent", metavar="NAME", help="only this agent's bullets (default: every agent's)"),
    arg("--since", metavar="DAY|TIME", help="only bullets written since (YYYY-MM-DD, UTC)"),
    text=text_audit,
    example="journal-agent audit --vault ~/notes --agent claude --since 2026-11-01",
)
def cmd_audit(args: argparse.Namespace) -> Any:
    """Report what people did to an agent's bullets: deleted, edited, moved or lost."""
    from .api_context import audit

    return audit(vault=args.vault, agent=args.agent, since=args.since)


def text_note(result: dict[str, Any]) -> str:
    lines = []
    for b in result["bullets"]:
        state = b["state"]
        if state == "written" and b["written_on"] != b["day"]:
            state = f"written on {b['written_on']} (its day's page does not exist)"
        why = f": {escaped(b['reason'])}" if state == "pending" and b["reason"] else ""
        lines.append(f"{b['id'][:8]}  {state}{why}  {escaped(b['text'])}")
    return "\n".join(lines) or "nothing to note (every bullet was blank)"


@command(
    BULLETS,
    arg("--agent", default="agent", help="the agent's name (header: NAME log)"),
    arg("--session", metavar="ID", help="the session id: the same bullet twice is noted once"),
    arg("--date", metavar="YYYY-MM-DD", help="the day the bullets belong to (default: today)"),
    KIND,
    arg(
        "--budget",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how long to try writing now (0: only record; default 1)",
    ),
    text=text_note,
    example='journal-agent note --agent claude --session "$ID" "Moved [[Atlas Migration]]"',
)
def cmd_note(args: argparse.Namespace) -> Any:
    """Record bullets durably as pending, then write what can be written (the rest waits)."""
    from .api_pending import note

    return note(
        _bullets(args),
        vault=args.vault,
        agent=args.agent,
        session=args.session,
        date=args.date,
        kind=args.kind,
        budget=args.budget,
    )


def text_pending(result: dict[str, Any]) -> str:
    # A pending bullet has not passed the guard: its text may hold a terminal's escapes.
    lines = [f"written  {b['id'][:8]}  {escaped(b['text'])}" for b in result["written"]]
    lines += [f"dropped  {b['id'][:8]}  {escaped(b['text'])}" for b in result["dropped"]]
    for b in result["pending"]:
        where = " (outside the vault)" if b["where"] == "outbox" else ""
        text = escaped(b["text"])
        lines.append(f"pending  {b['id'][:8]}  {b['day']}  {escaped(b['agent'])}{where}  {text}")
        if b["reason"]:
            lines.append(f"         why: {escaped(b['reason'])}")
    return "\n".join(lines) or "nothing pending"


@command(
    arg(
        "action",
        nargs="?",
        choices=("list", "flush", "drop", "fix"),
        default="list",
        help="list (default), flush: write what can be written, drop ID, fix ID TEXT",
    ),
    arg("id", nargs="?", metavar="ID", help="a pending bullet's id (its first 8 characters do)"),
    arg("text", nargs="?", metavar="TEXT", help="the corrected bullet (fix)"),
    arg("--budget", type=seconds, metavar="SECONDS", help="how long flush or fix may try (10 / 1)"),
    text=text_pending,
    example="journal-agent pending --vault ~/notes",
)
def cmd_pending(args: argparse.Namespace) -> Any:
    """List the bullets not written yet and why; flush, drop or fix them."""
    from . import api_pending as api

    if args.action in ("drop", "fix") and not args.id:
        raise BadArgument(f"pending {args.action} needs the bullet's ID")
    if args.action == "fix" and not args.text:
        raise BadArgument("pending fix needs the corrected TEXT")
    if args.action == "drop":
        return api.drop_pending(args.id, vault=args.vault)
    if args.action == "fix":
        budget = 1.0 if args.budget is None else args.budget
        return _as_pending(api.fix_pending(args.id, args.text, vault=args.vault, budget=budget))
    if args.action == "flush":
        return api.flush_pending(
            vault=args.vault, budget=10.0 if args.budget is None else args.budget
        )
    return api.pending_bullets(vault=args.vault)


def _as_pending(result: Any) -> Any:
    """A fix answers like a flush: what was written, what is still pending."""
    from .api_pending import PendingResult

    report = result.report
    left = report.left if report is not None else result.items
    return PendingResult(left, report)


def text_hook(result: dict[str, Any]) -> str:
    if "stdout" in result:
        return str(result["stdout"])
    if "files" in result:
        return "\n".join([f"wrote {result['folder']}:"] + [f"  {f}" for f in result["files"]])
    import json

    settings = json.dumps(result["settings"], indent=2, ensure_ascii=False)
    if "unreadable" in result:
        return f"{result['unreadable']}\nthe hooks to add to it:\n{settings}"
    if not result["written"]:
        head = "already installed" if not result["changed"] else "would write"
        return f"{result['path']}: {head}\n{settings}" if result["changed"] else head
    backup = f" (backup: {result['backup']})" if result["backup"] else ""
    return f"{result['path']}: hooks installed{backup}"


@command(
    arg("host", metavar="HOST", help="claude-code, codex or gemini; or install / bundle"),
    arg("event", nargs="?", metavar="EVENT", help="the host's event (default: the payload's)"),
    arg("--agent", help="the agent's name (default: claude, codex or gemini)"),
    arg("--budget", type=seconds, metavar="SECONDS", help="how long this hook may spend writing"),
    arg("--print", dest="print_only", action="store_true", help="install: show, write nothing"),
    arg("--project", action="store_true", help="install: the current project's settings file"),
    arg("--settings", metavar="FILE", help="install: this settings file"),
    arg("--out", metavar="DIR", help="bundle: the folder to write the bundle into"),
    arg("--force", action="store_true", help="bundle: replace files of other contents in DIR"),
    text=text_hook,
    example="journal-agent hook claude-code SessionStart < payload.json",
)
def cmd_hook(args: argparse.Namespace) -> Any:
    """Run a host's hook on its JSON payload (stdin), or install the hooks (hook install HOST)."""
    if args.host == "install":
        from . import api_pending as api

        return api.install_hooks(
            _host_arg(args.event, "install"),
            project=os.getcwd() if args.project else None,
            settings=args.settings,
            print_only=args.print_only,
        )
    if args.host == "bundle":
        from . import api_pending as api

        if not args.out:
            raise BadArgument("hook bundle HOST needs --out DIR")
        host = _host_arg(args.event, "bundle")
        return api.write_bundle(host, args.out, force=args.force, vault=args.vault)
    from .loop import run_hook  # not the api: the hook path imports only what writing needs

    return run_hook(
        args.host,
        args.event,
        _stdin_bytes(),
        vault=args.vault,
        agent=args.agent,
        budget=args.budget,
        started=STARTED,
    )


def _host_arg(value: str | None, action: str) -> str:
    if not value:
        raise BadArgument(f"hook {action} needs the HOST (claude-code, codex or gemini)")
    return value


def _stdin_bytes(limit: int = 64 * 1024 * 1024) -> bytes:
    """The host's payload: stdin, unless it is a terminal (someone trying the hook by hand)."""
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return sys.stdin.read(limit).encode("utf-8")
    data: bytes = stream.read(limit)
    return data


@command(
    arg("--agent", default="agent", help="the agent's name (its owned block: NAME log)"),
    text=lambda result: "",
    example="journal-agent mcp --vault ~/notes --agent claude",
)
def cmd_mcp(args: argparse.Namespace) -> Any:
    """Serve the guest operations over MCP on stdin/stdout (needs journal-agent[mcp])."""
    from .mcp_server import run

    run(args.vault, args.agent)
    return None


@command(
    arg(
        "--poll",
        action="store_true",
        help="scan for changes instead of file events (network disks)",
    ),
    text=lambda result: "",
    example="journal-agent watch --vault ~/notes",
)
def cmd_watch(args: argparse.Namespace) -> Any:
    """Keep the index fresh and report people's edits to agent bullets as they happen."""
    from .vault import open_vault
    from .watch import watch

    def report(line: str) -> None:
        fail(line, 0)

    watch(open_vault(args.vault), poll=args.poll, report=report)
    return None
