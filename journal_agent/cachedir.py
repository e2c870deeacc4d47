"""Where journal-agent keeps its derived caches: outside every vault, deletable at any time."""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

CACHE_ENV = "JOURNAL_AGENT_CACHE"


def cache_dir() -> Path:
    """``$JOURNAL_AGENT_CACHE``, else the user cache folder of the platform."""
    base = os.environ.get(CACHE_ENV)
    if base:
        return Path(base).expanduser()
    from platformdirs import user_cache_dir  # lazy: only cached runs need it

    return Path(user_cache_dir("journal-agent", appauthor=False))


def cache_file(kind: str, *key: str, suffix: str) -> Path:
    """A cache file named by a digest of what it depends on."""
    digest = hashlib.sha256("\0".join(key).encode()).hexdigest()[:16]
    return cache_dir() / f"{kind}-{digest}{suffix}"


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step; a cache that cannot be written only costs
    speed next time, so errors are swallowed."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
