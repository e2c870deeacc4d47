"""The index: what each page file says (title, aliases, block ids, mentions), cached per file.

Scanning every file of a five-year vault takes about as long as reading it, so the facts each
file yields are cached on disk, outside the vault (``$JOURNAL_AGENT_CACHE`` or the user cache
folder, one file per vault). The cache is derived and deletable: an entry is reused only while
its file's modification time, size and inode are unchanged, new and deleted files are noticed,
and a cache written for other settings, another version, or a corrupt file is silently rebuilt.
Two processes refreshing at once each write a complete cache (atomic rename): the last one wins.
Each file's facts are stored marshalled on their own (`facts.facts_bytes`) inside one marshalled
table: loading the table is a copy of bytes, a timeline decodes only the files it reads
(`facts_of`), and rewriting the table after a change re-encodes only the changed files.

What a file's facts are is `facts`' business; this module only decides when they are reused.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import sys
import time
from collections.abc import Iterator, Sequence
from functools import partial

from .cachedir import cache_file, write_atomic
from .digests import blake2b, sha256
from .errors import UnreadablePage
from .facts import (
    RESOLUTION_MARKERS,
    RESOLUTION_TEXT,
    PageFacts,
    facts_bytes,
    facts_from,
    page_facts,
)
from .records import Record
from .vault import PageFile, Vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from pathlib import Path

    from .walk import Stat

CACHE_FORMAT = 19  # bump when PageFacts, its encoding or the scan rules change


# ---------------------------------------------------------------------------------------------
# the cache


class Index(Record):
    """Every page file of a vault with its facts; unreadable files are in ``warnings``."""

    __slots__ = ("vault", "files", "warnings", "rescanned")

    def __init__(
        self,
        vault: Vault,
        files: dict[str, PageFacts],
        warnings: list[str] | None = None,
        rescanned: int = 0,  # how many files this load had to read (0 on a fully warm run)
    ) -> None:
        self.vault = vault
        self.files = files
        self.warnings = [] if warnings is None else warnings
        self.rescanned = rescanned


def cache_path(vault: Vault) -> Path:
    """Where the index of ``vault`` is cached (outside the vault)."""
    return cache_file("index", os.path.realpath(vault.where), suffix=".facts")


def racy_digests(vault: Vault, files: Sequence[Stat]) -> dict[str, bytes]:
    """The digests of the files modified so recently that a change to them may not show in
    their stat yet: a projection built now holds them, and is trusted later only while they
    still hold the same bytes (git's "racily clean" rule). Unreadable ones are left out."""
    from .walk import changed_after, newest

    racy_after = time.time_ns() - RACY_NS
    out: dict[str, bytes] = {}
    latest = newest(files)
    if latest is None or latest <= racy_after:
        return out  # most often none: found without a Python step per file
    for rel, *_ in changed_after(files, racy_after):  # `PageFile`s, or a listing's tuples
        try:
            out[rel] = _digest(vault.read_bytes(rel, listed=True))
        except UnreadablePage:
            continue
    return out


def still_same(vault: Vault, digests: dict[str, bytes]) -> bool:
    """Whether every file of ``digests`` still holds those bytes."""
    for rel, digest in digests.items():
        try:
            if _digest(vault.read_bytes(rel, listed=True)) != digest:
                return False
        except UnreadablePage:
            return False
    return True


def _fingerprint(vault: Vault) -> str:
    """What the cached facts depend on besides the files: settings, flavor, rules, version.

    Sets are sorted: their repr follows the process's hash seed, which differs between runs.
    """
    from . import __version__

    settings = {
        k: sorted(v) if isinstance(v, frozenset) else v for k, v in vault.settings._asdict().items()
    }
    parts = (
        CACHE_FORMAT,
        __version__,
        vault.flavor.name,
        sorted(settings.items()),
        sorted(RESOLUTION_MARKERS),
        RESOLUTION_TEXT.pattern,
        sys.version_info[:2],
    )
    return sha256(repr(parts).encode()).hexdigest()


# changed_ns, size, inode, the facts (`facts_bytes`; or the warning), and a digest of the bytes
# for racy entries
_Entry = tuple[int, int, int, "bytes | str", "bytes | None"]
#: A file modified this recently may change again within the same timestamp tick (2 s on FAT,
#: 1 s on HFS+, a few ms on older Linux) without its size changing ("racily clean", as git calls
#: it): its entry keeps a digest of the bytes, and the next run compares the bytes too.
RACY_NS = 2_000_000_000


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector around bulk allocation of objects that all survive
    (every block, mention and backlink of a vault): it would re-walk the growing heap again and
    again for nothing, which costs a third of a cold scan. Reference counting still frees."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_index(
    vault: Vault,
    *,
    use_cache: bool = True,
    progress: bool = False,
    files: tuple[list[PageFile], list[str]] | None = None,
) -> Index:
    """The index of ``vault``: cached facts for unchanged files, a fresh scan of the rest.

    ``files``: the vault's `page_files` and their warnings, when the caller already listed them.
    """
    with paused_gc():
        return _load_index(vault, use_cache, progress, files)


