"""The page registry: every page of a vault, its aliases, and how a reference resolves to it.

Resolution follows the outliner's own rules, because guest rule 2 ("never create pages") is only
as good as our agreement with the app about which names exist:

* Logseq: names are case-insensitive (lower-cased, NFC); ``title::`` overrides the file name;
  ``alias::`` names fold into their page; every namespace parent of ``A/B`` exists (Logseq
  creates it); journal pages are titled by ``:journal/page-title-format``.
* Obsidian and plain Markdown: a bare name matches a file's base name anywhere in the vault, a
  name with ``/`` matches a path suffix, case-insensitively; a front-matter alias does NOT
  resolve a bare ``[[Alias]]`` (it must be written ``[[Real|Alias]]``).
"""

from __future__ import annotations

import datetime as dt
import functools
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .scanner import split_property_list
from .vault import Vault

if TYPE_CHECKING:
    from .index import Index


@dataclass
class Page:
    """One page: its title, file (None for a page that exists only as a namespace parent),
    aliases, and its day if it is a journal page."""

    title: str
    path: str | None
    aliases: list[str] = field(default_factory=list)
    date: dt.date | None = None
    superseded_by: str | None = None  # a human-set tombstone: ``superseded-by:: [[New]]``

    def to_json(self) -> dict[str, Any]:
        """The contract's ``pages`` entry."""
        return {"title": self.title, "path": self.path, "aliases": self.aliases}


@functools.lru_cache(maxsize=1 << 16)
def page_key(name: str) -> str:
    """The case- and normalisation-insensitive key outliners compare page names by."""
    return unicodedata.normalize("NFC", name.strip()).lower()


class PageRegistry:
    """All pages of one vault and the flavor's resolution rules."""

    def __init__(self, pages: Iterable[Page], *, wiki: bool) -> None:
        self.pages = sorted(pages, key=lambda p: (page_key(p.title), p.path or ""))
        self.wiki = wiki
        self._by_name: dict[str, Page] = {}
        self._by_alias: dict[str, Page] = {}
        self._by_path: dict[str, Page] = {}
        for page in self.pages:
            self._by_name.setdefault(page_key(page.title), page)
            for alias in page.aliases:
                self._by_alias.setdefault(page_key(alias), page)
            if page.path:
                self._by_path[page_key(page.path.rsplit(".", 1)[0])] = page

    def __iter__(self) -> Iterator[Page]:
        return iter(self.pages)

    def __len__(self) -> int:
        return len(self.pages)

    def resolve(self, name: str) -> Page | None:
        """The page a reference to ``name`` lands on, or None if the outliner has no such page."""
        key = page_key(name)
        if self.wiki:
            if key.endswith(".md"):
                key = key[:-3]
            if "/" in key:
                return self._by_path.get(key) or self._path_suffix(key)
            return self._by_name.get(key)
        return self._by_name.get(key) or self._by_alias.get(key)

    def _path_suffix(self, key: str) -> Page | None:
        # Obsidian: "[[Folder/Note]]" is any note whose path ends with that folder and name.
        matches = [p for k, p in self._by_path.items() if k.endswith("/" + key)]
        return min(matches, key=lambda p: len(p.path or "")) if matches else None

    def alias_owner(self, name: str) -> Page | None:
        """The page that has ``name`` as an alias (Obsidian: to suggest ``[[Real|Alias]]``)."""
        return self._by_alias.get(page_key(name))

    def names(self) -> list[str]:
        """Every linkable name (titles, and aliases where they resolve), for suggestions."""
        names = [p.title for p in self.pages]
        if not self.wiki:
            names.extend(a for p in self.pages for a in p.aliases)
        return names

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """The existing names closest to ``name`` (to offer instead of an unknown one)."""
        from rapidfuzz import fuzz, process, utils  # lazy: only refusals need it

        # Plain edit-distance similarity: WRatio's partial matching offers "Nov 10th, 2026"
        # for "Nope". Journal titles are left out: an agent that means a day writes the date.
        names = [n for n in self.names() if (p := self.resolve(n)) is None or p.date is None]
        found = process.extract(
            name,
            names,
            scorer=fuzz.ratio,
            processor=utils.default_process,
            limit=limit,
            score_cutoff=60,
        )
        return [match for match, _score, _index in found]


def build_registry(index: Index) -> PageRegistry:
    """The registry of an indexed vault, by its flavor's rules.

    Logseq also counts as existing every page that is only referenced (its database creates a
    page for each ``[[X]]`` or ``#X``, listed in All pages) and every namespace parent.
    """
    wiki = index.vault.flavor.syntax == "wiki"
    pages = [
        Page(f.title, rel, list(f.aliases), f.date, f.superseded_by)
        for rel, f in index.files.items()
    ]
    if not wiki:
        pages.extend(_referenced_only(index, pages))
        pages.extend(_namespace_parents(pages))
    return PageRegistry(pages, wiki=wiki)


def aliases_of(props: dict[str, Any], wiki: bool) -> list[str]:
    """A page's aliases from its properties (Logseq ``alias::``, YAML ``aliases:``)."""
    if not wiki:
        return split_property_list(str(props.get("alias", "")))
    value = props.get("aliases", props.get("alias"))
    if isinstance(value, str):
        return [a.strip() for a in value.split(",") if a.strip()]
    if isinstance(value, list):
        return [str(a).strip() for a in value if a is not None and str(a).strip()]
    return []


def tombstone_of(props: dict[str, Any]) -> str | None:
    """The page a human marked this one as superseded by (``superseded-by:: [[New]]``)."""
    value = props.get("superseded-by", props.get("superseded_by"))
    if isinstance(value, list):
        value = value[0] if value else None
    names = split_property_list(str(value)) if value else []
    return names[0] if names else None


def _referenced_only(index: Index, pages: list[Page]) -> list[Page]:
    known = {page_key(p.title) for p in pages} | {page_key(a) for p in pages for a in p.aliases}
    found: dict[str, Page] = {}
    for facts in index.files.values():
        for target, *_ in facts.mentions:
            key = page_key(target)
            if key and key not in known and key not in found:
                found[key] = Page(unicodedata.normalize("NFC", target.strip()), None)
    return list(found.values())


def _namespace_parents(pages: list[Page]) -> list[Page]:
    """Logseq creates ``A`` and ``A/B`` for a page ``A/B/C``; they exist without a file."""
    known = {page_key(p.title) for p in pages}
    parents: dict[str, Page] = {}
    for page in pages:
        parts = page.title.split("/")
        for i in range(1, len(parts)):
            title = "/".join(parts[:i])
            key = page_key(title)
            if title and key not in known and key not in parents:
                parents[key] = Page(title, None)
    return list(parents.values())


def load_registry(vault: Vault, *, use_cache: bool = True) -> tuple[PageRegistry, list[str]]:
    """Index ``vault`` and build its registry; also return the pages that could not be read."""
    from .index import load_index

    index = load_index(vault, use_cache=use_cache)
    return build_registry(index), index.warnings
