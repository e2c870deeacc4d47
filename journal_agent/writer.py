"""The guest writer: append bullets to a journal page under the agent's owned block.

The four guest rules, as code:

1. Only the day's journal page is written, under one owned block per agent per day: a top-level
   bullet whose text is the owner header (``"<agent> log"``), holding no link, tag or property.
2. No page is created by a reference: every bullet passes the `guard` first, and the whole call
   is refused if any bullet fails (or unknown names are written as plain text, on request).
3. Append, don't edit: new lines are inserted at the end of the owned block's subtree (or a new
   owned block at the end of the page); every other byte of the file stays as it was. A bullet
   this agent already wrote on this page (per the ledger or the page itself) is not written again.
4. Human edits win: a bullet in the ledger is never rewritten, even if a human deleted it; when
   the owned block is gone, new bullets start a new one; human children are never touched.

Safety: a lock per journal file against other journal-agent writers; read, plan, then replace
atomically (temporary hidden file in the same folder, fsync, rename, file mode kept), after
checking that the file still holds what we planned against (compare-and-swap, retried a few times
when a human or app writes in between).
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import random
import re
import stat
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .backends import PageLock, clean_stale_temp_files, commit
from .errors import (
    BadPageName,
    BulletsRefused,
    UnreadablePage,
    UnsafePage,
    WriteConflict,
)
from .guard import Problem, lint, unlink
from .index import Index, load_index
from .ledger import Entry, Ledger, now_utc, text_hash
from .registry import Page, PageRegistry, build_registry, page_key, tombstone_of
from .scanner import Outline, decode, inline_refs, scan
from .vault import Vault

BulletKind = Literal["note", "decision", "resolution"]
PREFIXES: dict[str, str] = {"note": "", "decision": "Decision: ", "resolution": "Resolved: "}
CAS_ATTEMPTS = 20  # then give up, with the page as we found it
MAX_ATTEMPTS = 200  # ... but never while our bytes sit on the page without someone's save
_CONFLICT = re.compile(r"^(?:<{7}|={7}|>{7})(?: |\r?$)", re.MULTILINE)


@dataclass(frozen=True)
class Bullet:
    """A bullet to write: its text and kind (a decision or resolution gets a fixed prefix)."""

    text: str
    kind: BulletKind = "note"

    def render(self) -> str:
        text = self.text.strip()
        prefix = PREFIXES[self.kind]
        return text if not prefix or text.lower().startswith(prefix.lower()) else prefix + text


@dataclass
class AppendResult:
    """What an append did (the contract's page, path, written, duplicates and refused)."""

    page: str
    path: str
    written: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    refused: list[Problem] = field(default_factory=list)
    created: bool = False
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "path": self.path,
            "written": self.written,
            "duplicates": self.duplicates,
            "refused": [{"bullet": p.bullet, "reason": p.message} for p in self.refused],
        }


def owner_header(agent: str) -> str:
    """The default owned-block header for an agent: its name followed by `` log``."""
    return f"{agent.strip()} log"


# ---------------------------------------------------------------------------------------------
# the plan: which bytes to insert where


def owned_blocks(outline: Outline, header: str) -> list[int]:
    """Indexes of the top-level bullets whose text is exactly the owner header."""
    return [
        i
        for i, b in enumerate(outline.blocks)
        if b.kind == "bullet" and b.depth == 0 and b.text == header
    ]


def existing_children(outline: Outline, header: str) -> set[str]:
    """Hashes of the bullets already under any of the agent's owned blocks on this page."""
    found: set[str] = set()
    owned = set(owned_blocks(outline, header))
    for block in outline.blocks:
        if block.parent in owned:
            found.add(text_hash(block.text))
    return found


def plan_insert(outline: Outline, header: str, texts: list[str], indent: str) -> tuple[int, str]:
    """Where to insert (a character offset into ``outline.text``) and the text to insert: at the
    end of the last owned block's subtree, else a new owned block after the page's last text."""
    lines = outline.text.split("\n")
    owned = owned_blocks(outline, header)
    if owned:
        block = outline.blocks[owned[-1]]
        unit = _child_indent(outline, owned[-1], indent)
        new = [f"{unit}- {t}" for t in texts]
        last = _last_text_line(lines, block.line, block.subtree_end)
    else:
        unit = outline.indent_unit or indent
        new = [f"- {header}"] + [f"{unit}- {t}" for t in texts]
        last = _last_text_line(lines, 0, len(lines))
    return _insert_after(outline.text, lines, last, new, outline.newline)


def _last_text_line(lines: list[str], start: int, end: int) -> int:
    """The last line in ``[start, end)`` that is not blank (``start - 1`` if all are)."""
    for i in range(end - 1, start - 1, -1):
        if lines[i].strip(" \t\r"):
            return i
    return start - 1


