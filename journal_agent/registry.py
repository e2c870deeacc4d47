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

from .errors import BadPageName, UnreadablePage
from .facts import tombstone_of
from .flavors import Flavor
from .scanner import inline_refs
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

    def __init__(self, pages: Iterable[Page], flavor: Flavor) -> None:
        self.pages = sorted(pages, key=lambda p: (page_key(p.title), p.path or ""))
        self.flavor = flavor
        self.wiki = not flavor.aliases_resolve  # Obsidian rules: names and paths, not aliases
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

    def search(self, query: str, limit: int = 20) -> list[Page]:
        """The pages whose title or an alias contains ``query`` (any case), titles starting with
        it first and journal pages last; with none, the pages spelled closest to it."""
        key = page_key(query)
        hits = [p for p in self.pages if any(key in page_key(n) for n in (p.title, *p.aliases))]
        if not hits:
            close = {page_key(n) for n in self.suggest(query, limit=5)}
            hits = [p for p in self.pages if page_key(p.title) in close]
        hits.sort(key=lambda p: (p.date is not None, not page_key(p.title).startswith(key)))
        return hits[:limit]

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
    flavor = index.vault.flavor
    pages = [
        Page(f.title, rel, list(f.aliases), f.date, f.superseded_by)
        for rel, f in index.files.items()
    ]
    if flavor.pages_by_reference:
        pages.extend(_referenced_only(index, pages))
    if flavor.namespaces:
        pages.extend(_namespace_parents(pages))
    return PageRegistry(pages, flavor)


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


class KnownPages:
    """What the guard must know of the vault's pages, fetched as cheaply as the bullets allow.

    A session-end hook has about a second, and indexing a large vault for the first time takes
    longer. Most bullets only link pages by their own names: those are confirmed from the file
    names and the linked pages' own properties (``title::`` renames a page, ``superseded-by::``
    retires it). Anything else (an alias, a page that exists only by reference, a block ref, a
    Logseq daily template) needs the full index.
    """

    def __init__(self, vault: Vault, use_cache: bool = True, index: Index | None = None) -> None:
        self.vault = vault
        self.use_cache = use_cache
        self._index = index

    @property
    def index(self) -> Index:
        """The vault's index (loaded on first use)."""
        if self._index is None:
            from .index import load_index

            self._index = load_index(self.vault, use_cache=self.use_cache)
        return self._index

    @property
    def warnings(self) -> list[str]:
        """The pages the index could not read, if the index was loaded."""
        return list(self._index.warnings) if self._index is not None else []

    @property
    def block_ids(self) -> frozenset[str]:
        """The block ids of the vault (empty unless the index was needed and loaded)."""
        if self._index is None:
            return frozenset()
        return frozenset(i for facts in self._index.files.values() for i in facts.block_ids)

    def registry_for(self, texts: list[str], new_page: bool) -> PageRegistry:
        """A registry that resolves every reference of ``texts`` as the full one would."""
        quick = None if self._index is not None else self._quick(texts, new_page)
        return quick if quick is not None else build_registry(self.index)

    def _quick(self, texts: list[str], new_page: bool) -> PageRegistry | None:
        vault, flavor = self.vault, self.vault.flavor
        if new_page and vault.settings.template and flavor.name == "logseq":
            return None  # the daily template is found through the index
        refs = [r for t in texts for r in inline_refs(t, flavor.syntax)]
        if any(r.kind == "block" for r in refs):
            return None
        confirmed: list[Page] = []
        for ref in refs:
            if ref.kind == "tag" and "tag" not in flavor.backlink_kinds:
                continue  # an Obsidian #tag is a tag, not a page
            page = self._by_file_name(ref.target)
            checked = self._confirm(page, ref.target) if page else None
            if checked is None:
                return None
            confirmed.append(checked)
        return PageRegistry(confirmed, flavor)

    @functools.cached_property
    def _stems(self) -> dict[str, list[str]]:
        """Page files by their lower-cased, NFC file name without extension."""
        stems: dict[str, list[str]] = {}
        for rel in self.vault.page_paths():
            stem = unicodedata.normalize("NFC", rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]).lower()
            stems.setdefault(stem, []).append(rel)
        return stems

    def _by_file_name(self, name: str) -> Page | None:
        """The page whose file name gives it the title ``name``, without reading any page."""
        vault, key = self.vault, page_key(name)
        if not vault.flavor.aliases_resolve:  # Obsidian rules: a base name or a path suffix
            key = key.removesuffix(".md")
            for rel in self._stems.get(key.rsplit("/", 1)[-1], []):
                if "/" not in key or ("/" + rel.lower()).removesuffix(".md").endswith("/" + key):
                    title, day = vault.describe(rel)
                    return Page(title, rel, [], day)
            return None
        if vault.title_format is not None and (day := vault.title_format.parse(name, True)):
            path = vault.journal_path(day)
            rel = path.relative_to(vault.root).as_posix()
            return Page(vault.journal_title(day), rel, [], day) if path.is_file() else None
        try:
            stem = vault.flavor.file_name_of(name, vault.settings).lower()
        except BadPageName:
            return None
        for rel in self._stems.get(unicodedata.normalize("NFC", stem), []):
            title, day = vault.describe(rel)
            if page_key(title) == key:
                return Page(title, rel, [], day)
        return None

    def _confirm(self, page: Page, name: str) -> Page | None:
        """The page as its own file describes it, if ``name`` really names it."""
        if page.path is None or page.path.endswith(".org"):
            return None
        try:
            outline = self.vault.read_page(page.path)
        except UnreadablePage:
            return None
        props = outline.page_properties
        title = self.vault.flavor.title_from_properties(props)
        if title and page_key(title) != page_key(name):
            return None  # title:: renamed it: the file name is not a page name
        return Page(title or page.title, page.path, [], page.date, tombstone_of(props))


def load_registry(vault: Vault, *, use_cache: bool = True) -> tuple[PageRegistry, list[str]]:
    """Index ``vault`` and build its registry; also return the pages that could not be read."""
    from .index import load_index

    index = load_index(vault, use_cache=use_cache)
    return build_registry(index), index.warnings
