"""Obsidian's notes (and a plain Markdown folder's): pages are files, found by name or path.

Why: in Obsidian a note is its file, so two notes with one name in different folders are two
topics, and a link lands on the note Obsidian would open when it is clicked. The rules, from
obsidian-help "Internal links" (a link is a note's name, or a path to tell notes apart; a
Markdown link is a path, relative to the linking note) and outliners.md §3.2 (the tie-break
order comes from reimplementations of ``getFirstLinkpathDest``; Obsidian documents only "best
match"):

* ``./X`` and ``../X`` are paths from the linking note's folder; ``/X`` from the vault root;
* any other name is tried, in order: as a path from the linking note's folder (so a note of that
  name beside the linking note wins), as a path from the vault root, then as a base name (no
  ``/``) or a path suffix (``Folder/X``) anywhere, the shortest path winning, then the first
  alphabetically;
* names compare case-insensitively, and ``X.md`` is ``X``; a note's front-matter alias does not
  resolve a bare ``[[Alias]]`` (Obsidian writes ``[[Real|Alias]]``, "Aliases").

A query's topic is not a link: a person names a topic by a title or an alias, so where no note
has that name or path, the notes that declare it as an alias are what it means (`candidates`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from .facts import PageFacts
from .flavors import Flavor
from .registry import Page, PageRegistry


class WikiPages(PageRegistry):
    """The notes of an Obsidian vault or a plain Markdown folder (see the module docstring)."""

    wiki = True

    def __init__(self, pages: Iterable[Page], flavor: Flavor, source: str | None = None) -> None:
        super().__init__(pages, flavor, source)
        self._by_path: dict[str, Page] = {}
        self._by_stem: dict[str, list[Page]] = {}
        for page in sorted(self.pages, key=lambda p: _order(p.path or "")):
            if page.path:
                path = self.key(_without_extension(page.path))
                self._by_path.setdefault(path, page)
                self._by_stem.setdefault(path.rsplit("/", 1)[-1], []).append(page)
        self._aliases = {self.key(a): p for p in self.pages for a in p.aliases}
        self._aliased: dict[str, list[Page]] = {}  # by query key, each note once, best first
        for page in sorted(self.pages, key=lambda p: _order(p.path or "")):
            for key in dict.fromkeys(self.query_key(a) for a in page.aliases):
                self._aliased.setdefault(key, []).append(page)

    def resolve(self, name: str, source: str | None = None) -> Page | None:
        source = self.source if source is None else source
        key = self.key(name).removesuffix(".md")
        if not key:
            return None
        folder = self.key(_folder(source))
        if key.startswith(("./", "../", "/")):
            return self._by_path.get(_join(folder, key))
        if folder:
            found = self._by_path.get(_join(folder, key))
            if found is not None:
                return found
        found = self._by_path.get(key)
        if found is not None:
            return found
        matches = self._matches(key)
        return matches[0] if matches else None

    def query_key(self, name: str) -> str:
        return self.key(name).removesuffix(".md")

    def candidates(self, name: str) -> list[Page]:
        key = self.query_key(name)
        exact = self._by_path.get(key.lstrip("/"))
        if exact is not None:
            return [exact]
        return self._matches(key) or list(self._aliased.get(key, ()))

    def identity(self, page: Page) -> str:
        return page.path or self.key(page.title)

    def _identities(self) -> list[str]:
        return [p.path or k for p, k in zip(self.pages, self._keys, strict=True)]

    def file_identity(self, rel: str, facts: PageFacts) -> str:
        return rel

    def alias_owner(self, name: str) -> Page | None:
        return self._aliases.get(self.key(name))

    def link_text(self, page: Page) -> str:
        parts = _without_extension(page.path or page.title).split("/")
        for i in range(len(parts) - 1, -1, -1):  # the name, then longer and longer paths
            text = "/".join(parts[i:])
            if self.resolve(text) is page:
                return text
        return "/" + "/".join(parts)

    def _matches(self, key: str) -> list[Page]:
        """Notes of that base name, or whose path ends with that path, best first."""
        if "/" not in key:
            return self._by_stem.get(key, [])
        tail = "/" + key
        found = [p for k, p in self._by_path.items() if k.endswith(tail)]
        return sorted(found, key=lambda p: _order(p.path or ""))


def _order(path: str) -> tuple[int, str]:
    """Shortest path first, then alphabetical."""
    return len(path), path


def _folder(source: str | None) -> str:
    return source.rpartition("/")[0] if source else ""


def _join(folder: str, key: str) -> str:
    """``key`` as a vault-relative path seen from ``folder`` (``/x`` from the root)."""
    if key.startswith("/"):
        return posixpath.normpath(key).lstrip("/")
    joined = posixpath.normpath(posixpath.join(folder, key)) if folder else posixpath.normpath(key)
    return "" if joined.startswith("../") or joined == ".." else joined


def _without_extension(path: str) -> str:
    return path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
