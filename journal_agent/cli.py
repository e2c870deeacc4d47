"""The ``journal-agent`` command: argument parsing and output formatting, one library call each.

Exit codes (the CLI contract): 0 done, 2 refused (bad input or a guest rule; nothing written),
1 any other failure; every failure prints one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .errors import JournalAgentError

PROG = "journal-agent"

COMMANDS: dict[str, tuple[str, str]] = {
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
            name, parents=[common], help=summary, description=summary,
            epilog=f"example:\n  {example}", formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name == "info":
            cmd.add_argument("--date", metavar="YYYY-MM-DD", help="the day to show (default: today)")
    return parser


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
    "pages": (cmd_pages, text_pages),
    "info": (cmd_info, text_info),
}


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code."""
    args = _parser().parse_args(argv)
    run, as_text = HANDLERS[args.command]
    try:
        result = run(args)
    except JournalAgentError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # the contract: any other failure is exit 1 with one line
        if os.environ.get("JOURNAL_AGENT_DEBUG"):
            raise
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    data = result.to_json()
    print(json.dumps(data, ensure_ascii=False, indent=2) if args.json else as_text(data))
    for warning in getattr(result, "warnings", []):
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
