"""The ``journal-agent`` command: argument parsing and output formatting, one library call each.

Each command is declared once, by the `command` decorator on the function that makes its library
call: its docstring is its help, and the decorator carries its arguments, its example and its
text formatter. Exit codes (the CLI contract): 0 done, 2 refused (bad input or settings, or a
guest rule; nothing written), 1 any other failure, 130 interrupted; every failure prints one line
on stderr.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable, Sequence

from . import __version__
from .errors import BadArgument, JournalAgentError
from .records import NamedTuple
from .render import PROG, json_listing, table, text_stale, text_status, text_topics
from .render import emit as _emit
from .render import fail as _fail
from .render import json_text as _json

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    import argparse
    from typing import Any, NoReturn

STARTED = time.monotonic()  # a hook's budget counts from here, not from its first line of work

Text = Callable[[dict[str, "Any"]], str]


class Arg(NamedTuple):
    """One argument of a command, as `argparse.ArgumentParser.add_argument` takes it."""

    flags: tuple[str, ...]
    options: dict[str, Any]


def seconds(word: str) -> float:
    """A time in seconds (``--wait``, ``--budget``): a number, not NaN nor an infinity, which
    no deadline can be made of (argparse says "invalid seconds value")."""
    value = float(word)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(word)
    return value


def arg(*flags: str, **options: Any) -> Arg:
    return Arg(flags, options)


class Command(NamedTuple):
    """A command: its library call, text output, arguments and example; help is the docstring."""

    name: str
    run: Callable[[argparse.Namespace], Any]
    text: Text
    args: tuple[Arg, ...]
    example: str

    @property
    def help(self) -> str:
        return (self.run.__doc__ or "").strip().splitlines()[0]


COMMANDS: dict[str, Command] = {}


def command(*args: Arg, text: Text, example: str) -> Callable[[Callable[..., Any]], Any]:
    """Declare a command: the decorated function's name (``_`` for ``-``) is its name."""

    def register(run: Callable[[argparse.Namespace], Any]) -> Callable[..., Any]:
        name = run.__name__.removeprefix("cmd_").replace("_", "-")
        COMMANDS[name] = Command(name, run, text, args, example)
        return run

    return register


# -- arguments shared by several commands -------------------------------------------------------

#: Every command's.
COMMON = (
    arg("--vault", metavar="PATH", help="the vault (default: $JOURNAL_AGENT_VAULT)"),
    arg("--json", action="store_true", help="machine-readable output"),
)

QUERY = (
    arg("--as-of", metavar="YYYY-MM-DD", help="the day to answer for (default today)"),
    arg("--days", type=int, metavar="N", help="the activity window (default 21)"),
    arg("--no-cache", action="store_true", help="scan every file, ignore the index"),
)
TOPIC = arg("topic", metavar="TOPIC", help="a page title or alias (or a note's path)")
BULLETS = arg("bullets", nargs="+", metavar="BULLET", help="one bullet each; - reads stdin")
KIND = arg(
    "--kind",
    choices=("note", "decision", "resolution"),
    default="note",
    help="decision / resolution prefix each bullet with 'Decision:' / 'Resolved:'",
)
ALL_PAGES = arg(
    "--all-pages",
    action="store_true",
    help="also list Logseq's built-in pages and the pages of property keys, markers, priorities",
)


def _query(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "vault": args.vault,
        "as_of": args.as_of,
        "days": args.days,
        "use_cache": not args.no_cache,
    }


# -- the commands -------------------------------------------------------------------------------


def text_append(result: dict[str, Any]) -> str:
    lines = [
        f"{result['path']}: wrote {len(result['written'])}, "
        f"skipped {len(result['duplicates'])} already written"
    ]
    lines += [f"  + {text}" for text in result["written"]]
    lines += [f"  = {text}" for text in result["duplicates"]]
    return "\n".join(lines)


@command(
    BULLETS,
    arg("--agent", default="agent", help="the agent's name (header: NAME log)"),
    arg(
        "--date",
        metavar="YYYY-MM-DD",
        help="the journal day (default: today; another day's page must exist)",
    ),
    arg("--session", metavar="ID", help="the session id, kept in the ledger"),
    KIND,
    arg("--unlink", action="store_true", help="write unknown page names as plain text"),
    arg("--wait", type=seconds, metavar="SECONDS", help="how long a busy page is waited for (1)"),
    text=text_append,
    example='journal-agent append --agent claude --session "$ID" "Fixed the bug in [[Flaky CI]]"',
)
def cmd_append(args: argparse.Namespace) -> Any:
    """Append bullets under the agent's own block on today's journal page (- reads stdin)."""
    from .api import append

    return append(
        _bullets(args),
        vault=args.vault,
        agent=args.agent,
        date=args.date,
        session=args.session,
        kind=args.kind,
        unlink=args.unlink,
        wait=args.wait,
    )


