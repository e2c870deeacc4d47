"""Topics in and out of the status summary as pages come and go and names appear: the part of
a patch (`summary_patch`) that moves topic positions.

A rebuilt summary's topics are in the registry's order of pages (by title key, then path). A
page that comes and that nothing names yet is a new topic (`add_page`), and so is, in Logseq, a
name no file used before (a topic without a file, `new_names`): it goes after the others, so that
no position moves (the summary's query tables and the side file hold positions, and moving
every one after an insert cost a fifth of a second at 100,000 pages). Every answer sorts what
it lists, by date and title, so the order of positions shows only where two topics share a
title, and a patch adds no topic whose title another has (`named`, `new_names`: a rebuild
does). A page that goes and that nothing named is taken out (`drop_pages`): every position
after it moves down by one in the summary, its query tables and the side file (`_renumber`).
Whether a name could land on such a page is `named`; where a changed file's mentions land is
`landing`, one lookup per name once `new_names` has learnt every new one into the side file's
targets.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable
from itertools import compress
from operator import not_

from .facts import PageFacts
from .flavors import page_keys, parse_order, parsed_first
from .packed import fold
from .sidecar import Dropped, Sidecar, Targets, head, meta_keys
from .summary import Summary
from .vault import Vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from .queries import Graph, Topic


def new_names(
    vault: Vault,
    side: Sidecar,
    summary: Summary,
    read: dict[str, PageFacts | None],
    exclude: frozenset[str],
) -> Summary | None:
    """``summary`` (and ``side``) ready for the names the changed files use that were not seen
    from their folder when it was built: each one's landing added to the side file's
    ``targets``. A topic's own title lands on it (`_by_title`). In Logseq another name makes a
    page: one that no page, alias or date takes is a new topic without a file, titled by its
    first spelling in the first changed file Logseq parses that uses it (`landing` sees that
    the file spells it no other way). In Obsidian and plain Markdown a name whose file name no
    topic has lands on no topic. None when a name may land anywhere else (a namespace, an
    alias, an encoded or relative link to a topic): the caller rebuilds."""
    logseq = vault.flavor.resolution == "logseq"
    key, titles = vault.flavor.page_key, None
    stems: set[str] | None = None
    new: dict[str, list[str]] = {}  # key -> its spellings, the first one first
    titled: dict[str, str] = {}  # key -> the first file that uses it
    for rel in parse_order(read):
        facts = read[rel]
        if facts is None:
            return None
        folder = rel.rpartition("/")[0] if side.by_folder else ""
        for target, *_ in facts.mentions:
            if side.targets.get(folder, target) is not None:
                continue
            titles = titles or _Titles(vault, summary)
            found = _by_title(vault, target, titles, side, summary)
            if found is not None:
                side.targets.set(folder, target, found)
                continue
            k = key(target)
            if not logseq:
                if stems is None:
                    stems = {
                        key(p.rpartition("/")[2].rpartition(".")[0]) for p in summary.paths if p
                    }
                last = _file_names(k.rpartition("/")[2], key)
                if "%" in k or not all(last) or not stems.isdisjoint(last):
                    return None  # ``[[/Note/]]`` is a link to Note too
                side.targets.set(folder, target, ())
            elif vault.journal_names and (day := vault.journal_names.day_of(target)):
                if key(vault.journal_names.journal_title(day)) in side.aliases:
                    return None  # the day's journal page has aliases: it lands on them
                side.targets.set("", target, ())  # the day's journal: no topic
            else:
                taken = titles.get(k) is not None or k in side.aliases or k in exclude
                if not k or taken or "/" in target:
                    return None
                if not _titles_read_as_days(vault):
                    return None  # a journal page's title may be a name that reads as no day
                if target != unicodedata.normalize("NFC", target):
                    return None  # titled otherwise than spelled
                new.setdefault(k, [])
                if target not in new[k]:
                    new[k].append(target)
                titled.setdefault(k, rel)
    if not new:
        return summary
    from .registry import query_keys

    query_key = query_keys(vault)
    for k, spellings in sorted(new.items()):
        summary, p = _with_topic(vault, summary, None, (spellings[0],), query_key)
        for spelling in spellings:
            side.targets.set("", spelling, (p,))
        side.titled[p] = titled[k]
    return summary


def _file_names(last: str, key: Callable[[str], str]) -> set[str]:
    """The keys of the file names a wiki link's last part may stand for: as written, and
    without each ``.md`` at its end (``Plan.md.md`` may be the note ``Plan.md``), spaces at its
    ends dropped (`wiki_key`: `` Edge`` is the note `` Edge.md``)."""
    names = {key(last)}
    while last.lower().endswith(".md"):
        last = last[:-3]
        names.add(key(last))
    return names


def refuse_unknown(vault: Vault, summary: Summary, name: str) -> None:
    """Raise the graph's refusal of a topic name that no page of the vault has, with the names
    closest to it, where the summary and its side file tell so for certain: a Logseq name that
    reads as no day and is no topic's title, no alias, no excluded page, and no name a file uses
    as written (`new_names` takes such a name for a new page); else return, and the graph
    answers. Loading the graph to refuse a typo took 2 s at 100,000 pages."""
    from .errors import not_a_page
    from .registry import closest
    from .sidecar import load_side
    from .summary_store import summary_path

    days = vault.journal_names
    if vault.flavor.resolution != "logseq" or "/" in name or (days and days.day_of(name)):
        return
    key = vault.flavor.page_key(name)
    if not key or key in vault.excluded or not _titles_read_as_days(vault):
        return
    side = load_side(summary_path(vault))
    if side is None or side.stamp != summary.stamp or key in side.aliases:
        return
    if side.targets.get("", name) is None and _Titles(vault, summary).get(key) is None:
        raise not_a_page(name, closest(name, suggestible(summary)))


def suggestible(summary: Summary) -> set[str]:
    """`PageRegistry.suggestible` of the graph the summary was made of: the titles of the
    topics listed by default and the other names it keeps (`Summary.suggested`). A patch that
    changes what a rebuild would offer otherwise than by a topic that comes or goes (an alias,
    a title another page shares) is no patch: the summary is rebuilt."""
    titles = set(compress(summary.titles, map(not_, summary.extra)))
    return {*titles.difference(summary.withheld), *summary.suggested}


def name_tables(
    graph: Graph, listed: list[Topic]
) -> tuple[dict[str, int], dict[str, int], list[str], list[str]]:
    """The name tables of a summary built from ``graph``: each listed topic's title, aliases
    and path, by query key, -> what `Graph.page_named` makes of it (which depends on nothing
    else of the name); the same by those names; and the names the graph offers for one it does
    not know (`PageRegistry.suggestible`) other than the titles of the topics listed by default
    (aliases, excluded pages: `refuse_unknown` offers those titles and these); and those titles
    it does not offer (in Obsidian and Markdown, a note's that a journal page shares)."""
    from .errors import AmbiguousPage

    registry = graph.registry
    where = {registry.identity(t.page): i for i, t in enumerate(listed)}
    names: dict[str, int] = {}
    keys: dict[str, str] = {}
    for topic in listed:
        page = topic.page
        for name in (page.title, *page.aliases, *((page.path,) if page.path else ())):
            key = keys[name] = registry.query_key(name)
            if key in names:
                continue
            try:
                found = graph.page_named(name)
            except AmbiguousPage:
                found = None
            names[key] = where.get(registry.identity(found), -1) if found else -1
    spelled = {name: names[key] for name, key in keys.items() if names[key] >= 0}
    titled = {t.page.title for t in listed if t.page.listed()}
    offered = registry.suggestible()
    suggested = [n for n in offered if n not in titled]
    withheld = sorted(titled.difference(offered))
    certain = {key: i for key, i in names.items() if i >= 0}  # the rest: the graph's to say
    return certain, spelled, suggested, withheld


def _titles_read_as_days(vault: Vault) -> bool:
    """Whether every journal page's title reads back as its day (then a name that reads as no
    day is no journal page's; a title format that loses the day, e.g. without the year, does
    not)."""
    names = vault.journal_names
    days = (dt.date(2026, 1, 5), dt.date(2027, 12, 31))
    return names is None or all(names.day_of(names.journal_title(d)) == d for d in days)


def named(vault: Vault, side: Sidecar, old: Summary, pages: list[tuple[str, str]]) -> bool:
    """Whether a name the vault uses could land on one of these pages (path, title) that came
    or went, or a topic or a query name it by title: then which pages exist, or where a name
    lands, may change with it.

    Any spelling that contains the page's title or file name, case- and normalisation-
    insensitively, counts (a superset of Obsidian's resolution by name and path suffix, and of
    Markdown links, encoded or not). In Logseq every name a file uses is a page, so topics
    (and aliases) are compared; a name that reads as a date lands on the day's journal page
    whether its file exists or not, and journal pages are never topics."""
    keys = {fold(name).strip() for rel, title in pages
            for name in (title, rel.rpartition("/")[2].rpartition(".")[0])}  # fmt: skip
    keys.update(vault.flavor.page_key(title) for _rel, title in pages)
    if not all(keys) or any("/" in title for _rel, title in pages):
        return True  # a namespace: its parents are pages too
    if any("\x00" in key for key in keys):
        return True  # it could span two names, which `Summary.folded` joins as it pleases
    texts = [*old.folded(), fold("\x00".join(side.aliases))]
    if vault.flavor.resolution != "logseq":
        from urllib.parse import unquote  # lazy: 4 ms of a Logseq page's patch, which needs none

        landings = side.targets.whole().values()
        written = fold("\x00".join(name for memo in landings for name in memo))
        texts += [written, unquote(written)]
    return any(key in text for key in keys for text in texts)


def add_page(
    vault: Vault,
    rel: str,
    n: int,
    side: Sidecar,
    summary: Summary,
    exclude: frozenset[str],
    read: dict[str, PageFacts | None],
) -> Summary | None:
    """``summary`` with the ordinary page that came at ``n`` in ``side.rels`` as a new topic,
    its mentions counted in ``side``; None unless it is a page no name, topic or query lands on
    yet (`named`), no built-in page, with no alias, no namespace and no new property key,
    naming only topics the summary resolved."""
    facts = read.get(rel)
    if facts is None:
        return None
    key = vault.flavor.page_key
    if facts.date is not None or facts.aliases or not meta_keys(facts, vault.flavor) <= side.meta:
        return None
    if facts.title != facts.title.strip() or _journal_named(vault, facts.title):
        return None  # as `_by_title`: a name the graph may resolve otherwise
    if _built_in(vault, facts.title):
        return None  # a built-in page (Logseq's ``Contents``) is no ordinary topic
    if vault.flavor.resolution != "logseq" and _keyed_otherwise(vault, rel, facts.title):
        return None
    if key(facts.title) in exclude or named(vault, side, summary, [(rel, facts.title)]):
        return None
    per_topic = landing(side, summary, rel, facts)
    if per_topic is None:
        return None
    from .registry import query_keys

    spellings = (facts.title,) if vault.flavor.resolution == "logseq" else (facts.title, rel)
    summary, p = _with_topic(vault, summary, rel, spellings, query_keys(vault))
    pairs = array("i")
    for i, at in sorted(per_topic.items()):
        pairs.extend((i, len(at)))
    side.set_head(n, head(facts))
    side.own[n] = p
    side.set_pairs(n, pairs)
    return summary


def _keyed_otherwise(vault: Vault, rel: str, title: str) -> bool:
    """Whether a new note's names may key otherwise in the graph than in the summary: a title
    that ends in ``.md`` (a query drops it: ``[[Plan.md]]`` is Plan), a path of another
    extension, a path that lower-cases otherwise with its extension on (a final sigma:
    ``ΟΔΟΣ.md`` keys as ``οδοσ.md``)."""
    stem = rel.rpartition(".")[0]
    key = vault.flavor.page_key
    ends_in_md = title.lower().endswith((".md", ".markdown"))
    if ends_in_md or not rel.lower().endswith(".md"):  # a ``.markdown`` path is no name of it
        return True
    return key(rel) != key(stem) + rel[len(stem) :].lower()


def _built_in(vault: Vault, title: str) -> bool:
    """Whether ``title`` names one of the flavor's built-in pages (Logseq's), which exist
    with a file or without one."""
    key = vault.flavor.page_key
    return key(title) in {key(n) for n in vault.flavor.built_in_pages}


def _with_topic(
    vault: Vault,
    summary: Summary,
    rel: str | None,
    spellings: tuple[str, ...],
    query_key: Callable[[str], str],
) -> tuple[Summary, int]:
    """``summary`` with a topic for the page at ``rel`` (None: a page without a file; nothing
    mentions it yet) after every other, and its position. ``spellings``: its title, then the
    other names a query finds it by."""
    new = copied(summary)
    keys = list(dict.fromkeys(map(query_key, spellings)))
    position = new.append_topic(spellings[0], rel, keys, list(spellings), vault.flavor.page_key)
    return new, position


def copied(summary: Summary) -> Summary:
    """A shallow copy of ``summary``, as ``copy.copy`` makes it, without importing `copy` (and
    `weakref`): a patch runs on the warm path's heels, where every import shows."""
    new = Summary.__new__(Summary)
    for name in Summary.__slots__:
        if hasattr(summary, name):
            setattr(new, name, getattr(summary, name))
    return new


def drop_pages(
    vault: Vault,
    side: Sidecar,
    summary: Summary,
    pages: list[Dropped],
    read: dict[str, PageFacts | None],
) -> Summary | None:
    """``summary`` without the topics of the ordinary pages that went (``side`` already without
    their files and their mentions); None unless nothing named them, not even a file this patch
    ``read`` (else they live on without a file), no other file makes the same page, they had
    no alias, tombstone, property key or namespace, were no built-in page, titled no page
    without a file, and no other topic or alias shares a name of theirs (a query would
    change)."""
    from .registry import query_keys

    key, titles, new = vault.flavor.page_key, summary.titles, copied(summary)
    undated = {i for page in pages for i, _n in page.pairs}  # named by an undated mention
    undated.update(side.pairs[0::2])
    written = fold("\x00".join(m[0] for f in read.values() if f for m in f.mentions))
    aliases = side.aliases
    folded = fold("\x00".join(aliases)) if vault.flavor.resolution != "logseq" else ""
    query_key = query_keys(vault)
    for page in pages:
        p, title = page.topic, titles[page.topic]
        if summary.paths[p] != page.rel or summary.starts[p] != summary.starts[p + 1]:
            return None
        bare = head(PageFacts(title, None, (), None, (), (), ()))
        if p in undated or page.head != bare or "/" in title or p in side.own:
            return None  # named, or a file that makes the same page stays
        if _built_in(vault, title):
            return None  # it stays, without a file
        stem = page.rel.rpartition(".")[0]  # its path is a name of it too
        if page.rel in side.titled.values() or {key(n) for n in (title, stem, page.rel)} & aliases:
            return None
        names = {fold(k(n)) for n in (title, stem) for k in (key, query_key)}
        others = fold("\x00".join(titles[:p] + titles[p + 1 :]))
        if any(n in others or n in written or n in folded for n in names):
            return None
    new.titles, new.paths = list(titles), list(summary.paths)
    new.extra, new.starts = array("b", summary.extra), array("i", summary.starts)
    for p in sorted((page.topic for page in pages), reverse=True):  # lower positions hold
        del new.titles[p], new.paths[p], new.extra[p], new.starts[p]
        _renumber(new, side, p)
    return new


def _renumber(summary: Summary, side: Sidecar, p: int) -> None:
    """Every topic position in the summary's query tables and in ``side`` moved for the topic
    at ``p`` taken out (its own becomes -1, "no topic", and leaves the tables). Arithmetic in
    the loops, no call per position: they run over every name of the vault."""
    summary.names = {k: i - (i > p) for k, i in summary.names.items() if i != p}
    summary.spelled = {k: i - (i > p) for k, i in summary.spelled.items() if i != p}
    side.own = array("i", (-1 if i == p else i - (i > p) for i in side.own))
    side.pairs[0::2] = array("i", (-1 if i == p else i - (i > p) for i in side.pairs[0::2]))
    side.targets = Targets(
        {
            folder: {name: tuple(i - (i > p) for i in found if i != p) for name, found in m.items()}
            for folder, m in side.targets.whole().items()
        }
    )
    side.titled = {i - (i > p): by for i, by in side.titled.items() if i != p}


def landing(
    side: Sidecar, summary: Summary, rel: str, facts: PageFacts
) -> dict[int, dict[int, tuple[bool, str]]] | None:
    """Where the mentions of the changed file ``rel`` land: per topic position, per line (one
    per block), whether it is a resolution and its text. None when the file would retitle a
    page without a file (`_titles_hold`)."""
    folder = rel.rpartition("/")[0] if side.by_folder else ""
    per_topic: dict[int, dict[int, tuple[bool, str]]] = {}
    spelled: dict[int, set[str]] = {}  # each page without a file it names: its spellings here
    for target, line, resolution, text in facts.mentions:
        positions = side.targets.get(folder, target)  # every name is known here (`new_names`)
        if positions is None:
            return None
        for i in positions:
            per_topic.setdefault(i, {}).setdefault(line, (resolution, text))
            if i in side.titled:
                spelled.setdefault(i, set()).add(target)
    return per_topic if _titles_hold(side, summary, rel, spelled) else None


def _titles_hold(side: Sidecar, summary: Summary, rel: str, spelled: dict[int, set[str]]) -> bool:
    """Whether the pages without a file that the changed file ``rel`` names (``spelled``: how
    it spells each) keep their titles. Such a page is titled by a spelling in the first file,
    in Logseq's parse order, that names it (`logseq_pages._spellings`; `side.titled`, updated
    here): a file parsed after that one may spell it any way; that file or one before it must
    spell it so throughout."""
    for i, names in spelled.items():
        by = side.titled[i]
        if by and by != rel and parsed_first((by, rel)) == by:
            continue
        if names != {summary.title(i)}:
            return False
        side.titled[i] = rel
    return True


class _Titles:
    """Where each topic title's key stands: `get`. Searched in the keys of every title joined
    by NULs (`Summary.title_keys`, kept beside the titles): a patch looks up a few names, and a
    dict of every key cost 30 ms at 100,000 topics."""

    def __init__(self, vault: Vault, old: Summary) -> None:
        key = vault.flavor.page_key
        keys = old.title_keys(key)
        self._joined = f"\x00{keys}\x00" if keys is not None else None
        self._keys: dict[str, int] = {}
        if keys is None:  # titles that are a list already, or a title holding a NUL
            listed = page_keys(old.titles, key)
            self._keys = dict(zip(listed, range(len(listed)), strict=True))
            if len(self._keys) < len(listed):
                self._keys.update((k, -1) for k, n in Counter(listed).items() if n > 1)

    def get(self, key: str) -> int | None:
        """The position of the topic whose title has this key, -1 if several have it, None if
        none has."""
        joined = self._joined
        if joined is None:
            return self._keys.get(key)
        if "\x00" in key:
            return None  # no title holds a NUL here
        needle = f"\x00{key}\x00"
        at = joined.find(needle)
        if at < 0:
            return None
        return -1 if joined.find(needle, at + 1) >= 0 else joined.count("\x00", 0, at)


def _by_title(
    vault: Vault, name: str, titles: _Titles, side: Sidecar, summary: Summary
) -> tuple[int, ...] | None:
    """The topic a name not seen when the summary was built lands on, when that is certain: it
    is one topic's own title, of no page with aliases (nor one), and names no namespace or path;
    neither it nor the title starts or ends with a space, and in Obsidian and plain Markdown no
    journal page may share the name."""
    if "/" in name or name.lower().endswith((".md", ".markdown")) or name != name.strip():
        return None
    key = vault.flavor.page_key(name)
    i = titles.get(key)
    if i is None or i < 0 or key in side.aliases or _journal_named(vault, name):
        return None
    title = summary.title(i)
    return (i,) if title == title.strip() else None


def _journal_named(vault: Vault, name: str) -> bool:
    """Whether, in Obsidian or plain Markdown, a journal page may be called ``name``: a note
    of that name shares it with the day's journal page (no topic), and the link resolves as
    the graph says, not as the summary guesses."""
    if vault.flavor.resolution == "logseq":
        return False  # there a name that reads as a date is the day's journal page's
    folder = vault.settings.journal_dir
    return vault.date_of(f"{folder}/{name}.md" if folder else f"{name}.md") is not None
