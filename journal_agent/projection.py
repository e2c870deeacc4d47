"""The session-start projection: what is live in the vault, in Markdown, within a budget.

An agent starts each session from this projection, never from its own old summaries: every fact
in it is read from the vault as it is now (the cached status summary, `summary`, and the
frontier page); the ledger only says which of the agent's bullets the person has since changed
(`corrections`, what ``audit`` reports), and a bullet the person deleted appears only there, as
a correction.

Sections, in the order they are printed and, when the budget is tight, kept:

1. the frontier page the person curates (``frontier = "Title"`` in ``.journal-agent.toml``; read,
   never written), at most `FRONTIER_SHARE` of the budget;
2. active threads, most recently mentioned first: topic, last date, mentions in the window, and
   its newest bullets (anyone's);
3. threads resolved within the window, with their resolution bullet;
4. how many threads went stale, the freshest few named;
5. corrections since the agent last wrote (`corrections.recent_corrections`);
6. bullets still pending from earlier sessions, with the reason each was not written (any objects
   with ``text`` and ``reason``: `PendingLike`); nothing at all when there are none;
7. three lines on how to write and how to look things up (`guide.HOW_TO`).

The budget is filled in passes (`_fit`): first a little of every section (the five newest active
threads with their newest bullet, the first few of each list, the stale line, the how-to lines),
then the names of every other active thread, then more bullets; a piece that does not fit ends its
pass in its section. A section that could not show everything says how many it left out and which
command lists them. The same vault, agent, scope, pending list and ``as_of`` give the same bytes:
nothing depends on the clock, the hash seed or the order files are listed in.
"""

from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Callable, Sequence

from .corrections import Finding
from .derived import window_start
from .errors import escaped
from .guide import HOW_TO
from .patterns import regex
from .queries import Topic
from .records import NamedTuple, Record
from .scope import Scope
from .summary import Summary

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, Protocol
else:
    Protocol = object  # `PendingLike` is a plain class at run time

DEFAULT_BUDGET = 6000
MIN_BUDGET = 200
MAX_BUDGET = 100_000
MAX_TEXT = 160  # characters of one bullet shown
BULLETS = 3  # newest bullets shown under an active thread
FIRST_ACTIVE = 5  # active threads shown with a bullet before the other threads are named
FIRST_ITEMS = 3  # resolved threads, corrections and pending bullets in the first pass
BULLETED = 12  # active threads on a line of their own, with bullets; the rest on one line
STALE_NAMED = 3
FRONTIER_SHARE = 0.4
_PROPERTY = regex(r"^\s*[A-Za-z0-9_-]+::(\s|$)")


class PendingLike(Protocol):
    """A bullet recorded but not yet written to the journal, as the projection shows it."""

    @property
    def text(self) -> str: ...

    @property
    def reason(self) -> str | None: ...


class Frontier(NamedTuple):
    """The person's frontier page as read now: its title and lines (None if it is missing)."""

    title: str
    lines: tuple[str, ...] | None


class ContextResult(Record):
    """The projection and what it holds: the Markdown, the scope it used, and per section how
    many items there were (``totals``) and how many it shows (``shown``)."""

    __slots__ = (
        "markdown",
        "as_of",
        "days",
        "agent",
        "budget",
        "scope",
        "totals",
        "shown",
        "active",
        "warnings",
    )

    def __init__(
        self,
        markdown: str,
        as_of: dt.date,
        days: int,
        agent: str,
        budget: int,
        scope: Scope,
        totals: dict[str, int],
        shown: dict[str, int],
        active: list[str],  # the active threads named, in order
        warnings: list[str] | None = None,
    ) -> None:
        self.markdown = markdown
        self.as_of = as_of
        self.days = days
        self.agent = agent
        self.budget = budget
        self.scope = scope
        self.totals = totals
        self.shown = shown
        self.active = active
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of.isoformat(),
            "days": self.days,
            "agent": self.agent,
            "budget": self.budget,
            "chars": len(self.markdown),
            "scope": self.scope.to_json(),
            "totals": self.totals,
            "shown": self.shown,
            "active": self.active,
            "markdown": self.markdown,
        }


