"""What the agent said: its bullets in a fenced ``journal`` block, and its messages in a host's
transcript file.

An agent hands bullets over by ending a reply with a fenced block tagged ``journal``, one bullet a
line (a leading ``-``, ``*`` or ``+`` marker is optional)::

    ```journal
    - Moved the [[Atlas Migration]] cut-over to Friday: the vendor needs two more days
    ```

The hooks read that block from the message the host passes (Claude Code and Codex
``last_assistant_message``, Gemini CLI ``prompt_response``), or from the session's transcript
where the payload has none (pre-compaction, session end). Transcript shapes, one JSON object a
line unless said otherwise:

* Claude Code: ``{"type": "assistant", "message": {"role": "assistant", "content": str | [{"type":
  "text", "text": …}]}, "timestamp": …}``; lines with ``isMeta``, ``toolUseResult`` or
  ``isSidechain`` (a subagent) are skipped;
* Codex: ``{"type": "response_item", "payload": {"type": "message", "role": "assistant",
  "content": [{"type": "output_text", "text": …}]}, "timestamp": …}``;
* Gemini CLI: one JSON document ``{"messages": [{"type": "gemini", "content": str | [{"text":
  …}], "timestamp": …}]}``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from .errors import StorageError, UnsafePath
from .files import read_file

#: A transcript larger than this is not read (a hook has a second; the message field suffices).
MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024
_OPEN = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_JOURNAL = re.compile(r"[ \t]*journal[ \t]*", re.IGNORECASE)  # the info string of a block
_MARKER = re.compile(r"^[ \t]*(?:[-*+][ \t]+|[-*+]$)")
_NEEDLE = re.compile(rb"(?i)(?:`{3,}|~{3,})[ \t]*journal")  # a line worth parsing


class Message(NamedTuple):
    """One assistant message: its text and the local day it was written (None: unknown)."""

    text: str
    day: dt.date | None = None


def text_lines(text: str) -> list[str]:
    """``text`` split at its line ends only: ``\\n``, ``\\r\\n`` or ``\\r``. Not `str.splitlines`,
    which also splits at U+2028, U+2029, U+0085, VT, FF and \\x1c-\\x1e: a bullet holding one
    would become two, where the guard refuses it whole, as it refuses the same text given as an
    argument."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def journal_bullets(text: str) -> list[str]:
    """The bullets of every fenced ``journal`` block in ``text``, in order: one a line, list
    markers and blank lines dropped. A block left open at the end of the text still counts (a
    reply cut short keeps its bullets). As in CommonMark, a ``journal`` fence inside another
    fenced block is that block's content (an agent showing the format), not a block of its own."""
    bullets: list[str] = []
    fence: str | None = None  # the fence of the open block
    journal = False  # whether the open block is a journal block
    for line in text_lines(text):
        if fence is None:
            opened = _OPEN.match(line)
            if opened and not (opened["fence"][0] == "`" and "`" in opened["info"]):
                fence = opened["fence"]
                journal = _JOURNAL.fullmatch(opened["info"]) is not None
            continue
        if _closes(line, fence):
            fence = None
            continue
        bullet = _MARKER.sub("", line, count=1).strip() if journal else ""
        if bullet:
            bullets.append(bullet)
    return bullets


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a block opened with ``fence``: the same character at least as
    many times, nothing else (CommonMark; a shorter run is the block's content)."""
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0])


def assistant_messages(path: str | Path) -> list[Message]:
    """The assistant messages of a transcript that hold a ``journal`` block, oldest first;
    empty if the file is missing, unreadable or of a shape not known here."""
    try:
        data = read_file(Path(path), "transcript", limit=MAX_TRANSCRIPT_BYTES)
    except (StorageError, UnsafePath):
        return []
    if not data or not _NEEDLE.search(data):
        return []
    stripped = data.lstrip()
    if stripped.startswith(b"{") and b'"messages"' in data:
        whole = _loads(data)
        if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
            return [m for m in map(_gemini, whole["messages"]) if m is not None]
    return [m for m in map(_line, _lines_with_blocks(data)) if m is not None]


def last_assistant_message(path: str | Path) -> Message | None:
    """The newest assistant message of a transcript that holds a ``journal`` block."""
    found = assistant_messages(path)
    return found[-1] if found else None


def _lines_with_blocks(data: bytes) -> Iterator[bytes]:
    for line in data.splitlines():
        if _NEEDLE.search(line):
            yield line


def _loads(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _line(line: bytes) -> Message | None:
    """One JSONL line of a Claude Code or Codex transcript, if it is an assistant message."""
    obj = _loads(line)
    if not isinstance(obj, dict) or obj.get("isMeta") or obj.get("toolUseResult"):
        return None
    if obj.get("isSidechain"):
        return None
    if obj.get("type") == "response_item":  # Codex
        body = obj.get("payload")
        if not isinstance(body, dict) or body.get("type") != "message":
            return None
    else:  # Claude Code
        body = obj.get("message")
    if not isinstance(body, dict) or body.get("role") != "assistant":
        return None
    text = _text(body.get("content"))
    return Message(text, _day(obj.get("timestamp"))) if text else None


def _gemini(message: Any) -> Message | None:
    if not isinstance(message, dict) or message.get("type") not in ("gemini", "model"):
        return None
    text = _text(message.get("content"))
    return Message(text, _day(message.get("timestamp"))) if text else None


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text of its text blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") in (None, "text", "output_text"):
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "\n".join(parts)


def _day(stamp: Any) -> dt.date | None:
    """The local day of an ISO 8601 time stamp (``Z`` or an offset), None if there is none."""
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return when.date()
    return when.astimezone().date()