def _bullets(args: argparse.Namespace) -> list[str]:
    """The command's bullets, a ``-`` replaced by the lines of standard input."""
    return [b for item in args.bullets for b in (_stdin_lines() if item == "-" else [item])]


def _stdin_lines() -> list[str]:
    """The non-blank lines of standard input, each a bullet (split at line ends only:
    `transcript.text_lines`)."""
    from .transcript import text_lines

    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # replaced by a text stream (tests, embedding)
        return [line for line in text_lines(sys.stdin.read()) if line.strip()]
    data = stream.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadArgument(
            f"standard input is not UTF-8 text (invalid byte at {exc.start})"
        ) from exc
    return [line for line in text_lines(text) if line.strip()]


@command(
    *QUERY, ALL_PAGES, text=text_stale, example="journal-agent stale --vault ~/notes --days 14"
)
def cmd_stale(args: argparse.Namespace) -> Any:
    """List the threads nobody has mentioned for more than --days days (default 21)."""
    from .api import stale

    return stale(**_query(args), all_pages=args.all_pages)


@command(TOPIC, *QUERY, text=text_status, example='journal-agent status "Atlas Migration" --json')
def cmd_status(args: argparse.Namespace) -> Any:
    """Show one topic's derived status: active, resolved, stale or unmentioned."""
    from .api import status

    return status(args.topic, **_query(args))


@command(*QUERY, ALL_PAGES, text=text_topics, example="journal-agent topics --vault ~/notes --json")
def cmd_topics(args: argparse.Namespace) -> Any:
    """List every topic with its derived status, most recently mentioned first."""
    from .api import topics

    return topics(**_query(args), all_pages=args.all_pages)


def text_timeline(result: dict[str, Any]) -> str:
    lines = [f"{result['topic']} ({result['path'] or 'no file'})"]
    for e in result["entries"]:
        mark = "✓" if e["resolution"] else " "
        lines.append(f"{e['date'] or '          '} {mark} {e['text']}  — {e['page']}")
    return "\n".join(lines)


@command(
    TOPIC,
    *QUERY,
    arg("--html", metavar="FILE", help="also write a self-contained HTML page (outside the vault)"),
    text=text_timeline,
    example='journal-agent timeline "Flaky CI" --vault ~/notes --html flaky.html',
)
def cmd_timeline(args: argparse.Namespace) -> Any:
    """Show every block that mentions a topic, newest first (--html FILE writes a page)."""
    from .api import timeline
    from .vault import open_vault

    vault = open_vault(args.vault, use_cache=not args.no_cache)
    result = timeline(args.topic, **dict(_query(args), vault=vault))
    if args.html:
        result.write_html(args.html, vault)
    return result


def text_related(result: dict[str, Any]) -> str:
    lines = []
    if "related" in result:
        lines.append(f"co-mentioned with {result['topic']}:")
        lines += [f"  {r['weight']:6.2f}  {r['topic']} ({r['status']})" for r in result["related"]]
    for i, group in enumerate(result["clusters"], 1):
        lines.append(f"cluster {i}: " + ", ".join(t["topic"] for t in group))
    return "\n".join(lines)


@command(
    arg("topic", metavar="TOPIC", nargs="?", help="omit to list every cluster"),
    *QUERY,
    text=text_related,
    example='journal-agent related "Atlas Migration" --vault ~/notes',
)
def cmd_related(args: argparse.Namespace) -> Any:
    """Show the topics most co-mentioned with a topic, and the clusters that move together."""
    from .api import related

    return related(args.topic, **_query(args))


def text_lint(result: dict[str, Any]) -> str:
    if not result["problems"]:
        return "no problems: every bullet may be appended"
    return "\n".join(f"{p['bullet']!r}: {p['message']}" for p in result["problems"])


@command(
    BULLETS,
    text=text_lint,
    example='journal-agent lint --vault ~/notes "Fixed [[Flaky CI]]" "see [[Atlas Migratoin]]"',
)
def cmd_lint(args: argparse.Namespace) -> Any:
    """Check bullets against the guest rules without writing anything."""
    from .api import lint

    return lint(_bullets(args), vault=args.vault)


