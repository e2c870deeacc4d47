"""Refresh the status summary after a few pages changed, instead of rebuilding it.

A person writes in today's journal all day, so most session starts find the summary one edit
old, and rebuilding it (the whole index and backlink graph) costs several times a warm run on a
large vault. A journal page is never a topic: editing one only adds and removes *its own*
mentions, which sit in each topic's column as one run (same day, same file). So when every
changed file is a journal page that

* existed when the summary was built (one that came or went: below),
* names only pages the summary already resolved, or names no file used before that can land on
  no existing page (`_new_names`: in Logseq a new topic without a file), and
* carries no alias, title or tombstone, and keeps naming each topic without a file that it
  titles, in the same spelling (either could change which pages exist, or their titles),

the summary is patched: the file's old mentions are taken out of each topic's column and its new
ones put in, in `queries._order`. A journal page that came (the new day's page, most often) or
went is the same change, when no name the vault uses could land on it (`_named`) and, having
come, it uses only property keys that already are pages (``meta``).

An ordinary page's mentions are undated: they only count in each topic's ``undated``. When its
*head* is unchanged (`head`: its title, day, aliases, tombstone and meta names, so the page keeps
its names) and every name it references lands where the summary knows it lands, its old counts
are replaced by its new ones. A page without a file takes its title from its first spelling in
the first file that names it (listing order): the side file knows that file, so others may
spell it any way, and only that file (or one before it) must keep the spelling. A page that
came is a new topic when no name, topic or query lands on it yet (`_add_page`); one that went
is taken out when nothing named it (`_drop_pages`): a rename of such a page is both.

Anything else returns None and the caller rebuilds. What the patch needs beyond the summary
(each file's stat and head, where each name as written resolves, each ordinary page's undated
counts) is kept in a side file next to it (`sidecar`). Both are derived caches.
"""

from __future__ import annotations

import bisect
import copy
import datetime as dt
import functools
import unicodedata
from array import array
from collections.abc import Callable
from typing import Any

from .errors import UnreadablePage
from .facts import PageFacts, page_facts
from .sidecar import (
    HEAD,
    MAX_CHANGED,
    MAX_SHARE,
    Dropped,
    Sidecar,
    differing,
    file_stats,
    head,
    journal_head,
    load_side,
    meta_keys,
    relist,
    save_side,
)
from .summary import Summary, save
from .vault import PageFile, Vault


def refresh(
    vault: Vault,
    summary_path: str,
    old: Summary | None,
    files: list[PageFile],
    stamp: str,
    base: str,
    racy: dict[str, bytes],
    guard: dict[str, Any],
    exclude: frozenset[str] = frozenset(),
) -> Summary | None:
    """The cached summary (``old``, as read) patched for the pages changed since it was built,
    saved with ``stamp`` (and the warm path's ``guard``, `summary.current`); None when a patch
    cannot be exact (the caller rebuilds). ``exclude``: the keys of the pages that are no
    topics (the settings')."""
    side = load_side(summary_path)
    if side is None or side.base != base or old is None or old.stamp != side.stamp or old.warnings:
        return None
    rels = [f.rel for f in files]
    came: list[str] = []
    gone: list[str] = []
    dropped: list[Dropped] = []
    if rels != side.rels:
        relisted = relist(vault, side, rels)
        if relisted is None:
            return None
        came, gone, dropped = relisted
    now = file_stats(files)
    changed_at = differing(now, side.stats)
    changed = len(changed_at) + len(gone) + len(dropped)
    if not changed or changed > max(MAX_CHANGED, len(files) * MAX_SHARE):
        return None
    new_pages = {rel for rel in came if vault.date_of(rel) is None}
    dated = [n for n in changed_at if vault.date_of(files[n].rel) is not None]
    added = [n for n in changed_at if files[n].rel in new_pages]
    pages = [n for n in changed_at if n not in dated and files[n].rel not in new_pages]
    read = {files[n].rel: _facts(vault, files[n].rel) for n in changed_at}
    patched = _new_names(vault, side, old, read, exclude)  # names nobody used before
    if patched is None:
        return None
    if dropped and patched is not old:  # new topics moved the positions the side file knew
        where = {
            topic: i for i, topic in enumerate(zip(patched.titles, patched.paths, strict=True))
        }
        moved = [where[topic] for topic in zip(old.titles, old.paths, strict=True)]
        dropped = [
            d._replace(topic=moved[d.topic], pairs=[(moved[i], n) for i, n in d.pairs])
            for d in dropped
        ]
    if dated or gone:
        fresh = _fresh_mentions(
            vault, [files[n] for n in dated], dated, side, patched, set(came), read
        )
        if fresh is not None and (came or gone):
            days = [(rel, fresh[rel][1]) for rel in came if rel not in new_pages]
            days += [(rel, vault.describe(rel)[0]) for rel in gone]
            fresh = None if _named(vault, side, patched, days) else fresh
        if fresh is not None:
            fresh.update((rel, (vault.date_of(rel) or dt.date.min, "", {})) for rel in gone)
        patched = _patch(patched, fresh, side, stamp) if fresh is not None else None
    if pages and patched is not None:
        patched = _patch_pages(vault, [files[n] for n in pages], pages, side, patched, read)
    if dropped and patched is not None:
        patched = _drop_pages(vault, side, patched, dropped)
    for n in added:
        if patched is not None:
            patched = _add_page(vault, files[n].rel, n, side, patched, exclude, read)
    if patched is None:
        return None
    patched.stamp, patched.racy, patched.guard = stamp, racy, guard
    save(summary_path, patched)
    side.stamp, side.stats = stamp, now
    save_side(summary_path, side)
    return patched


