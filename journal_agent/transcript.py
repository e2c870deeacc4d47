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
* Gemini CLI: its session log (``session-*.jsonl``, since 0.39): a line of session metadata, then
  a line per message, ``{"id": …, "timestamp": …, "type": "gemini", "content": str | [{"text":
  …}]}`` (a message updated is written again whole: the last counts), ``{"$rewindTo": id}``
  when the person rewinds (that message and every one after it are gone) and ``{"$set": {…}}``,
  which may hold a snapshot of every message (``"messages"``); before 0.39, one JSON document
  ``{"messages": [the same messages]}``.

A long session's JSONL transcript runs to hundreds of megabytes, most of it tool output, and a
hook has about a second: it is read from its end backwards (the newest replies are the ones no
other hook took), up to a byte and time budget, skipping lines too long to be a reply unparsed;
what is left unread is said in the hook's one-line note. A Gemini document is read whole or not
at all.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from .files import READ_FLAGS, kind_of
from .patterns import regex
from .records import NamedTuple

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

#: How much of a transcript a hook reads, from its end (the newest replies matter most: the end
#: hook exists to catch the last turns whose own hook did not run), and for how long (a hook has
#: a second or so). What is left unread is said, never silently dropped.
MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024
READ_SECONDS = 0.5
#: A transcript line longer than this is skipped unparsed: a tool result of megabytes, never a
#: reply (an agent's reply is at most a few hundred kilobytes).
MAX_LINE_BYTES = 2 * 1024 * 1024
_CHUNK = 1024 * 1024
_EDGE = 256  # how far before "journal" its fence is looked for, also across chunks
_OPEN = regex(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_JOURNAL = regex(r"[ \t]*journal[ \t]*", re.IGNORECASE)  # the info string of a block
_MARKER = regex(r"^[ \t]*(?:[-*+][ \t]+|[-*+]$)")
_GEMINI = ("gemini", "model")  # the types of a Gemini CLI model message
_ID_SPAN = 256  # how far into a Gemini log line its kind stands (JSON.stringify: id first)


class Message(NamedTuple):
    """One assistant message: its text and the local day it was written (None: unknown)."""

    text: str
    day: dt.date | None = None


class Reading(NamedTuple):
    """The assistant messages read from a transcript, oldest first, and a one-line note of what
    could not be read (None: nothing was left out)."""

    messages: list[Message]
    note: str | None = None


def text_lines(text: str) -> list[str]:
    """``text`` split at its line ends only: ``\\n``, ``\\r\\n`` or ``\\r``. Not `str.splitlines`,
    which also splits at U+2028, U+2029, U+0085, VT, FF and \\x1c-\\x1e: a bullet holding one
    would become two, where the guard refuses it whole, as it refuses the same text given as an
    argument."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def journal_blocks(text: str) -> tuple[list[str], int]:
    """The bullets of every fenced ``journal`` block in ``text``, in order: one a line, list
    markers and blank lines dropped; and how many ``journal`` fences stood inside another fenced
    block. A block left open at the end of the text still counts (a reply cut short keeps its
    bullets). As in CommonMark, a ``journal`` fence inside another block is that block's content:
    an agent showing the format, or one that left a fence open above its journal block; the
    caller says so rather than drop those bullets silently."""
    bullets: list[str] = []
    hidden = 0
    fence: str | None = None  # the fence of the open block
    journal = False  # whether the open block is a journal block
    for line in text_lines(text):
        opened = _OPEN.match(line)
        if fence is None:
            if opened and not (opened["fence"][0] == "`" and "`" in opened["info"]):
                fence = opened["fence"]
                journal = _JOURNAL.fullmatch(opened["info"]) is not None
            continue
        if _closes(line, fence):
            fence = None
            continue
        if not journal and opened and _JOURNAL.fullmatch(opened["info"]):
            hidden += 1
        bullet = _MARKER.sub("", line, count=1).strip() if journal else ""
        if bullet:
            bullets.append(bullet)
    return bullets, hidden


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a block opened with ``fence``: the same character at least as
    many times, nothing else (CommonMark; a shorter run is the block's content)."""
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0])


