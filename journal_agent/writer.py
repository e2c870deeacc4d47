"""The guest writer: append bullets to a journal page under the agent's owned block.

The four guest rules, as code:

1. Only the day's journal page is written, under one owned block per agent per day (`owned`):
   a top-level bullet whose text is the owner header, holding no link, tag or property (the
   header passes `guard.check_header`). Only today's page is created, as the outliner does.
2. No page is created by a reference: every bullet passes the `guard` first, and the whole call
   is refused if any bullet fails (or unknown names are written as plain text, on request).
3. Append, don't edit: the backend inserts new lines at the end of the owned block's subtree (or
   a new owned block at the end of the page); every other byte stays. A bullet this agent already
   wrote on this page (per the ledger or the page itself) is not written again.
4. Human edits win: a bullet in the ledger is never rewritten, even if a human deleted it; when
   the owned block is gone, new bullets start a new one; human children are never touched.

The write path: guard → lock (one journal-agent writer per page) → the backend reads the page →
plan which bullets are new → the backend commits them against what it read; if someone saved the
page meanwhile, plan again from their version (the retry policy) → the ledger records what landed.
Everything waits at most ``wait`` seconds in all (a session-end hook has about one).
"""

from __future__ import annotations

import datetime as dt
import random
import re
import time
from collections.abc import Sequence

from .backends.base import Backend, Insertion, JournalPage, PageVersion, SaveKeptAside
from .errors import BadArgument, BulletsRefused, ConfigError, UnsafePage, WriteConflict
from .guard import check_header, lint, refusal, unlink
from .index import Index
from .ledger import Entry, Ledger, LedgerWriter, now_utc, text_hash
from .outline import Outline
from .owned import children_texts, owner_header
from .patterns import regex
from .records import NamedTuple, Record
from .registry import KnownPages
from .state import PageLock, StateDir
from .vault import Vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, Literal

    BulletKind = Literal["note", "decision", "resolution"]
KINDS: tuple[BulletKind, ...] = ("note", "decision", "resolution")
PREFIXES: dict[str, str] = {"note": "", "decision": "Decision: ", "resolution": "Resolved: "}
DEFAULT_WAIT = 1.0  # seconds in all for the lock and a page being saved: a hook's budget
ATTEMPTS = 20  # commits tried against a page that keeps changing, then give up
_CONFLICT = regex(r"^(?:<{7}|={7}|>{7})(?: |\r?$)", re.MULTILINE)


class _Bullet(NamedTuple):
    """`Bullet`'s fields: a `typing.NamedTuple` cannot check them as it is made."""

    text: str
    kind: BulletKind = "note"


class Bullet(_Bullet):
    """A bullet to write: its text and kind (a decision or resolution gets a fixed prefix)."""

    __slots__ = ()

    def __new__(cls, text: str, kind: BulletKind = "note") -> Bullet:
        if kind not in KINDS:
            raise BadArgument(f"bullet kind {kind!r} is not one of {', '.join(KINDS)}")
        return super().__new__(cls, text, kind)

    def render(self) -> str:
        """The line as written: a decision or resolution starts with its prefix, spelled once."""
        text = self.text.strip()
        prefix = PREFIXES[self.kind]
        if prefix and text.lower().startswith(prefix.lower().rstrip()):
            text = text[len(prefix.rstrip()) :].lstrip()
        return prefix + text


class AppendResult(Record):
    """What an append did: the contract's page, path, written and duplicates (``refused`` is
    filled in the refusal's own JSON, `BulletsRefused.to_json`: an append writes all or none)."""

    __slots__ = ("page", "path", "written", "duplicates", "created", "warnings")

    def __init__(
        self,
        page: str,
        path: str,
        written: list[str] | None = None,
        duplicates: list[str] | None = None,
        created: bool = False,  # the journal page did not exist and was created from its template
        warnings: list[str] | None = None,
    ) -> None:
        self.page = page
        self.path = path
        self.written = [] if written is None else written
        self.duplicates = [] if duplicates is None else duplicates
        self.created = created
        self.warnings = [] if warnings is None else warnings

    def to_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "path": self.path,
            "written": self.written,
            "duplicates": self.duplicates,
            "refused": [],
            "created": self.created,
        }


def local_today() -> dt.date:
    """Today's local date: the one day whose journal page an append may create, and the page an
    append without a date writes (a test pins it here; the clock itself runs on)."""
    return dt.date.today()


