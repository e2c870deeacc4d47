"""What the command line prints: the text tables of the status commands, JSON, one-line errors.

Lean on purpose: the warm path (`quick`) prints with these without loading the CLI's parser.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: the warm path must not pay for importing it
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

PROG = "journal-agent"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, two spaces apart (one format call per row: a
    listing of every topic has tens of thousands)."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    line = "  ".join(f"{{:<{w}}}" for w in widths).format
    return "\n".join([line(*header).rstrip(), *[line(*row).rstrip() for row in rows]])


def text_stale(result: dict[str, Any]) -> str:
    rows = [
        (t["topic"], t["last_mentioned"], str(t["days_silent"]), t["last_text"] or "")
        for t in result["threads"]
    ]
    head = f"{len(rows)} stale thread(s) as of {result['as_of']} (silent > {result['days']} days)"
    return head + ("\n" + table(("topic", "last", "days", "last mention"), rows) if rows else "")


def text_status(result: dict[str, Any]) -> str:
    last = result["last_mentioned"]
    when = f", last mentioned {last} ({result['days_silent']} days ago)" if last else ""
    return f"{result['topic']}: {result['status']}{when}, {result['mentions']} mention(s)"


def text_topics(result: dict[str, Any]) -> str:
    rows = [
        (t["topic"], t["status"], t["last_mentioned"] or "-", str(t["mentions"]))
        for t in result["topics"]
    ]
    return table(("topic", "status", "last", "mentions"), rows)


def json_text(data: Any) -> str:
    """JSON for a terminal indented; for a pipe or a file compact, which the C encoder writes
    (indenting takes the pure-Python one: a tenth of a second for every topic of a big vault)."""
    import json  # only --json pays for it

    return json.dumps(data, ensure_ascii=False, indent=2 if sys.stdout.isatty() else None)


def json_listing(result: dict[str, Any]) -> str:
    """`json_text` of a listing (its last value a list) whose items are already encoded
    (`derived.status_encoder`), for a pipe or a file; its other values are texts, whole
    numbers or None."""
    quoted = json_quoter()
    *head, (key, items) = result.items()
    start = "".join(f"{quoted(k)}: {_scalar(v, quoted)}, " for k, v in head)
    return f"{{{start}{quoted(key)}: [{', '.join(items)}]}}"  # a few MB: copied once more only


def _scalar(value: str | int | None, quoted: Callable[[str], str]) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return quoted(value)
    if type(value) is int:
        return str(value)
    raise TypeError(f"not a text, whole number or None: {value!r}")


def json_quoter() -> Callable[[str], str]:
    """A text as ``json.dumps(…, ensure_ascii=False)`` writes it, from json's C module where
    there is one: importing `json` imports `re` and `enum`, a tenth of a warm query's time."""
    try:
        from _json import encode_basestring
    except ImportError:  # an interpreter without it
        from json.encoder import encode_basestring
    return encode_basestring


def emit(out: str) -> int:
    """Print the answer; a reader that left (`| head`) is not an error, a full disk is."""
    try:
        if out:  # nothing at all, not an empty line: a hook's silence must stay silent
            print(out)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return fail(f"cannot write the output: {exc.strerror}", 1)
    return 0


def fail(message: str, code: int) -> int:
    """Say one line on standard error, prefixed with the program's name; return ``code``."""
    try:
        print(f"{PROG}: {message.splitlines()[0] if message else ''}", file=sys.stderr)
    except OSError:
        pass
    return code