class Inputs(NamedTuple):
    """Everything a projection is made from (read by the caller, `api.context`)."""

    as_of: dt.date
    days: int
    agent: str
    budget: int
    summary: Summary
    scope: Scope
    frontier: Frontier | None = None
    corrections: Sequence[Finding] = ()
    pending: Sequence[PendingLike] = ()
    page_label: Callable[[str], str] = str  # a journal path as the projection names it


# -- the pieces -----------------------------------------------------------------------------------

FRONTIER, ACTIVE, RESOLVED, STALE, CORRECTIONS, PENDING, HOW = range(7)


class Piece(NamedTuple):
    """Lines the projection may show: which section, where in it (``rank``), in which pass
    (``tier``), and the piece it belongs under (a bullet under its thread), if any."""

    section: int
    rank: int
    tier: int
    text: str
    parent: int | None = None
    inline: bool = False  # one of a comma-separated list on the section's last line


class Section(NamedTuple):
    """A section's heading lines, its pieces, and the note for what it leaves out."""

    head: list[str]
    pieces: list[Piece]
    more: Callable[[int], str] | None = None  # the line for n items left out
    extra: int = 0  # items left out before the budget was even looked at
    inline_prefix: str = ""  # what the line of inline pieces starts with

    def total(self) -> int:
        """How many items it has, shown or not."""
        return self.extra + sum(1 for p in self.pieces if p.parent is None)

    def items(self, chosen: set[tuple[int, int]], section: int) -> int:
        """How many of its items (pieces not under another) are chosen."""
        return sum(1 for p in self.pieces if p.parent is None and (section, p.rank) in chosen)


def build(inputs: Inputs) -> ContextResult:
    """The projection of ``inputs`` within its budget."""
    ranked, n_stale = _threads(inputs)
    s, as_of, days = inputs.summary, inputs.as_of, inputs.days
    active = [s.topic(i, as_of, days) for i in ranked["active"]]
    resolved = [s.topic(i, as_of, days) for i in ranked["resolved"]]
    stale = [s.topic(i, as_of, days) for i in ranked["stale"][:STALE_NAMED]]
    sections = {
        FRONTIER: _frontier(inputs),
        ACTIVE: _active(inputs, active, ranked["active"]),
        RESOLVED: _resolved(inputs, resolved),
        STALE: _stale(inputs, stale, n_stale),
        CORRECTIONS: _corrections(inputs),
        PENDING: _pending(inputs),
        HOW: Section(
            ["## How to write"],
            [Piece(HOW, i, 1, f"- {line}") for i, line in enumerate(HOW_TO)],
        ),
    }
    markdown, chosen = _fit(_head(inputs), sections, inputs.budget)
    shown = {name: sections[sec].items(chosen, sec) for name, sec in _NAMES.items()}
    shown["stale"] = n_stale if shown["stale"] else 0
    totals = {name: sections[sec].total() for name, sec in _NAMES.items()}
    totals.update(active=len(active), stale=n_stale)
    named = [t.page.title for n, t in enumerate(active) if (ACTIVE, n * 10) in chosen]
    return ContextResult(
        markdown,
        inputs.as_of,
        inputs.days,
        inputs.agent,
        inputs.budget,
        inputs.scope,
        totals,
        shown,
        named,
    )


def _threads(inputs: Inputs) -> tuple[dict[str, list[int]], int]:
    """The summary positions of the active, recently resolved and stale topics in scope, each
    most recently mentioned first (then by title, as `queries.by_recency` orders them), and how
    many are stale: of those, only the first `STALE_NAMED` are named, so only the topics
    mentioned as recently as those are ranked (a large vault has thousands, and ranking one
    looks its title up)."""
    s, as_of, days = inputs.summary, inputs.as_of, inputs.days
    members = inputs.scope.members
    found: dict[str, list[int]] = {"active": [], "resolved": [], "stale": []}
    newest: dict[int, int] = {}  # position -> the day (ordinal) of its newest mention
    # Logseq's built-in and property-key pages are no thread of anyone's (not `all_pages`)
    for i, status, _, end, _ in s.rows(as_of.toordinal(), days, among=s.mentioned()):
        if status in found and (members is None or i in members):
            found[status].append(i)
            newest[i] = s.days[end - 1]
    recent = as_of.toordinal() - days
    found["resolved"] = [i for i in found["resolved"] if newest[i] >= recent]
    n_stale, stale = len(found["stale"]), found["stale"]
    if n_stale > STALE_NAMED:
        cut = heapq.nlargest(STALE_NAMED, map(newest.__getitem__, stale))[-1]
        found["stale"] = [i for i in stale if newest[i] >= cut]  # ties with the last: all
    ranked = {
        k: sorted(v, key=lambda i: (-newest[i], s.title(i).lower())) for k, v in found.items()
    }
    return ranked, n_stale


