"""Agent hosts journal-agent hooks into (see `hosts.base`): Claude Code, Codex, Gemini CLI.

Cursor is not here: its hooks are documented only second-hand so far (no payload shapes to test
against), and a hook that guesses its host's format loses bullets quietly.
"""

from __future__ import annotations

from ..errors import BadArgument
from .base import EventSpec, HookCall, Host
from .claude_code import ClaudeCode
from .codex import Codex
from .gemini import Gemini

HOSTS: dict[str, type[Host]] = {h.name: h for h in (ClaudeCode, Codex, Gemini)}


def host_named(name: str) -> Host:
    """The host called ``name`` (as ``journal-agent hook NAME`` spells it)."""
    found = HOSTS.get(name) or HOSTS.get(name.lower().replace("_", "-"))
    if found is None:
        raise BadArgument(f"unknown agent host {name!r} (known: {', '.join(HOSTS)})")
    return found()


__all__ = ["HOSTS", "EventSpec", "HookCall", "Host", "host_named"]