def _facts(vault: Vault, rel: str) -> PageFacts | None:
    """The changed file's facts; None if it cannot be read (the caller rebuilds)."""
    try:
        return page_facts(vault, rel, vault.read_page(rel))
    except UnreadablePage:
        return None


def _new_names(
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
    first spelling in the first changed file (listing order) that uses it. In Obsidian and
    plain Markdown a name whose file name no topic has lands on no topic. None when a name may
    land anywhere else (a namespace, an alias, an encoded or relative link to a topic): the
    caller rebuilds."""
    logseq = vault.flavor.resolution == "logseq"
    key, titles = vault.flavor.page_key, dict[str, int]()
    stems: set[str] | None = None
    new: dict[str, list[str]] = {}  # key -> its spellings, the first one first
    titled: dict[str, str] = {}  # key -> the first file that uses it
    for rel in sorted(read):
        facts = read[rel]
        if facts is None:
            return None
        folder = rel.rpartition("/")[0] if side.by_folder else ""
        memo = side.targets.get(folder, {})
        for target, *_ in facts.mentions:
            if target in memo:
                continue
            titles = titles or _titles(vault, summary)
            found = _by_title(vault, target, titles, side)
            if found is not None:
                side.targets.setdefault(folder, {})[target] = found
                continue
            k = key(target)
            if not logseq:
                if stems is None:
                    stems = {
                        key(p.rpartition("/")[2].rpartition(".")[0]) for p in summary.paths if p
                    }
                last = k.removesuffix(".md").rpartition("/")[2]
                if "%" in k or last in stems:
                    return None
                side.targets.setdefault(folder, {})[target] = ()
            elif vault.journal_names and vault.journal_names.day_of(target):
                side.targets.setdefault("", {})[target] = ()  # the day's journal: no topic
            else:
                if not k or k in titles or k in side.aliases or k in exclude or "/" in target:
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
        p = _place(summary, key, (k, ""))
        summary = _with_topic(summary, side, p, None, (spellings[0],), query_key)
        side.targets.setdefault("", {}).update(dict.fromkeys(spellings, (p,)))
        side.titled[p] = titled[k]
    return summary


def _titles_read_as_days(vault: Vault) -> bool:
    """Whether every journal page's title reads back as its day (then a name that reads as no
    day is no journal page's; a title format that loses the day, e.g. without the year, does
    not)."""
    names = vault.journal_names
    days = (dt.date(2026, 1, 5), dt.date(2027, 12, 31))
    return names is None or all(names.day_of(names.journal_title(d)) == d for d in days)


def _named(vault: Vault, side: Sidecar, old: Summary, pages: list[tuple[str, str]]) -> bool:
    """Whether a name the vault uses could land on one of these pages (path, title) that came
    or went, or a topic or a query name it by title: then which pages exist, or where a name
    lands, may change with it.

    Any spelling that contains the page's title or file name, case- and normalisation-
    insensitively, counts (a superset of Obsidian's resolution by name and path suffix, and of
    Markdown links, encoded or not). In Logseq every name a file uses is a page, so topics
    (and aliases) are compared; a name that reads as a date lands on the day's journal page
    whether its file exists or not, and journal pages are never topics."""
    from urllib.parse import unquote

    fold = _fold
    keys = {fold(name).strip() for rel, title in pages
            for name in (title, rel.rpartition("/")[2].rpartition(".")[0])}  # fmt: skip
    keys.update(vault.flavor.page_key(title) for _rel, title in pages)
    if not all(keys) or any("/" in title for _rel, title in pages):
        return True  # a namespace: its parents are pages too
    texts = [fold("\x00".join(old.titles)), fold("\x00".join(old.names))]
    texts.append(fold("\x00".join(side.aliases)))
    if vault.flavor.resolution != "logseq":
        written = fold("\x00".join(name for memo in side.targets.values() for name in memo))
        texts += [written, unquote(written)]
    return any(key in text for key in keys for text in texts)


def _add_page(
    vault: Vault,
    rel: str,
    n: int,
    side: Sidecar,
    summary: Summary,
    exclude: frozenset[str],
    read: dict[str, PageFacts | None],
) -> Summary | None:
    """``summary`` with the ordinary page that came at ``n`` in ``side.rels`` as a new topic,
    and its mentions counted; None unless it is a page no name, topic or query lands on yet
    (`_named`), with no alias, no namespace and no new property key, naming only topics the
    summary resolved."""
    facts = read.get(rel)
    if facts is None:
        return None
    key = vault.flavor.page_key
    if facts.date is not None or facts.aliases or not meta_keys(facts, vault.flavor) <= side.meta:
        return None
    if key(facts.title) in exclude or _named(vault, side, summary, [(rel, facts.title)]):
        return None
    per_topic = _landing(side, summary, rel, facts)
    if per_topic is None:
        return None
    p = _place(summary, key, (key(facts.title), rel))
    from .registry import query_keys

    spellings = (facts.title,) if vault.flavor.resolution == "logseq" else (facts.title, rel)
    summary = _with_topic(summary, side, p, rel, spellings, query_keys(vault))
    undated = summary.undated
    pairs = array("i")
    for i, at in sorted((i + (i >= p), at) for i, at in per_topic.items()):
        undated[i] += len(at)
        pairs.extend((i, len(at)))
    side.heads = side.heads[: n * HEAD] + head(facts) + side.heads[(n + 1) * HEAD :]
    side.own[n] = p
    lo = side.spans[n]
    side.pairs[2 * lo : 2 * lo] = pairs
    side.spans[n + 1 :] = array("i", (s + len(pairs) // 2 for s in side.spans[n + 1 :]))
    return summary


def _place(summary: Summary, key: Callable[[str], str], order: tuple[str, str]) -> int:
    """Where a new topic goes: the registry's order of pages (by title key, then path) is the
    order of topics."""
    titles, paths = summary.titles, summary.paths
    return bisect.bisect_left(
        range(len(titles)), order, key=lambda i: (key(titles[i]), paths[i] or "")
    )


def _with_topic(
    summary: Summary,
    side: Sidecar,
    p: int,
    rel: str | None,
    spellings: tuple[str, ...],
    query_key: Callable[[str], str],
) -> Summary:
    """``summary`` with a topic for the page at ``rel`` (None: a page without a file; nothing
    mentions it yet) at position ``p``, and every position from ``p`` on, in it and in
    ``side``, one further. ``spellings``: its title, then the other names a query finds it by."""
    new = copy.copy(summary)
    new.titles, new.paths = list(summary.titles), list(summary.paths)
    new.titles.insert(p, spellings[0])
    new.paths.insert(p, rel)
    new.extra, new.undated = array("b", summary.extra), array("i", summary.undated)
    new.extra.insert(p, 0)
    new.undated.insert(p, 0)
    new.starts = array("i", summary.starts)
    new.starts.insert(p, summary.starts[p])
    _renumber(new, side, lambda i: i + (i >= p))
    new.names.update((query_key(name), p) for name in spellings)
    new.spelled.update(dict.fromkeys(spellings, p))
    return new


def _drop_pages(
    vault: Vault, side: Sidecar, summary: Summary, pages: list[Dropped]
) -> Summary | None:
    """``summary`` without the topics of the ordinary pages that went (``side`` already without
    their files), their mentions no longer counted; None unless nothing named them (else they
    live on without a file), they had no alias, tombstone, property key or namespace, titled no
    page without a file, and no other topic or alias shares a title (a query would change)."""
    key, titles, new = vault.flavor.page_key, summary.titles, copy.copy(summary)
    new.undated = array("i", summary.undated)
    for page in pages:
        p, title = page.topic, titles[page.topic]
        if summary.paths[p] != page.rel or summary.starts[p] != summary.starts[p + 1]:
            return None
        bare = head(PageFacts(title, None, (), None, (), (), ()))
        if summary.undated[p] or page.head != bare or "/" in title:
            return None
        if page.rel in side.titled.values() or key(title) in side.aliases:
            return None
        if _fold(key(title)) in _fold("\x00".join(titles[:p] + titles[p + 1 :])):
            return None
        for i, n in page.pairs:
            new.undated[i] -= n
    new.titles, new.paths = list(titles), list(summary.paths)
    new.extra, new.starts = array("b", summary.extra), array("i", summary.starts)
    for p in sorted((page.topic for page in pages), reverse=True):  # lower positions hold
        del new.titles[p], new.paths[p], new.extra[p], new.undated[p], new.starts[p]
        _renumber(new, side, functools.partial(_without, p))
    return new


def _without(p: int, i: int) -> int:
    """Position ``i`` once the topic at ``p`` is gone (-1: it was that one)."""
    return -1 if i == p else i - (i > p)


def _renumber(summary: Summary, side: Sidecar, move: Callable[[int], int]) -> None:
    """Every topic position in the summary's query tables and in ``side`` moved (-1: gone)."""
    summary.names = {k: j for k, i in summary.names.items() if (j := move(i)) >= 0}
    summary.spelled = {k: j for k, i in summary.spelled.items() if (j := move(i)) >= 0}
    side.own = array("i", (move(i) if i >= 0 else i for i in side.own))
    side.pairs[0::2] = array("i", (move(i) for i in side.pairs[0::2]))
    side.targets = {
        folder: {name: tuple(j for i in found if (j := move(i)) >= 0) for name, found in m.items()}
        for folder, m in side.targets.items()
    }
    side.titled = {j: by for i, by in side.titled.items() if (j := move(i)) >= 0}


