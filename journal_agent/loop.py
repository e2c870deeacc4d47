"""The session loop: what ``journal-agent hook HOST EVENT`` does in each phase of a session.

No host reliably runs a session-end hook to completion (Claude Code gives all of them 1.5 s,
Codex 1 s, Gemini does not wait), so nothing waits for the end:

* **start** — write what earlier sessions left pending (within a budget), then print the
  projection of the vault in the form the host turns into context, with the bullets still
  pending and why. It fails open: on any problem it prints a one-line note and exits 0.
* **turn** (a reply ended, or the context is about to be compacted) — take the bullets of the
  reply's fenced ``journal`` block (or of every reply in the transcript, before compaction),
  record them durably as pending, then try to write them. Prints nothing a host could take as
  context.
* **end** — the same over the whole transcript (it catches a turn whose hook did not run), within
  the host's budget; whatever is left goes to a detached process, and the next start sweeps
  anything still left after that.

The hook path imports only what writing needs (no networkx, mistune, httpx, yaml or EDN reader
on a Markdown vault): a hook starts as fast as ``journal-agent append``.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .errors import JournalAgentError
from .hosts import HookCall, Host, host_named
from .pending import (
    MAX_BULLET_BYTES,
    Pending,
    PendingStore,
    flush,
    make,
    outbox,
    record,
    render,
)
from .records import NamedTuple, Record
from .transcript import Message, journal_blocks, read_transcript
from .vault import Vault, configured_root, open_vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

START_BUDGET = 2.0  # seconds to write what earlier sessions left, before the projection
TURN_BUDGET = 2.0  # seconds to write a turn's bullets (they are recorded first either way)
DETACHED_BUDGET = 60.0  # seconds the detached process at session end may keep trying
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
PROTOCOL = (
    "To record what you did or decided, end your reply with a fenced block tagged `journal`, one "
    "bullet a line; it is written to today's journal page (link only existing pages)."
)


class HookResult(Record):
    """What a hook prints (``stdout``, in the host's form), its one-line notes for stderr, and
    its exit code (1 only when bullets could not be recorded anywhere)."""

    __slots__ = ("stdout", "warnings", "exit_code")

    def __init__(
        self,
        stdout: str,
        warnings: list[str] | None = None,
        exit_code: int = 0,
    ) -> None:
        self.stdout = stdout
        self.warnings = [] if warnings is None else warnings
        self.exit_code = exit_code

    def to_json(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "notes": self.warnings}


class _Run(NamedTuple):
    """One hook run: the host, its call, the vault argument, the agent, when it started."""

    host: Host
    call: HookCall
    vault_arg: str | None
    agent: str
    started: float


def run_hook(
    host_name: str,
    event: str | None,
    payload: bytes,
    *,
    vault: str | None = None,
    agent: str | None = None,
    budget: float | None = None,
    started: float | None = None,
) -> HookResult:
    """Run one hook of host ``host_name`` for ``event`` (default: the payload's
    ``hook_event_name``) on the host's JSON ``payload``. Never raises."""
    begun = time.monotonic() if started is None else started
    try:
        host = host_named(host_name)
    except JournalAgentError as exc:
        return HookResult("", [str(exc)])
    data = _payload(payload)
    try:
        name = host.event(event or _str(data.get("hook_event_name")))
    except JournalAgentError as exc:
        return HookResult(host.quiet_output(None), [str(exc)])
    run = _Run(host, host.call(name, data), vault, agent or host.agent, begun)
    if run.call.phase == "start":
        return _start(run, START_BUDGET if budget is None else budget)
    default = TURN_BUDGET if run.call.phase == "turn" else host.end_budget
    return _record_and_flush(run, default if budget is None else budget)


def _payload(raw: bytes) -> dict[str, Any]:
    """The host's JSON object; empty if there is none or it is not JSON (a start hook still
    runs, a turn finds no bullets)."""
    import json

    try:
        data = json.loads(raw.decode("utf-8-sig")) if raw.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _open(vault_arg: str | None) -> tuple[Vault | None, str | None]:
    """The vault, or None and why it cannot be opened."""
    try:
        return open_vault(vault_arg), None
    except JournalAgentError as exc:
        return None, str(exc)


# -- start -------------------------------------------------------------------------------------


def _start(run: _Run, budget: float) -> HookResult:
    """Sweep and flush what is pending, then print the projection; fail open."""
    host = run.host
    notes: list[str] = []
    parts: list[str] = []
    left: list[Pending] = []
    try:
        vault, why = _open(run.vault_arg)
        if vault is not None:
            left = _sweep(vault, run.started + budget)
        else:
            notes.append(str(why))
        left = [i for i in left + _outboxed(vault, run.vault_arg) if i.agent == run.agent]
        shown = _projection_or_note(vault, run, left, notes) if vault is not None else None
        parts += [render(left) if shown is None else shown, PROTOCOL]
    except Exception as exc:  # a start hook never blocks a session
        notes.append(_describe(exc))
    note = f"journal-agent: {'; '.join(notes)}" if notes else None
    context = "\n\n".join(p for p in [note or "", *parts] if p)
    return HookResult(host.start_output(context, note), notes)


def _sweep(vault: Vault, until: float) -> list[Pending]:
    """Write what earlier sessions left (the outbox moves in first); return what is left."""
    store = PendingStore.of(vault.root)
    try:
        store.prune()
    except JournalAgentError:
        pass
    report = flush(vault, until=until, store=store)
    return report.left


def _outboxed(vault: Vault | None, vault_arg: str | None) -> list[Pending]:
    """The bullets waiting outside the vault (it could not be opened or written)."""
    root = vault.root if vault is not None else configured_root(vault_arg)
    try:
        return outbox(root).items()
    except JournalAgentError:
        return []


def _projection_or_note(
    vault: Vault, run: _Run, left: list[Pending], notes: list[str]
) -> str | None:
    """The projection; None (the hook lists the pending bullets itself) if there is none."""
    try:
        return projection(vault, run.agent, left, run.call.cwd)
    except Exception as exc:  # the projection is optional; the pending bullets are not
        notes.append(f"no projection: {_describe(exc)}")
        return None


def projection(vault: Vault, agent: str, pending: Sequence[Pending], project: str | None) -> str:
    """The session-start projection of ``vault`` for ``agent``, listing the ``pending``
    bullets: the ``context`` command's Markdown (`api_context.context`), scoped by the topics the
    project in the agent's working folder ``project`` names. This is the one seam between the
    hooks and the projection."""
    from .api_context import context

    return context(vault=vault, agent=agent, pending=list(pending), project=project).markdown


# -- turn and end ------------------------------------------------------------------------------


def _record_and_flush(run: _Run, budget: float) -> HookResult:
    """Record the bullets the agent handed over, then write what can be written in time."""
    host, call = run.host, run.call
    if call.skip:
        return HookResult(host.quiet_output(None))
    recorded = False
    notes: list[str] = []
    try:
        vault, why = _open(run.vault_arg)
        items = _bullets(run, _messages(call, notes), notes)
        kept: list[Pending] = []
        if items:
            root = vault.root if vault is not None else configured_root(run.vault_arg)
            kept = [i for i in record(items, vault, root, why) if i.where == "outbox"]
        recorded = True
        if vault is None or kept:
            note = f"{kept[0].reason if kept else why}" + (
                f"; {len(kept)} bullet(s) kept outside the vault until it can be written"
                if kept
                else ""
            )
            return HookResult(host.quiet_output(f"journal-agent: {note}"), [*notes, note])
        result = _flush(run, vault, items, budget)
        result.warnings[:0] = notes
        return result
    except Exception as exc:  # never break the host's turn
        note = _describe(exc)
        if not recorded:
            note = f"bullets not recorded: {note}"
        return HookResult(host.quiet_output(f"journal-agent: {note}"), [note], 0 if recorded else 1)


def _flush(run: _Run, vault: Vault, items: Sequence[Pending], budget: float) -> HookResult:
    report = flush(vault, until=run.started + budget)
    if run.call.phase == "end" and (report.untried or report.busy):
        detach_flush(vault.root)
    mine = {i.id for i in items}
    refused = [i for i in report.failed if i.id in mine]
    notes = [f"pending {i.id[:8]} {i.text[:60]!r}: {i.reason}" for i in refused]
    note = f"journal-agent: {len(refused)} bullet(s) pending (see journal-agent pending)"
    return HookResult(run.host.quiet_output(note if refused else None), notes)


def _messages(call: HookCall, notes: list[str]) -> list[Message]:
    """The replies whose bullets this call takes: the one in the payload, else the transcript's
    last (a turn) or all of them (before compaction, at the end); what of the transcript could
    not be read is said (``notes``)."""
    if call.message is not None:
        return [Message(call.message)]
    if call.transcript is None:
        return []
    reading = read_transcript(call.transcript, newest_only=not call.whole_transcript)
    if reading.note is not None:
        notes.append(reading.note)
    return reading.messages


def _bullets(run: _Run, messages: list[Message], notes: list[str]) -> list[Pending]:
    """The bullets of ``messages`` as pending items; a "bullet" too large to be one line is left
    out, and said so (``notes``)."""
    today = dt.date.today()
    items: list[Pending] = []
    for message in messages:
        texts, hidden = journal_blocks(message.text)
        if hidden:
            notes.append(
                f"{hidden} journal block(s) inside another fenced block not taken (an example, "
                "or a fence left open above it)"
            )
        huge = [t for t in texts if len(t.encode("utf-8", "replace")) > MAX_BULLET_BYTES]
        if huge:
            notes.append(
                f"{len(huge)} line(s) of a journal block over {MAX_BULLET_BYTES} bytes left out"
            )
            texts = [t for t in texts if t not in huge]
        if texts:
            day = message.day if message.day is not None and message.day <= today else today
            items += make(
                texts, agent=run.agent, session=run.call.session, day=day, source=run.host.name
            )
    return items


def detach_flush(root: Path, budget: float = DETACHED_BUDGET) -> None:
    """Start ``journal-agent pending flush`` for the vault at ``root`` in a process of its own
    session, its standard streams on /dev/null: the host may kill the hook and its process group
    the moment its budget is over, and this one keeps going."""
    from .rebuild import own_module

    argv = own_module("journal_agent", "pending", "flush", "--vault", os.path.abspath(root))
    argv += ["--budget", f"{budget:g}"]
    null = os.open(os.devnull, os.O_RDWR)
    try:
        if hasattr(os, "posix_spawn"):
            actions = [(os.POSIX_SPAWN_DUP2, null, fd) for fd in (0, 1, 2)]
            os.posix_spawn(
                sys.executable, argv, dict(os.environ), file_actions=actions, setsid=True
            )
        else:  # pragma: no cover - Windows
            import subprocess

            flags = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(
                subprocess, "CREATE_NEW_PROCESS_GROUP", 0
            )
            subprocess.Popen(argv, stdin=null, stdout=null, stderr=null, creationflags=flags)
    except OSError:
        pass  # the next session start sweeps what is left
    finally:
        os.close(null)


def _describe(exc: BaseException) -> str:
    """A one-line reason: the library's message, else the exception's name and text."""
    if isinstance(exc, JournalAgentError):
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"internal error (a bug, please report it): {type(exc).__name__}: {exc}"
