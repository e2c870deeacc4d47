"""The instruction text an agent reads: how to write to the journal, and how to look things up.

It is kept here, in one place, because three readers need the same words: the session-start
projection ends with its three short lines (`HOW_TO`), and the host adapters ship the whole text
as a Claude Code skill, an ``AGENTS.md`` section or a Gemini CLI extension's context
(`instructions`). What it asks is the seed convention: a handful of dated, single-line bullets at
human size (decisions with a one-line why, status changes, causal links in plain prose), each
linking the existing topics it touches. The wording is factual rather than imperative on purpose:
hosts wrap it as a system reminder, and "system"-style commands can trip prompt-injection
defences.
"""

from __future__ import annotations

#: The three lines of the projection: how to write (two) and how to look things up (one).
HOW_TO: tuple[str, ...] = (
    "Write a handful of single-line bullets at human size: what changed, decisions as "
    "`Decision: … because …`, closures as `Resolved: …`, causes in plain prose "
    "(X broke because Y).",
    "Link the existing pages each bullet touches ([[Page]]), and only existing ones; the journal "
    "page dates the bullets, and nothing else in the vault is written.",
    "Look up: `journal-agent topics`, `timeline TOPIC`, `why TOPIC` (past decisions), "
    "`pages --search WORD` (what may be linked).",
)

#: The longer text for skills and AGENTS.md sections; `{agent}` is the agent's name.
_INSTRUCTIONS = """\
## Journal memory (journal-agent)

This project keeps its memory in the person's own outliner: dated, single-line bullets on
today's journal page, under one block the agent owns (`{agent} log`). The person reads them
where they already work, and their backlinks turn them into a timeline on every topic page.
Whether a topic is active, resolved or stale comes from how recently it was mentioned.

What to write, at the end of a piece of work (not a report):

- {write}
- {link}
- A status change is a bullet too: `Resolved: …` closes a thread; mentioning a topic again
  keeps it active.
- Example: `Decision: rollback is a DNS flip, not a data restore, because a restore takes 4 h
  [[Atlas Migration]]`

How to write them: `journal-agent append --agent {agent} "BULLET" ...` (one bullet an
argument; a bullet naming a page that does not exist is refused with the closest names). The
person's edits win: a bullet they deleted or changed is never written again.

How to look things up: {lookup}

At session start journal-agent shows what is live in the vault (active threads with their
newest bullets, recently resolved ones, stale ones, corrections the person made to earlier
bullets). That projection is read from the vault, never from the agent's own old notes.
"""


def instructions(agent: str = "agent") -> str:
    """The instruction text for an agent named ``agent`` (Markdown, one section): what to write
    to the journal and how, and how to look things up. Adapters ship it as a skill or an
    AGENTS.md section; its first lines are the projection's own (`HOW_TO`)."""
    write, link, lookup = HOW_TO
    return _INSTRUCTIONS.format(
        agent=agent.strip() or "agent",
        write=write,
        link=link,
        lookup=lookup.removeprefix("Look up: "),
    )