def _load_index(
    vault: Vault,
    use_cache: bool,
    progress: bool,
    listed: tuple[list[PageFile], list[str]] | None,
) -> Index:
    warnings: list[str] = list(listed[1]) if listed else []
    files = listed[0] if listed else vault.page_files(warnings)
    path = cache_path(vault)
    fingerprint = _fingerprint(vault)
    old = _read_cache(path, fingerprint) if use_cache else {}
    index = Index(vault, {}, warnings)
    current, index.rescanned = _current(vault, files, old, progress)
    entries: dict[str, _Entry] = {}
    for file in files:
        entry = current[file.rel]
        facts = stored_facts(entry)
        if facts is None:  # a cached entry that does not read back: a corrupt cache
            entry = current[file.rel] = _fresh_entry(vault, file, time.time_ns() - RACY_NS)
            facts = _fresh_facts(entry)
            index.rescanned += 1
        if isinstance(facts, str):
            warnings.append(facts.lstrip(_TRANSIENT))
        else:
            index.files[file.rel] = facts
        if not _transient(entry):
            entries[file.rel] = entry  # a read error (not bad content) is retried next time
    if use_cache and _changed(entries, old):
        _write_cache(path, fingerprint, entries)
    return index


def refresh_cache(vault: Vault, listing: Sequence[Stat]) -> None:
    """Bring the cached index up to date with ``listing`` (the vault's, made just now), scanning
    only the files whose stat changed and decoding no one's facts: `watch` does it when the
    vault is quiet, so that a timeline or a rebuild then reads no file it has seen."""
    path, fingerprint = cache_path(vault), _fingerprint(vault)
    old = _read_cache(path, fingerprint)
    current, _ = _current(vault, list(map(PageFile._make, listing)), old, False)
    entries = {rel: entry for rel, entry in current.items() if not _transient(entry)}
    if _changed(entries, old):
        _write_cache(path, fingerprint, entries)


def settle_cache(vault: Vault, verified: dict[str, bytes]) -> None:
    """Drop the digests of the cached entries whose files have left the racy window and whose
    bytes were just found the same (``verified``: their digests, read after the window), as
    the summary drops its own (`summary_current.settled`): else every pass over the cached
    index that no change rewrites reads them again (after a bulk copy, most of the vault)."""
    path, fingerprint = cache_path(vault), _fingerprint(vault)
    old = _read_cache(path, fingerprint)
    entries = {
        rel: (*entry[:4], None) if entry[4] is not None and verified.get(rel) == entry[4] else entry
        for rel, entry in old.items()
    }
    if _changed(entries, old):
        _write_cache(path, fingerprint, entries)


def _current(
    vault: Vault, files: list[PageFile], old: dict[str, _Entry], progress: bool
) -> tuple[dict[str, _Entry], int]:
    """Each file's entry, by path: the cached one while it still describes the file, else
    a fresh scan; and how many were scanned."""
    racy_after = time.time_ns() - RACY_NS
    reused = {f.rel: _cached(vault, f, old.get(f.rel), racy_after) for f in files}
    stale = [f for f in files if reused[f.rel] is None]
    fresh = _scan_all(vault, stale, racy_after, progress and len(stale) > 2000)
    return {rel: entry or fresh[rel] for rel, entry in reused.items()}, len(stale)


def _transient(entry: _Entry) -> bool:
    """Whether the entry is a read error (not bad content), which is not cached."""
    return isinstance(entry[3], str) and entry[3].startswith(_TRANSIENT)


def _changed(entries: dict[str, _Entry], old: dict[str, _Entry]) -> bool:
    return entries.keys() != old.keys() or any(e is not old[rel] for rel, e in entries.items())


#: Up to this many files, reading them costs less than loading the whole cached index.
FEW_FILES = 64


