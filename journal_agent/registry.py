"""The page registry: every page of a vault, its aliases, and how a reference resolves to it.

Resolution follows the outliner's own rules, because guest rule 2 ("never create pages") and the
backlinks are only as good as our agreement with the app about which names exist and which page
a reference lands on. A flavor's `flavors.Flavor.resolution` picks the rules:

* ``"logseq"`` (`logseq_pages.LogseqPages`): a page per name, as Logseq's database holds it:
  files (``title::`` overrides the file name), every name a block refers to, namespace parents,
  aliases, and the built-in pages; names compare lower-cased; a date-like name is that day's
  journal page; an alias folds into its page.
* ``"wiki"`` (`wiki_pages.WikiPages`): Obsidian and plain Markdown: a note is a file, a bare name
  matches base names (the linking note's folder first, then the shortest path, then
  alphabetical), a name with ``/`` a path suffix; a front-matter alias does NOT resolve a bare
  ``[[Alias]]`` (it must be written ``[[Real|Alias]]``).

Each registry answers the same questions: `PageRegistry.resolve` (the page a reference opens),
`PageRegistry.targets` (the topics whose backlinks a reference counts in), `identity` (a topic's
key: the page name in Logseq, the note's path in Obsidian) and `file_identity` (the page a file
is, for "a page's references to itself do not count").
"""

from __future__ import annotations

import datetime as dt
import functools
import unicodedata
from collections.abc import Callable, Iterable, Iterator

from .errors import BadPageName, UnreadablePage
from .facts import PageFacts, tombstone_of
from .flavors import KEYS_KEPT, Flavor, page_keys
from .records import Record
from .vault import Vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, Literal

    from .index import Index

    PageOrigin = Literal["file", "reference", "alias", "builtin", "meta"]

#: Why a page exists: its own file; a reference (Logseq makes a page of every name a block
#: refers to, namespace parents included); an alias (it shows the page that declares it); one
#: of Logseq's built-in pages; a name used only as a property key, task marker or priority.


class Page(Record):
    """One page: its title, file (None for a page that exists without one), aliases, its day if
    it is a journal page, and why it exists."""

    __slots__ = ("title", "path", "aliases", "date", "superseded_by", "origin")

    def __init__(
        self,
        title: str,
        path: str | None,
        aliases: list[str] | None = None,
        date: dt.date | None = None,
        superseded_by: str | None = None,  # a human-set tombstone: ``superseded-by:: [[New]]``
        origin: PageOrigin = "file",
    ) -> None:
        self.title = title
        self.path = path
        self.aliases = [] if aliases is None else aliases
        self.date = date
        self.superseded_by = superseded_by
        self.origin = origin

    def to_json(self) -> dict[str, Any]:
        """The contract's ``pages`` entry."""
        return {"title": self.title, "path": self.path, "aliases": self.aliases}

    def listed(self, all_pages: bool = False) -> bool:
        """Whether `topics` and `stale` list this page: not a journal page, not an alias (it
        shows its page), and, unless ``all_pages``, not a built-in page nor one Logseq made of
        a property key, a task marker or a priority."""
        if self.date is not None or self.origin == "alias":
            return False
        return all_pages or self.origin not in ("builtin", "meta")


@functools.lru_cache(maxsize=KEYS_KEPT)
def page_key(name: str) -> str:
    """The key Obsidian and plain Markdown compare note names by (case- and normalisation-
    insensitive, surrounding spaces ignored). Each flavor has its own: `Flavor.page_key`."""
    return unicodedata.normalize("NFC", name.strip()).lower()


