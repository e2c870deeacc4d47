"""The ``journal-agent`` command: argument parsing and output formatting, one library call each.

Exit codes (the CLI contract): 0 done, 2 refused (bad input or a guest rule; nothing written),
1 any other failure; every failure prints one line on stderr.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .errors import JournalAgentError

PROG = "journal-agent"

COMMANDS: dict[str, tuple[str, str]] = {
    "append": (
        "Append bullets under the agent's own block on today's journal page (- reads stdin).",
        'journal-agent append --agent claude --session "$ID" "Fixed the retry bug in [[Flaky CI]]"',
    ),
    "stale": (
        "List the threads nobody has mentioned for more than --days days (default 21).",
        "journal-agent stale --vault ~/notes --days 14 --as-of 2026-11-29",
    ),
    "status": (
        "Show one topic's derived status: active, resolved, stale or unmentioned.",
        'journal-agent status "Atlas Migration" --vault ~/notes --json',
    ),
    "topics": (
        "List every topic with its derived status, most recently mentioned first.",
        "journal-agent topics --vault ~/notes --json",
    ),
    "timeline": (
        "Show every block that mentions a topic, newest first (--html FILE writes a page).",
        'journal-agent timeline "Flaky CI" --vault ~/notes --html flaky.html',
    ),
    "related": (
        "Show the topics most co-mentioned with a topic, and the clusters that move together.",
        'journal-agent related "Atlas Migration" --vault ~/notes',
    ),
    "lint": (
        "Check bullets against the guest rules without writing anything.",
        'journal-agent lint --vault ~/notes "Fixed [[Flaky CI]]" "see [[Atlas Migratoin]]"',
    ),
    "pages": (
        "List every page an agent may link: title, file and aliases.",
        "journal-agent pages --vault ~/notes --json",
    ),
    "info": (
        "Show what journal-agent sees in a vault: flavor, journal settings, today's journal page.",
        "journal-agent info --vault ~/notes --date 2026-11-29",
    ),
}


def _parser() -> argparse.ArgumentParser:
    examples = "\n".join(f"  {example}" for _, example in COMMANDS.values())
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Agent memory that lives in your outliner's journal.",
        epilog=f"examples:\n{examples}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--vault", metavar="PATH", help="the vault (default: $JOURNAL_AGENT_VAULT)")
    common.add_argument("--json", action="store_true", help="machine-readable output")
    for name, (summary, example) in COMMANDS.items():
        cmd = sub.add_parser(
            name,
            parents=[common],
            help=summary,
            description=summary,
            epilog=f"example:\n  {example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name == "append":
            _append_arguments(cmd)
        if name == "lint":
            cmd.add_argument("bullets", nargs="+", metavar="BULLET", help="one bullet each")
        if name in QUERIES:
            _query_arguments(cmd, name)
        if name == "info":
            cmd.add_argument(
                "--date", metavar="YYYY-MM-DD", help="the day to show (default: today)"
            )
    return parser


def _append_arguments(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("bullets", nargs="+", metavar="BULLET", help="one bullet each; - reads stdin")
    cmd.add_argument("--agent", default="agent", help="the agent's name (header: NAME log)")
    cmd.add_argument("--date", metavar="YYYY-MM-DD", help="the journal day (default: today)")
    cmd.add_argument("--session", metavar="ID", help="the session id, kept in the ledger")
    cmd.add_argument(
        "--kind",
        choices=("note", "decision", "resolution"),
        default="note",
        help="decision / resolution prefix each bullet with 'Decision:' / 'Resolved:'",
    )
    cmd.add_argument(
        "--unlink",
        action="store_true",
        help="write references to unknown pages as plain text instead of refusing",
    )


QUERIES = ("stale", "status", "topics", "timeline", "related")


def _query_arguments(cmd: argparse.ArgumentParser, name: str) -> None:
    if name in ("status", "timeline"):
        cmd.add_argument("topic", metavar="TOPIC", help="a page title or alias")
    if name == "related":
        cmd.add_argument("topic", metavar="TOPIC", nargs="?", help="omit to list every cluster")
    cmd.add_argument("--as-of", metavar="YYYY-MM-DD", help="the day to answer for (default today)")
    cmd.add_argument("--days", type=int, metavar="N", help="the activity window (default 21)")
    cmd.add_argument("--no-cache", action="store_true", help="scan every file, ignore the index")
    if name == "timeline":
        cmd.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page")


def _query(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "vault": args.vault,
        "as_of": args.as_of,
        "days": args.days,
        "use_cache": not args.no_cache,
    }


def cmd_stale(args: argparse.Namespace) -> Any:
    from .api import stale

    return stale(**_query(args))


def text_stale(result: dict[str, Any]) -> str:
    rows = [
        (t["topic"], t["last_mentioned"], str(t["days_silent"]), t["last_text"] or "")
        for t in result["threads"]
    ]
    head = f"{len(rows)} stale thread(s) as of {result['as_of']} (silent > {result['days']} days)"
    return head + ("\n" + _table(("topic", "last", "days", "last mention"), rows) if rows else "")


def cmd_status(args: argparse.Namespace) -> Any:
    from .api import status

    return status(args.topic, **_query(args))


def text_status(result: dict[str, Any]) -> str:
    last = result["last_mentioned"]
    when = f", last mentioned {last} ({result['days_silent']} days ago)" if last else ""
    return f"{result['topic']}: {result['status']}{when}, {result['mentions']} mention(s)"


def cmd_topics(args: argparse.Namespace) -> Any:
    from .api import topics

    return topics(**_query(args))


def text_topics(result: dict[str, Any]) -> str:
    rows = [
        (t["topic"], t["status"], t["last_mentioned"] or "-", str(t["mentions"]))
        for t in result["topics"]
    ]
    return _table(("topic", "status", "last", "mentions"), rows)


def cmd_timeline(args: argparse.Namespace) -> Any:
    from .api import timeline

    result = timeline(args.topic, **_query(args))
    if args.html:
        from .timeline_page import write_timeline

        write_timeline(result, args.html)
    return result


def text_timeline(result: dict[str, Any]) -> str:
    lines = [f"{result['topic']} ({result['path'] or 'no file'})"]
    for e in result["entries"]:
        mark = "✓" if e["resolution"] else " "
        lines.append(f"{e['date'] or '          '} {mark} {e['text']}  — {e['page']}")
    return "\n".join(lines)


def cmd_related(args: argparse.Namespace) -> Any:
    from .api import related

    return related(args.topic, **_query(args))


def text_related(result: dict[str, Any]) -> str:
    lines = []
    if "related" in result:
        lines.append(f"co-mentioned with {result['topic']}:")
        lines += [f"  {r['weight']:6.2f}  {r['topic']} ({r['status']})" for r in result["related"]]
    for i, group in enumerate(result["clusters"], 1):
        lines.append(f"cluster {i}: " + ", ".join(t["topic"] for t in group))
    return "\n".join(lines)


def cmd_append(args: argparse.Namespace) -> Any:
    from .api import append

    bullets = [b for arg in args.bullets for b in (_stdin_lines() if arg == "-" else [arg])]
    return append(
        bullets,
        vault=args.vault,
        agent=args.agent,
        date=args.date,
        session=args.session,
        kind=args.kind,
        unlink=args.unlink,
    )


def _stdin_lines() -> list[str]:
    return [line for line in sys.stdin.read().splitlines() if line.strip()]


def text_append(result: dict[str, Any]) -> str:
    lines = [
        f"{result['path']}: wrote {len(result['written'])}, "
        f"skipped {len(result['duplicates'])} already written"
    ]
    lines += [f"  + {text}" for text in result["written"]]
    lines += [f"  = {text}" for text in result["duplicates"]]
    return "\n".join(lines)


def cmd_lint(args: argparse.Namespace) -> Any:
    from .api import lint

    return lint(args.bullets, vault=args.vault)


def text_lint(result: dict[str, Any]) -> str:
    if not result["problems"]:
        return "no problems: every bullet may be appended"
    lines = []
    for p in result["problems"]:
        lines.append(f"{p['bullet']!r}: {p['message']}")
    return "\n".join(lines)


def cmd_pages(args: argparse.Namespace) -> Any:
    from .api import pages

    return pages(vault=args.vault)


def text_pages(result: dict[str, Any]) -> str:
    rows = [(p["title"], p["path"] or "-", ", ".join(p["aliases"])) for p in result["pages"]]
    return _table(("title", "path", "aliases"), rows)


def cmd_info(args: argparse.Namespace) -> Any:
    from .api import info

    return info(vault=args.vault, date=args.date)


def text_info(result: dict[str, Any]) -> str:
    return "\n".join(f"{key}: {value}" for key, value in result.items())


HANDLERS: dict[str, tuple[Callable[[argparse.Namespace], Any], Callable[[dict[str, Any]], str]]] = {
    "append": (cmd_append, text_append),
    "stale": (cmd_stale, text_stale),
    "status": (cmd_status, text_status),
    "topics": (cmd_topics, text_topics),
    "timeline": (cmd_timeline, text_timeline),
    "related": (cmd_related, text_related),
    "lint": (cmd_lint, text_lint),
    "pages": (cmd_pages, text_pages),
    "info": (cmd_info, text_info),
}


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code."""
    # One command, then exit: cyclic garbage is negligible, and the collector re-walking the
    # hundreds of thousands of objects an index holds costs a tenth of a second at each pause.
    gc.disable()
    args = _parser().parse_args(argv)
    run, as_text = HANDLERS[args.command]
    try:
        result = run(args)
    except JournalAgentError as exc:
        if args.json and hasattr(exc, "to_json"):
            print(json.dumps(exc.to_json(), ensure_ascii=False, indent=2))
        print(f"{PROG}: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # the contract: any other failure is exit 1 with one line
        if os.environ.get("JOURNAL_AGENT_DEBUG"):
            raise
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    data = result.to_json()
    try:
        print(json.dumps(data, ensure_ascii=False, indent=2) if args.json else as_text(data))
    except BrokenPipeError:  # `journal-agent stale | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    for warning in getattr(result, "warnings", []):
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
