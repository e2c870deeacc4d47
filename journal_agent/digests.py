"""The two digests journal-agent uses, without importing `hashlib`.

Why: importing `hashlib` loads OpenSSL (about 6 ms: a bare ``python -c`` takes 12 ms, one that
imports `hashlib` 18 ms), and every query would pay for it, since the warm path digests the
vault's stats (`walk.stamp`) and names its cache and lock files with these. CPython's own
implementations give the same digests and load nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the warm path imports this module
if TYPE_CHECKING:
    from hashlib import blake2b, sha256
else:
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter without CPython's module
        from hashlib import blake2b
    try:
        from _sha2 import sha256  # Python 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.10 and 3.11
        except ImportError:
            from hashlib import sha256

__all__ = ["blake2b", "sha256"]
