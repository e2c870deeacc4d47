"""The audit: what people did to an agent's bullets, read from the ledger against the vault now.

The ledger says what an agent wrote (page, text, time, session); the vault says what is there
now. Human edits win (guest rule 4), so nothing here is ever restored or rewritten: each bullet
that is no longer where and as it was written is reported, once, as one of

* ``edited``        a bullet under the agent's owned block is similar to the written text but not
                    equal (rapidfuzz ``ratio`` of at least `EDIT_MIN_SIMILARITY`, each text
                    matched at most once, best match first);
* ``moved``         the same text stands elsewhere: outside the owned block on the same page, or
                    on another page (looked for only in files changed after the bullet was
                    written: a move changes the page it lands on);
* ``lost``          it vanished in a way no person's edit explains: a copy of the page that Logseq
                    saved under ``logseq/bak/`` at or after the bullet was written still holds it
                    in the agent's owned block. That is the trace of Logseq overwriting a journal
                    changed on disk while it was open (logseq/logseq#11327): it writes the disk
                    version to ``logseq/bak/<page path>/<time>.md``, then saves its older copy.
                    The backup is named as evidence; nothing is restored;
* ``block-removed`` the agent's owned block is gone from the page (or the page itself is);
* ``deleted``       none of the above: the person deleted the bullet.

Only the default owner header (``"<agent> log"``) is recognised. Nothing is written.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Container, Iterable, Sequence

from .derived import window_start
from .errors import BadArgument, JournalAgentError, UnreadablePage
from .ledger import Entry, Ledger, text_hash
from .outline import Outline
from .owned import owned_subtrees, owner_header
from .patterns import regex
from .records import NamedTuple, Record
from .state import StateDir
from .vault import Vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, Literal

    from .walk import Stat

    Kind = Literal["deleted", "edited", "moved", "lost", "block-removed"]

KINDS: tuple[Kind, ...] = ("edited", "moved", "lost", "block-removed", "deleted")
#: How similar (rapidfuzz ratio, 0-100) a bullet in the owned block must be to count as an
#: edit of a written one: a reworded clause stays above it, a different note falls below.
EDIT_MIN_SIMILARITY = 60.0
BACKUP_DIR = "logseq/bak"
#: At session start, how many recently changed pages are read looking for moved bullets: a
#: freshly cloned or synced vault has every file "changed", and the start must stay fast.
MOVED_SEARCH_LIMIT = 300
_BAK_TIME = regex(r"^(\d{4}-\d{2}-\d{2}T\d{2}_\d{2}_\d{2}(?:\.\d+)?)Z")
#: A ledger time has whole seconds, a file's mtime nanoseconds: compare with this slack.
_SLACK_NS = 2_000_000_000


class Finding(NamedTuple):
    """One written bullet that is no longer where and as it was written."""

    kind: Kind
    agent: str
    page: str  # vault-relative path of the journal page it was written on
    text: str  # the bullet as written
    written: str  # when (the ledger's ISO time, UTC)
    session: str | None = None
    now: str | None = None  # edited: the text as it stands now
    where: str | None = None  # moved: the page (vault-relative path) it stands on now
    evidence: str | None = None  # lost: the backup copy that still holds it, or what watch saw
    similarity: float | None = None  # edited: rapidfuzz ratio, 0-100
    seen: str | None = None  # when `journal-agent watch` saw it happen (ISO time, UTC), if it did

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "agent": self.agent,
            "page": self.page,
            "text": self.text,
            "written": self.written,
            "session": self.session,
            "now": self.now,
            "where": self.where,
            "evidence": self.evidence,
            "similarity": self.similarity,
            "seen": self.seen,
        }

    def describe(self) -> str:
        """One line in words, as a person would say it."""
        if self.kind == "edited":
            return f"edited on {self.page}: {self.text!r} now reads {self.now!r}"
        if self.kind == "moved":
            place = "elsewhere on the same page" if self.where == self.page else f"on {self.where}"
            return f"moved out of the owned block on {self.page}, now {place}: {self.text!r}"
        if self.kind == "lost" and self.evidence and self.evidence.startswith("watch"):
            return f"vanished from {self.page} ({self.evidence}); not restored: {self.text!r}"
        if self.kind == "lost":
            return (
                f"vanished from {self.page} when Logseq saved an older copy over it (a copy with "
                f"it: {self.evidence}); not restored: {self.text!r}"
            )
        if self.kind == "block-removed":
            return f"the owned block on {self.page} was removed, with: {self.text!r}"
        return f"deleted from {self.page}: {self.text!r}"


class AuditResult(Record):
    """What people did to the agents' bullets: the findings, oldest write first, and how many
    written bullets were checked and found as written."""

    __slots__ = ("agent", "since", "checked", "intact", "findings", "warnings")

    def __init__(
        self,
        agent: str | None,
        since: str | None,
        checked: int = 0,
        intact: int = 0,
        findings: list[Finding] | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.agent = agent
        self.since = since
        self.checked = checked
        self.intact = intact
        self.findings = [] if findings is None else findings
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "since": self.since,
            "checked": self.checked,
            "intact": self.intact,
            "counts": kinds_in(self.findings),
            "findings": [f.to_json() for f in self.findings],
        }


# -- reading the ledger --------------------------------------------------------------------------


def parse_since(value: str | dt.date | dt.datetime | None) -> dt.datetime | None:
    """``--since``: a day (``YYYY-MM-DD``, from its start in UTC) or an ISO time; None: all."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    text = value.strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return parse_since(dt.date.fromisoformat(text))
        if re.fullmatch(
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?", text
        ):
            return parse_since(dt.datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        pass
    raise BadArgument(f"since {value!r} is not a day (YYYY-MM-DD) or a time (YYYY-MM-DDTHH:MM)")


def written_at(entry: Entry) -> dt.datetime | None:
    """When the ledger says the entry was written (None if its time is not readable)."""
    try:
        when = dt.datetime.fromisoformat(entry.time.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def ledger_entries(vault: Vault) -> list[Entry]:
    """The ledger's entries, one per bullet per page and agent (the earliest), oldest first."""
    seen: dict[tuple[str, str, str], Entry] = {}
    for entry in Ledger(StateDir.of(vault.root)).entries():
        seen.setdefault((entry.page, entry.agent, entry.hash), entry)
    return sorted(seen.values(), key=lambda e: (e.time, e.page, e.agent, e.hash))


def _selected(entry: Entry, agent: str | None, since: dt.datetime | None) -> bool:
    if agent is not None and entry.agent != agent:
        return False
    return since is None or ((when := written_at(entry)) is not None and when >= since)


# -- the audit -----------------------------------------------------------------------------------


def audit_entries(
    vault: Vault,
    entries: Sequence[Entry],
    known: set[tuple[str, str]],
    search_limit: int | None = None,
) -> tuple[int, list[Finding], list[str]]:
    """Check written bullets against the vault: how many stand as written, what became of the
    rest (oldest write first), and the pages that could not be read. ``known``: (page, hash) of
    every bullet the ledger holds, of any agent and time: a text written there by an agent is
    neither a person's edit nor a moved copy. ``search_limit``: read at most this many other
    pages (the most recently changed) looking for moved bullets."""
    warnings: list[str] = []
    intact = 0
    open_: list[tuple[Entry, bool]] = []  # still unexplained: (entry, its owned block exists)
    found: list[Finding] = []
    pages: dict[str, list[Entry]] = {}
    for e in entries:
        pages.setdefault(e.page, []).append(e)
    for rel in sorted(pages):
        outline = _read(vault, rel, warnings)
        n, more, unexplained = _check_page(rel, outline, pages[rel], known)
        intact += n
        found += more
        open_ += unexplained
    seen = _watched(vault) if found or open_ else {}
    if open_:
        files = vault.listing([])
        moved = moved_elsewhere(vault, [e for e, _ in open_], known, files, search_limit)
        backups: _Backups = {}
        for e, has_block in open_:
            lost = seen.get((e.page, e.hash))
            if lost is not None and lost.kind == "lost" and (e.page, e.hash) not in moved:
                found.append(
                    _finding("lost", e, evidence=f"watch saw a save drop it with {lost.evidence}")
                )
                continue
            found.append(_explain(vault, e, has_block, moved.get((e.page, e.hash)), backups))
    found = [
        f._replace(seen=o.seen) if (o := seen.get((f.page, text_hash(f.text)))) else f
        for f in found
    ]
    found.sort(key=lambda f: (f.written, f.page, f.text, f.kind))
    return intact, found, warnings


def _watched(vault: Vault) -> dict[tuple[str, str], Any]:
    """What `journal-agent watch` saw happen to agent bullets: the latest per (page, hash)."""
    from .watchbullets import read_observations

    try:
        observations = read_observations(StateDir.of(vault.root))
    except JournalAgentError:
        return {}
    return {(o.page, o.hash): o for o in observations}


def _read(vault: Vault, rel: str, warnings: list[str]) -> Outline | None:
    try:
        return vault.read_page(rel)
    except UnreadablePage as exc:
        if os.path.lexists(vault.root / rel):
            warnings.append(str(exc))
        return None


def _check_page(
    rel: str, outline: Outline | None, entries: list[Entry], known: set[tuple[str, str]]
) -> tuple[int, list[Finding], list[tuple[Entry, bool]]]:
    """Intact, edited and moved-on-the-page bullets of one page; the rest stays open."""
    if outline is None:
        return 0, [], [(e, False) for e in entries]
    hashes = [text_hash(b.text) for b in outline.blocks]
    intact = 0
    found: list[Finding] = []
    unexplained: list[tuple[Entry, bool]] = []
    by_agent: dict[str, list[Entry]] = {}
    for e in entries:
        by_agent.setdefault(e.agent, []).append(e)
    for agent in sorted(by_agent):
        heads, inside, outside = placed(outline, agent, hashes)
        here = {hashes[i] for i in inside}
        missing: list[Entry] = []
        for e in by_agent[agent]:
            if e.hash in here:
                intact += 1
            elif e.hash in outside:
                found.append(_finding("moved", e, where=rel))
            else:
                missing.append(e)
        candidates = [
            outline.blocks[i].text
            for i in sorted(inside)
            if (rel, hashes[i]) not in known and outline.blocks[i].text.strip()
        ]
        edits = match_edits([e.text for e in missing], candidates)
        for n, e in enumerate(missing):
            if n in edits:
                now, score = edits[n]
                found.append(_finding("edited", e, now=now, similarity=score))
            else:
                unexplained.append((e, bool(heads)))
    return intact, found, unexplained


def placed(
    outline: Outline, agent: str, hashes: Sequence[str]
) -> tuple[list[int], set[int], set[str]]:
    """``agent``'s owned blocks on a page, the blocks inside them (nested too), and the hashes
    (``hashes``: of every block) of the page's other bullets: a written text among those a
    person moved out of the block. `audit` and `journal-agent watch` both judge by it."""
    heads, inside = owned_subtrees(outline, owner_header(agent))
    outside = {h for i, h in enumerate(hashes) if i not in inside and i not in heads}
    return heads, inside, outside


def match_edits(missing: Sequence[str], candidates: Sequence[str]) -> dict[int, tuple[str, float]]:
    """Pair the texts of missing bullets with the owned block's unknown bullets they are most
    similar to, one-to-one, best pair first: by the index in ``missing``, the candidate it was
    edited into and how similar they are. `audit` and `journal-agent watch` both judge by it,
    so that they tell the same story."""
    if not missing or not candidates:
        return {}
    from rapidfuzz import fuzz, utils  # lazy: only an audit that finds a change needs it

    pairs = []
    for i, old in enumerate(missing):
        for j, text in enumerate(candidates):
            score = fuzz.ratio(old, text, processor=utils.default_process)
            if score >= EDIT_MIN_SIMILARITY:
                pairs.append((-score, i, j))
    pairs.sort()
    used: set[int] = set()
    out: dict[int, tuple[str, float]] = {}
    for neg, i, j in pairs:
        if i in out or j in used:
            continue
        used.add(j)
        out[i] = (candidates[j], round(-neg, 1))
    return out


def moved_elsewhere(
    vault: Vault,
    entries: Sequence[Entry],
    known: Container[tuple[str, str]],
    files: Sequence[Stat],
    limit: int | None,
) -> dict[tuple[str, str], str]:
    """Where on other pages the texts of ``entries`` stand now, by (page, hash). Only those of
    the listed ``files`` changed after the earliest of them was written are read (moving a
    bullet there changed them), the most recently changed first, at most ``limit`` of them.
    `audit` and `journal-agent watch` both look by it."""
    times = [w for e in entries if (w := written_at(e)) is not None]
    if not times:
        return {}
    after = int(min(times).timestamp() * 1e9) - _SLACK_NS
    needles = [(e.text.strip().encode("utf-8"), e) for e in entries if e.text.strip()]
    out: dict[tuple[str, str], str] = {}
    changed = [(-f[1], f[0]) for f in files if f[1] >= after]
    changed.sort()
    for _mtime, rel in changed[:limit]:
        try:
            data = vault.read_bytes(rel, listed=True)
        except UnreadablePage:
            continue
        hits = [e for needle, e in needles if needle in data]
        if not hits:
            continue
        try:
            outline = vault.parse_page(rel, data)
        except UnreadablePage:
            continue
        there = {text_hash(b.text) for b in outline.blocks}
        for e in hits:
            if e.hash in there and rel != e.page and (rel, e.hash) not in known:
                out.setdefault((e.page, e.hash), rel)
    return out


def _explain(
    vault: Vault, e: Entry, has_block: bool, moved_to: str | None, backups: _Backups
) -> Finding:
    """A bullet not on its page as written: moved to another page, lost in a Logseq overwrite,
    gone with its owned block, or deleted."""
    if moved_to is not None:
        return _finding("moved", e, where=moved_to)
    backup = _backup_holding(vault, e, backups)
    if backup is not None:
        return _finding("lost", e, evidence=backup)
    return _finding("deleted" if has_block else "block-removed", e)


#: Per (page, agent): each Logseq backup of the page, newest first, with when it was saved and
#: the hashes of the bullets in the agent's owned block in that copy (read once per audit).
_Backups = dict[tuple[str, str], list[tuple[str, "dt.datetime | None", frozenset[str]]]]


def _backup_holding(vault: Vault, e: Entry, backups: _Backups) -> str | None:
    """The newest Logseq backup of ``e``'s page, saved at or after ``e`` was written, whose copy
    of the agent's owned block holds ``e``."""
    key = (e.page, e.agent)
    if key not in backups:
        backups[key] = _read_backups(vault, e.page, e.agent)
    when = written_at(e)
    for rel, saved, held in backups[key]:
        if when is not None and saved is not None and saved < when - dt.timedelta(seconds=2):
            continue
        if e.hash in held:
            return rel
    return None


def _read_backups(
    vault: Vault, page: str, agent: str
) -> list[tuple[str, dt.datetime | None, frozenset[str]]]:
    """The backups Logseq keeps of ``page`` (``logseq/bak/<page without extension>/``)."""
    folder = f"{BACKUP_DIR}/{page.rsplit('.', 1)[0]}"
    try:
        names = sorted(os.listdir(vault.root / folder), reverse=True)
    except OSError:
        return []
    out = []
    for name in names:
        rel = f"{folder}/{name}"
        try:
            outline = vault.read_page(rel)
        except UnreadablePage:
            continue
        _heads, inside = owned_subtrees(outline, owner_header(agent))
        held = frozenset(text_hash(outline.blocks[i].text) for i in inside)
        out.append((rel, _backup_time(vault, rel, name), held))
    return out


def _backup_time(vault: Vault, rel: str, name: str) -> dt.datetime | None:
    """When Logseq saved a backup: from its name (``2026-11-29T10_15_30.123Z.md``), else its
    modification time."""
    m = _BAK_TIME.match(name)
    if m:
        try:
            stamp = dt.datetime.fromisoformat(m.group(1).replace("_", ":"))
            return stamp.replace(tzinfo=dt.timezone.utc)
        except ValueError:
            pass
    try:
        return dt.datetime.fromtimestamp(os.stat(vault.root / rel).st_mtime, dt.timezone.utc)
    except OSError:
        return None


def _finding(kind: Kind, e: Entry, **more: Any) -> Finding:
    return Finding(kind, e.agent, e.page, e.text, e.time, e.session, **more)


def audit(vault: Vault, agent: str | None = None, since: dt.datetime | None = None) -> AuditResult:
    """What people did to ``agent``'s bullets (every agent's if None) written since ``since``."""
    every = ledger_entries(vault)
    known = {(e.page, e.hash) for e in every}
    entries = [e for e in every if _selected(e, agent, since)]
    intact, found, warnings = audit_entries(vault, entries, known)
    stamp = since.isoformat() if since else None
    return AuditResult(agent, stamp, len(entries), intact, found, warnings)


def recent_corrections(
    vault: Vault, agent: str, as_of: dt.date, days: int
) -> tuple[list[Finding], list[str]]:
    """The corrections a session-start projection shows: findings on ``agent``'s bullets written
    within the window (up to ``as_of``) whose page changed since the agent last wrote, or is
    gone. What the agent was already shown before its last write is not repeated."""
    first = window_start(as_of, days)
    every = ledger_entries(vault)
    mine = [
        e
        for e in every
        if e.agent == agent and first.isoformat() <= e.time[:10] <= as_of.isoformat()
    ]
    if not mine:
        return [], []
    times = [w for e in mine if (w := written_at(e)) is not None]
    last = int(max(times).timestamp() * 1e9) - _SLACK_NS if times else 0
    pages = {e.page for e in mine}
    changed = {rel for rel in pages if _changed_since(vault, rel, last)}
    known = {(e.page, e.hash) for e in every}
    selected = [e for e in mine if e.page in changed]
    _intact, found, warnings = audit_entries(vault, selected, known, MOVED_SEARCH_LIMIT)
    return found, warnings


def _changed_since(vault: Vault, rel: str, after_ns: int) -> bool:
    """Whether the page changed at ``after_ns`` or since: by its change time, as the index
    reads it (`walk.changed_ns`: an edit whose mtime was set back still counts)."""
    from .walk import changed_ns

    try:
        return changed_ns(os.stat(vault.root / rel)) >= after_ns
    except OSError:
        return True  # gone: its bullets are reported while they are within the window


def kinds_in(findings: Iterable[Finding]) -> dict[str, int]:
    """How many findings of each kind (every kind listed, zeros included)."""
    items = list(findings)
    return {k: sum(1 for f in items if f.kind == k) for k in KINDS}