def _fold(text: str) -> str:
    """Case- and normalisation-insensitive text, for comparing names."""
    return unicodedata.normalize("NFC", text).lower()


#: For one changed journal file: its day, its page title, and per topic position its mentions
#: (line, resolution, text), one per block.
_Fresh = dict[str, tuple[dt.date, str, dict[int, dict[int, tuple[bool, str]]]]]


def _fresh_mentions(
    vault: Vault,
    changed: list[PageFile],
    where: list[int],
    side: Sidecar,
    old: Summary,
    came: set[str],
    read: dict[str, PageFacts | None],
) -> _Fresh | None:
    """The changed journal pages' mentions (at ``where`` in ``side.rels``; those in ``came``
    are new), when each lands where it did when the summary was built."""
    out: _Fresh = {}
    for f, n in zip(changed, where, strict=True):
        day = vault.date_of(f.rel)
        if day is None or f.rel in side.marked or f.rel.endswith(".org"):
            return None
        facts = read.get(f.rel)
        if facts is None or facts.date != day or facts.aliases or facts.superseded_by:
            return None
        own = journal_head(facts, vault.flavor)
        if f.rel in came and meta_keys(facts, vault.flavor) <= side.meta:
            side.heads = side.heads[: n * HEAD] + own + side.heads[(n + 1) * HEAD :]
        if own != side.heads[n * HEAD : (n + 1) * HEAD]:
            return None  # it uses other property keys: a property page may come or go
        per_topic = _landing(side, old, f.rel, facts)
        if per_topic is None:
            return None
        out[f.rel] = (day, facts.title, per_topic)
    return out