_NAMES = {
    "frontier": FRONTIER,
    "active": ACTIVE,
    "resolved": RESOLVED,
    "stale": STALE,
    "corrections": CORRECTIONS,
    "pending": PENDING,
}


def cut(text: str, limit: int = MAX_TEXT) -> str:
    """One line of at most ``limit`` characters (white space folded, an ellipsis if cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _link(title: str) -> str:
    return f"[[{title}]]"


def _head(inputs: Inputs) -> list[str]:
    return [
        f"# Journal context for {inputs.agent}, {inputs.as_of.isoformat()}",
        "Read from the vault just now (the person's pages are the source of truth; bullets are "
        f"theirs and yours as they stand). Window: {inputs.days} days. "
        f"Scope: {_scope_line(inputs.scope)}.",
    ]


def _scope_line(scope: Scope) -> str:
    req = scope.request
    if req.whole_vault:
        return "the whole vault (no --topic, no .journal-agent-scope.toml)"
    names = ", ".join(_link(t) for t in scope.named) or "no topic of this vault"
    if scope.related:
        names += f" and {len(scope.related)} related: " + ", ".join(_link(t) for t in scope.related)
    elif req.related and scope.named:
        names += " (no related topics)"
    origin = "--topic" if req.source == "--topic" else req.source
    line = f"{names} (from {origin})"
    if scope.unknown:
        line += "; not topics of this vault: " + ", ".join(f'"{n}"' for n in scope.unknown)
    return line


def _frontier(inputs: Inputs) -> Section:
    f = inputs.frontier
    if f is None:
        return Section([], [])
    if f.lines is None:
        return Section(
            [f"## Frontier: {f.title}"],
            [Piece(FRONTIER, 0, 1, f'- the frontier page "{f.title}" is not in this vault')],
        )
    cap = int(inputs.budget * FRONTIER_SHARE)
    pieces: list[Piece] = []
    used = 0
    for n, line in enumerate(f.lines):
        used += len(line) + 1
        if used > cap:
            break
        pieces.append(Piece(FRONTIER, n, 1, line))
    return Section(
        [f"## Frontier: {f.title} (the person's page)"],
        pieces,
        lambda n: f"(… {n} more line(s) on the page)",
        len(f.lines) - len(pieces),
    )


def frontier_lines(text: str) -> tuple[str, ...]:
    """A page's lines as the frontier section shows them: no blank or property lines, tabs as
    two spaces, each line cut to twice a bullet's length."""
    out = []
    for line in text.split("\n"):
        line = line.rstrip("\r").replace("\t", "  ")
        if line.strip() and not _PROPERTY.match(line):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + cut(line, 2 * MAX_TEXT))
    return tuple(out)


def _active(inputs: Inputs, active: list[Topic], positions: list[int]) -> Section:
    s, as_of, days = inputs.summary, inputs.as_of, inputs.days
    since = window_start(as_of, days)
    pieces: list[Piece] = []
    shown_blocks: set[tuple[str, int]] = set()
    for n, (topic, i) in enumerate(zip(active, positions, strict=True)):
        recent = len(s.dated(i, as_of, since))
        last = topic.last.date.isoformat() if topic.last and topic.last.date else "?"
        rank, first = n * 10, n < FIRST_ACTIVE
        if n >= BULLETED:  # named only, its texts never fetched
            day = last[5:] if days <= 300 and last != "?" else last  # the window says the year
            text = f"{_link(topic.page.title)} ({day}, {recent})"
            pieces.append(Piece(ACTIVE, rank, 2, text, inline=True))
            continue
        line = f"- {_link(topic.page.title)}: last {last}, {_mentions(recent)} in {days} days"
        pieces.append(Piece(ACTIVE, rank, 1 if first else 2, line))
        bullets = _newest(s, i, as_of, since, shown_blocks)[: BULLETS if first else 2]
        for b, bullet in enumerate(bullets):
            tier = 1 if first and b == 0 else 3 if b + (not first) == 1 else 4
            pieces.append(Piece(ACTIVE, rank + 1 + b, tier, f"  - {bullet}", rank + b))
    if not pieces:
        pieces.append(Piece(ACTIVE, 0, 1, f"- none mentioned in the last {days} days"))
    return Section(
        [f"## Active threads ({len(active)}, newest first)"],
        pieces,
        lambda n: f"- … {n} more active thread(s) not shown (`journal-agent topics`)",
        inline_prefix="- also active (last mention, mentions in the window): ",
    )