def _insert_after(
    text: str, lines: list[str], last: int, new: list[str], nl: str
) -> tuple[int, str]:
    """Insert ``new`` lines after line ``last``, keeping the file's final newline or its absence."""
    offset = sum(len(line) + 1 for line in lines[: last + 1]) if last >= 0 else len(text)
    if offset > len(text) or (last < 0 and text and not text.endswith("\n")):
        return len(text), nl + nl.join(new)
    return offset, "".join(line + nl for line in new)


def _child_indent(outline: Outline, owner: int, default: str) -> str:
    """Indent new children like the owned block's LAST child (a deeper indent would nest them
    under that child: Logseq parents a block to the nearest block above with a smaller level),
    else one unit deeper than the owned block, the unit taken from the page or the vault."""
    lines = outline.text.split("\n")
    last_child = None
    for i in range(owner + 1, len(outline.blocks)):
        if outline.blocks[i].depth <= outline.blocks[owner].depth:
            break
        if outline.blocks[i].parent == owner:
            last_child = i
    if last_child is not None:
        return _indent_of(lines[outline.blocks[last_child].line])
    return _indent_of(lines[outline.blocks[owner].line]) + (outline.indent_unit or default)


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


# ---------------------------------------------------------------------------------------------
# the write


@dataclass
class _Page:
    """A journal page as read: its bytes (None if missing), text and scan."""

    data: bytes | None
    outline: Outline
    bom: bool
    mode: int


def _read(vault: Vault, path: Path, rel: str) -> _Page:
    try:
        data = _settled(path)
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return _parse(vault, None, rel)
    except OSError as exc:
        raise UnsafePage(f"{rel}: cannot be read: {exc.strerror}") from exc
    return _parse(vault, data, rel, mode)


def _settled(path: Path, wait: float = 1.0) -> bytes:
    """The page's bytes; an empty page written a moment ago is given time to fill (an editor that
    truncates before it writes leaves one, and appending to it would drop the person's day)."""
    deadline = time.monotonic() + wait
    while True:
        data = path.read_bytes()
        if data or time.time_ns() - path.stat().st_mtime_ns > 2_000_000_000:
            return data
        if time.monotonic() > deadline:
            return data
        time.sleep(0.05)


def _parse(vault: Vault, data: bytes | None, rel: str, mode: int = 0o644) -> _Page:
    """A page's bytes as the writer sees them; `UnsafePage` if writing to it would be a risk."""
    if data is None:
        return _Page(None, scan("", vault.flavor.syntax), False, mode)
    try:
        text, bom = decode(data, rel)
    except UnreadablePage as exc:
        raise UnsafePage(f"{exc}; refusing to write to it") from exc
    if _CONFLICT.search(text):
        raise UnsafePage(
            f"{rel}: holds merge-conflict markers (<<<<<<< / >>>>>>>); resolve them "
            "first, nothing was written"
        )
    outline = scan(
        text, vault.flavor.syntax, comma_properties=vault.settings.comma_properties, bom=bom
    )
    return _Page(data, outline, bom, mode)


def _check_path(vault: Vault, path: Path, rel: str) -> None:
    """Refuse a journal path that is a link, or whose folder resolves outside the vault."""
    if path.is_symlink():
        raise UnsafePage(f"{rel}: is a symbolic link; journal-agent writes only regular files")
    root = os.path.realpath(vault.root)
    folder = os.path.realpath(path.parent)
    if not (folder == root or folder.startswith(root + os.sep)):
        raise UnsafePage(f"{rel}: its folder resolves to {folder}, outside the vault")


# ---------------------------------------------------------------------------------------------
# the API


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
) -> AppendResult:
    """Append ``bullets`` under ``agent``'s owned block on ``date``'s journal page (default today).

    Raises `BulletsRefused` (nothing written) if a bullet breaks a rule or names an unknown page,
    unless ``unlink_unknown`` writes unknown names as plain text; `UnsafePage` if the page cannot
    be written safely; `LockTimeout` / `WriteConflict` if it is busy.
    """
    day = date or dt.date.today()
    header = header or owner_header(agent)
    texts = [b.render() if isinstance(b, Bullet) else Bullet(b).render() for b in bullets]
    path = vault.journal_path(day)
    rel = path.relative_to(vault.root).as_posix()
    result = AppendResult(vault.journal_title(day), rel)
    known = _Known(vault, use_cache, index)
    if known.needs_index(texts, new_page=not vault.journal_path(day).exists()):
        result.warnings = list(known.index.warnings)
    try:
        texts = _guard(texts, vault, known, unlink_unknown)
    except BulletsRefused as exc:
        exc.page, exc.path = result.page, result.path
        raise
    _check_path(vault, path, rel)
    _read(vault, path, rel)  # refuse an unsafe page before taking a lock (which leaves a file)
    ledger = Ledger.for_vault(vault.root, vault.own_config.get("ledger"))
    with PageLock(ledger.path.parent, rel):
        clean_stale_temp_files(path.parent)
        _write(vault, path, rel, header, texts, result, ledger, agent, session, day, known)
    return result


