"""`each_file`: one function of every page file, on every core when there are many files.

This process takes every n-th file and forked children the rest (a share of each kind: journals
cost more), each working through its share a chunk of files at a time, first to last. A child
sends each chunk's results, pickled, as soon as they are made, and this process reads what came
between its own chunks: sending and unpickling overlap the work instead of following it. Who
ends its share first takes over the other's last chunks, not begun yet, last to first (this
process any child's, a child this process's): the processes end together, where one of them, a
core that was busy or the unpickling, used to leave the other waiting a tenth of a cold scan.
Which chunks are begun is a byte each in memory shared across the fork (`_Shares`). Not a
`multiprocessing` pool: its threads, taking each chunk's results as they came, slowed this
process's own share by a fifth.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import struct
import sys
from collections.abc import Callable, Iterator
from functools import partial
from itertools import accumulate
from typing import TYPE_CHECKING, Generic, TypeVar

from .walk import Forked, can_fork

if TYPE_CHECKING:
    from .vault import PageFile, Vault

T = TypeVar("T")

#: A file scanned in full costs about this many times one read for its head (`firstpass`):
#: 0.13 ms against 0.014 ms on the benchmark vault.
SCAN_COST = 8
#: Below this much work, in heads read (about 15 ms), a second process costs more than it saves
#: (one process was as fast as two at a thousand heads, and at a hundred journal pages).
PARALLEL_MIN = 1200
#: Files per chunk a child sends at once (and this process may take over): a few milliseconds
#: of work, so that the processes end within one chunk of each other.
CHUNK = 128
#: A chunk as a child sends it: its share, its number in the share and its pickle's length,
#: then the pickle.
_FRAME = struct.Struct("<IIQ")
#: The pipe's room a child may fill before this process reads (Linux's most for a user).
ROOM = 1 << 20


def each_file(
    vault: Vault,
    files: list[PageFile],
    work: Callable[[Vault, PageFile], T],
    progress: bool = False,
    scans: Callable[[PageFile], bool] | None = None,
) -> dict[str, T]:
    """``work(vault, file)`` of each file, by path (see the module). The results of the
    children's chunks come back pickled: keep them small. ``scans``: which files ``work``
    scans in full (every one if not given), the rest costing a read of their head."""
    scanned = len(files) if scans is None else sum(map(scans, files))
    units = len(files) + (SCAN_COST - 1) * scanned
    workers = min(os.cpu_count() or 1, 8, units // (PARALLEL_MIN // 2) or 1)
    if workers < 2 or not can_fork():
        workers = 1
    return _Shares(vault, work, [files[k::workers] for k in range(workers)]).run(progress)


class _Shares(Generic[T]):
    """The shares of `each_file` in chunks, which of them are begun (``claims``: a byte per
    chunk, shared with the children) and the results found so far. Two processes may begin the
    same chunk at the same moment: it is then done twice, to the same result. A chunk that no
    result came for (its child failed, or sent part of one) is done here at the end."""

    def __init__(
        self, vault: Vault, work: Callable[[Vault, PageFile], T], shares: list[list[PageFile]]
    ) -> None:
        self.vault, self.work = vault, work
        self.total = sum(map(len, shares))
        self.chunks = [[s[i : i + CHUNK] for i in range(0, len(s), CHUNK)] for s in shares]
        self.starts = list(accumulate(map(len, self.chunks), initial=0))
        self.claims = mmap.mmap(-1, self.starts[-1] or 1)  # anonymous: shared across a fork
        self.found: dict[tuple[int, int], dict[str, T]] = {}
        self.children: list[tuple[Forked, bytearray]] = []

    def run(self, progress: bool) -> dict[str, T]:
        """Every file's result: this process's share, then the children's last chunks."""
        reporter = _Progress(self.total, progress)
        with contextlib.ExitStack() as stack:
            stack.callback(self.claims.close)
            for k in range(1, len(self.chunks)):
                child = stack.enter_context(Forked(partial(self._child, k), ROOM))
                self.children.append((child, bytearray()))
            for n in range(len(self.chunks[0])):
                if not self._do(0, n):
                    break
                reporter.update((n + 1) * CHUNK * len(self.chunks))  # all go as fast
            for k in range(1, len(self.chunks)):
                for n in reversed(range(len(self.chunks[k]))):
                    if not self._do(k, n):
                        break
            self._receive(wait=True)
        out: dict[str, T] = {}
        for k, chunks in enumerate(self.chunks):
            for n, files in enumerate(chunks):
                found = self.found.get((k, n))
                out.update(
                    dict(_share_here(self.vault, self.work, files)) if found is None else found
                )
        reporter.done()
        return out

    def _do(self, k: int, n: int) -> bool:
        """Do chunk ``n`` of share ``k`` here unless it is begun, then take what the children
        sent meanwhile; whether it was done here."""
        if not self._claim(k, n):
            return False
        self.found[k, n] = dict(_share_here(self.vault, self.work, self.chunks[k][n]))
        self._receive()
        return True

    def _claim(self, k: int, n: int) -> bool:
        at = self.starts[k] + n
        if self.claims[at]:
            return False
        self.claims[at] = 1
        return True

    def _child(self, k: int) -> Iterator[bytes]:
        """Child ``k``'s part (run in the child): its chunks, then this process's last ones,
        each as a frame, until it reaches one begun."""
        order = [(k, n) for n in range(len(self.chunks[k]))]
        order += [(0, n) for n in reversed(range(len(self.chunks[0])))]
        for share, n in order:
            if not self._claim(share, n):
                if share == k:
                    continue  # its last chunks: this process took them over
                return
            found = dict(_share_here(self.vault, self.work, self.chunks[share][n]))
            data = pickle.dumps(found, pickle.HIGHEST_PROTOCOL)
            yield _FRAME.pack(share, n, len(data)) + data

    def _receive(self, wait: bool = False) -> None:
        """Take the chunks the children have sent (``wait``: all they will send)."""
        for child, pending in self.children:
            pending += child.result() if wait else child.available()
            done, frames = frames_in(pending)
            for k, n, data in frames:
                if (k, n) not in self.found and k < len(self.chunks) and n < len(self.chunks[k]):
                    with contextlib.suppress(Exception):  # damaged: the chunk is done here
                        found = pickle.loads(data)
                        if type(found) is dict:
                            self.found[k, n] = found
            del pending[:done]


