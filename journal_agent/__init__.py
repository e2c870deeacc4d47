"""journal-agent: agent memory that lives in the person's outliner.

An agent appends dated one-line bullets to today's journal page under one block it owns; the
outliner's backlinks make a timeline of every topic, and status is derived from their recency.

The public names below are imported on first use (PEP 562): ``journal-agent --version`` and the
hooks must start fast, and most commands need only a few modules.
"""

from __future__ import annotations

__version__ = "0.2.0"

TYPE_CHECKING = False  # not typing's: every command imports this package, typing is slow to load
if TYPE_CHECKING:
    from typing import Any

    from .api import (
        LintResult as LintResult,
    )
    from .api import (
        PagesResult as PagesResult,
    )
    from .api import (
        RelatedResult as RelatedResult,
    )
    from .api import (
        TimelineResult as TimelineResult,
    )
    from .api import (
        TopicsResult as TopicsResult,
    )
    from .api import (
        VaultInfo as VaultInfo,
    )
    from .api import (  # noqa: F401
        append as append,
    )
    from .api import (
        info as info,
    )
    from .api import (
        lint as lint,
    )
    from .api import (
        pages as pages,
    )
    from .api import (
        related as related,
    )
    from .api import (
        stale as stale,
    )
    from .api import (
        status as status,
    )
    from .api import (
        timeline as timeline,
    )
    from .api import (
        topics as topics,
    )
    from .api_context import (  # noqa: F401
        audit as audit,
    )
    from .api_context import (
        context as context,
    )
    from .api_context import (
        why as why,
    )
    from .api_pending import (  # noqa: F401
        BundleResult as BundleResult,
    )
    from .api_pending import (
        NoteResult as NoteResult,
    )
    from .api_pending import (
        PendingResult as PendingResult,
    )
    from .api_pending import (
        drop_pending as drop_pending,
    )
    from .api_pending import (
        fix_pending as fix_pending,
    )
    from .api_pending import (
        flush_pending as flush_pending,
    )
    from .api_pending import (
        install_hooks as install_hooks,
    )
    from .api_pending import (
        note as note,
    )
    from .api_pending import (
        pending_bullets as pending_bullets,
    )
    from .api_pending import (
        write_bundle as write_bundle,
    )
    from .backends import (  # noqa: F401
        Backend as Backend,
    )
    from .backends import (
        FileBackend as FileBackend,
    )
    from .backends import (
        Insertion as Insertion,
    )
    from .backends import (
        JournalPage as JournalPage,
    )
    from .backends import (
        MockBackend as MockBackend,
    )
    from .backends import (
        PageVersion as PageVersion,
    )
    from .corrections import (  # noqa: F401
        AuditResult as AuditResult,
    )
    from .corrections import (
        Finding as Finding,
    )
    from .decisions import (  # noqa: F401
        Decision as Decision,
    )
    from .decisions import (
        WhyResult as WhyResult,
    )
    from .errors import (  # noqa: F401
        AmbiguousPage as AmbiguousPage,
    )
    from .errors import (
        BadAgentName as BadAgentName,
    )
    from .errors import (
        BadArgument as BadArgument,
    )
    from .errors import (
        BadDateFormat as BadDateFormat,
    )
    from .errors import (
        BadPageName as BadPageName,
    )
    from .errors import (
        BulletsRefused as BulletsRefused,
    )
    from .errors import (
        ConfigError as ConfigError,
    )
    from .errors import (
        JournalAgentError as JournalAgentError,
    )
    from .errors import (
        LockTimeout as LockTimeout,
    )
    from .errors import (
        MissingExtra as MissingExtra,
    )
    from .errors import (
        NotAVault as NotAVault,
    )
    from .errors import (
        PageError as PageError,
    )
    from .errors import (
        PageNotFound as PageNotFound,
    )
    from .errors import (
        Refused as Refused,
    )
    from .errors import (
        StorageError as StorageError,
    )
    from .errors import (
        UnreadablePage as UnreadablePage,
    )
    from .errors import (
        UnsafePage as UnsafePage,
    )
    from .errors import (
        UnsafePath as UnsafePath,
    )
    from .errors import (
        VaultError as VaultError,
    )
    from .errors import (
        VaultNotFound as VaultNotFound,
    )
    from .errors import (
        WatchRunning as WatchRunning,
    )
    from .errors import (
        WriteConflict as WriteConflict,
    )
    from .errors import (
        WriteError as WriteError,
    )
    from .guard import (  # noqa: F401
        Problem as Problem,
    )
    from .guide import (  # noqa: F401
        instructions as instructions,
    )
    from .hosts import (  # noqa: F401
        Host as Host,
    )
    from .hosts.install import (  # noqa: F401
        InstallResult as InstallResult,
    )
    from .loop import (  # noqa: F401
        HookResult as HookResult,
    )
    from .loop import (
        run_hook as run_hook,
    )
    from .pending import (  # noqa: F401
        FlushReport as FlushReport,
    )
    from .pending import (
        Pending as Pending,
    )
    from .pending import (
        PendingStore as PendingStore,
    )
    from .projection import (  # noqa: F401
        ContextResult as ContextResult,
    )
    from .projection import (
        PendingLike as PendingLike,
    )
    from .queries import (  # noqa: F401
        Backlink as Backlink,
    )
    from .queries import (
        Topic as Topic,
    )
    from .registry import (
        Page as Page,
    )
    from .registry import (
        PageRegistry as PageRegistry,
    )
    from .registry import (  # noqa: F401
        load_registry as load_registry,
    )
    from .scanner import (  # noqa: F401
        Block as Block,
    )
    from .scanner import (
        Outline as Outline,
    )
    from .scanner import (
        Ref as Ref,
    )
    from .scanner import (
        scan as scan,
    )
    from .vault import (
        Vault as Vault,
    )
    from .vault import (  # noqa: F401
        open_vault as open_vault,
    )
    from .writer import (  # noqa: F401
        AppendResult as AppendResult,
    )
    from .writer import (
        Bullet as Bullet,
    )

_HOMES = {
    "api": (
        "append info lint LintResult pages PagesResult related RelatedResult stale status "
        "timeline TimelineResult topics TopicsResult VaultInfo"
    ),
    "api_context": "audit context why",
    "api_pending": (
        "BundleResult drop_pending fix_pending flush_pending install_hooks note NoteResult "
        "pending_bullets PendingResult write_bundle"
    ),
    "backends": "Backend FileBackend Insertion JournalPage MockBackend PageVersion",
    "corrections": "AuditResult Finding",
    "decisions": "Decision WhyResult",
    "errors": (
        "AmbiguousPage BadAgentName BadArgument BadDateFormat BadPageName BulletsRefused "
        "ConfigError JournalAgentError LockTimeout MissingExtra NotAVault PageError PageNotFound "
        "Refused "
        "StorageError UnreadablePage UnsafePage UnsafePath VaultError VaultNotFound "
        "WatchRunning WriteConflict WriteError"
    ),
    "guard": "Problem",
    "guide": "instructions",
    "hosts": "Host",
    "hosts.install": "InstallResult",
    "loop": "HookResult run_hook",
    "pending": "FlushReport Pending PendingStore",
    "projection": "ContextResult PendingLike",
    "queries": "Backlink Topic",
    "registry": "load_registry Page PageRegistry",
    "scanner": "Block Outline Ref scan",
    "vault": "open_vault Vault",
    "writer": "AppendResult Bullet",
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names.split()}

__all__ = sorted(_WHERE, key=str.casefold)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'journal_agent' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
