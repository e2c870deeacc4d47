"""Where journal-agent keeps its derived caches: outside every vault, deletable at any time."""

from __future__ import annotations

import contextlib
import os

TYPE_CHECKING = False  # not typing's: the warm path (`quick`) finds its cache with this module
if TYPE_CHECKING:
    from pathlib import Path

CACHE_ENV = "JOURNAL_AGENT_CACHE"


def _cache_root() -> str:
    """``$JOURNAL_AGENT_CACHE``, else the user cache folder of the platform."""
    base = os.environ.get(CACHE_ENV)
    if base:
        return os.path.expanduser(base)
    from platformdirs import user_cache_dir  # lazy: only cached runs need it

    return user_cache_dir("journal-agent", appauthor=False)


def cache_name(kind: str, *key: str, suffix: str) -> str:
    """The path of a cache file named by a digest of what it depends on."""
    from .digests import sha256

    digest = sha256("\0".join(key).encode()).hexdigest()[:16]
    return os.path.join(_cache_root(), f"{kind}-{digest}{suffix}")


def cache_file(kind: str, *key: str, suffix: str) -> Path:
    """`cache_name` as a path."""
    from pathlib import Path

    return Path(cache_name(kind, *key, suffix=suffix))


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