def _landing(
    side: Sidecar, summary: Summary, rel: str, facts: PageFacts
) -> dict[int, dict[int, tuple[bool, str]]] | None:
    """Where the mentions of the changed file ``rel`` land: per topic position, per line (one
    per block), whether it is a resolution and its text. None when the file would retitle a
    page without a file (`_titles_hold`)."""
    resolved = side.targets.get(rel.rpartition("/")[0] if side.by_folder else "", {})
    per_topic: dict[int, dict[int, tuple[bool, str]]] = {}
    first: dict[int, str] = {}  # each page without a file it names: its first spelling here
    for target, line, resolution, text in facts.mentions:
        positions = resolved.get(target)  # every name is known here (`_new_names`)
        if positions is None:
            return None
        for i in positions:
            per_topic.setdefault(i, {}).setdefault(line, (resolution, text))
            if i in side.titled:
                first.setdefault(i, target)
    return per_topic if _titles_hold(side, summary, rel, first) else None


def _titles_hold(side: Sidecar, summary: Summary, rel: str, first: dict[int, str]) -> bool:
    """Whether the pages without a file that the changed file ``rel`` names (``first``: each
    one's first spelling in it) keep their titles. Such a page is titled by its first spelling
    in the first file, in listing order, that names it (`side.titled`, updated here): a file
    after that one may spell it any way; that file or one before it must spell it so."""
    for i, name in first.items():
        by = side.titled[i]
        if by and by < rel:
            continue
        if name != summary.titles[i]:
            return False
        side.titled[i] = rel
    return True