def _guard(texts: list[str], vault: Vault, known: _Known, unlink_unknown: bool) -> list[str]:
    syntax = vault.flavor.syntax
    problems = [p for t in texts for p in lint(t, known.registry, syntax, block_ids=known.ids)]
    if unlink_unknown and problems and all(p.kind == "unknown-page" for p in problems):
        unknown = {p.name for p in problems if p.name}
        return [unlink(t, unknown, syntax) for t in texts]
    if problems:
        raise BulletsRefused(_refusal(problems), problems)
    return texts


class _Known:
    """What the guard must know of the vault, fetched as cheaply as the bullets allow.

    A session-end hook has 1.5 s, and indexing a large vault for the first time takes longer.
    Most bullets only link pages by their own names: those are confirmed from the file names
    and the linked pages' own properties (``title::`` renames a page, ``superseded-by::``
    retires it). Anything else (an alias, a page that exists only by reference, a block ref, a
    daily template) needs the full index.
    """

    def __init__(self, vault: Vault, use_cache: bool, index: Index | None) -> None:
        self.vault = vault
        self.use_cache = use_cache
        self._index = index
        self._registry: PageRegistry | None = None

    @property
    def index(self) -> Index:
        if self._index is None:
            self._index = load_index(self.vault, use_cache=self.use_cache)
        return self._index

    @property
    def registry(self) -> PageRegistry:
        if self._registry is None:
            self._registry = build_registry(self.index)
        return self._registry

    @property
    def ids(self) -> frozenset[str]:
        if self._index is None:
            return frozenset()
        return frozenset(i for facts in self._index.files.values() for i in facts.block_ids)

    def needs_index(self, texts: list[str], new_page: bool) -> bool:
        """Whether the full index is needed; if not, a registry of the linked pages is set."""
        if self._index is not None:
            return True
        if new_page and self.vault.settings.template and self.vault.flavor.name == "logseq":
            return True
        refs = [r for t in texts for r in inline_refs(t, self.vault.flavor.syntax)]
        if any(r.kind == "block" for r in refs):
            return True
        if not refs:
            self._registry = PageRegistry([], wiki=self.vault.flavor.syntax == "wiki")
            return False
        wiki = self.vault.flavor.syntax == "wiki"
        confirmed: list[Page] = []
        for ref in refs:
            if wiki and ref.kind == "tag":
                continue
            page = self._by_file_name(ref.target)
            checked = self._confirm(page, ref.target) if page else None
            if checked is None:
                return True
            confirmed.append(checked)
        self._registry = PageRegistry(confirmed, wiki=wiki)
        return False

    @functools.cached_property
    def _stems(self) -> dict[str, list[str]]:
        """Page files by their lower-cased, NFC file name without extension."""
        stems: dict[str, list[str]] = {}
        for rel in self.vault.page_paths():
            stem = unicodedata.normalize("NFC", rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]).lower()
            stems.setdefault(stem, []).append(rel)
        return stems

    def _by_file_name(self, name: str) -> Page | None:
        """The page whose file name gives it the title ``name``, without reading any page."""
        vault, key = self.vault, page_key(name)
        if vault.flavor.syntax == "wiki":
            key = key.removesuffix(".md")
            for rel in self._stems.get(key.rsplit("/", 1)[-1], []):
                if "/" not in key or ("/" + rel.lower()).removesuffix(".md").endswith("/" + key):
                    title, day = vault.describe(rel)
                    return Page(title, rel, [], day)
            return None
        if vault.title_format is not None and (day := vault.title_format.parse(name, True)):
            path = vault.journal_path(day)
            rel = path.relative_to(vault.root).as_posix()
            return Page(vault.journal_title(day), rel, [], day) if path.is_file() else None
        try:
            stem = vault.flavor.file_name_of(name, vault.settings).lower()
        except BadPageName:
            return None
        for rel in self._stems.get(unicodedata.normalize("NFC", stem), []):
            title, day = vault.describe(rel)
            if page_key(title) == key:
                return Page(title, rel, [], day)
        return None

    def _confirm(self, page: Page, name: str) -> Page | None:
        """The page as its own file describes it, if ``name`` really names it."""
        if page.path is None or page.path.endswith(".org"):
            return None
        try:
            outline = self.vault.read_page(page.path)
        except UnreadablePage:
            return None
        props = outline.page_properties
        title = str(props.get("title") or "").strip()
        if title and self.vault.flavor.syntax == "logseq" and page_key(title) != page_key(name):
            return None  # title:: renamed it: the file name is not a page name
        return Page(title or page.title, page.path, [], page.date, tombstone_of(props))