def append(
    bullets: Sequence[str | Bullet],
    *,
    vault: Vault,
    agent: str = "agent",
    date: dt.date | None = None,
    session: str | None = None,
    header: str | None = None,
    unlink_unknown: bool = False,
    index: Index | None = None,
    use_cache: bool = True,
    backend: Backend | None = None,
    wait: float = DEFAULT_WAIT,
    today: dt.date | None = None,
) -> AppendResult:
    """Append ``bullets`` under ``agent``'s owned block on ``date``'s journal page (default today).
    Only today's page (``today``, default the local date) is created if it is missing; another
    day's must exist (`BadArgument`).

    Raises `BulletsRefused` (nothing written) if a bullet breaks a rule or names an unknown page,
    unless ``unlink_unknown`` writes unknown names as plain text; `UnsafePage` if the page cannot
    be written safely; `LockTimeout` / `WriteConflict` if it stayed busy for ``wait`` seconds.
    """
    until = time.monotonic() + wait
    header = header or owner_header(agent)
    check_header(header, vault.flavor.syntax)
    texts = [(b if isinstance(b, Bullet) else Bullet(b)).render() for b in bullets]
    today = today or local_today()
    page = vault.journal_page(date or today)
    _check_listed(vault, page)
    if page.path.lower().endswith(".org"):
        raise UnsafePage(
            f"{page.path}: is an Org-mode page; journal-agent writes Markdown journal pages "
            "only, nothing was written"
        )
    result = AppendResult(page.title, page.path)
    known = KnownPages(vault, use_cache, index)
    try:
        texts = _guard(texts, vault, known, unlink_unknown, page)
    except BulletsRefused as exc:
        exc.page, exc.path = result.page, result.path
        raise
    result.warnings = known.warnings
    if backend is None:
        from .backends.file import FileBackend

        backend = FileBackend(vault)
    ledger = Ledger(StateDir.of(vault.root))
    job = _Job(vault, backend, page, header, texts, known, until, result.warnings, today, [])
    with backend:
        # before taking the lock: refuse an unsafe page, or a new one not today's or whose
        # template is unsafe
        if _check(backend.read(page, until=until)).outline is None:
            job.new_page()
        with PageLock(ledger.state, page.path, until - time.monotonic()):
            with ledger.writer() as record:
                _write(job, result, ledger, record, agent, session)
    return result


def _guard(
    texts: list[str], vault: Vault, known: KnownPages, unlink_unknown: bool, page: JournalPage
) -> list[str]:
    syntax = vault.flavor.syntax
    # references resolve as they would in the journal page itself (Obsidian: from its folder)
    registry = known.registry_for(texts, not vault.journal_exists(page), page.path)
    ids = known.block_ids
    problems = [p for t in texts for p in lint(t, registry, syntax, block_ids=ids)]
    if unlink_unknown and problems and all(p.kind == "unknown-page" for p in problems):
        unknown = {p.name for p in problems if p.name}
        texts = [unlink(t, unknown, syntax) for t in texts]
        problems = [p for t in texts for p in lint(t, registry, syntax, block_ids=ids)]
    if problems:
        raise BulletsRefused(refusal(problems), problems)
    return texts


def _check_listed(vault: Vault, page: JournalPage) -> None:
    """Refuse a journal page the vault's listing skips: no query (and where it is hidden, no
    outliner) would see what is written there. Here, not in the settings: reading such a vault
    works."""
    from .walk import unlisted

    s = vault.settings
    why = unlisted(page.path, s.extensions, s.hidden, s.skipped)
    if why is not None:
        raise ConfigError(
            f"{page.path}: the vault's settings put the journal page where its listing skips "
            f"it ({why}), so no query would see what is written there; change the journal "
            "folder, file-name format or hidden paths, nothing was written"
        )


def _check(version: PageVersion) -> PageVersion:
    """Refuse to write on a page in a state no human would want written to."""
    if version.outline is not None:
        _check_text(version.outline, f"{version.page.path}:", "")
    return version


def _check_text(outline: Outline, what: str, where: str) -> None:
    """`_check` of a page's text; ``what`` starts the message, ``where`` says where to fix it
    (the template a new page would be made from, or the page itself)."""
    if _CONFLICT.search(outline.text):
        raise UnsafePage(
            f"{what} holds merge-conflict markers (<<<<<<< / >>>>>>>); resolve them{where} "
            "first, nothing was written"
        )
    if outline.open_fence >= 0:
        raise UnsafePage(
            f"{what} ends inside a code block opened on line {outline.open_fence + 1} and never "
            f"closed; anything appended would be code. Close it{where} first, nothing was written"
        )