def _patch_pages(
    vault: Vault,
    changed: list[PageFile],
    where: list[int],
    side: Sidecar,
    summary: Summary,
    read: dict[str, PageFacts | None],
) -> Summary | None:
    """``summary`` with the undated counts of the changed ordinary pages (at ``where`` in
    ``side.rels``) replaced, and ``side`` updated to match; None if a page's head changed, or
    it stops naming (or respells) a page without a file that it titles."""
    undated = array("i", summary.undated)
    for f, n in zip(changed, where, strict=True):
        facts = read.get(f.rel)
        if (
            facts is None
            or facts.date is not None
            or head(facts) != side.heads[n * HEAD : (n + 1) * HEAD]
        ):
            return None
        per_topic = _landing(side, summary, f.rel, facts)
        if per_topic is None:
            return None
        per_topic.pop(side.own[n], None)  # a page's references to itself do not count
        lo, hi = side.spans[n], side.spans[n + 1]
        for k in range(lo, hi):
            i = side.pairs[2 * k]
            if i not in per_topic and side.titled.get(i) in ("", f.rel):
                return None  # the page without a file it titled may cease to be, or retitle
            undated[i] -= side.pairs[2 * k + 1]
        new = array("i")
        for i, at in sorted(per_topic.items()):
            undated[i] += len(at)
            new.extend((i, len(at)))
        side.pairs = side.pairs[: 2 * lo] + new + side.pairs[2 * hi :]
        shift = len(new) // 2 - (hi - lo)
        if shift:
            side.spans = side.spans[: n + 1] + array("i", (s + shift for s in side.spans[n + 1 :]))
    summary = copy.copy(summary)
    summary.undated = undated
    return summary


def _titles(vault: Vault, old: Summary) -> dict[str, int]:
    """Each topic title's key -> its position; a key that two topics share maps to -1."""
    key = vault.flavor.page_key
    out: dict[str, int] = {}
    for i, title in enumerate(old.titles):
        out[key(title)] = -1 if key(title) in out else i
    return out


def _by_title(
    vault: Vault, name: str, titles: dict[str, int], side: Sidecar
) -> tuple[int, ...] | None:
    """The topic a name not seen when the summary was built lands on, when that is certain: it
    is one topic's own title, no alias of any page, and names no namespace or path."""
    if "/" in name or name.lower().endswith((".md", ".markdown")):
        return None
    key = vault.flavor.page_key(name)
    i = titles.get(key, -1)
    return None if i < 0 or key in side.aliases else (i,)


