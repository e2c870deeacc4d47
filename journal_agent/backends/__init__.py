"""Backends: where journal pages are read from and written to (see `backends.base`).

``FileBackend`` writes the page files of the vault; ``MockBackend`` keeps pages in memory for
tests. `journal_agent.append(..., backend=...)` takes any `Backend`.
"""

from __future__ import annotations

from .base import Backend, Insertion, JournalPage, PageVersion
from .file import FileBackend
from .mock import MockBackend

__all__ = ["Backend", "FileBackend", "Insertion", "JournalPage", "MockBackend", "PageVersion"]