class PageRegistry:
    """All pages of one vault and the flavor's resolution rules (see the module docstring).

    ``source``: the vault-relative file the references are written in, where resolution
    depends on it (Obsidian resolves a bare name from the linking note's folder first).
    """

    #: Obsidian rules: a bare alias does not resolve, a #tag is not a page.
    wiki = False

    def __init__(self, pages: Iterable[Page], flavor: Flavor, source: str | None = None) -> None:
        self.flavor = flavor
        self.key = flavor.page_key
        given = list(pages)  # by key, then path: sorted by keys taken in C (100,000 pages;
        keys = page_keys([p.title for p in given], self.key)  # comparing tuples: twice)
        paths = [p.path or "" for p in given]
        order = sorted(range(len(given)), key=paths.__getitem__)
        order.sort(key=keys.__getitem__)  # stable: pages of one key stay in path order
        self.pages = [given[i] for i in order]
        self._keys = [keys[i] for i in order]  # each page's key, as subclasses index them
        self.source = source

    def __iter__(self) -> Iterator[Page]:
        return iter(self.pages)

    def __len__(self) -> int:
        return len(self.pages)

    def seen_from(self, source: str) -> PageRegistry:
        """This registry resolving references written in the file ``source``."""
        import copy  # lazy: with `weakref`, 1 ms of a patch, which resolves nothing

        view = copy.copy(self)
        view.source = source
        return view

    def resolve(self, name: str, source: str | None = None) -> Page | None:
        """The page a reference to ``name`` opens, or None if the outliner has no such page."""
        raise NotImplementedError

    def candidates(self, name: str) -> list[Page]:
        """Every page a name given on its own (a query's topic) could mean: more than one only
        where notes share a name (Obsidian), which a path then tells apart. It depends on
        nothing of the name but its `query_key`."""
        page = self.resolve(name)
        return [page] if page is not None else []

    def query_key(self, name: str) -> str:
        """What `candidates` reads of a name: two names with one query key mean the same."""
        return self.key(name)

    def targets(self, name: str, source: str) -> tuple[str, ...]:
        """The identities of the topics whose backlinks a reference to ``name`` in the file
        ``source`` counts in (the page it lands on; in Logseq also every page of its alias
        group)."""
        page = self.resolve(name, source)
        return (self.identity(page),) if page is not None else ()

    def identity(self, page: Page) -> str:
        """The key a page is a topic under."""
        return self.key(page.title)

    def keyed(self) -> Iterator[tuple[Page, str, str]]:
        """Every page with its key and its `identity`, in order: the keys made as the pages
        were sorted (a graph asks for all of them, a hundred thousand at once)."""
        return zip(self.pages, self._keys, self._identities(), strict=True)

    def _identities(self) -> list[str]:
        """`identity` of every page, in order."""
        return self._keys

    def file_identity(self, rel: str, facts: PageFacts) -> str:
        """The identity of the page the file ``rel`` is."""
        return self.key(facts.title)

    def link_text(self, page: Page) -> str:
        """What to write in ``[[…]]`` (in the `source` file) to link ``page``: its title, or,
        where notes share a name (Obsidian), the shortest path that opens this one."""
        return page.title

    def alias_owner(self, name: str) -> Page | None:
        """The page that has ``name`` as an alias (Obsidian: to suggest ``[[Real|Alias]]``)."""
        key = self.key(name)
        return next((p for p in self.pages if any(self.key(a) == key for a in p.aliases)), None)

    def names(self) -> list[str]:
        """Every linkable name a suggestion may offer: titles and, where they resolve, aliases;
        not the pages Logseq has built in or makes of property keys, markers and priorities."""
        names = [p.title for p in self.pages if p.origin not in ("alias", "builtin", "meta")]
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
        return closest(name, self.suggestible(), limit)

    def suggestible(self) -> list[str]:
        """What `suggest` offers from, sorted, each once: journal titles left out, as an agent
        that means a day writes the date. The status summary keeps them (`Summary.suggested`),
        so that it refuses an unknown name as the graph would."""
        return sorted({n for n in self.names() if (p := self.resolve(n)) is None or p.date is None})


def closest(name: str, names: Iterable[str], limit: int = 3) -> list[str]:
    """Those of ``names`` spelled closest to ``name``, best first, ties by name: whatever order
    ``names`` come in (the summary keeps them in another than the registry's). Plain
    edit-distance similarity: WRatio's partial matching offers "Nov 10th, 2026" for "Nope"."""
    from rapidfuzz import fuzz, process, utils  # lazy: only refusals need it

    scorer, processor = fuzz.ratio, utils.default_process
    found = process.extract(
        name, names, scorer=scorer, processor=processor, limit=None, score_cutoff=60
    )
    return [
        match for _score, match in sorted({(-score, match) for match, score, _ in found})[:limit]
    ]


def build_registry(index: Index) -> PageRegistry:
    """The registry of an indexed vault, by its flavor's rules (`Flavor.resolution`)."""
    if index.vault.flavor.resolution == "logseq":
        from .logseq_pages import build_logseq_pages

        return build_logseq_pages(index)
    from .wiki_pages import WikiPages

    pages = [
        Page(f.title, rel, list(f.aliases), f.date, f.superseded_by)
        for rel, f in index.files.items()
    ]
    return WikiPages(pages, index.vault.flavor)


def query_keys(vault: Vault) -> Callable[[str], str]:
    """`PageRegistry.query_key` of the vault's registry, without building it (it needs no page:
    a query looks its topic up in the status summary by it)."""
    if vault.flavor.resolution == "logseq":
        from .logseq_pages import LogseqPages

        return LogseqPages([], vault.flavor, vault.journal_names).query_key
    from .wiki_pages import WikiPages

    return WikiPages([], vault.flavor).query_key


def load_registry(vault: Vault, *, use_cache: bool = True) -> tuple[PageRegistry, list[str]]:
    """Index ``vault`` and build its registry; also return the pages that could not be read."""
    from .index import load_index

    index = load_index(vault, use_cache=use_cache)
    return build_registry(index), index.warnings