def facts_of(vault: Vault, files: list[PageFile]) -> dict[str, PageFacts | str]:
    """The facts of a few files (a warning string for one that cannot be read): from the
    cached index while a file's stat is the one cached, else scanned. Nothing is cached."""
    old = _read_cache(cache_path(vault), _fingerprint(vault)) if len(files) > FEW_FILES else {}
    racy_after = time.time_ns() - RACY_NS
    out: dict[str, PageFacts | str] = {}
    for f in files:
        facts = reusable(vault, f, old.get(f.rel), racy_after)
        if facts is None:
            facts = _fresh_facts(_fresh_entry(vault, f, racy_after))
        out[f.rel] = facts.lstrip(_TRANSIENT) if isinstance(facts, str) else facts
    return out


def reusable(
    vault: Vault, file: PageFile, entry: _Entry | None, racy_after: int, mentions: bool = True
) -> PageFacts | str | None:
    """The facts (or the warning) a cached entry holds for ``file`` (without ``mentions``: none
    of them), if it still describes the file (`_cached`) and reads back; None: the file must be
    scanned."""
    found = _cached(vault, file, entry, racy_after)
    return None if found is None else stored_facts(found, mentions)


def _fresh_facts(entry: _Entry) -> PageFacts | str:
    facts = stored_facts(entry)
    assert facts is not None, "facts just encoded read back"
    return facts


def stored_facts(entry: _Entry, mentions: bool = True) -> PageFacts | str | None:
    """An entry's facts read back (`facts.facts_from`), or its warning; None if they do not
    read back (a corrupt cache)."""
    data = entry[3]
    if isinstance(data, str):
        return data
    try:
        return facts_from(data, mentions)
    except ValueError:
        return None


def _scan_all(
    vault: Vault, files: list[PageFile], racy_after: int, progress: bool
) -> dict[str, _Entry]:
    """Scan files, on every core when there are many (a cold index of a large vault)."""
    from .workers import each_file  # not at the top: warm runs need neither it nor pickle

    return each_file(vault, files, partial(_fresh_entry, racy_after=racy_after), progress)


_TRANSIENT = "\x00"  # marks a warning caused by an I/O error rather than by the file's content


def _cached(vault: Vault, file: PageFile, entry: _Entry | None, racy_after: int) -> _Entry | None:
    """The cached entry if it still describes the file (None: the file must be scanned)."""
    if not isinstance(entry, tuple) or len(entry) != 5:
        return None  # none, or a cache of another shape
    if entry[:3] != (file.changed_ns, file.size, file.inode):
        return None
    digest = entry[4]
    if digest is None:
        return entry
    try:  # racily clean: compare the bytes, and keep the digest while the file is still racy
        data = vault.read_bytes(file.rel, listed=True)
    except UnreadablePage:
        return None
    if _digest(data) != digest:
        return None
    return entry if file.changed_ns > racy_after else (*entry[:4], None)


def _fresh_entry(vault: Vault, file: PageFile, racy_after: int) -> _Entry:
    digest: bytes | None = None
    try:
        data = vault.read_listed(file)
    except UnreadablePage as exc:
        return (file.changed_ns, file.size, file.inode, f"{_TRANSIENT}{exc}; skipped", None)
    if file.changed_ns > racy_after:
        digest = _digest(data)
    facts: bytes | str
    try:
        facts = facts_bytes(page_facts(vault, file.rel, vault.parse_page(file.rel, data)))
    except UnreadablePage as exc:
        facts = f"{exc}; skipped"
    return (file.changed_ns, file.size, file.inode, facts, digest)


def _digest(data: bytes) -> bytes:
    return blake2b(data, digest_size=16).digest()


def _read_cache(path: Path, fingerprint: str) -> dict[str, _Entry]:
    """The cached entries by path (their facts still encoded); empty if there are none for
    these settings."""
    try:
        with open(path, "rb") as handle:
            data = marshal.loads(handle.read())
        if data["fingerprint"] == fingerprint and type(data["files"]) is dict:
            entries: dict[str, _Entry] = data["files"]
            return entries
    except Exception:  # a missing, foreign, truncated or corrupt cache is rebuilt silently
        pass
    return {}


def _write_cache(path: Path, fingerprint: str, entries: dict[str, _Entry]) -> None:
    write_atomic(path, marshal.dumps({"fingerprint": fingerprint, "files": entries}))
    with contextlib.suppress(OSError):  # the pickled cache of earlier versions
        path.with_suffix(".pickle").unlink(missing_ok=True)
