"""A backend that keeps pages in memory: for tests of the writer, as httpx ships MockTransport.

    backend = MockBackend({"journals/2026_11_29.md": "- a human note\n"})
    journal_agent.append(["Fixed [[Flaky CI]]"], vault=vault, backend=backend, date="2026-11-29")
    backend.pages["journals/2026_11_29.md"]

``edit`` simulates someone else saving the page: it is called with (path, text) before every
commit and returns the text the page holds at that moment (a concurrent human edit), which makes
the commit conflict and the writer plan again. ``commits`` counts the attempts.
"""

from __future__ import annotations

from collections.abc import Callable

from ..owned import plan_insert
from ..scanner import scan
from .base import Backend, Insertion, JournalPage, PageVersion

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from ..outline import Syntax


class MockBackend(Backend):
    """Journal pages in a dict: vault-relative path -> text (absent: the page does not exist)."""

    name = "mock"

    def __init__(
        self,
        pages: dict[str, str] | None = None,
        *,
        syntax: Syntax = "logseq",
        edit: Callable[[str, str | None], str | None] | None = None,
    ) -> None:
        self.pages: dict[str, str] = dict(pages or {})
        self.syntax: Syntax = syntax
        self.edit = edit
        self.commits = 0
        self.closed = False

    def read(self, page: JournalPage, *, until: float) -> PageVersion:
        text = self.pages.get(page.path)
        outline = None if text is None else scan(text, self.syntax)
        return PageVersion(page, outline, token=text)

    def commit(
        self, version: PageVersion, insertion: Insertion, *, until: float
    ) -> PageVersion | None:
        self.commits += 1
        path = version.page.path
        if self.edit is not None:
            edited = self.edit(path, self.pages.get(path))
            if edited is None:
                self.pages.pop(path, None)
            else:
                self.pages[path] = edited
        if self.pages.get(path) != version.token:
            return self.read(version.page, until=until)
        outline = version.outline or scan(insertion.new_page(), self.syntax)
        offset, text = plan_insert(
            outline, insertion.header, list(insertion.texts), insertion.indent
        )
        self.pages[path] = outline.text[:offset] + text + outline.text[offset:]
        return None

    def close(self) -> None:
        self.closed = True