def frames_in(data: bytes | bytearray) -> tuple[int, list[tuple[int, int, bytes]]]:
    """The whole frames at the start of ``data`` (share, chunk, pickle) and the bytes they
    take; a frame not all there yet is left for the next read."""
    frames, at = [], 0
    while len(data) - at >= _FRAME.size:
        k, n, size = _FRAME.unpack_from(data, at)
        end = at + _FRAME.size + size
        if end > len(data):
            break
        frames.append((k, n, bytes(data[at + _FRAME.size : end])))
        at = end
    return at, frames


def _share_here(
    vault: Vault, work: Callable[[Vault, PageFile], T], files: list[PageFile]
) -> Iterator[tuple[str, T]]:
    from .index import paused_gc

    with paused_gc():
        for f in files:
            yield f.rel, work(vault, f)


class _Progress:
    """A one-line progress count on stderr, if asked for and stderr is a terminal."""

    def __init__(self, total: int, wanted: bool) -> None:
        self.total = total
        self.enabled = wanted and sys.stderr.isatty()

    def update(self, n: int) -> None:
        if self.enabled:
            n = min(n, self.total)
            print(f"\rjournal-agent: indexing {n}/{self.total} pages", end="", file=sys.stderr)

    def done(self) -> None:
        if self.enabled:
            print(f"\rjournal-agent: indexed {self.total} pages{' ' * 10}", file=sys.stderr)