def _mentions(n: int) -> str:
    return f"{n} mention" if n == 1 else f"{n} mentions"


def _newest(
    s: Summary, i: int, as_of: dt.date, since: dt.date, shown: set[tuple[str, int]]
) -> list[str]:
    """Up to `BULLETS` newest bullets of topic ``i`` within the window, leaving out those already
    shown under another thread (its newest one is shown even so: every thread gets one)."""
    span = s.dated(i, as_of, since)
    newest = s.backlinks(range(span.stop - 1, span.start - 1, -1)[: 4 * BULLETS])
    fresh = [b for b in newest if (b.path, b.line) not in shown][:BULLETS] or newest[:1]
    shown.update((b.path, b.line) for b in fresh)
    return [f"{b.date.isoformat() if b.date else 'undated'}: {cut(b.text)}" for b in fresh]


def _resolved(inputs: Inputs, resolved: list[Topic]) -> Section:
    pieces = []
    for n, t in enumerate(resolved):
        last = t.last
        when = last.date.isoformat() if last and last.date else "?"
        text = cut(last.text) if last else ""
        pieces.append(
            Piece(
                RESOLVED,
                n,
                1 if n < FIRST_ITEMS else 2,
                f"- {_link(t.page.title)} resolved {when}: {text}",
            )
        )
    return Section(
        [f"## Resolved in the last {inputs.days} days ({len(resolved)})"] if pieces else [],
        pieces,
        lambda n: f"- … {n} more (`journal-agent topics`)",
    )


def _stale(inputs: Inputs, freshest: list[Topic], count: int) -> Section:
    if not count:
        return Section([], [])
    named = ", ".join(
        f"{_link(t.page.title)} ({t.last.date.isoformat() if t.last and t.last.date else '?'})"
        for t in freshest
    )
    which = "the freshest" if count > len(freshest) else "they are"
    line = (
        f"- {count} thread(s) silent for more than {inputs.days} days; {which}: {named}. "
        "Ask the person whether they are done (`journal-agent stale`)."
    )
    return Section([f"## Stale ({count})"], [Piece(STALE, 0, 1, line)])


def correction_line(f: Finding, label: Callable[[str], str] = str) -> str:
    """One correction as the projection says it: what the person did to which bullet."""
    page, text = label(f.page), f'"{cut(f.text)}"'
    if f.kind == "edited":
        return f'- edited by the person on {page}: {text} now reads "{cut(f.now or "")}"'
    if f.kind == "moved":
        where = "elsewhere on that page" if f.where == f.page else label(f.where or "?")
        return f"- moved by the person out of your block on {page} to {where}: {text}"
    if f.kind == "block-removed":
        return f"- your block on {page} was removed by the person, with {text}"
    if f.kind == "lost":
        return (
            f"- lost from {page} when Logseq saved an older copy over the page (the copy "
            f"with it: {f.evidence}); not restored, tell the person: {text}"
        )
    return f"- deleted by the person from {page}: {text}"


def _corrections(inputs: Inputs) -> Section:
    found = inputs.corrections
    pieces = [
        Piece(CORRECTIONS, n, 1 if n < FIRST_ITEMS else 2, correction_line(f, inputs.page_label))
        for n, f in enumerate(found)
    ]
    head = [
        f"## Corrections to your bullets since you last wrote ({len(found)})",
        "What the person did to your earlier bullets. Their version is what holds; none of this "
        "is rewritten.",
    ]
    return Section(
        head if pieces else [],
        pieces,
        lambda n: f"- … {n} more (`journal-agent audit --agent {inputs.agent}`)",
    )


