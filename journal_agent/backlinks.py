"""One topic's backlinks without building the graph: what a warm `timeline` needs.

The status summary holds each topic's dated mentions with their texts; its side file
(`sidecar.Sidecar`) says which files hold the undated ones, how many, and where each name
as written in a file lands. So one topic's backlinks are its summary column plus the mentions
of those few files, read from the cached index (or scanned, for a handful) and resolved through
the side file: no registry, no pass over every page. Anything uncertain (a name the summary
does not know for certain, a side file of another summary, a file whose count differs) returns
None, and the caller builds the graph.

A topic that thousands of page bodies mention (the project every page links) would cost each
timeline those thousands of files' facts, loaded and decoded: 150 ms at 20,000 pages. So what
was found for such a topic is kept, per file (`Memo`), and a later timeline takes a file's kept
backlinks while they are certainly still its: the file's stat is the one kept, every name they
were found by still lands on the topic, and the side file counts as many of its blocks for the
topic as are kept. (Unchanged, the file still holds those blocks; they land on the topic, and
no other block does, since they are as many as land now.) Other files are read as before.
While the summary is the one they were kept with (its stamp: every file's stat), and no file
was in the racy window then, no file has changed since: every file's kept backlinks are taken
as they are (`Memo.unchanged`), without the side file or a check per file; and a timeline
takes them already encoded, in its order (`Memo.entries`, kept with them: making and encoding a
hot topic's ten thousand undated entries anew was half a warm timeline).
"""

from __future__ import annotations

import bisect
import marshal
import os
import time
import zlib
from array import array
from collections.abc import Callable, Iterable
from functools import cached_property
from itertools import repeat
from operator import itemgetter

from .columns import positions
from .digests import blake2b
from .queries import Backlink, Topic, encoded_timeline, timeline, undated_order
from .registry import Page, query_keys
from .summary import Summary
from .summary_store import summary_path
from .vault import PageFile, Vault

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    import datetime as dt
    from typing import Any

#: A topic mentioned in more files than this has what was found for it kept (`Memo`): below it,
#: the files are read faster than the whole cached index is loaded (`index.FEW_FILES`).
MEMO_MIN = 64
#: The topics kept at most, per vault: those written last.
MEMO_TOPICS = 8
#: The shape of what is kept: another's is not read.
MEMO_FORMAT = 4
#: What is kept of a file: its stat, the names its blocks landed on the topic by, its page's
#: title, and its backlinks' lines, texts and resolutions (a hot topic has tens of thousands:
#: columns read back in a third of the time of a tuple per backlink).
Kept = tuple[
    int, int, int, tuple[str, ...], str, tuple[int, ...], tuple[str, ...], tuple[bool, ...]
]


def topic_backlinks(vault: Vault, summary: Summary, name: str) -> Topic | None:
    """The topic ``name`` names with every backlink the graph would give it, or None."""
    i = summary.find(query_keys(vault)(name))
    return None if i is None else _backlinks(vault, summary, i, Memo(vault, summary, i))


def topic_timeline(
    vault: Vault, summary: Summary, name: str, as_of: dt.date
) -> dict[str, Any] | None:
    """The timeline of the topic ``name`` names as of ``as_of``, encoded as
    `queries.encoded_timeline` makes it, or None (as `topic_backlinks`)."""
    i = summary.find(query_keys(vault)(name))
    if i is None:
        return None
    memo = Memo(vault, summary, i)
    if memo.entries is not None and memo.current(summary):  # its undated entries, encoded
        topic = _dated(summary, i)
        return encoded_timeline(topic, timeline(topic, as_of), memo.entries)
    found = _backlinks(vault, summary, i, memo)
    return None if found is None else encoded_timeline(found, timeline(found, as_of))


def _dated(summary: Summary, i: int) -> Topic:
    """Topic ``i`` with its dated backlinks (the summary's)."""
    topic = Topic(Page(summary.title(i), summary.path(i)))
    topic.backlinks = summary.backlinks(range(summary.starts[i], summary.starts[i + 1]))
    return topic


def _backlinks(vault: Vault, summary: Summary, i: int, memo: Memo) -> Topic | None:
    from .sidecar import Unreadable

    try:
        return _found(vault, summary, i, memo)
    except Unreadable:  # a side file that reads only in part: the graph answers
        return None


