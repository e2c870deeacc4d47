"""Refresh the status summary after a few pages changed, instead of rebuilding it.

A person writes in today's journal all day, so most session starts find the summary one edit
old, and rebuilding it (the whole index and backlink graph) costs several times a warm run on a
large vault. A journal page is never a topic: editing one only adds and removes *its own*
mentions, which sit in each topic's column as one run (same day, same file). So when every
changed file is a journal page that

* existed when the summary was built (one that came or went: below),
* names only pages the summary already resolved, or names no file used before that can land on
  no existing page (`new_names`: in Logseq a new topic without a file), and
* carries no alias, title or tombstone, and keeps naming each topic without a file that it
  titles, in the same spelling (either could change which pages exist, or their titles),

the summary is patched: the file's old mentions are taken out of each topic's column and its new
ones put in, in `queries._order`. A journal page that came (the new day's page, most often) or
went is the same change, when no name the vault uses could land on it (`named`) and, having
come, it uses only property keys that already are pages (``meta``).

An ordinary page's mentions are undated: they count in neither a status nor ``mentions``, so
the summary keeps none of them; the side file keeps how many each page has per topic (timelines
read them, `backlinks`). When its *head* is unchanged (`head`: its title, day, aliases,
tombstone and meta names, so the page keeps its names) and every name it references lands where
the summary knows it lands, the summary stands and the side file's counts of the page are
replaced by its new ones. A page without a file takes its title from the first file that
names it in Logseq's parse order (`flavors.parse_order`): the side file knows that file, so
others may spell it any way, and only that file (or one before it) must keep the spelling. A
page that came is a new topic when no name, topic or query lands on it yet (`add_page`); one
that went is taken out when nothing named it (`drop_pages`): a rename of such a page is both.

Anything else returns None and the caller rebuilds. What the patch needs beyond the summary
(each file's stat and head, where each name as written resolves, each ordinary page's undated
counts) is kept in a side file next to it (`sidecar`). Both are derived caches.
"""

from __future__ import annotations

import bisect
import datetime as dt
from array import array
from collections.abc import Sequence

from .columns import positions
from .errors import UnreadablePage
from .facts import PageFacts, page_facts
from .sidecar import (
    MAX_CHANGED,
    MAX_SHARE,
    Dropped,
    Sidecar,
    differing,
    head,
    journal_head,
    load_side,
    meta_keys,
    relist,
    save_side,
    stats_now,
)
from .summary import Summary
from .summary_store import save
from .summary_topics import add_page, drop_pages, landing, named, new_names
from .vault import Vault
from .walk import blocks

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any

    from .walk import Stat


def refresh(
    vault: Vault,
    summary_path: str,
    old: Summary | None,
    files: Sequence[Stat],
    stamp: str,
    base: str,
    racy: dict[str, bytes],
    guard: dict[str, Any],
    exclude: frozenset[str] = frozenset(),
    read: dict[str, PageFacts | None] | None = None,
) -> Summary | None:
    """The cached summary (``old``, as read) patched for the pages changed since it was built,
    saved with ``stamp`` (and the warm path's ``guard``, `summary_current`); None when a patch
    cannot be exact (the caller rebuilds). ``exclude``: the keys of the pages that are no
    topics (the settings'); ``read``: gets the facts of the changed files it read, so that a
    rebuild after a patch that could not be made reads none of them again."""
    side = load_side(summary_path)
    if side is None or side.base != base or old is None or old.stamp != side.stamp or old.warnings:
        return None
    came: list[str] = []
    gone: list[str] = []
    dropped: list[Dropped] = []
    relisted = not side.same_rels(files)
    if relisted:
        found = relist(vault, side, [f[0] for f in files])
        if found is None:
            return None
        came, gone, dropped = found
    now = stats_now(files, side, relisted)
    changed_at = differing(now, side.stats)
    rels = {n: files[n][0] for n in changed_at}
    changed = len(changed_at) + len(gone) + len(dropped)
    if not changed or changed > max(MAX_CHANGED, len(files) * MAX_SHARE):
        return None
    new_pages = {rel for rel in came if vault.date_of(rel) is None}
    dated = [n for n in changed_at if vault.date_of(rels[n]) is not None]
    added = [n for n in changed_at if rels[n] in new_pages]
    pages = [n for n in changed_at if n not in dated and rels[n] not in new_pages]
    read = read if read is not None else {}
    read.update((rels[n], _facts(vault, rels[n])) for n in changed_at)
    patched = new_names(vault, side, old, read, exclude)  # names nobody used before
    if patched is None:
        return None
    if dated or gone:
        fresh = _fresh_mentions(
            vault, [rels[n] for n in dated], dated, side, patched, set(came), read
        )
        if fresh is not None and (came or gone):
            days = [(rel, fresh[rel][1]) for rel in came if rel not in new_pages]
            days += [(rel, vault.describe(rel)[0]) for rel in gone]
            fresh = None if named(vault, side, patched, days) else fresh
        if fresh is not None:
            fresh.update((rel, (vault.date_of(rel) or dt.date.min, "", {})) for rel in gone)
        patched = _patch(patched, fresh, side, stamp) if fresh is not None else None
    if pages and patched is not None:
        patched = _patch_pages(vault, [rels[n] for n in pages], pages, side, patched, read)
    if dropped and patched is not None:
        patched = drop_pages(vault, side, patched, dropped, read)
    for n in added:
        if patched is not None:
            patched = add_page(vault, rels[n], n, side, patched, exclude, read)
    if patched is None:
        return None
    patched.stamp, patched.racy, patched.guard = stamp, racy, guard
    save(summary_path, patched)
    side.stamp, side.stats, side.blocks = stamp, now, blocks(files)
    save_side(summary_path, side)
    return patched


