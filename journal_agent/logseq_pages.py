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

import bisect
import datetime as dt
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import repeat
from operator import itemgetter

from .flavors import Flavor, boundless, logseq_key, namespace_parents, page_keys, parse_order
from .registry import Page, PageRegistry
from .titles import JournalNames

#: A mention's name as written (`facts.Mention`).
_NAME = itemgetter(0)

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from .facts import PageFacts
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
    order = parse_order(index.files)
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
    links = _alias_links(pages, declared, flavor)
    meta = {key_of(n) for f in index.files.values() for n in f.meta}
    title_parents = {n: _title_parents(f.title) for n, f in enumerate(files) if "/" in f.title}
    parents = {key_of(p) for names in title_parents.values() for p in names}
    for name in _spellings(files, title_parents):
        key = key_of(name)
        if key not in pages and key:
            title, day = title_of(name)
            origin: PageOrigin = "meta" if key in meta and key not in parents else "reference"
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


def _spellings(files: list[PageFacts], parents: dict[int, list[str]]) -> list[str]:
    """Each name the files (in `parse_order`; ``parents``: by position, the namespace parents
    of their titles) make a page of, once, in the order first named, in the spelling that
    titles the page where none of them is its file. Logseq titles such a page as the first file
    it parses that names it spells it last: the namespace parents of the file's title first
    (``A/B/C``: ``A``, ``A/B``), then its blocks' references in order (each block's as
    `Flavor.with_namespaces` lists them). Names are keyed all at once; a file is read again
    only where it first names a page in two spellings."""
    named: dict[str, None] = {}
    ends: list[int] = []  # per file that names any: how many names were named by its end
    naming = [n for n, f in enumerate(files) if f.mentions or n in parents]
    for n in naming:
        if n in parents:
            named.update(zip(parents[n], repeat(None)))
        named.update(zip(map(_NAME, files[n].mentions), repeat(None)))
        ends.append(len(named))
    names = list(named)
    keys = page_keys(names, logseq_key)
    counts = Counter(keys)
    if len(counts) == len(keys):
        return names
    spelled: dict[str, list[int]] = {}  # a key first named in two spellings -> where each was
    for at, key in enumerate(keys):
        if counts[key] > 1:
            spelled.setdefault(key, []).append(at)
    first = dict.fromkeys(keys, "")  # each key's first spelling, where it was first named:
    first.update(zip(reversed(keys), reversed(names), strict=True))
    for key, where in spelled.items():
        n = bisect.bisect_right(ends, where[0])  # the file that names the page first
        here = [names[at] for at in where if at < ends[n]]  # its spellings there
        if len(here) > 1:  # a namespace parent of its title, or spelled two ways by its blocks
            top = parents.get(naming[n], ())
            last = [s for s in files[naming[n]].spelled if s in here]
            first[key] = (last or [s for s in here if s not in top])[0]
    return list(first.values())


def _title_parents(title: str) -> list[str]:
    """The namespace parents of a file's title, as their pages are named."""
    return [boundless(n) for n in namespace_parents(title)]