def _refusal(problems: list[Problem]) -> str:
    first = problems[0]
    more = f"; and {len(problems) - 1} more problem(s)" if len(problems) > 1 else ""
    return f"refused, nothing written: {first.bullet!r}: {first.message}{more}"


def _write(
    vault: Vault,
    path: Path,
    rel: str,
    header: str,
    texts: list[str],
    result: AppendResult,
    ledger: Ledger,
    agent: str,
    session: str | None,
    day: dt.date,
    known: _Known,
) -> None:
    done = ledger.written(rel, agent)
    page = _read(vault, path, rel)
    expected = page.data  # what the file holds: our plan is made from `page`, checked against it
    placed: set[str] = set()  # bullets an earlier attempt of ours put on the page
    for attempt in range(MAX_ATTEMPTS):
        kept, fresh, result.duplicates = _sort(texts, done, placed, page.outline, header)
        if not fresh:
            if expected != page.data:  # our last bytes displaced someone's save: put it back
                outcome = commit(path, page.data or b"", expected, page.mode)
                if outcome.conflict:
                    page, expected = _parse(vault, outcome.found, rel, page.mode), outcome.found
                    continue
            _finish(result, kept, ledger, rel, agent, session, done)
            return
        if attempt >= CAS_ATTEMPTS and expected == page.data:  # give up only with a clean page
            break
        data = _new_bytes(vault, page, header, fresh, day, known)
        outcome = commit(path, data, expected, page.mode)
        if not outcome.conflict:
            result.created = page.data is None
            _finish(result, kept + fresh, ledger, rel, agent, session, done)
            return
        # Someone saved meanwhile: plan again from their version. If our bytes went in anyway
        # (they displaced that save), the next attempt replaces them with the merged version.
        if outcome.written:
            placed.update(text_hash(t) for t in fresh)
        page = _parse(vault, outcome.found, rel, page.mode)
        expected = data if outcome.written else outcome.found
        time.sleep(random.uniform(0.002, 0.02))  # jitter: two writers do not retry in step
    raise WriteConflict(
        f"{rel}: the page changed under every one of {CAS_ATTEMPTS} attempts "
        "(is it being edited?); nothing was written"
    )


def _sort(
    texts: list[str], done: set[str], placed: set[str], outline: Outline, header: str
) -> tuple[list[str], list[str], list[str]]:
    """Split bullets into kept (ours, already on the page from an earlier attempt), fresh (to
    write) and duplicates (written before, by the ledger or the page, or twice in this call)."""
    on_page = existing_children(outline, header)
    kept: list[str] = []
    fresh: list[str] = []
    duplicates: list[str] = []
    seen: set[str] = set()
    for text in texts:
        h = text_hash(text)
        if h in seen:
            duplicates.append(text)
        elif h in placed and h in on_page:
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
    ledger: Ledger,
    rel: str,
    agent: str,
    session: str | None,
    done: set[str],
) -> None:
    result.written = written
    ledger.record([Entry(rel, agent, text_hash(t), t, now_utc(), session) for t in written])
    _adopt(ledger, rel, agent, session, result.duplicates, done)


def _adopt(
    ledger: Ledger, rel: str, agent: str, session: str | None, found: list[str], done: set[str]
) -> None:
    """Record bullets found on the page but missing from the ledger (a writer killed between
    its rename and its ledger write), so that a human deleting them later is respected."""
    missing = {text_hash(t): t for t in found if text_hash(t) not in done}
    ledger.record([Entry(rel, agent, h, t, now_utc(), session) for h, t in missing.items()])


def _new_bytes(
    vault: Vault, page: _Page, header: str, texts: list[str], day: dt.date, known: _Known
) -> bytes:
    outline = page.outline
    if page.data is None:
        outline = scan(new_page_text(vault, day, lambda: known.index), vault.flavor.syntax)
    offset, inserted = plan_insert(outline, header, texts, vault.settings.indent)
    text = outline.text[:offset] + inserted + outline.text[offset:]
    return (b"\xef\xbb\xbf" if page.bom else b"") + text.encode("utf-8")


def new_page_text(vault: Vault, day: dt.date, index: Callable[[], Index]) -> str:
    """The text a new journal page starts with: the vault's daily template, filled in."""
    from .templates import daily_template  # only page creation needs it

    return daily_template(vault, day, index)