def _facts(vault: Vault, rel: str) -> PageFacts | None:
    """The changed file's facts; None if it cannot be read (the caller rebuilds). The file is
    one the listing just made holds, read as the index reads those (`Vault.read_bytes`): where
    its path leads was checked by the walk, not again (an eighth of reading and scanning it)."""
    try:
        return page_facts(vault, rel, vault.read_page(rel, listed=True))
    except UnreadablePage:
        return None


#: For one changed journal file: its day, its page title, and per topic position its mentions
#: (line, resolution, text), one per block.
_Fresh = dict[str, tuple[dt.date, str, dict[int, dict[int, tuple[bool, str]]]]]


def _fresh_mentions(
    vault: Vault,
    changed: list[str],
    where: list[int],
    side: Sidecar,
    old: Summary,
    came: set[str],
    read: dict[str, PageFacts | None],
) -> _Fresh | None:
    """The changed journal pages' mentions (at ``where`` in ``side.rels``; those in ``came``
    are new), when each lands where it did when the summary was built."""
    out: _Fresh = {}
    for rel, n in zip(changed, where, strict=True):
        day = vault.date_of(rel)
        if day is None or rel in side.marked or rel.endswith(".org"):
            return None
        facts = read.get(rel)
        if facts is None or facts.date != day or facts.aliases or facts.superseded_by:
            return None
        own = journal_head(facts, vault.flavor)
        if rel in came and meta_keys(facts, vault.flavor) <= side.meta:
            side.set_head(n, own)
        if own != side.head_of(n):
            return None  # it uses other property keys: a property page may come or go
        per_topic = landing(side, old, rel, facts)
        if per_topic is None:
            return None
        out[rel] = (day, facts.title, per_topic)
    return out


def _patch_pages(
    vault: Vault,
    changed: list[str],
    where: list[int],
    side: Sidecar,
    summary: Summary,
    read: dict[str, PageFacts | None],
) -> Summary | None:
    """``summary`` as it is (it keeps no undated mention), with ``side``'s undated counts of the
    changed ordinary pages (at ``where`` in ``side.rels``) replaced; None if a page's head
    changed, or it stops naming (or respells) a page without a file that it titles."""
    for rel, n in zip(changed, where, strict=True):
        facts = read.get(rel)
        if facts is None or facts.date is not None or head(facts) != side.head_of(n):
            return None
        per_topic = landing(side, summary, rel, facts)
        if per_topic is None:
            return None
        per_topic.pop(side.own[n], None)  # a page's references to itself do not count
        lo, hi = side.pairs_at(n)
        for k in range(lo, hi):
            i = side.pairs[2 * k]
            if i not in per_topic and side.titled.get(i) in ("", rel):
                return None  # the page without a file it titled may cease to be, or retitle
        new = array("i")
        for i, at in sorted(per_topic.items()):
            new.extend((i, len(at)))
        side.set_pairs(n, new)
    return summary