def _pending(inputs: Inputs) -> Section:
    items = list(inputs.pending)
    pieces = [
        Piece(
            PENDING,
            n,
            1 if n < FIRST_ITEMS else 2,
            # a pending bullet has not passed the guard: it may hold a terminal's escapes
            f'- "{cut(escaped(p.text))}": not written yet, '
            f"{cut(escaped(p.reason or 'no reason recorded'), 120)}",
        )
        for n, p in enumerate(items)
    ]
    return Section(
        [f"## Pending from earlier sessions ({len(items)})"] if pieces else [],
        pieces,
        lambda n: f"- … {n} more (`journal-agent pending`)",
    )


# -- fitting the budget ---------------------------------------------------------------------------


def _fit(
    head: list[str], sections: dict[int, Section], budget: int
) -> tuple[str, set[tuple[int, int]]]:
    """The Markdown (ending in a newline, at most ``budget`` characters) and the pieces chosen
    as (section, rank): pass by pass, section by section, each section keeping room for its note
    of what it leaves out. An item that does not fit ends its section's items (what a section
    shows is always its first ones); a bullet that does not fit ends that pass's bullets in its
    section. Should the text still be over (it is not, by that room), the last piece chosen is
    dropped until it fits."""
    order: list[Piece] = []
    chosen: set[tuple[int, int]] = set()
    used = _size(head)
    opened: set[int] = set()
    inlined: set[int] = set()  # sections whose line of inline pieces has begun
    blocked: set[tuple[int, int]] = set()  # (pass, section) whose bullets stopped
    cutoff: dict[int, int] = {}  # section -> rank of its first item that did not fit
    every = sorted(
        (p for s in sections.values() for p in s.pieces), key=lambda p: (p.tier, p.section, p.rank)
    )
    for p in every:
        item = p.parent is None
        if item and p.section in cutoff and p.rank >= cutoff[p.section]:
            continue
        if not item and ((p.tier, p.section) in blocked or (p.section, p.parent) not in chosen):
            continue
        section = sections[p.section]
        cost = len(p.text) + 1
        if p.inline:
            started = p.section in inlined
            cost = len(p.text) + 2 if started else len(section.inline_prefix) + len(p.text) + 1
        if p.section not in opened:
            cost += _size(section.head) + 1 + _note_room(section)
        if used + cost > budget:
            if item:
                cutoff[p.section] = p.rank
            else:
                blocked.add((p.tier, p.section))
            continue
        used += cost
        opened.add(p.section)
        if p.inline:
            inlined.add(p.section)
        chosen.add((p.section, p.rank))
        order.append(p)
    text = _render(head, sections, chosen)
    while len(text) > budget and order:
        last = order.pop()
        chosen.discard((last.section, last.rank))
        text = _render(head, sections, chosen)
    if len(text) > budget:  # only the heading is left and it is longer than a tiny budget
        text = text[: budget - 2] + "…\n"
    return text, chosen


def _note_room(section: Section) -> int:
    """Room kept, when a section opens, for its note of what it leaves out (a longest one)."""
    items = section.total()
    if section.more is None or items <= 1:
        return 0
    return len(section.more(items)) + 1


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _render(head: list[str], sections: dict[int, Section], chosen: set[tuple[int, int]]) -> str:
    lines = list(head)
    for key in sorted(sections):
        section = sections[key]
        mine = [p for p in section.pieces if (key, p.rank) in chosen]
        if not mine:
            continue
        mine.sort(key=lambda p: p.rank)
        lines.append("")
        lines += section.head
        lines += [p.text for p in mine if not p.inline]
        inline = [p.text for p in mine if p.inline]
        if inline:
            lines.append(section.inline_prefix + ", ".join(inline))
        left = section.extra + sum(
            1 for p in section.pieces if p.parent is None and (key, p.rank) not in chosen
        )
        if left and section.more is not None:
            lines.append(section.more(left))
    return "\n".join(lines) + "\n"
