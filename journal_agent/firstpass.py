"""The journal-first pass: `stale` and the session-start projection of the whole vault where
the status summary would have to be rebuilt (no cache yet, or changes no patch covers), from the
journal pages and the heads of the other pages, not from every page body.

Why: the first query on a vault used to scan every page in full (about 6 s on a 20,000-page
vault), though the stale list and the projection need only the topics that have a dated
mention (journal pages) and how every name resolves (the page heads). Scanning a page costs ten
times reading it, and ordinary pages are nine tenths of a vault; so this pass reads every file
but scans only the journal pages, and of the other pages their head (the page properties before
the first block: title, aliases, tombstone, whether the page is a journal by its title, the
pages its keys make), most often plain ``key:: value`` lines read without the scanner; a file
the cached index holds unchanged is not read at all. The full index and summary are built after
the answer (`rebuild.warm_up`, in a background process), and every later query uses them.

The answer is exactly the full graph's (tests/test_firstpass.py compares them). What an ordinary
page's body could still change, and how it is kept exact, by scanning such a page in full:

* a page whose head cannot be cut from its body (front matter, anything but ``key:: value``
  lines before the first block: a ``- `` inside an HTML block, a drawer or a fence is no block;
  an org page) or whose title reads as a date (its mentions are dated);
* Logseq makes a page of every property key (``key::``, and a drawer's ``:key:``), task marker
  and priority, and `stale` leaves those out: a body whose possible keys (a superset,
  `_meta_candidates`) name a page that only the scanned pages name is scanned;
* a page without a file is titled as the first file, in Logseq's parse order, that names it
  spells it (`logseq_pages._spellings`): a page parsed before a scanned journal page is
  scanned (a `status` of one that no journal names waits for the full summary: `api.status`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .builtins import BUILT_IN_PAGES, BUILT_IN_PROPERTIES, property_page, valid_property_key
from .errors import UnreadablePage
from .facts import PageFacts, page_facts, page_names
from .flavors import parse_order
from .index import Index
from .logseq_pages import LogseqPages
from .outline import TASK_MARKERS, decode
from .patterns import regex
from .properties import PROPERTY_LINE, property_key
from .scanner import _LOGSEQ_ITEM, _NEXT_LOGSEQ_ITEM
from .vault import PageFile, Vault
from .workers import each_file

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from .index import _Entry as Entry
    from .queries import Graph, Topic
    from .summary import Summary

_NONE: frozenset[str] = frozenset()
# A priority (`scanner._MARKER`).
_PRIORITY = regex(r"\[#([!-\\^-~])\]")
#: A property drawer's first line, in any case, and its ``:key: value`` lines
#: (`scanner._DRAWER_PROPERTY`; a superset: its ``:PROPERTIES:`` and ``:END:`` too).
_PROPERTY_DRAWER = regex(r"(?i):properties:")
_DRAWER_KEY = regex(r"(?m)^[ \t]*:([^\s:]+):")
#: The task markers that are no built-in page (those are never left out of `stale` for it).
_MARKERS = tuple(m for m in TASK_MARKERS if m not in BUILT_IN_PAGES)

#: A file's part in the pass: its full facts (and None), its head's facts and the names of the
#: pages its body may make (property keys, markers, priorities), or the warning that it cannot
#: be read.
Read = tuple[PageFacts, frozenset[str] | None] | str


def first_summary(
    vault: Vault,
    files: list[PageFile],
    warnings: list[str],
    exclude: frozenset[str],
    build: Callable[[], object],
    fresh: dict[str, PageFacts | None] | None = None,
) -> Summary:
    """The summary `stale`, `status` and the projection read, where the vault's would have to
    be rebuilt: of `first_graph` (with the cached facts of the files that did not change, and
    those ``fresh`` holds), `partial` (holding that graph), for this answer only; the full one
    is built meanwhile (`rebuild.warm_up`, ``build`` where no process can be started)."""
    from .index import _fingerprint, _read_cache, cache_path
    from .rebuild import warm_up
    from .summary import Summary

    known = _read_cache(cache_path(vault), _fingerprint(vault))
    graph = first_graph(vault, files, warnings, exclude, known, fresh)
    found = Summary.of(graph, "", names=False)
    found.partial = graph
    warm_up(vault, build)
    return found


def first_graph(
    vault: Vault,
    files: list[PageFile],
    warnings: list[str],
    exclude: frozenset[str],
    known: dict[str, Entry] | None = None,
    fresh: dict[str, PageFacts | None] | None = None,
) -> Graph:
    """The backlink graph of ``files`` in which every journal page has its full facts and
    every other page those of its head (no mentions), unless its body could change the stale
    list (see the module): then it has its full facts too. ``known``: the cached index's
    entries; a file whose stat they hold is not read (and its property keys are known).
    ``fresh``: full facts of files read moments ago (by a patch that could not be made): those
    of the journal folder's files, which this pass would read in full, are taken as they are."""
    from .index import RACY_NS, reusable, stored_facts
    from .queries import Graph
    from .registry import build_registry

    racy_after, known = time.time_ns() - RACY_NS, known or {}
    cached = {  # without their mentions: a journal page's are read below, few others' are
        f.rel: found
        for f in (files if known else ())  # none: the first query on a vault
        if (found := reusable(vault, f, known.get(f.rel), racy_after, False)) is not None
    }
    heads = list(cached)
    if fresh:  # read in full here too (`_head`), as a patch reads them
        cached.update(
            (rel, facts)
            for rel, facts in fresh.items()
            if facts is not None and _in_journal_folder(vault, rel) and rel not in cached
        )
    unread = [f for f in files if f.rel not in cached] if cached else files
    read = each_file(vault, unread, _read_one, scans=lambda f: _in_journal_folder(vault, f.rel))
    facts: dict[str, PageFacts] = {}
    bodies: dict[str, frozenset[str]] = {}  # head-only files -> the names their body may make
    for f in files:
        got = cached[f.rel] if f.rel in cached else read[f.rel]
        if isinstance(got, str):
            warnings.append(got)
        elif isinstance(got, PageFacts):
            facts[f.rel] = got
        else:
            facts[f.rel], names = got
            if names is not None:
                bodies[f.rel] = names
    again: list[str] = []  # head-only files to scan in full after all
    before: set[str] = set()  # in Logseq, pages parsed before a journal page may title a page
    if vault.flavor.resolution == "logseq":  # the journals name (`logseq_pages._spellings`)
        order = parse_order(facts)
        last = max((i for i, r in enumerate(order) if facts[r].date and r not in bodies), default=0)
        before = set(order[:last])
        again = [rel for rel in bodies if rel in before]
    for rel in heads:  # what a cached page says beside its head changes no stale thread,
        page = facts.get(rel)  # but a dated page's mentions do, and may a page's parsed before
        if page is not None and (page.date is not None or rel in before):
            full = stored_facts(known[rel])  # its mentions too
            if isinstance(full, PageFacts):
                facts[rel] = full
            else:  # mentions that do not read back (a corrupt cache): scanned
                again.append(rel)
    registry = build_registry(Index(vault, facts))
    if isinstance(registry, LogseqPages):
        only_named = {
            key for key, page in registry.by_key.items() if page.origin == "reference"
        }  # pages that a property key, marker or priority elsewhere would hide
        key = registry.entity_key
        hiding = {n for n in frozenset().union(*bodies.values()) if key(n) in only_named}
        if hiding:  # each name looked up once, not once per page that may make it
            again += [
                r for r, ns in bodies.items() if r not in before and not hiding.isdisjoint(ns)
            ]
    for rel in again:
        try:
            facts[rel] = _full(vault, rel)
        except UnreadablePage as exc:  # gone since it was read: as a full scan would say
            del facts[rel]
            warnings.append(f"{exc}; skipped")
    index = Index(vault, facts, warnings)
    return Graph(index, None if again else registry, exclude)