class _Job(NamedTuple):
    """One append: where, what, and until when."""

    vault: Vault
    backend: Backend
    page: JournalPage
    header: str
    texts: list[str]
    known: KnownPages
    until: float

    warnings: list[str]
    today: dt.date  # the one day whose page may be created
    template: list[str]  # the new page's text once made: made once, it holds the time of day

    def new_page(self) -> str:
        """The text a new page starts with (its daily template), refused like an existing page
        when no human would want it written to: the guest rules hold for the page it becomes.
        Only today's page is made: the outliner makes it each day too, never a past one."""
        if self.page.day != self.today:
            raise BadArgument(
                f"{self.page.path}: there is no journal page of {self.page.day.isoformat()}, and "
                f"journal-agent creates only today's ({self.today.isoformat()}); append to an "
                "existing page or today's, nothing was written"
            )
        if not self.template:
            from .templates import daily_template, template_name  # only a new page needs it

            index = lambda: self.known.index  # noqa: E731 - only a Logseq template needs it
            text = daily_template(self.vault, self.page.day, index, self.warnings)
            what = f"{self.page.path}: would be made from {template_name(self.vault)}, which"
            _check_text(self.vault.scan_text(text, False), what, " in the template")
            self.template.append(text)
        return self.template[0]

    def insertion(self, fresh: list[str]) -> Insertion:
        return Insertion(self.header, tuple(fresh), self.vault.settings.indent, self.new_page)


def _write(
    job: _Job,
    result: AppendResult,
    ledger: Ledger,
    record: LedgerWriter,
    agent: str,
    session: str | None,
) -> None:
    """Plan, commit, and on a conflict plan again from the page as someone else left it."""
    done = ledger.written(job.page.path, agent)
    version = _check(job.backend.read(job.page, until=job.until))
    tried: set[str] = set()  # bullets an earlier attempt of ours committed into a conflict
    for attempt in range(ATTEMPTS + 1):
        kept, fresh, result.duplicates = _sort(job.texts, done, tried, version, job.header)
        if not fresh:  # the page as it now stands may hold what the last attempt committed
            _finish(result, kept, record, job.page.path, agent, session, done)
            return
        if attempt == ATTEMPTS or (attempt and time.monotonic() >= job.until):
            break
        try:
            newer = job.backend.commit(version, job.insertion(fresh), until=job.until)
        except SaveKeptAside as aside:  # someone's save is kept beside the page: say so, and
            result.warnings.append(str(aside))  # go on from the page as it stands (our
            newer = aside.version  # bullets may be on it, saved over by that editor)
        if newer is None:
            result.created = version.outline is None
            _finish(result, kept + fresh, record, job.page.path, agent, session, done)
            return
        tried.update(text_hash(t) for t in fresh)
        version = _check(newer)
        if time.monotonic() < job.until:
            time.sleep(random.uniform(0.002, 0.02) * (attempt + 1))  # two writers not in step
    raise WriteConflict(
        f"{job.page.path}: the page changed under each of our attempts (is it being edited?); "
        "nothing was written"
    )


def _sort(
    texts: list[str], done: set[str], tried: set[str], version: PageVersion, header: str
) -> tuple[list[str], list[str], list[str]]:
    """Split bullets into kept (ours, on the page from an earlier attempt that someone's editor
    merged), fresh (to write) and duplicates (written before, by the ledger or the page, or
    twice in this call)."""
    on_page = (
        {text_hash(t) for t in children_texts(version.outline, header)}
        if version.outline is not None
        else set()
    )
    kept: list[str] = []
    fresh: list[str] = []
    duplicates: list[str] = []
    seen: set[str] = set()
    for text in texts:
        h = text_hash(text)
        if h in seen:
            duplicates.append(text)
        elif h in tried and h in on_page:
            kept.append(text)
        elif h in done or h in on_page:
            duplicates.append(text)
        else:
            fresh.append(text)
        seen.add(h)
    return kept, fresh, duplicates


def _finish(
    result: AppendResult,
    written: list[str],
    record: LedgerWriter,
    rel: str,
    agent: str,
    session: str | None,
    done: set[str],
) -> None:
    """Record what landed, and adopt bullets found on the page but missing from the ledger (a
    writer killed between its commit and its ledger write), so that a human deleting them later
    is respected."""
    result.written = written
    mine = done | {text_hash(t) for t in written}
    adopted = {text_hash(t): t for t in result.duplicates if text_hash(t) not in mine}
    entries = [Entry(rel, agent, text_hash(t), t, now_utc(), session) for t in written]
    entries += [Entry(rel, agent, h, t, now_utc(), session) for h, t in adopted.items()]
    record.record(entries)
