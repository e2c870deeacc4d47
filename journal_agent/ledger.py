"""The ledger: an append-only record of what each agent wrote (guest rule 4).

One JSON object per line in ``<vault>/.journal-agent/ledger.jsonl`` (a hidden folder, which
Logseq and Obsidian do not index; ``$JOURNAL_AGENT_LEDGER`` or ``ledger = "…"`` in
``.journal-agent.toml`` move it). Each entry: page, agent, session, time, and the bullet's text
and hash. It makes appends idempotent (a retried hook writes nothing twice) and lets journal-agent
tell a bullet a human deleted from one never written: a bullet once written is never written
again, whatever the page holds now.

The ledger is the agent's own memory of its writes, not a copy of the vault: deleting it loses
no note, only the knowledge of which bullets humans removed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import unicodedata
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import ConfigError

STATE_DIR = ".journal-agent"
LEDGER_ENV = "JOURNAL_AGENT_LEDGER"


def text_hash(text: str) -> str:
    """The identity of a bullet: NFC-normalised, surrounding white space ignored."""
    norm = unicodedata.normalize("NFC", text.strip())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class Entry:
    """One bullet an agent wrote."""

    page: str  # vault-relative path of the journal page
    agent: str
    hash: str
    text: str
    time: str  # ISO 8601, UTC
    session: str | None = None


class Ledger:
    """The ledger file of one vault."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_vault(cls, root: Path, configured: str | None = None) -> Ledger:
        """The vault's ledger: ``$JOURNAL_AGENT_LEDGER``, else ``configured``, else the default."""
        where = os.environ.get(LEDGER_ENV) or configured
        if not where:
            return cls(root / STATE_DIR / "ledger.jsonl")
        path = Path(where).expanduser()
        if not path.is_absolute():
            path = root / path
        if path.is_dir():
            raise ConfigError(f"ledger {path} is a folder; name a file")
        return cls(path)

    def entries(self) -> Iterator[Entry]:
        """Every entry, oldest first; a torn or foreign line is skipped, never fatal."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        for line in data.splitlines():
            try:
                raw = json.loads(line)
                yield Entry(
                    raw["page"],
                    raw["agent"],
                    raw["hash"],
                    raw["text"],
                    raw["time"],
                    raw.get("session"),
                )
            except (ValueError, KeyError, TypeError):
                continue

    def written(self, page: str, agent: str) -> set[str]:
        """Hashes of the bullets ``agent`` ever wrote on ``page``."""
        return {e.hash for e in self.entries() if e.page == page and e.agent == agent}

    def record(self, entries: list[Entry]) -> None:
        """Append entries in one write (O_APPEND: concurrent writers never interleave a line)."""
        if not entries:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = "".join(json.dumps(asdict(e), ensure_ascii=False) + "\n" for e in entries)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                payload = "\n" + payload  # a writer killed mid-line: end its torn line first
            os.write(fd, payload.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)


def now_utc() -> str:
    """The current time as the ledger stores it."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