def titled_for_certain(topic: Topic) -> bool:
    """Whether the first pass's graph titles ``topic`` as the full one does (`status` answers
    from it only then): a page without a file is titled by the first file that names it, which
    that graph may not have read unless a journal page names it too."""
    return topic.page.path is not None or any(b.date is not None for b in topic.backlinks)


def _read_one(vault: Vault, file: PageFile) -> Read:
    """One file's part (in a worker process when there are many)."""
    try:
        data = vault.read_listed(file)
        text, bom = decode(data, file.rel)
        head = _head(vault, file.rel, text)
        if head is not None:
            end, props = head
            facts = head_facts(vault, file.rel, props)
            if facts.date is None:
                logseq = vault.flavor.syntax == "logseq"
                return facts, _meta_candidates(text[end:]) if logseq else _NONE
        return page_facts(vault, file.rel, vault.parse_page(file.rel, data)), None
    except UnreadablePage as exc:
        return f"{exc}; skipped"


def head_facts(vault: Vault, rel: str, props: dict[str, object]) -> PageFacts:
    """The facts of a page's head of page properties (`_head`): its title, aliases, tombstone,
    and the pages its property keys make (`PageFacts.meta`). Its ``key:: value`` lines are read
    here: the scanner, made for whole pages, took five times as long (a quarter of the pages of
    the benchmark vault have a head)."""
    if not props:  # no page properties: named by its file
        return PageFacts(*vault.describe(rel), (), None, (), (), ())
    meta = vault.flavor.meta_pages(props, None, None, vault.settings)
    return PageFacts(*page_names(vault, rel, props), (), (), (), tuple(dict.fromkeys(meta)))


