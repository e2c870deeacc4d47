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

#: The longer text for skills, AGENTS.md sections and GEMINI.md; `{agent}` is the agent's name.
_INSTRUCTIONS = """\
# Keeping the person's journal

journal-agent keeps your memory where the person already reads: dated, single-line bullets on
today's journal page of their Logseq, Obsidian or Markdown vault, under one block you own
(`{agent} log`). The person's backlinks turn them into a timeline on every topic page; whether a
topic is active, resolved or stale comes from how recently it was mentioned. What the person
edits or deletes there wins: a bullet they removed is never written again.

## Handing bullets over

When a turn did or decided something worth remembering, end your reply with a fenced block
tagged `journal`, one bullet a line (close every code block before it: inside another one, it is
that block's text):

```journal
- Moved the [[Atlas Migration]] cut-over to Friday: the vendor needs two more days
- Resolved: [[Flaky CI]] — the upload test raced the retry helper; fixed with a lock
```

The hook records the block when the turn ends (durably: it is not lost if the session ends right
after) and writes it to the journal. A bullet it cannot write stays pending and is shown, with the
reason, at the start of the next session. Without hooks, `journal-agent note --agent {agent}
"BULLET" ...` does the same (and an MCP client has the `note` tool).

## Writing as the person would

- {write}
- {link}
- A status change is a bullet too: `Resolved: …` closes a thread; mentioning a topic again keeps
  it active. No headings, properties or nested lists; no date (the page dates it).
- Do not repeat what the journal already says, and do not summarize the session.

## Looking things up

{lookup} At session start journal-agent shows what is live in the vault: active threads with
their newest bullets, recently resolved ones, stale ones, and corrections the person made to
earlier bullets. That projection is read from the vault, never from your own old notes: what the
vault says is the truth; your old bullets are history.
"""


def instructions(agent: str = "agent") -> str:
    """The instruction text for an agent named ``agent`` (Markdown): how to hand bullets over,
    what to write and how to look things up. Adapters ship it as a skill, an AGENTS.md section
    or GEMINI.md; its writing and look-up lines are the projection's own (`HOW_TO`)."""
    write, link, lookup = HOW_TO
    return _INSTRUCTIONS.format(
        agent=agent.strip() or "agent", write=write, link=link, lookup=lookup
    )
