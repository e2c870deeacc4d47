"""journal-agent: agent memory that lives in the person's outliner.

An agent appends dated one-line bullets to today's journal page under one block it owns; the
outliner's backlinks make a timeline of every topic, and status is derived from their recency.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .api import PagesResult, VaultInfo, append, info, pages
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

__all__ = [
    "append",
    "BadDateFormat",
    "BadPageName",
    "Block",
    "BulletsRefused",
    "ConfigError",
    "info",
    "JournalAgentError",
    "load_registry",
    "LockTimeout",
    "NotAVault",
    "open_vault",
    "Outline",
    "Page",
    "PageError",
    "PageNotFound",
    "PageRegistry",
    "pages",
    "PagesResult",
    "Ref",
    "Refused",
    "scan",
    "UnreadablePage",
    "UnsafePage",
    "Vault",
    "VaultError",
    "VaultInfo",
    "VaultNotFound",
    "WriteConflict",
    "WriteError",
]