class KnownPages:
    """What the guard must know of the vault's pages, fetched as cheaply as the bullets allow.

    A session-end hook has about a second, and indexing a large vault for the first time takes
    longer. Most bullets only link pages by their own names: those are confirmed from the file
    names and the linked pages' own properties (``title::`` renames a page, ``superseded-by::``
    retires it), and Logseq's built-in pages always exist. Anything else (an alias, a page that
    exists only by reference, a block ref, a Logseq daily template) needs the full index. Either
    way a name resolves to the page the full registry gives it (tests/test_guard_agreement.py).
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

    def registry_for(self, texts: list[str], new_page: bool, source: str) -> PageRegistry:
        """A registry that resolves every reference of ``texts``, written on the page file
        ``source``, as the full one would."""
        quick = None if self._index is not None else self._quick(texts, new_page, source)
        return (quick or build_registry(self.index)).seen_from(source)

    def _quick(self, texts: list[str], new_page: bool, source: str) -> PageRegistry | None:
        vault, flavor = self.vault, self.vault.flavor
        if new_page and vault.settings.template and flavor.name == "logseq":
            return None  # the daily template is found through the index
        from .scanner import inline_refs  # the inline grammar: not on a warm query's path

        refs = [r for t in texts for r in inline_refs(t, flavor.syntax)]
        if any(r.kind == "block" for r in refs):
            return None
        confirmed: list[Page] = []
        for ref in refs:
            if ref.kind == "tag" and "tag" not in flavor.backlink_kinds:
                continue  # an Obsidian #tag is a tag, not a page
            page = self._by_file_name(ref.target, source)
            checked = self._confirm(page, ref.target) if page else None
            if checked is None:
                return None
            confirmed.append(checked)
        return _registry(confirmed, vault)

    @functools.cached_property
    def _paths(self) -> tuple[list[str], str]:
        """Every page file, and one text of all their paths, each after a NUL, as `file_stem`
        makes a name (NFC, lower-cased) and with σ for ς (a final sigma lower-cases by what
        follows it): where `_files_named` looks."""
        rels = self.vault.page_paths()
        text = unicodedata.normalize("NFC", "\x00" + "\x00".join(rels)).lower()
        return rels, text.replace("ς", "σ")

    def _files_named(self, stem: str) -> list[str]:
        """The page files, in listing order, whose `file_stem` is ``stem``: a few searches of
        one text of every path and each file found checked, not a step per file (a session-end
        hook has a second, and a large vault 100,000 files)."""
        rels, text = self._paths
        hits = set()
        for before in ("\x00", "/"):  # a file in the vault's root, or in a folder
            needle = f"{before}{stem}.".replace("ς", "σ")
            at = text.find(needle)
            while stem and at >= 0:
                hits.add(at)
                at = text.find(needle, at + 1)
        found: list[str] = []
        n, done = -1, 0  # the file at ``done`` in the text is ``n``
        for at in sorted(hits):
            n, done = n + text.count("\x00", done, at + 1), at + 1
            if file_stem(rels[n]) == stem and (not found or found[-1] != rels[n]):
                found.append(rels[n])
        return found

    def _by_file_name(self, name: str, source: str) -> Page | None:
        """The page whose file name gives it the title ``name``, without reading any page."""
        vault = self.vault
        if vault.flavor.resolution == "wiki":  # a base name or a path, from the source's folder
            stem = page_key(name).removesuffix(".md").rsplit("/", 1)[-1]
            files = [Page(vault.describe(rel)[0], rel) for rel in self._files_named(stem)]
            found = _registry(files, vault).resolve(name, source) if files else None
            if found is None or found.path is None:
                return None
            title, day = vault.describe(found.path)
            return Page(title, found.path, [], day)
        key = vault.flavor.page_key(name)
        names = vault.journal_names
        if names is not None and (day := names.day_of(name)):
            path = vault.journal_path(day)
            rel = path.relative_to(vault.root).as_posix()
            return Page(names.journal_title(day), rel, [], day) if path.is_file() else None
        try:
            stem = vault.flavor.file_name_of(name, vault.settings).lower()
        except BadPageName:
            stem = ""
        for rel in self._files_named(unicodedata.normalize("NFC", stem)):
            title, day = vault.describe(rel)
            if vault.flavor.page_key(title) == key:
                return Page(title, rel, [], day)
        builtin = {vault.flavor.page_key(n): n for n in vault.flavor.built_in_pages}
        return Page(builtin[key], None, origin="builtin") if key in builtin else None

    def _confirm(self, page: Page, name: str) -> Page | None:
        """The page as its own file describes it, if ``name`` really names it."""
        if page.path is None:
            return page  # a built-in page: it exists in every graph
        if page.path.endswith(".org"):
            return None
        try:
            outline = self.vault.read_page(page.path)
        except UnreadablePage:
            return None
        props = outline.page_properties
        title = self.vault.flavor.title_from_properties(props)
        if title and self.vault.flavor.page_key(title) != self.vault.flavor.page_key(name):
            return None  # title:: renamed it: the file name is not a page name
        return Page(title or page.title, page.path, [], page.date, tombstone_of(props), page.origin)


def file_stem(rel: str) -> str:
    """A page file's name without its extension, NFC and lower-cased: what a page name is
    matched against before its file is read."""
    return unicodedata.normalize("NFC", rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]).lower()


def _registry(pages: list[Page], vault: Vault) -> PageRegistry:
    """A registry of a few known pages, with the vault's resolution rules."""
    if vault.flavor.resolution == "logseq":
        from .logseq_pages import LogseqPages

        return LogseqPages(pages, vault.flavor, vault.journal_names)
    from .wiki_pages import WikiPages

    return WikiPages(pages, vault.flavor)
