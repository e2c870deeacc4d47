"""The host seam: how an agent host calls journal-agent's hooks and reads their answers.

Agent hosts are the same kind of thing as backends: one small base class, one module per host,
a registry (`hosts.HOSTS`). A host says which of its events journal-agent listens to and in which
phase of the session loop each falls (`EventSpec`): **start** (print the projection),
**turn** (take the bullets of the reply that just ended, record them, try to write them) or
**end** (write what is left within the host's budget, hand the rest to a detached process). It
reads its payload (`Host.call`) and shapes the answer the way it turns stdout into context
(`Host.start_output`, `Host.quiet_output`). It also knows its settings file and its
ready-to-install bundle (`Host.bundle`), both generated from the same `Host.hooks_config`.

To add a host: subclass `Host` in a module of its own, set the class attributes, implement
`start_output`, `settings_path` and `bundle`, and list it in `hosts.HOSTS`.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path

from ..errors import BadArgument
from ..records import NamedTuple

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, ClassVar, Literal

    Phase = Literal["start", "turn", "end"]

#: The command a generated hook runs (on PATH: plugins cannot install Python packages).
COMMAND = "journal-agent"


class EventSpec(NamedTuple):
    """One host event journal-agent listens to."""

    phase: Phase
    timeout: int  # in the host's unit (`Host.timeout_unit`)
    whole_transcript: bool = False  # take the bullets of every message of the transcript


class HookCall(NamedTuple):
    """One hook invocation, as the host described it on stdin."""

    event: str
    phase: Phase
    session: str | None
    message: str | None  # the reply that just ended, when the payload carries it
    transcript: str | None  # the transcript file, when there is one
    whole_transcript: bool
    skip: str | None  # why to do nothing at all (a subagent, a Stop hook already running)
    cwd: str | None = None  # the agent's working folder: where a project names its topics


class Host(ABC):
    """An agent host that runs journal-agent's hooks."""

    name: ClassVar[str]  # as ``journal-agent hook NAME`` spells it
    title: ClassVar[str]  # as people spell it
    agent: ClassVar[str]  # the default agent name (its owned block: ``NAME log``)
    events: ClassVar[dict[str, EventSpec]]
    timeout_unit: ClassVar[Literal["s", "ms"]] = "s"
    #: Seconds a session-end hook may spend writing before it hands the rest to a detached
    #: process (the host's own limit, minus the interpreter's start).
    end_budget: ClassVar[float] = 1.0
    #: The payload field holding the reply that just ended.
    message_field: ClassVar[str] = "last_assistant_message"

    def event(self, name: str | None) -> str:
        """The event ``name`` as this host spells it; `BadArgument` if it is not one of ours."""
        if name in self.events:
            return name
        folded = {e.lower(): e for e in self.events}
        found = folded.get((name or "").lower())
        if found is None:
            raise BadArgument(
                f"{self.title} event {name!r} is not one journal-agent handles "
                f"({', '.join(self.events)})"
            )
        return found

    def call(self, event: str, payload: dict[str, Any]) -> HookCall:
        """Read the host's payload for ``event``."""
        spec = self.events[event]
        message = payload.get(self.message_field) if spec.phase == "turn" else None
        transcript = payload.get("transcript_path")
        session = payload.get("session_id")
        cwd = payload.get("cwd")
        return HookCall(
            event=event,
            phase=spec.phase,
            session=str(session) if session else None,
            message=message if isinstance(message, str) and not spec.whole_transcript else None,
            transcript=transcript if isinstance(transcript, str) and transcript else None,
            whole_transcript=spec.whole_transcript,
            skip=self.skip(spec, payload),
            cwd=cwd if isinstance(cwd, str) and cwd else None,
        )

    def skip(self, spec: EventSpec, payload: dict[str, Any]) -> str | None:
        """Why this call must do nothing: a subagent's turn is not the session's. A turn with
        ``stop_hook_active`` is not skipped: its reply is a new one (the host went on because
        another hook blocked, or retried), and this hook neither blocks nor prints context, so
        it cannot loop; bullets taken twice are written once."""
        if spec.phase != "start" and payload.get("agent_id"):
            return "a subagent"
        return None

    @abstractmethod
    def start_output(self, context: str, note: str | None) -> str:
        """What to print at session start so that the host makes ``context`` the agent's
        context (and shows ``note``, a one-line problem, to the person if it can)."""

    def quiet_output(self, note: str | None) -> str:
        """What to print on a turn or at the end: nothing (a turn's stdout must never become
        context); a host that insists on JSON overrides this."""
        return ""

    def command(self, event: str) -> str:
        """The command line a generated hook runs for ``event``."""
        return f"{COMMAND} hook {self.name} {event}"

    def handler(self, event: str, spec: EventSpec) -> dict[str, Any]:
        """One generated hook handler (an explicit timeout: hosts' defaults are minutes)."""
        return {"type": "command", "command": self.command(event), "timeout": spec.timeout}

    def hooks_config(self) -> dict[str, Any]:
        """The ``hooks`` settings journal-agent installs: one group per event."""
        return {
            "hooks": {
                event: [{"hooks": [self.handler(event, spec)]}]
                for event, spec in self.events.items()
            }
        }

    def is_ours(self, handler: Any) -> bool:
        """Whether a hook handler in a settings file is one journal-agent installed."""
        if not isinstance(handler, dict):
            return False
        command = handler.get("command")
        if not isinstance(command, str):
            return False
        words = command.split()
        return any(
            w.rsplit("/", 1)[-1] == COMMAND and words[i + 1 : i + 3] == ["hook", self.name]
            for i, w in enumerate(words)
        )

    @abstractmethod
    def settings_path(self, project: Path | None) -> Path:
        """The settings file hooks are installed in: the user's, or ``project``'s."""

    @abstractmethod
    def bundle(self) -> dict[str, str]:
        """The host's ready-to-install bundle: relative path → text."""


def mcp_server(agent: str) -> dict[str, Any]:
    """How a host starts journal-agent's MCP server for ``agent`` (the vault comes from
    ``$JOURNAL_AGENT_VAULT`` or the person's config file; needs ``journal-agent[mcp]``)."""
    return {"command": COMMAND, "args": ["mcp", "--agent", agent]}


def to_json(data: Any) -> str:
    """JSON as the bundles and settings files are written: two-space indent, final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def instructions(agent: str) -> str:
    """The instruction text an agent reads (the skill, the AGENTS.md section, GEMINI.md): one
    text for every host and the projection, `guide.instructions`."""
    from ..guide import instructions as text

    return text(agent)
