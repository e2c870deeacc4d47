"""Logseq's pages: the page entities its database holds for a file graph, and their aliases.

Why: Logseq's Linked References are computed over these entities, so the registry must hold the
same ones (checked page by page against Logseq's own graph parser, logseq/og 0.10.15, in
tests/test_logseq_graph_oracle.py):

* a page per file, named by ``title::`` (or YAML ``title:``, org ``#+TITLE:``), else by its file
  name; a name that reads as a date is that day's journal page (`titles`). Where several files
  name one page, the last Logseq parses owns it (journals first, newest first, then the other
  files by path: ``graph_parser.cljs`` ``filter-files``);
* a page per name a block refers to (``extract.cljc`` ``with-ref-pages``), namespace parents,
  property keys, task markers and priorities included (`facts`);
* the namespace parents of every file's page (``A/B/C`` makes ``A`` and ``A/B``);
* a page per alias (``extract-page-alias-and-tags``): a page declaring ``alias:: A, B`` is
  linked to A and B, and each alias to the page and the other aliases;
* the built-in pages (``deps/db/src/logseq/db/default.cljs``).

A page's Linked References are the blocks that refer to a page of its *alias set* (the page, the
pages it is linked to as alias in either direction, and those one alias further: the ``:alias``
rules of ``deps/db/src/logseq/db/rules.cljc``), not on the page itself. Opening a page that has
no blocks of its own (an alias without a file) shows the page that declares it
(``get-redirect-page-name``): that is what `LogseqPages.resolve` returns.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Callable, Iterable

from .flavors import Flavor, boundless, namespace_parents, page_keys
from .registry import Page, PageRegistry
from .titles import JournalNames

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from .index import Index
    from .registry import PageOrigin


class LogseqPages(PageRegistry):
    """The page entities of a Logseq graph (see the module docstring)."""

    def __init__(
        self,
        pages: Iterable[Page],
        flavor: Flavor,
        names: JournalNames | None,
        links: dict[str, set[str]] | None = None,
        source: str | None = None,
    ) -> None:
        super().__init__(pages, flavor, source)
        self.journal_names = names
        self._memo: dict[str, str] = {}
        self.by_key = dict(zip(self._keys, self.pages, strict=True))
        self.links = links or {}  # page key -> the keys of its ``:block/alias``
        self._back: dict[str, set[str]] = {}  # page key -> the pages linked to it
        for page, linked in self.links.items():
            for other in linked:
                self._back.setdefault(other, set()).add(page)
        self._groups = _alias_targets(self.links, self._back)
        self._redirects = {k: p for k in self.links if (p := self._redirect(k)) is not None}

    def entity_key(self, name: str) -> str:
        """The ``:block/name`` a reference to ``name`` lands on: the day's journal title where
        the name reads as a date (``[[2026-10-29]]`` is ``Oct 29th, 2026``)."""
        found = self._memo.get(name)
        if found is None:
            names = self.journal_names
            day = names.day_of(name) if names else None
            found = self.key(names.journal_title(day) if day and names else name)
            self._memo[name] = found
        return found

    def query_key(self, name: str) -> str:
        return self.entity_key(name)

    def entity(self, name: str) -> Page | None:
        """The page entity named ``name`` (an alias's own entity, not the page it shows)."""
        return self.by_key.get(self.entity_key(name))

    def resolve(self, name: str, source: str | None = None) -> Page | None:
        key = self.entity_key(name)
        return self._redirects.get(key) or self.by_key.get(key)

    def targets(self, name: str, source: str) -> tuple[str, ...]:
        key = self.entity_key(name)
        if key not in self.by_key:
            return ()
        return self._groups.get(key) or (key,)

    def alias_owner(self, name: str) -> Page | None:
        return self._redirects.get(self.entity_key(name))

    def _redirect(self, key: str) -> Page | None:
        """The page shown for an alias entity without a file: the first, by name, of the pages
        with a file that declare it (else that are linked to it)."""
        page = self.by_key.get(key)
        if page is None or page.path is not None:
            return None
        sources = [self.by_key[k] for k in self._back.get(key, ()) if k in self.by_key]
        sources = [p for p in sources if p.path is not None]
        declared = [p for p in sources if any(self.key(a) == key for a in p.aliases)]
        found = sorted(declared or sources, key=lambda p: self.key(p.title))
        return found[0] if found else None


def _alias_targets(
    links: dict[str, set[str]], back: dict[str, set[str]]
) -> dict[str, tuple[str, ...]]:
    """For each page linked by aliases, the pages whose alias set holds it (a reference to it
    counts in their Linked References): the four ``:alias`` rules, inverted."""
    found: dict[str, set[str]] = {}
    for page in set(links) | set(back):
        mine = links.get(page, set())
        group = {page} | mine | back.get(page, set())
        for x in back.get(page, set()):  # [?e1 :block/alias ?x] [?x :block/alias ?page]
            group |= back.get(x, set())
        for x in mine:  # [?page :block/alias ?x] [?x :block/alias ?e3]
            group |= links.get(x, set())
        for member in group:
            found.setdefault(member, set()).add(page)
    return {k: tuple(sorted(v)) for k, v in found.items()}


def build_logseq_pages(index: Index) -> LogseqPages:
    """The page entities of an indexed Logseq graph."""
    vault = index.vault
    flavor = vault.flavor
    empty = LogseqPages([], flavor, vault.journal_names)
    key_of, title_of = empty.entity_key, _title_maker(empty)
    pages: dict[str, Page] = {}
    declared: list[tuple[str, list[str]]] = []
    order = _parse_order(index.files)
    files = [index.files[rel] for rel in order]
    # A page's title reads as a date only if it is a journal page (`Vault.describe`): the
    # others' entity keys are their plain keys, made all at once (one at a time: a fifth of
    # the registry at 100,000 pages).
    plain = page_keys([f.title for f in files], flavor.page_key)
    memo = empty._memo  # `entity_key`'s: the graph and the suggestions look titles up again
    for rel, f, key in zip(order, files, plain, strict=True):
        if f.date is None:
            memo[f.title] = key
        else:
            key = key_of(f.title)
        pages[key] = Page(f.title, rel, list(f.aliases), f.date, f.superseded_by)
        if f.aliases:
            declared.append((key, list(f.aliases)))
    for page in [p for p in pages.values() if "/" in p.title]:  # most have no namespace
        for parent in map(boundless, namespace_parents(page.title)):  # A/B/C: A, A/B
            title, day = title_of(parent)
            pages.setdefault(key_of(parent), Page(title, None, date=day, origin="reference"))
    links = _alias_links(pages, declared, flavor)
    meta = {key_of(n) for f in index.files.values() for n in f.meta}
    named = dict.fromkeys(m[0] for f in index.files.values() for m in f.mentions)
    for name in named:  # in the order first referenced
        key = key_of(name)
        if key not in pages and key:
            title, day = title_of(name)
            origin: PageOrigin = "meta" if key in meta else "reference"
            pages[key] = Page(title, None, date=day, origin=origin)
    for name in flavor.built_in_pages:  # spelled as built in, however a reference spells it
        key = key_of(name)
        page = pages.setdefault(key, Page(name, None, origin="builtin"))
        page.origin = "builtin"
        if page.path is None:
            page.title = name
    registry = LogseqPages(pages.values(), flavor, vault.journal_names, links)
    registry._memo = empty._memo  # each name read once: the graph resolves the same names
    return registry


def _alias_links(
    pages: dict[str, Page], declared: list[tuple[str, list[str]]], flavor: Flavor
) -> dict[str, set[str]]:
    """The ``:block/alias`` links of the pages that declare aliases (each alias gets a page
    entity of its own, added to ``pages``)."""
    links: dict[str, set[str]] = {}
    for key, aliases in declared:
        alias_keys = [flavor.page_key(a) for a in aliases]
        links.setdefault(key, set()).update(alias_keys)
        for alias, alias_key in zip(aliases, alias_keys, strict=True):
            links.setdefault(alias_key, set()).update({key, *alias_keys} - {alias_key})
            page = pages.setdefault(alias_key, Page(alias, None, origin="alias"))
            if page.path is None:
                page.origin = "alias"  # a namespace parent too: it shows the declaring page
    return links


def logseq_pages_of(
    listed: Iterable[Page], flavor: Flavor, names: JournalNames | None = None
) -> LogseqPages:
    """A registry of these pages with Logseq's rules, their aliases linked as the graph
    parser links them (for a few known pages: tests, the guard's quick lookup)."""
    pages = {flavor.page_key(p.title): p for p in listed}
    declared = [(k, list(p.aliases)) for k, p in pages.items() if p.aliases]
    links = _alias_links(pages, declared, flavor)
    return LogseqPages(pages.values(), flavor, names, links)


def _title_maker(pages: LogseqPages) -> Callable[[str], tuple[str, dt.date | None]]:
    """The title and day of a page that exists by reference: the name (already without its
    boundary slashes: `Flavor.with_namespaces`), or the journal title of the day it names."""

    def title_of(name: str) -> tuple[str, dt.date | None]:
        names = pages.journal_names
        day = names.day_of(name) if names else None
        if day and names:
            return names.journal_title(day), day
        return unicodedata.normalize("NFC", name), None

    return title_of


def _parse_order(files: Iterable[str]) -> list[str]:
    """The files in the order Logseq parses them (``filter-files``): journals (any path with
    ``journals/``) newest first, then ``contents.`` files, then the others by path; where two
    name one page, the last one's file is the page's."""
    ordered = sorted(files)
    journals = [rel for rel in ordered if "journals/" in rel]
    others = [rel for rel in ordered if "journals/" not in rel]
    first = [rel for rel in others if "contents." in rel]
    return journals[::-1] + first + [rel for rel in others if "contents." not in rel]