def _found(vault: Vault, summary: Summary, i: int, memo: Memo) -> Topic | None:
    from .index import RACY_NS, facts_of
    from .sidecar import load_side, stat_of

    topic = _dated(summary, i)
    kept = memo.unchanged(summary)
    if kept is not None:
        topic.backlinks += kept
        return topic
    side = load_side(summary_path(vault))
    if side is None or side.stamp != summary.stamp:
        return None
    counts = _undated_counts(side.pairs, side.spans(), i)
    if any(side.own[n] == i for n in counts):
        return None  # the side file counts no mention of a page on itself
    rels = side.rels
    hot = memo if len(counts) > MEMO_MIN else None
    # per folder, the names as written seen so far, and those of them that land on topic i:
    # a hot topic's files hold hundreds of thousands of mentions, each tested in C
    seen: dict[str, tuple[set[str], set[str]]] = {}

    def landing(rel: str, names: set[str]) -> set[str]:
        """Those of all names seen in ``rel``'s folder that land on topic i."""
        folder = rel.rpartition("/")[0] if side.by_folder else ""
        known, lands = seen.setdefault(folder, (set(), set()))
        for new in names - known:
            if i in (side.targets.get(folder, new) or ()):
                lands.add(new)
        known |= names
        return lands

    found: dict[int, list[Backlink]] = {}
    read: dict[int, PageFile] = {}
    for n, count in counts.items():
        file = PageFile(rels[n], *stat_of(side, n))
        kept = hot.take(file, count, landing) if hot else None
        if kept is None:
            read[n] = file
        else:
            found[n] = kept
    facts, settled = facts_of(vault, list(read.values())), time.time_ns() - RACY_NS
    for n, file in read.items():
        page = facts[file.rel]
        if isinstance(page, str):
            return None  # it was readable when the summary was built
        lands = landing(file.rel, set(map(itemgetter(0), page.mentions)))
        lines: dict[int, Backlink] = {}
        by: set[str] = set()
        for mentioned, line, resolution, text in page.mentions:
            if mentioned in lands:
                by.add(mentioned)
                if line not in lines:
                    lines[line] = Backlink(None, page.title, file.rel, line, text, resolution)
        if len(lines) != counts[n]:
            return None
        found[n] = list(lines.values())
        if hot is not None and file.changed_ns < settled:  # else an edit may keep its stat
            hot.keep(file, by, page.title, found[n])
    for n in counts:  # in the listing's order, as the graph has them
        topic.backlinks += found[n]
    stamp = "" if summary.racy else summary.stamp
    if hot is not None and (read or stamp != hot.stamp):  # kept anew, or for another summary
        undated = [b for n in counts for b in found[n]]
        hot.save((rels[n] for n in counts), stamp, undated)
    return topic


