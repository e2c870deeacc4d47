"""The backend seam: where a journal page is read from and where an insertion is committed.

A backend does three things (httpx's transports are the model): `read` a day's page with a
version, `commit` an insertion against that version, and `close`. It never decides *what* is
written: the writer keeps the guest rules (the guard, the owned block, idempotency, the ledger)
and the retry policy, and hands the backend an `Insertion` — the owned block's header and the
bullets to add under it. A commit either lands, or answers with the page as it is now (someone
changed it since the read), and the writer plans again from that.

To write a backend: subclass `Backend`, set ``name``, implement `read` and `commit` (and `close`
if it holds resources). Shipped: `FileBackend` (the page file on disk, atomic and safe against
concurrent editors) and `MockBackend` (pages in memory, for tests). The outliners' local HTTP
APIs (Logseq, Obsidian Local REST API) are the next two.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Callable
from types import TracebackType

from ..errors import StorageError
from ..outline import Outline
from ..records import NamedTuple

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import ClassVar


class JournalPage(NamedTuple):
    """A day's journal page: its day, its title, and where it is (or would be) in the vault."""

    day: dt.date
    title: str
    path: str  # vault-relative, "/"-separated; the ledger and the page lock know it by this


class PageVersion(NamedTuple):
    """A page as a backend read it. ``outline`` is None when the page does not exist yet;
    ``token`` is the backend's own proof of what it read, checked when committing."""

    page: JournalPage
    outline: Outline | None
    token: object = None
    bom: bool = False


class Insertion(NamedTuple):
    """What the writer asks a backend to add: bullets under the owned block with this header
    (the block is added at the end of the page if it is not there yet)."""

    header: str
    texts: tuple[str, ...]
    indent: str = "\t"  # one level of indentation when the page has none to copy
    new_page: Callable[[], str] = lambda: ""  # a new page's text (its template)


class SaveKeptAside(StorageError):
    """Someone's save made while a commit ran could not stay the page and is kept beside it,
    never removed (the message names it). Not a failure of the append: ``version`` is the page
    as it now stands, which the writer goes on from (our bullets may be on it already, saved
    over by that editor), and the message is its warning."""

    def __init__(self, message: str, version: PageVersion, errno_: int | None = None) -> None:
        super().__init__(message, errno_)
        self.version = version


class Backend(ABC):
    """Reads journal pages and commits insertions to them."""

    name: ClassVar[str]

    @abstractmethod
    def read(self, page: JournalPage, *, until: float) -> PageVersion:
        """The page as it is now. ``until`` (a `time.monotonic` deadline) bounds any wait for
        a page that is being saved by someone else."""

    @abstractmethod
    def commit(
        self, version: PageVersion, insertion: Insertion, *, until: float
    ) -> PageVersion | None:
        """Add ``insertion`` to the page if it is still as ``version`` describes it: None when
        it landed, else the page as it is now (nothing of ours on it), to plan again from."""

    def close(self) -> None:  # noqa: B027 - most backends hold nothing
        """Release what the backend holds (connections, descriptors)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
