"""journal-agent: agent memory that lives in the person's outliner.

An agent appends dated one-line bullets to today's journal page under one block it owns; the
outliner's backlinks make a timeline of every topic, and status is derived from their recency.

The public names below are imported on first use (PEP 562): ``journal-agent --version`` and the
hooks must start fast, and most commands need only a few modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import (
        PagesResult,
        RelatedResult,
        TimelineResult,
        TopicsResult,
        VaultInfo,
        append,
        info,
        pages,
        related,
        stale,
        status,
        timeline,
        topics,
    )
    from .errors import (
        BadDateFormat,
        BadPageName,
        BulletsRefused,
        ConfigError,
        JournalAgentError,
        LockTimeout,
        NotAVault,
        PageError,
        PageNotFound,
        Refused,
        UnreadablePage,
        UnsafePage,
        VaultError,
        VaultNotFound,
        WriteConflict,
        WriteError,
    )
    from .registry import Page, PageRegistry, load_registry
    from .scanner import Block, Outline, Ref, scan
    from .vault import Vault, open_vault

_HOMES = {
    "api": "append info pages PagesResult related RelatedResult stale status timeline "
    "TimelineResult topics TopicsResult VaultInfo",
    "errors": "BadDateFormat BadPageName BulletsRefused ConfigError JournalAgentError LockTimeout "
    "NotAVault PageError PageNotFound Refused UnreadablePage UnsafePage VaultError VaultNotFound "
    "WriteConflict WriteError",
    "registry": "load_registry Page PageRegistry",
    "scanner": "Block Outline Ref scan",
    "vault": "open_vault Vault",
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names.split()}

__all__ = sorted(_WHERE, key=str.casefold)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'journal_agent' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