class Memo:
    """What was found for one hot topic, kept per file (see the module): a marshalled dict of
    each file's `Kept` (marshalled and compressed once more: a timeline that takes `entries`
    does not decode it, and the entries hold its texts again), and those backlinks encoded, a
    file of its own beside the summary for each of the `MEMO_TOPICS` topics written last.
    Derived and deletable like the rest of the cache."""

    def __init__(self, vault: Vault, summary: Summary, i: int) -> None:
        who = f"{summary.path(i)}\0{summary.title(i)}".encode("utf-8", "surrogateescape")
        self.path = f"{summary_path(vault)}.hot-{blake2b(who, digest_size=8).hexdigest()}"
        # of the settings and the version too (a page's title may follow from a file-name format)
        self.made_by = (MEMO_FORMAT, summary.guard.get("fingerprint"))
        self.stamp = ""  # the summary's when all was kept, no file racy then; else empty
        #: Every kept backlink encoded (`queries.Backlink.encoder`), in a timeline's order of
        #: undated entries (`queries.undated_order`), joined by ", ", where `stamp` is set.
        self.entries: str | None = None
        self._packed = b""  # `kept`, marshalled and compressed
        try:
            with open(self.path, "rb") as f:
                made_by, packed, stamp, entries = marshal.loads(f.read())
        except (OSError, EOFError, ValueError, TypeError):
            return  # none, or not ours: written anew
        if made_by == self.made_by and type(packed) is bytes and type(stamp) is str:
            self._packed, self.stamp = packed, stamp
            self.entries = entries if stamp and type(entries) is str else None

    @cached_property
    def kept(self) -> dict[str, Kept]:
        """Each file's `Kept`, by path, in listing order (none where they do not read: the
        summary's stamp is then forgotten with them)."""
        try:
            kept = marshal.loads(zlib.decompress(self._packed)) if self._packed else {}
        except (EOFError, ValueError, TypeError, zlib.error):
            kept = None
        if type(kept) is not dict:
            self.stamp, self.entries, kept = "", None, {}
        return kept

    def current(self, summary: Summary) -> bool:
        """Whether no file can have changed since the backlinks were kept (see the module)."""
        return bool(self.stamp) and self.stamp == summary.stamp and not summary.racy

    def unchanged(self, summary: Summary) -> list[Backlink] | None:
        """Every file's kept backlinks, in listing order, when no file can have changed since
        they were kept (`current`); else None. Kept for this very summary, they passed its
        side file's checks then: the side file is not read."""
        kept = self.kept  # first: where it does not read, the stamp is forgotten
        if not self.current(summary):
            return None
        found: list[Backlink] = []
        try:
            for rel, one in kept.items():
                found += _made(rel, one)
        except (TypeError, ValueError, IndexError):  # damaged
            return None
        return found

    def take(
        self, file: PageFile, count: int, landing: Callable[[str, set[str]], set[str]]
    ) -> list[Backlink] | None:
        """``file``'s kept backlinks if they are certainly all of its ``count`` now (see the
        module; ``landing``: which of a file's names land on the topic); else None."""
        kept = self.kept.get(file.rel)
        try:
            if kept is None or kept[:3] != file[1:] or len(kept[5]) != count:
                return None
            names = set(kept[3])
            return _made(file.rel, kept) if names <= landing(file.rel, names) else None
        except (TypeError, ValueError, IndexError):  # a damaged file: read as if not kept
            return None

    def keep(self, file: PageFile, names: set[str], title: str, found: list[Backlink]) -> None:
        """Keep ``found``, the backlinks of ``file`` (titled ``title``) by ``names``."""
        lines = tuple(b.line for b in found)
        texts = tuple(b.text for b in found)
        marks = tuple(b.resolution for b in found)
        self.kept[file.rel] = (*file[1:], tuple(names), title, lines, texts, marks)

    def save(self, rels: Iterable[str], stamp: str, undated: list[Backlink]) -> None:
        """Keep what is known of the files ``rels`` (those the topic is in now), for the summary
        ``stamp`` (empty: a file was racy), with their backlinks (``undated``) encoded where
        ``stamp`` is set, and forget the topics asked for longest ago."""
        from .cachedir import write_atomic

        kept = {rel: self.kept[rel] for rel in rels if rel in self.kept}
        entries = ", ".join(map(Backlink.encoder(), undated_order(undated))) if stamp else ""
        data = (self.made_by, zlib.compress(marshal.dumps(kept), 1), stamp, entries)
        write_atomic(self.path, marshal.dumps(data))
        folder, prefix = os.path.split(self.path.rpartition(".hot-")[0] + ".hot-")
        try:
            others = [e for e in os.scandir(folder) if e.name.startswith(prefix)]
            others.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
            for old in others[MEMO_TOPICS:]:
                os.unlink(old.path)
        except OSError:
            pass  # a cache that cannot be tidied only costs room


def _made(rel: str, kept: Kept) -> list[Backlink]:
    """The backlinks ``kept`` of the file ``rel`` (`ValueError` if they do not add up)."""
    title, lines, texts, marks = kept[4:]
    if type(title) is not str or not len(lines) == len(texts) == len(marks):
        raise ValueError(rel)
    fields = zip(repeat(None), repeat(title), repeat(rel), lines, texts, marks)
    return list(map(tuple.__new__, repeat(Backlink), fields))  # in C: a hot topic has thousands


def _undated_counts(pairs: array[int], spans: array[int], i: int) -> dict[int, int]:
    """File by file, in listing order, how many undated mentions of topic ``i`` the side file
    counts (its (topic, count) pairs' topics searched in C)."""
    return {
        bisect.bisect_right(spans, k) - 1: pairs[2 * k + 1] for k in positions(pairs[0::2], (i,))
    }