def _head_properties(head: str) -> dict[str, object] | None:
    """The page properties of a head of ``key:: value`` lines, then blank lines only, as the
    scanner keeps them (`properties.record_property`: a key given again keeps its place and
    takes the later value); None for any other head (CRLF lines too)."""
    if "\r" in head:
        return None
    props: dict[str, object] = {}
    lines = head.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    for line in lines:
        found = PROPERTY_LINE.match(line)
        if found is None:
            return None
        key, value = found.group("key", "value")
        key = property_key(key)
        if valid_property_key(key):
            props[key] = value or ""
    return props


def _full(vault: Vault, rel: str) -> PageFacts:
    return page_facts(vault, rel, vault.read_page(rel, listed=True))


def _head(vault: Vault, rel: str, text: str) -> tuple[int, dict[str, object]] | None:
    """Where the page's head ends, and its page properties: the text before its first block
    (the page properties stand there and only there); None where it must be scanned whole (a
    journal folder's page, front matter, org-mode, anything but ``key:: value`` lines before
    the first block: the ``- `` taken for the first block may stand inside an HTML block, a
    drawer, a fence or a LaTeX environment that runs on to page properties after it)."""
    if text.startswith("---") or _in_journal_folder(vault, rel):
        return None
    if vault.flavor.syntax != "logseq":
        return 0, {}  # Obsidian and Markdown keep page properties in front matter only
    if vault.flavor.org_pages and rel.lower().endswith(".org"):
        return None
    if _LOGSEQ_ITEM.match(text):
        return 0, {}
    found = _NEXT_LOGSEQ_ITEM.search(text)
    end = len(text) if found is None else found.start()
    props = _head_properties(text[:end])
    return None if props is None else (end, props)


def _in_journal_folder(vault: Vault, rel: str) -> bool:
    folder = vault.settings.journal_dir
    return bool(folder) and rel.startswith(folder + "/")


def _meta_candidates(body: str) -> frozenset[str]:
    """Every name a Logseq body could make a page of by a property key, a task marker or a
    priority: more than it does (code, keys Logseq drops), never fewer."""
    names: set[str] = set()
    keys = {property_key(k) for k in property_keys(body)} if "::" in body else set()
    if _PROPERTY_DRAWER.search(body):  # a search in C: a few milliseconds a cold pass
        keys.update(property_key(k) for k in _DRAWER_KEY.findall(body))
    names.update(property_page(k) for k in keys if k not in BUILT_IN_PROPERTIES)
    if "[#" in body:
        names.update(_PRIORITY.findall(body))
    names.update(m for m in _MARKERS if m in body)
    return frozenset(names) if names else _NONE


def property_keys(text: str) -> list[str]:
    """Every ``key`` of a ``key::`` in ``text`` that stands at the start or after white space
    (`properties.PROPERTY_LINE`, less strict: as on a bullet's first line, ``- TODO key::``), and
    a few more (after any Unicode space). Found from each ``::`` backwards: a regular expression
    tried at every position of every page body took a fifth of the journal-first pass."""
    keys = []
    pieces = text.split("::")
    for i in range(len(pieces) - 1):
        piece = pieces[i]
        if not piece or piece[-1].isspace():
            continue
        words = piece.rsplit(None, 1)
        if i and len(words) == 1 and len(words[0]) == len(piece):
            continue  # right after the ``::`` before it, not after white space
        if ":" not in words[-1]:
            keys.append(words[-1])
    return keys