def _patch(old: Summary, fresh: _Fresh, side: Sidecar, stamp: str) -> Summary | None:
    """The summary with the changed files' mentions replaced (a file that mentioned nothing
    before gets its place in ``files``). Only the changed files' mentions are looked at one by
    one: each old one is dropped and each new one put where `queries._order` places it in its
    topic's column (a bisect by day, then a step or two among that day's mentions); the rest is
    copied by slices, however many mentions a touched topic has."""
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
    was = positions(old.sources, set(ids.values()))  # the changed files' old mentions
    if _lost_title(old, fresh, was, side):
        return None
    new = Summary(stamp)
    new.extra = array("b", old.extra)
    new.files, new.warnings = files, list(old.warnings)
    new.keep_names(old)  # no page came, went or changed its name: its page lists too
    texts = {old.string(old.texts[k]): old.texts[k] for k in was}  # a new text is added
    more: list[str] = []  # the texts added, after the old ones
    known = old.string_count()
    counts: dict[int, int] = {}  # touched topic -> its new number of mentions
    for k in was:
        i = bisect.bisect_right(old.starts, k) - 1
        counts[i] = counts.get(i, old.starts[i + 1] - old.starts[i]) - 1
    gone = set(was)
    put: dict[int, list[tuple[int, tuple[int, str, int], tuple[int, ...]]]] = {}
    for rel, (day, _title, per) in fresh.items():
        for i, at in per.items():
            counts[i] = counts.get(i, old.starts[i + 1] - old.starts[i]) + len(at)
            for line, (resolution, text) in at.items():
                if text not in texts:
                    texts[text] = known + len(more)
                    more.append(text)
                key = (day.toordinal(), rel, line)
                row: tuple[int, ...] = (key[0], ids[rel], line, int(resolution), texts[text])
                put.setdefault(_place(old, i, key, gone), []).append((i, key, row))
    columns = ("days", "sources", "lines", "resolutions", "texts")
    done = 0  # old positions up to here are copied
    for k in sorted(gone.union(put)):
        for name in columns:
            getattr(new, name).extend(getattr(old, name)[done:k])
        done = k + 1 if k in gone else k
        for _i, _key, row in sorted(put.get(k, ())):  # a column's end before the next's start
            for name, value in zip(columns, row, strict=True):
                getattr(new, name).append(value)
    for name in columns:
        getattr(new, name).extend(getattr(old, name)[done:])
    new.starts = _shifted(old.starts, counts)
    new.share_strings(old, more)
    used = set(new.texts)
    if new.string_count() > 2 * len(used) + 64:  # texts edited away pile up: drop them
        moved = {k: n for n, k in enumerate(sorted(used))}
        new.strings = [new.strings[k] for k in moved]
        new.texts = array("i", [moved[k] for k in new.texts])
    return new


def _place(old: Summary, i: int, key: tuple[int, str, int], gone: set[int]) -> int:
    """The old position before which a mention ordered by ``key`` (day, path, line) goes in
    topic ``i``'s column, the mentions at ``gone`` left out (`queries._order`)."""
    lo, hi = old.starts[i], old.starts[i + 1]
    k = bisect.bisect_left(old.days, key[0], lo, hi)
    end = bisect.bisect_right(old.days, key[0], k, hi)
    while k < end and (k in gone or (old.files[old.sources[k]][0], old.lines[k]) < key[1:]):
        k += 1
    return k


def _shifted(starts: array[int], counts: dict[int, int]) -> array[int]:
    """``starts`` with topic ``i``'s number of mentions now ``counts[i]`` (a run that keeps
    its place copied as it is: a step per topic costs 20 ms at 100,000 topics)."""
    out, shift, done = array("i", starts[:1]), 0, 0  # starts[:done + 1] are in ``out``
    for i in [*sorted(counts), len(starts) - 1]:
        run = starts[done + 1 : i + 1]
        out.extend(map(shift.__add__, run) if shift else run)
        if i in counts:
            shift += counts[i] - (starts[i + 1] - starts[i])
        done = i
    return out


def _lost_title(old: Summary, fresh: _Fresh, was: list[int], side: Sidecar) -> bool:
    """Whether a topic without a file loses its mention in the file that titles it (``was``:
    the positions of the changed files' old mentions): it may cease to be, or take another
    title that another file spells."""
    for k in was:
        i = bisect.bisect_right(old.starts, k) - 1
        rel = old.files[old.sources[k]][0]
        if i in side.titled and i not in fresh[rel][2] and side.titled[i] in ("", rel):
            return True
    return False