def _patch(old: Summary, fresh: _Fresh, side: Sidecar, stamp: str) -> Summary | None:
    """The summary with the changed files' mentions replaced (a file that mentioned nothing
    before gets its place in ``files``)."""
    file_ids = {path: n for n, (path, _title) in enumerate(old.files)}
    files = list(old.files)
    ids: dict[str, int] = {}
    for rel, (_day, title, per) in fresh.items():
        if rel not in file_ids:
            if not per:
                continue  # nothing before, nothing now
            file_ids[rel] = len(files)
            files.append((rel, title))
        ids[rel] = file_ids[rel]
    touched = _touched(old, fresh, ids, side)
    if touched is None:
        return None
    new = Summary(stamp, list(old.titles), list(old.paths), undated=array("i", old.undated))
    new.extra = array("b", old.extra)
    new.files, new.strings, new.warnings = files, list(old.strings), list(old.warnings)
    new.keep_names(old)  # no page came, went or changed its name
    columns = ("days", "sources", "lines", "resolutions", "texts")
    done = 0  # old positions up to here are copied
    counts: dict[int, int] = {}  # touched topic -> its new number of mentions
    texts = {text: n for n, text in enumerate(new.strings)}
    for i in sorted(touched):
        lo, hi = old.starts[i], old.starts[i + 1]
        for name in columns:
            getattr(new, name).extend(getattr(old, name)[done:lo])
        rows = _rows(old, new, i, fresh, ids, texts)
        for row in rows:
            for name, value in zip(columns, row, strict=True):
                getattr(new, name).append(value)
        counts[i] = len(rows)
        done = hi
    for name in columns:
        getattr(new, name).extend(getattr(old, name)[done:])
    starts, shift = [0], 0
    for i in range(len(old.titles)):
        if i in counts:
            shift += counts[i] - (old.starts[i + 1] - old.starts[i])
        starts.append(old.starts[i + 1] + shift)
    new.starts = array("i", starts)
    used = sorted(set(new.texts))
    if len(new.strings) > 2 * len(used) + 64:  # texts edited away pile up: drop them
        moved = {k: n for n, k in enumerate(used)}
        new.strings = [new.strings[k] for k in used]
        new.texts = array("i", [moved[k] for k in new.texts])
    return new


def _touched(old: Summary, fresh: _Fresh, ids: dict[str, int], side: Sidecar) -> set[int] | None:
    """The topics whose columns change: those the changed files mention now or did before
    (None if one of them exists without a file and loses its mention in the file that titles
    it: it may cease to be, or take another title; another file still names it)."""
    gone = set(ids.values())
    touched = {i for _day, _title, per in fresh.values() for i in per}
    for k, source in enumerate(old.sources):
        if source in gone:
            i = bisect.bisect_right(old.starts, k) - 1
            rel = old.files[source][0]
            if i in side.titled and i not in fresh[rel][2] and side.titled[i] in ("", rel):
                return None
            touched.add(i)
    return touched


def _rows(
    old: Summary, new: Summary, i: int, fresh: _Fresh, ids: dict[str, int], texts: dict[str, int]
) -> list[tuple[int, int, int, int, int]]:
    """Topic ``i``'s mentions: the old ones from unchanged files and the changed files' new
    ones, as column values (day, source, line, resolution, text), in `queries._order`
    (``texts``: the position of each string in ``new.strings``, a new one added)."""
    gone = set(ids.values())
    rows = [
        (old.days[k], old.files[old.sources[k]][0], old.lines[k], old.sources[k],
         old.resolutions[k], old.texts[k])
        for k in range(old.starts[i], old.starts[i + 1])
        if old.sources[k] not in gone
    ]  # fmt: skip
    for rel, (day, _title, per) in fresh.items():
        for line, (resolution, text) in per.get(i, {}).items():
            if text not in texts:
                texts[text] = len(new.strings)
                new.strings.append(text)
            rows.append((day.toordinal(), rel, line, ids[rel], int(resolution), texts[text]))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    return [(d, src, line, res, text) for d, _path, line, src, res, text in rows]