def read_transcript(
    path: str | Path,
    *,
    newest_only: bool = False,
    budget: int = MAX_TRANSCRIPT_BYTES,
    seconds: float = READ_SECONDS,
) -> Reading:
    """The assistant messages of the transcript at ``path`` that hold a ``journal`` block (only
    the newest with ``newest_only``), read from its end backwards: at most ``budget`` bytes,
    for at most ``seconds``, holding at most a chunk and a line. The note says what was left
    unread; a missing file is no transcript and has none."""
    try:
        fd = os.open(path, READ_FLAGS)
    except FileNotFoundError:
        return Reading([])
    except OSError as exc:
        return Reading([], f"transcript {path} not read: {exc.strerror}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Reading([], f"transcript {path} not read: it is {kind_of(st.st_mode)}")
        whole = _gemini_document(fd, st.st_size, budget)
        if whole is not None:
            note = None if whole.note is None else f"transcript {path}: {whole.note}"
            return Reading(whole.messages[-1:] if newest_only else whole.messages, note)
        return _scan(fd, st.st_size, str(path), newest_only, budget, seconds)
    except OSError as exc:
        return Reading([], f"transcript {path} not read: {exc.strerror}")
    finally:
        os.close(fd)


def _gemini_document(fd: int, size: int, budget: int) -> Reading | None:
    """The messages of a Gemini CLI transcript, one JSON document (pretty-printed or on one
    line) that can only be read whole; None if the file is not one: JSONL, a JSON object a
    line, is read by `_scan`."""
    head = os.pread(fd, _CHUNK, 0)
    first, newline, rest = head.lstrip().partition(b"\n")
    if not first.startswith(b"{") or b'"messages"' not in head:
        return None
    pretty = first.strip() == b"{"  # never a line of JSONL
    if newline and rest.strip() and not pretty:
        return None
    if size > budget:
        note = f"a JSON document of {_mb(size)}, over the {_mb(budget)} a hook reads; not read"
        return Reading([], note) if pretty else None
    chunks, offset = [head], len(head)
    while chunk := os.pread(fd, _CHUNK, offset):
        chunks.append(chunk)
        offset += len(chunk)
    data = b"".join(chunks)
    if not _worth_parsing(data):
        return Reading([])
    whole = _loads(data)
    if not isinstance(whole, dict) or not isinstance(whole.get("messages"), list):
        return None
    return Reading([m for m in map(_gemini, whole["messages"]) if m is not None])


def _scan(fd: int, size: int, path: str, newest_only: bool, budget: int, seconds: float) -> Reading:
    """The assistant messages of a JSONL transcript, newest first read."""
    tail = _Tail(fd, size)
    replies = _Replies()
    for line in tail.lines(budget, time.monotonic() + seconds):
        replies.add(line)
        if newest_only and replies.found:
            return Reading(replies.found)
    replies.found.reverse()
    return Reading(replies.found, tail.note(path, budget, seconds))


class _Replies:
    """The assistant messages of a JSONL transcript, its lines given newest first: those of
    Claude Code and Codex, and Gemini CLI's session log, whose messages carry ids (the newest
    line of an id counts) and may be rewound (`$rewindTo`: skipped back to the message it
    names, that one included)."""

    def __init__(self) -> None:
        self.found: list[Message] = []
        self.seen: set[str] = set()  # Gemini message ids met
        self.until: str | None = None  # while rewound: the id of the message it went back to
        self._its_line = b""  # how that message's line starts

    def add(self, line: bytes) -> None:
        start = line[:_ID_SPAN]
        if self.until is not None and not start.startswith(b'{"$set"'):
            if start.startswith(self._its_line):  # it, and every message after it, are gone
                self.until = None
            return
        if start.startswith(b'{"$rewindTo"'):
            obj = _loads(line)
            target = obj.get("$rewindTo") if isinstance(obj, dict) else None
            if isinstance(target, str):
                self.until = target
                self._its_line = f'{{"id":{json.dumps(target, ensure_ascii=False)},'.encode()
            return
        if not _worth_parsing(line):
            return
        obj = _loads(line)
        if not isinstance(obj, dict):
            return
        snapshot = (
            obj.get("$set", {}).get("messages") if isinstance(obj.get("$set"), dict) else None
        )
        for message in reversed(snapshot) if isinstance(snapshot, list) else [obj]:
            self._message(message)

    def _message(self, obj: Any) -> None:
        if not isinstance(obj, dict):
            return
        if obj.get("type") not in _GEMINI:
            found = _line(obj)  # Claude Code, Codex
        else:
            key = obj.get("id")
            if self.until is not None:  # in a snapshot, rewound: up to the message it names
                if key == self.until:
                    self.until = None
                return
            if isinstance(key, str):
                if key in self.seen:
                    return  # an older copy of a message updated since
                self.seen.add(key)
            found = _gemini(obj)
        if found is not None:
            self.found.append(found)


class _Tail:
    """A file's lines from its end backwards, a chunk at a time. A line over `MAX_LINE_BYTES`
    is skipped without being held or parsed; one holding a journal fence is counted."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd = fd
        self.pos = size  # where the part not yet read ends
        self.stop = 0  # where reading stops: the byte budget
        self.unread = 0  # bytes left unread at the start of the file
        self.fenced = 0  # lines over MAX_LINE_BYTES that held a journal fence
        self._fence = False  # whether the line being skipped holds one so far
        self._edge = b""  # the start of its piece read before (it comes after in the file)

    def lines(self, budget: int, deadline: float) -> Iterator[bytes]:
        """The non-blank lines, newest first, until ``budget`` bytes or ``deadline``."""
        stop = self.stop = max(0, self.pos - budget)
        carry = b""  # the newest line's part read so far (its start is further back)
        skipping = False
        while self.pos > stop and time.monotonic() < deadline:
            n = min(_CHUNK, self.pos - stop)
            self.pos -= n
            chunk = os.pread(self.fd, n, self.pos)
            if skipping:
                newline = chunk.rfind(b"\n")
                self._skip(chunk[newline + 1 :], ends=newline >= 0)
                if newline < 0:
                    continue
                skipping, chunk = False, chunk[: newline + 1]
            parts = (chunk + carry).split(b"\n")
            carry = parts[0]
            yield from self._complete(parts[:0:-1])
            if len(carry) > MAX_LINE_BYTES:
                self._skip(carry, ends=False)
                skipping, carry = True, b""
        if self.pos > 0:
            self.unread = self.pos + len(carry)
        elif skipping:
            self._skip(b"", ends=True)
        else:
            yield from self._complete([carry])

    def _complete(self, lines: list[bytes]) -> Iterator[bytes]:
        for line in lines:
            if len(line) > MAX_LINE_BYTES:
                self._skip(line, ends=True)
            elif line.strip():
                yield line

    def _skip(self, piece: bytes, *, ends: bool) -> None:
        """Note one piece of a line too long to parse (``ends``: the piece is its start)."""
        joined = piece + self._edge
        self._fence = self._fence or _worth_parsing(joined)
        self._edge = joined[:_EDGE]
        if ends:
            self.fenced += self._fence
            self._fence, self._edge = False, b""

    def note(self, path: str, budget: int, seconds: float) -> str | None:
        """What was left unread, one line; None if nothing that could hold a reply was."""
        said = []
        if self.unread:
            limit = f"its last {_mb(budget)}" if self.pos <= self.stop else f"for {seconds:g} s"
            said.append(f"its first {_mb(self.unread)} not read (a hook reads {limit})")
        if self.fenced:
            said.append(
                f"{self.fenced} line(s) over {_mb(MAX_LINE_BYTES)} holding a journal fence "
                "skipped unparsed (taken for tool output)"
            )
        return f"transcript {path}: {'; '.join(said)}" if said else None


def _worth_parsing(data: bytes) -> bool:
    """Whether ``data`` holds a ``journal`` fence: a ``journal`` (any case) after a run of three
    backticks or tildes and blanks. Plain searches: a pattern tried at every byte of megabytes of
    tool output is many times slower, quadratic on a long run of backticks."""
    lower = data.lower()
    at = lower.find(b"journal")
    while at >= 0:
        if data[max(0, at - _EDGE) : at].rstrip(b" \t").endswith((b"```", b"~~~")):
            return True
        at = lower.find(b"journal", at + 1)
    return False


def _mb(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size} bytes"


def _loads(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _line(obj: Any) -> Message | None:
    """One JSONL line of a Claude Code or Codex transcript, if it is an assistant message."""
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
    if not isinstance(message, dict) or message.get("type") not in _GEMINI:
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
