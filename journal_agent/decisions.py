"""Decisions about a topic (``why``): the rationale as it was written, history not current truth.

A decision bullet is a block that mentions the topic (or stands on the topic's own page) and
whose first line

* starts with ``Decision:``, ``Decided:`` or ``Rationale:`` — any case, optionally in bold
  (``**Decision:**``), with ``:``, ``—`` or ``–`` after the word (`append --kind decision`
  writes ``Decision:``); or
* carries the tag ``#decision`` / ``#decisions`` (or a link to a page so named), the way people
  who keep a decision log mark one.

No fuzzy word matching: "we decided" inside a sentence is prose, and guessing would put words in
the person's mouth. A decision's child bullets are shown with it (the why is often written
underneath), up to `MAX_DETAILS`. Each carries how many dated mentions of the topic came after
it: a decision with much history after it is the likeliest to have been overtaken.
"""

from __future__ import annotations

import datetime as dt
import re

from .errors import UnreadablePage
from .outline import Outline
from .patterns import regex
from .queries import Backlink, Topic
from .records import NamedTuple, Record
from .vault import Vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

DECISION_TEXT = regex(
    r"^(?:\*\*|__)?(?:decision|decided|rationale)(?:\*\*|__)?\s*(?::|—|–)"
    r"|(?:^|\s)#(?:\[\[)?decisions?(?:\]\])?(?=$|[\s,.;:!?])"
    r"|\[\[decisions?\]\]",
    re.IGNORECASE,
)
MAX_DETAILS = 3
#: What every answer says about itself: decisions are rationale, not what is true now.
NOTE = (
    "Rationale as it was written at the time: history, not current truth. What is true now is "
    "the topic's latest bullets (`journal-agent timeline TOPIC`)."
)


def is_decision(text: str) -> bool:
    """Whether a block's first line marks it as a decision (see the module's rules)."""
    return DECISION_TEXT.search(text.strip()) is not None


class Decision(NamedTuple):
    """One decision bullet about a topic, with the bullets written under it."""

    date: dt.date | None  # the journal day; None on a page that is not a journal
    page: str
    path: str
    line: int
    text: str
    details: tuple[str, ...] = ()
    mentions_since: int = 0  # dated mentions of the topic after this decision

    def to_json(self) -> dict[str, Any]:
        return {
            "date": self.date.isoformat() if self.date else None,
            "page": self.page,
            "path": self.path,
            "line": self.line,
            "text": self.text,
            "details": list(self.details),
            "mentions_since": self.mentions_since,
        }


class WhyResult(Record):
    """The decisions about one topic, newest first (dated ones, then undated)."""

    __slots__ = ("topic", "decisions", "warnings")

    def __init__(
        self,
        topic: Topic,
        decisions: list[Decision],
        warnings: list[str] | None = None,
    ) -> None:
        self.topic = topic
        self.decisions = decisions
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        last = self.topic.last
        return {
            "topic": self.topic.page.title,
            "path": self.topic.page.path,
            "status": self.topic.status,
            "last_mentioned": last.date.isoformat() if last and last.date else None,
            "note": NOTE,
            "decisions": [d.to_json() for d in self.decisions],
        }


def decisions_about(vault: Vault, topic: Topic, entries: list[Backlink]) -> list[Decision]:
    """The decisions among a topic's timeline ``entries`` (newest first) and on its own page."""
    dated = sorted((b.date for b in entries if b.date is not None), reverse=True)
    found = [b for b in entries if is_decision(b.text)]
    path = topic.page.path
    if path and not path.endswith(".org"):
        found += _on_own_page(vault, topic, path)
    outlines: dict[str, Outline | None] = {}
    out = []
    for b in found:
        if b.path not in outlines:
            outlines[b.path] = _read(vault, b.path)
        since = sum(1 for d in dated if b.date is not None and d > b.date) if b.date else 0
        out.append(
            Decision(
                b.date,
                b.page,
                b.path,
                b.line,
                b.text,
                _details(outlines[b.path], b.line),
                since,
            )
        )
    return out


def _on_own_page(vault: Vault, topic: Topic, path: str) -> list[Backlink]:
    """Decision blocks on the topic's own page (a page's references to itself are no backlinks,
    but a decision written there is about it)."""
    outline = _read(vault, path)
    if outline is None:
        return []
    return [
        Backlink(None, topic.page.title, path, b.line, b.text, False)
        for b in outline.blocks
        if b.text and is_decision(b.text)
    ]


def _read(vault: Vault, rel: str) -> Outline | None:
    try:
        return vault.read_page(rel)
    except UnreadablePage:
        return None


def _details(outline: Outline | None, line: int) -> tuple[str, ...]:
    """The first lines of the block's children (at most `MAX_DETAILS`)."""
    if outline is None:
        return ()
    at = next((i for i, b in enumerate(outline.blocks) if b.line == line), None)
    if at is None:
        return ()
    kids = [b.text.strip() for b in outline.blocks if b.parent == at and b.text.strip()]
    return tuple(kids[:MAX_DETAILS])