def text_pages(result: dict[str, Any]) -> str:
    rows = [
        (
            p["title"] + (f" (link as [[{p['link']}]])" if "link" in p else ""),
            p["path"] or "-",
            ", ".join(p["aliases"]),
        )
        for p in result["pages"]
    ]
    return table(("title", "path", "aliases"), rows)


@command(
    arg("--search", metavar="NAME", help="only the pages whose title or alias matches NAME"),
    text=text_pages,
    example='journal-agent pages --vault ~/notes --search "atlas"',
)
def cmd_pages(args: argparse.Namespace) -> Any:
    """List every page an agent may link (title, file, aliases), or search them by name."""
    from .api import pages

    return pages(vault=args.vault, search=args.search)


def text_info(result: dict[str, Any]) -> str:
    return "\n".join(f"{key}: {value}" for key, value in result.items())


@command(
    arg("--date", metavar="YYYY-MM-DD", help="the day to show (default: today)"),
    text=text_info,
    example="journal-agent info --vault ~/notes --date 2026-11-29",
)
def cmd_info(args: argparse.Namespace) -> Any:
    """Show what journal-agent sees in a vault: flavor, journal settings, today's journal page."""
    from .api import info

    return info(vault=args.vault, date=args.date)


# -- the parser and the run ---------------------------------------------------------------------


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser, built from `COMMANDS`; ``only``: with that command alone (what
    one run parses: the other two dozen cost a hook a few milliseconds)."""
    import argparse

    class Parser(argparse.ArgumentParser):
        """An argument parser whose errors are one line, like every other failure."""

        def error(self, message: str) -> NoReturn:
            raise BadArgument(f"{message} (see {self.prog} --help)")

    examples = "\n".join(f"  {c.example}" for c in COMMANDS.values())
    top = Parser(
        prog=PROG,
        description="Agent memory that lives in your outliner's journal.",
        epilog=f"examples:\n{examples}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = Parser(add_help=False)
    for a in COMMON:
        common.add_argument(*a.flags, **a.options)
    for cmd in [COMMANDS[only]] if only in COMMANDS else COMMANDS.values():
        p = sub.add_parser(
            cmd.name,
            parents=[common],
            help=cmd.help,
            description=cmd.help,
            epilog=f"example:\n  {cmd.example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        for a in cmd.args:
            p.add_argument(*a.flags, **a.options)
    return top


#: What the arguments `plain_args` reads may do: take a value (``store``, ``append``: a list
#: of each given), or be given (``store_true``).
_ACTIONS = ("store", "store_true", "append")


def plain_args(words: Sequence[str]) -> argparse.Namespace | None:
    """The arguments of ``words`` as `parser` reads them, where they are written in the plain
    form, without argparse: importing it and building the parser cost a session hook 20 ms (a
    help formatter, and the terminal's size, for each argument). The plain form: the command,
    its positional words in one run (before or after the options), each option spelled out and
    given once (but one that appends), its value a word of its own that does not start with
    ``-`` and that its type and choices take. Anything else is None, and `parser` reads it
    (and says what is wrong)."""
    cmd = COMMANDS.get(words[0]) if words else None
    if cmd is None:
        return None
    values: dict[str, Any] = {"command": cmd.name}
    options: dict[str, tuple[str, str, Arg]] = {}  # flag -> dest, action, declaration
    positionals: list[tuple[str, Arg]] = []
    for a in (*COMMON, *cmd.args):
        kind, name = a.options.get("action", "store"), a.flags[0]
        if len(a.flags) > 1 or a.options.get("required") or kind not in _ACTIONS:
            return None
        if name.startswith("-") and "nargs" in a.options:
            return None  # an option of more words, or none
        default = a.options.get("default", False if kind == "store_true" else None)
        if isinstance(default, str) and "type" in a.options:
            default = _converted({**a.options, "choices": None}, default)  # as argparse does
        dest = a.options.get("dest") or name.lstrip("-").replace("-", "_")
        values[dest] = list(default) if kind == "append" and default else default
        if name.startswith("-"):
            options[name] = dest, kind, a
        else:
            positionals.append((dest, a))
    run: list[str] = []  # the positional words
    given: set[str] = set()
    after_run = False  # an option came after them
    rest = iter(words[1:])
    for word in rest:
        if not word.startswith("-"):
            if after_run:
                return None
            run.append(word)
            continue
        if word not in options:
            return None
        dest, kind, a = options[word]
        if word in given and kind != "append":
            return None
        given.add(word)
        after_run = bool(run)
        if kind == "store_true":
            values[dest] = True
            continue
        value = next(rest, "-")
        if value.startswith("-") or (value := _converted(a.options, value)) is None:
            return None
        values[dest] = [*(values[dest] or ()), value] if kind == "append" else value
    if not _take(positionals, run, values):
        return None
    import types

    return types.SimpleNamespace(**values)  # type: ignore[return-value]  # as a Namespace is read


def _converted(options: dict[str, Any], word: str) -> Any:
    """An argument's value, as argparse makes it of ``word`` by its ``options`` (their ``type``,
    then their ``choices``); None where argparse would refuse it."""
    try:
        value = options.get("type", str)(word)
    except (TypeError, ValueError):
        return None
    choices = options.get("choices")
    return None if choices is not None and value not in choices else value


def _take(positionals: list[tuple[str, Arg]], run: list[str], values: dict[str, Any]) -> bool:
    """The positional words given to the positionals in order, as argparse matches them: each
    takes one, a ``?`` one if any is left and every positional after it is a ``?`` too, a
    ``+`` (the last) the rest; False where they do not fit, or a word is not a value argparse
    takes (and where a ``?`` stands before a positional that must be given: not done here)."""
    left = list(run)
    for n, (dest, a) in enumerate(positionals):
        nargs = a.options.get("nargs")
        later = [p.options.get("nargs") for _, p in positionals[n + 1 :]]
        if nargs == "+" and not later and left:
            taken = [_converted(a.options, word) for word in left]
            if None in taken:
                return False
            values[dest], left = taken, []
        elif left and (nargs is None or nargs == "?" and all(k == "?" for k in later)):
            value = _converted(a.options, left.pop(0))
            if value is None:
                return False
            values[dest] = value
        elif nargs != "?" or left:
            return False
    return not left


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code."""
    # One command, then exit: cyclic garbage is negligible, and the collector re-walking the
    # hundreds of thousands of objects an index holds costs a tenth of a second at each pause.
    gc.disable()
    for stream in (sys.stdout, sys.stderr):  # a non-UTF-8 file name must not end the output
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    json_out, words = False, list(argv if argv is not None else sys.argv[1:])
    try:
        args = plain_args(words) or parser(words[0] if words else None).parse_args(words)
        json_out = args.json
        _check_arguments(words)
        result = COMMANDS[args.command].run(args)
        return _print(result, COMMANDS[args.command].text, json_out)
    except KeyboardInterrupt:
        return 130
    except JournalAgentError as exc:
        if json_out and hasattr(exc, "to_json"):
            _emit(_json(exc.to_json()))
        return _fail(str(exc), _never_blocking(words, exc.exit_code))
    except RecursionError:
        return _fail("a settings or page file is nested too deeply to read", 2)
    except MemoryError:
        return _fail("out of memory (is a page or settings file huge?)", 1)
    except Exception as exc:  # a bug: still one line, exit 1
        if os.environ.get("JOURNAL_AGENT_DEBUG"):
            raise
        return _fail(f"internal error (a bug, please report it): {type(exc).__name__}: {exc}", 1)


def _never_blocking(words: list[str], code: int) -> int:
    """A hook run never exits 2: hosts read 2 as "block" (Claude Code would keep a session
    going that should stop). A misconfigured hook is an error to show, exit 1."""
    running_hook = (
        bool(words) and words[0] == "hook" and words[1:2] not in (["install"], ["bundle"])
    )
    return 1 if running_hook and code == 2 else code


def _check_arguments(argv: Sequence[str]) -> None:
    """Arguments that are not UTF-8 (bytes the shell passed through) are refused: written into a
    page they would not be text."""
    for i, value in enumerate(argv, 1):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise BadArgument(f"argument {i} is not UTF-8 text") from exc


def _print(result: Any, text: Text, json_out: bool) -> int:
    if result is None:  # a command that answered by itself (a server)
        return 0
    if json_out and hasattr(result, "encoded") and not sys.stdout.isatty():
        out = json_listing(result.encoded())  # as `_json` writes it, faster
    else:
        data = result.to_json()
        out = _json(data) if json_out else text(data)
    for warning in getattr(result, "warnings", []):
        _fail(f"warning: {warning}", 0)
    return _emit(out) or int(getattr(result, "exit_code", 0))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


from . import cli_session  # noqa: E402, F401 - the session loop's commands register themselves
