"""The ledger: an append-only record of what each agent wrote (guest rule 4).

One JSON object per line in ``ledger.jsonl`` of the vault's state folder (`state.StateDir`:
``<vault>/.journal-agent/`` by default). Each entry: page, agent, session, time, and the bullet's
text and hash. It makes appends idempotent (a retried hook writes nothing twice) and lets
journal-agent tell a bullet a human deleted from one never written: a bullet once written is
never written again, whatever the page holds now.

The ledger is the agent's own memory of its writes, not a copy of the vault: deleting it loses
no note, only the knowledge of which bullets humans removed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from .digests import sha256
from .errors import os_error
from .records import NamedTuple
from .state import StateDir

LEDGER = "ledger.jsonl"


def text_hash(text: str) -> str:
    """The identity of a bullet: NFC-normalised, surrounding white space ignored."""
    norm = unicodedata.normalize("NFC", text.strip())
    return sha256(norm.encode("utf-8")).hexdigest()[:32]


class Entry(NamedTuple):
    """One bullet an agent wrote."""

    page: str  # vault-relative path of the journal page
    agent: str
    hash: str
    text: str
    time: str  # ISO 8601, UTC
    session: str | None = None


class Ledger:
    """The ledger file of one vault."""

    def __init__(self, state: StateDir) -> None:
        self.state = state

    @classmethod
    def of(cls, root: Path) -> Ledger:
        """The ledger of the vault at ``root``."""
        return cls(StateDir.of(root))

    @property
    def path(self) -> str:
        """Where the ledger is (for messages)."""
        return str(self.state.path / LEDGER)

    def entries(self, page: str | None = None) -> Iterator[Entry]:
        """Every entry (of ``page``), oldest first; a torn or foreign line is skipped."""
        needle = json.dumps(page, ensure_ascii=False).encode() if page is not None else b""
        for line in self.state.read(LEDGER).splitlines():
            if needle not in line:
                continue  # most lines are of other pages: skip them before parsing
            entry = _entry(line)
            if entry is None:
                continue
            if page is None or entry.page == page:
                yield entry

    def of_bullet(self, hash_: str) -> Iterator[Entry]:
        """Every entry of the bullet with this hash, on any page, oldest first."""
        needle = hash_.encode()
        for line in self.state.read(LEDGER).splitlines():
            if needle in line:
                entry = _entry(line)
                if entry is not None and entry.hash == hash_:
                    yield entry

    def written(self, page: str, agent: str) -> set[str]:
        """Hashes of the bullets ``agent`` ever wrote on ``page``."""
        return {e.hash for e in self.entries(page) if e.agent == agent}

    def writer(self) -> LedgerWriter:
        """The ledger opened for appending: opened before a page is written, so that a ledger
        that cannot be written stops the append before anything is on the page."""
        return LedgerWriter(self)


class LedgerWriter:
    """An open ledger that entries are appended to (a context manager)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.fd = -1

    def __enter__(self) -> LedgerWriter:
        self.fd = self.ledger.state.open(LEDGER, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            os.close(self.fd)
        except OSError as error:
            if exc is None:  # what was recorded was fsynced; the close still failed: say so
                raise os_error(error, self.ledger.path, "close the ledger") from error

    def record(self, entries: list[Entry]) -> None:
        """Append entries in one write (O_APPEND: concurrent writers never interleave a line)."""
        if not entries:
            return
        payload = "".join(json.dumps(e._asdict(), ensure_ascii=False) + "\n" for e in entries)
        try:
            size = os.fstat(self.fd).st_size
            if size and os.pread(self.fd, 1, size - 1) != b"\n":
                payload = "\n" + payload  # a writer killed mid-line: end its torn line first
            os.write(self.fd, payload.encode("utf-8"))
            os.fsync(self.fd)
        except OSError as exc:
            raise os_error(exc, self.ledger.path, "append to the ledger") from exc


def _entry(line: bytes) -> Entry | None:
    """One ledger line as an entry; None for a torn or foreign line."""
    try:
        raw = json.loads(line)
        return Entry(
            raw["page"], raw["agent"], raw["hash"], raw["text"], raw["time"], raw.get("session")
        )
    except (ValueError, KeyError, TypeError, RecursionError):
        return None


def now_utc() -> str:
    """The current time as the ledger stores it."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
