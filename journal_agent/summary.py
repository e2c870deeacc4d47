"""The status summary: a compact, cached projection of the backlink graph for status queries.

``stale``, ``topics`` and ``status`` need, per topic, only its dated mentions in order (undated
ones count in none of their answers, `queries.derive`). Building the graph from the index costs
about a second on a five-year vault; this table is the graph reduced to a few integer columns
per mention, so a run whose files have not changed since the last one loads it (milliseconds)
instead of the index and the graph. It is derived and deletable like the index: it is trusted
only while the settings and every file's stat are exactly those it was built from
(`walk.stamp`); `summary_current` is that policy.

Lean on purpose: the warm path (`quick`) reads the summary without loading the library, so it is
stored with `marshal` (plain lists, dicts and bytes: `summary_store`) and this module imports
the rest lazily.
Beside the columns it keeps its *guard*: what the warm path checks instead of opening the vault
(the settings files' stats, the fingerprint of the settings they gave, the walk's rules;
`summary_current` makes it).
"""

from __future__ import annotations

import bisect
import datetime as dt
import marshal
from array import array
from itertools import compress
from operator import eq, gt, ne

from .derived import recency, status_of
from .packed import (
    Packed,
    extended,
    folded_anew,
    folded_chunk,
    item,
    keys_chunk,
    refolded,
    split,
    unfolded,
    unkeyed,
    whole,
)

TYPE_CHECKING = False  # not typing's: the warm path must not pay for importing it
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from .cachedir import Read
    from .derived import Status
    from .queries import Backlink, Graph, Topic

#: The shape of the summary and of its side file (`sidecar.Sidecar`), bumped together: a
#: summary still valid by its stamp is trusted without reading the side file, so one written by
#: another version must not be kept beside it (point lookups and patches would fall back for good).
FORMAT = 27
#: The columns kept as arrays, with their item type; the other fields are lists and dicts.
ARRAYS = {
    "extra": "b",  # 1 for a page listed only with ``all_pages`` (built-in, property-key pages)
    "starts": "i",  # topic i's dated mentions are at starts[i]:starts[i + 1]
    "days": "i",  # date ordinals
    "sources": "i",  # into `files`
    "lines": "i",
    "resolutions": "b",
    "texts": "i",  # into `strings`
}
LISTS = ("files", "warnings", "suggested", "withheld")
#: The page lists, each kept apart in the summary's base file (`cachedir.save_with_base`, with
#: ``extra``, `folded` and the name tables): they change only when a topic comes, goes or is
#: named anew, so a journal edit's patch neither encodes nor writes a hundred thousand names
#: again; a topic that comes adds a chunk to each (`append_topic`). Each is one string and
#: where each item ends (`packed`), not a list: `stale` needs the few hundred it prints, and
#: making a hundred thousand strings of a list cost 20 ms a list (`title`, `path`). The
#: mentions' texts (``strings``) are kept so too, in the base (a patch adds a few: `string`).
KEPT = ("titles", "paths")
DICTS = ("racy", "guard")
#: Name tables, kept marshalled until asked for: a third of the loading time, which `stale`
#: and `topics` do not need, and `find` reads one bucket of (`buckets.table_parts`). A patch that
#: adds a topic appends a part (`add_names`) rather than read and rewrite a hundred thousand
#: names; past `MAX_PARTS` added parts they are bucketed anew with the rest.
NAMES = ("names", "spelled")
MAX_PARTS = 64


class Summary:
    """Per topic, its dated mentions sorted oldest first, in columns.

    ``names``: a topic name's `PageRegistry.query_key` -> the position of the listed topic it
    names, for the title, aliases and path of every listed topic that name it for certain;
    ``spelled``: the same by those names as spelled (the warm path has no query key);
    ``files``: (path, page title) of every file a dated mention stands in; ``suggested`` and
    ``withheld``: see `summary_topics.name_tables`; ``racy``: `index.racy_digests` when built;
    ``guard``: see the module."""

    __slots__ = (
        "stamp", "_titles", "_paths", "_strings", "_packed", "_from", *LISTS, *ARRAYS,
        *DICTS, "_names", "_read", "_base", "_folded", "_keys", "partial",
    )  # fmt: skip

    def __init__(
        self,
        stamp: str,
        titles: list[str] | None = None,
        paths: list[str | None] | None = None,
        *,
        warnings: list[str] | None = None,
    ) -> None:
        self.stamp = stamp
        self._titles: list[str] | None = titles if titles is not None else []
        self._paths: list[str | None] | None = paths if paths is not None else []
        #: The lists kept packed (`KEPT`, ``strings``), for those not made lists yet (None in
        #: their slot), and of those read, how many items and which chunks they were read from
        #: (`save` adds a chunk of what came since: `append_topic`, `share_strings`)
        self._packed: dict[str, Packed] = {}
        self._from: dict[str, tuple[int, tuple[bytes, ...]]] = {}
        self.files: list[tuple[str, str]] = []
        self.suggested: list[str] = []
        self.withheld: list[str] = []
        self._strings: list[str] | None = []
        self.warnings: list[str] = warnings if warnings is not None else []
        self.extra: array[int] = array("b")
        self.starts: array[int] = array("i", [0])
        self.days: array[int] = array("i")
        self.sources: array[int] = array("i")
        self.lines: array[int] = array("i")
        self.resolutions: array[int] = array("b")
        self.texts: array[int] = array("i")
        self._names: dict[str, dict[str, int] | tuple[bytes, ...]] = {"names": {}, "spelled": {}}
        #: `KEPT` lists as read once made lists (a copy of each), and the base read
        #: (`cachedir.Read`)
        self._read: dict[str, list[Any]] = {}
        self._base: Read | None = None
        #: `folded` of the titles and names (`packed.folded_chunk`s), once made or read; None when a
        #: list or table is set anew
        self._folded: tuple[bytes, ...] | None = None
        #: `title_keys` as kept in the base file (`keys_chunk`s), once made or read; None when
        #: not made (or the titles changed since)
        self._keys: tuple[bytes, ...] | None = None
        self.racy: dict[str, bytes] = {}
        self.guard: dict[str, Any] = {}
        #: Of the journal pages and page heads only (`firstpass`): the graph it was made of, in
        #: which every topic that has a dated mention is as in the full graph, but not the
        #: topics only undated mentions make; no name tables (`api.status` asks the graph).
        #: Never saved. None: a full summary.
        self.partial: Graph | None = None

    @classmethod
    def of(cls, graph: Graph, stamp: str, names: bool = True) -> Summary:
        """The summary of a graph (``names``: with its name tables, which `find` needs)."""
        from .queries import _order

        listed = graph.listed(all_pages=True)
        pages = [topic.page for topic in listed]
        titles, paths = [p.title for p in pages], [p.path for p in pages]
        s = cls(stamp, titles, paths, warnings=list(graph.index.warnings))
        if names:
            from .summary_topics import name_tables

            s.names, s.spelled, s.suggested, s.withheld = name_tables(graph, listed)
        file_ids: dict[str, int] = {}
        string_ids: dict[str, int] = {}
        days, sources, lines, resolutions, texts, starts = [], [], [], [], [], [0]
        for topic in listed:
            if topic.backlinks:  # most topics of a large vault have none: a step each
                dated = [b for b in topic.backlinks if b.date is not None]
                dated.sort(key=_order)
                for day, page, path, line, text, resolution in dated:
                    assert day is not None
                    days.append(day.toordinal())
                    if path not in file_ids:
                        file_ids[path] = len(s.files)
                        s.files.append((path, page))
                    sources.append(file_ids[path])
                    lines.append(line)
                    resolutions.append(resolution)
                    if text not in string_ids:
                        string_ids[text] = len(s.strings)
                        s.strings.append(text)
                    texts.append(string_ids[text])
            starts.append(len(days))
        s.days, s.sources, s.lines = array("i", days), array("i", sources), array("i", lines)
        s.resolutions, s.texts = array("b", resolutions), array("i", texts)
        s.starts, s.extra = array("i", starts), array("b", [not p.listed() for p in pages])
        if names:  # kept: a patch looks new names up by them
            s.title_keys(graph.registry.flavor.page_key)
        return s

    @property
    def titles(self) -> list[str]:
        if self._titles is None:
            self._titles = self._unpacked("titles")
        return self._titles

    @titles.setter
    def titles(self, value: list[str]) -> None:
        self._titles, self._folded, self._keys = value, None, None

    @property
    def paths(self) -> list[str | None]:
        if self._paths is None:
            self._paths = [path or None for path in self._unpacked("paths")]
        return self._paths

    @paths.setter
    def paths(self, value: list[str | None]) -> None:
        self._paths = value

    @property
    def strings(self) -> list[str]:
        if self._strings is None:
            self._strings = split(self._packed["strings"])
        return self._strings

    @strings.setter
    def strings(self, value: list[str]) -> None:
        self._strings = value

    def string(self, k: int) -> str:
        """Text ``k`` (of `texts`), without making a list of every text."""
        return self._strings[k] if self._strings is not None else item(self._packed["strings"], k)

    def string_count(self) -> int:
        """How many texts the summary holds."""
        return len(self._strings if self._strings is not None else self._packed["strings"][1])

    def share_strings(self, other: Summary, more: list[str]) -> None:
        """``other``'s texts and then ``more``: still packed if nobody made them a list (a patch
        adds a few texts to tens of thousands; splitting and joining them all cost 20 ms)."""
        if other._strings is not None:
            self._strings = [*other._strings, *more]
        else:
            self._strings = None
            self._packed = {**self._packed, "strings": extended(other._packed["strings"], more)}
        self._from = {k: v for k, v in self._from.items() if k != "strings"}
        if "strings" in other._from:
            self._from["strings"] = other._from["strings"]

    def append_topic(
        self,
        title: str,
        path: str | None,
        keys: list[str],
        spellings: list[str],
        page_key: Callable[[str], str],
    ) -> int:
        """Add a topic after every other, nothing mentioning it yet, found by its query ``keys``
        and ``spellings`` (`names`, `spelled`), and return its position. Its title and path are
        added to the lists still packed if nobody made them lists (a page that comes would
        unpack and repack a hundred thousand titles), with its keys to `folded`, and its title's
        ``page_key`` to `title_keys`."""
        for name, value in (("titles", title), ("paths", path)):
            listed = getattr(self, f"_{name}")
            if listed is not None:  # a copy: a patch leaves the summary it started from as is
                setattr(self, f"_{name}", [*listed, value])
            else:
                self._packed = {**self._packed, name: extended(self._packed[name], [value or ""])}
        self.extra, self.starts = array("b", self.extra), array("i", self.starts)
        self.extra.append(0)
        self.starts.append(self.starts[-1])
        p, folded = self.count() - 1, self._folded
        self.add_names("names", dict.fromkeys(keys, p))
        self.add_names("spelled", dict.fromkeys(spellings, p))
        self._folded = refolded(folded, title, keys, MAX_PARTS) if folded is not None else None
        if self._keys is not None:
            more = keys_chunk(page_key, page_key(title))
            self._keys = (*self._keys, more) if len(self._keys) < MAX_PARTS else None
        return p

    def title(self, i: int) -> str:
        """Topic ``i``'s title, without making a list of every title."""
        return self._titles[i] if self._titles is not None else item(self._packed["titles"], i)

    def joined_titles(self) -> str | None:
        """Every title joined by NULs, from the titles still packed, without making a list of
        them (which a save would pack again: a patch that adds a topic keys every title); None
        where they are a list already, or a title holds a NUL."""
        if self._titles is not None or not whole(self._packed["titles"]):
            return None
        return self._packed["titles"][0]

    def title_keys(self, page_key: Callable[[str], str]) -> str | None:
        """Every title's ``page_key`` (`Flavor.page_key`), joined by NULs: kept in the base file
        (`keys_chunk`s), made (from the titles joined, in C steps: `flavors.joined_keys`) where
        it is not. A patch looks a name up among them (`summary_topics._Titles`): keying the
        titles took 18 ms of one that adds a name at 100,000 pages. None where a title holds a
        NUL, or the key is neither flavor's."""
        found = unkeyed(self._keys, page_key, self.count())
        if found is not None:
            return found
        from .flavors import joined_keys

        joined = self.joined_titles()
        if joined is None:
            titles = self.titles
            joined = "\0".join(titles)
            if joined.count("\0") != len(titles) - 1:
                return None
        keys = joined_keys(joined, page_key) if self.count() else None
        self._keys = None if keys is None else (keys_chunk(page_key, keys),)
        return keys

    def path(self, i: int) -> str | None:
        """Topic ``i``'s file (None: it has none), as `title`."""
        return self._paths[i] if self._paths is not None else item(self._packed["paths"], i) or None

    def lookups(self, many: int) -> tuple[Callable[[int], str], Callable[[int], str | None]]:
        """`title` and `path` for ``many`` lookups: item by item for a few, from the whole lists
        (made once) for many: an item costs about five times its share of making a list."""
        if many * 5 < self.count():
            return self.title, self.path
        return self.titles.__getitem__, self.paths.__getitem__

    def count(self) -> int:
        """How many topics the summary lists."""
        return len(self.starts) - 1

    def _unpacked(self, name: str) -> list[str]:
        """A `KEPT` list made a list (and kept as it was, for `save`)."""
        found = split(self._packed[name])
        self._read[name] = list(found)
        return found

    @property
    def names(self) -> dict[str, int]:
        return self._table("names")

    @names.setter
    def names(self, value: dict[str, int]) -> None:
        self._names = {**self._names, "names": value}  # a copy of the summary keeps its own
        self._folded = None

    @property
    def spelled(self) -> dict[str, int]:
        return self._table("spelled")

    @spelled.setter
    def spelled(self, value: dict[str, int]) -> None:
        self._names = {**self._names, "spelled": value}

    def keep_names(self, other: Summary) -> None:
        """Take ``other``'s name tables and page lists as they are: still marshalled or packed
        if nobody read them (a patch that moves no topic neither reads nor rewrites them), else
        copies, with their bytes as read (`save` writes them again where the lists are still
        the same)."""
        self._names, self._read, self._base = dict(other._names), other._read, other._base
        self.suggested, self.withheld = other.suggested, other.withheld
        self._folded, self._packed, self._from = other._folded, other._packed, other._from
        self._keys = other._keys
        self._titles = None if other._titles is None else list(other._titles)
        self._paths = None if other._paths is None else list(other._paths)

    def folded(self) -> tuple[str, str]:
        """Every title that no name of `names` folds to, and every name, joined by NULs and
        folded (`fold`): what `summary_topics.named` searches for a page that comes or goes
        (a title is most often a name too: leaving those out halves what a patch decompresses,
        10 ms at 100,000 pages). Kept in the base file with the titles and names it was made
        of (folding a hundred thousand costs 0.1 s), and grown with them as topics come
        (`append_topic`)."""
        found = unfolded(self._folded)
        if found is None:
            names = self._names["names"]
            from .buckets import table_whole

            try:  # the keys of a table not decoded for good: `save` would store it anew
                keys = list(names if isinstance(names, dict) else table_whole(names))
            except ValueError:
                keys = []  # corrupt: as `names` reads it
            found = folded_anew(self.titles, keys)
            self._folded = (folded_chunk(*found),)
        return found

    def add_names(self, name: str, entries: dict[str, int]) -> None:
        """Add ``entries`` to the name table ``name`` ("names" or "spelled") without reading it
        where it is still marshalled: as a part of its own."""
        table = self._names[name]
        more = {**table, **entries} if isinstance(table, dict) else (*table, marshal.dumps(entries))
        self._names = {**self._names, name: more}  # a copy of the summary keeps its own
        if name == "names":
            self._folded = None

    def _table(self, name: str) -> dict[str, int]:
        table = self._names[name]
        if not isinstance(table, dict):
            from .buckets import table_whole

            try:
                table = table_whole(table)
            except ValueError:
                table = {}  # corrupt: the graph answers
            self._names[name] = table
        return table

    def find(self, key: str, table: str = "names") -> int | None:
        """The position of the topic a name with this `PageRegistry.query_key` names (``table``
        "spelled": a name so spelled), when the summary knows it for certain: from the one
        bucket of the stored table that may hold it (`buckets`), unless it was read whole."""
        found = self._names[table]
        if isinstance(found, dict):
            return found.get(key)
        from .buckets import table_get

        try:
            return table_get(found, key)
        except ValueError:
            return None  # corrupt: the graph answers

    def row(self, i: int, limit: int, window: int) -> tuple[Status, int | None, int, int]:
        """Topic ``i`` as of the day of ordinal ``limit``: its status, days of silence, the
        position one past its newest dated mention, and its number of mentions (dated, up to
        that day: `queries.derive`)."""
        ((_, status, silent, end, n),) = self.rows(limit, window, all_pages=True, among=(i,))
        return status, silent, end, n

    def rows(
        self,
        limit: int,
        window: int,
        only: str | None = None,
        all_pages: bool = False,
        among: Iterable[int] | None = None,
    ) -> list[tuple[int, Status, int | None, int, int]]:
        """`row` of every topic (or of those ``among``) listed (``all_pages``: Logseq's built-in
        and property-key, marker and priority pages too) whose status is ``only`` (None: any),
        with its position. One loop over the columns: it runs over every topic of the vault,
        or where only a status with a dated mention is asked for, over the topics that have
        one, found in C (most topics of a large vault have none)."""
        starts, days, resolutions = self.starts, self.days, self.resolutions
        extra, out = self.extra, []
        if among is None and only not in (None, "unmentioned"):
            among = self.mentioned()
        for i in range(self.count()) if among is None else among:
            if extra[i] and not all_pages:
                continue
            lo, hi = starts[i], starts[i + 1]
            end = (
                hi
                if lo == hi or days[hi - 1] <= limit
                else bisect.bisect_right(days, limit, lo, hi)
            )
            silent = limit - days[end - 1] if end > lo else None
            status = status_of(silent, end > lo and bool(resolutions[end - 1]), window)
            if only is None or status == only:
                out.append((i, status, silent, end, end - lo))
        return out

    def topics(
        self, as_of: dt.date, days: int, only: str | None = None, all_pages: bool = False
    ) -> list[Topic]:
        """Every topic (or those with status ``only``) with its status as of ``as_of``, as
        `queries.derive` would give it, most recently mentioned first (`derived.recency`,
        as `queries.by_recency` orders them: sorted here on the columns, not on the topics)."""
        rows = self.rows(as_of.toordinal(), days, only, all_pages)
        titles, day_of = self.titles, self.days
        rows.sort(key=lambda r: recency(None if r[2] is None else day_of[r[3] - 1], titles[r[0]]))
        return self._topics(rows)

    def mentioned(self) -> Iterator[int]:
        """The positions of the topics with a dated mention (on any day), found in C: most
        topics of a large vault have none, and a status other than unmentioned needs one."""
        starts = self.starts
        return compress(range(self.count()), map(ne, starts[:-1], starts[1:]))

    def unmentioned(self, all_pages: bool) -> list[int]:
        """The positions of the topics listed (``all_pages``: see `rows`) with no dated
        mention on any day, found in C."""
        starts = self.starts
        never: Iterator[bool] = map(eq, starts[:-1], starts[1:])
        if not all_pages:
            never = map(gt, never, self.extra)  # never mentioned, and not an extra page (0)
        return list(compress(range(self.count()), never))

    def topic(self, i: int, as_of: dt.date, days: int) -> Topic:
        """Topic ``i`` as `topics` gives it."""
        (found,) = self._topics(self.rows(as_of.toordinal(), days, all_pages=True, among=(i,)))
        return found

    def _topics(self, rows: list[tuple[int, Status, int | None, int, int]]) -> list[Topic]:
        from .queries import Backlink, Topic  # once for all rows: an import in a function
        from .registry import Page  # costs a microsecond or two each time it runs

        (title, path), out = self.lookups(len(rows)), []
        for i, status, silent, end, n in rows:
            topic = Topic(Page(title(i), path(i)), status=status, days_silent=silent, mentions=n)
            if silent is not None:
                topic.last = self._backlink(end - 1, Backlink)
            out.append(topic)
        return out

    def dated(self, i: int, as_of: dt.date, since: dt.date | None = None) -> range:
        """Positions of topic ``i``'s dated mentions up to ``as_of`` (and from ``since``),
        oldest first: read them with `backlinks`. The projection fetches texts only this way,
        for the topics it prints."""
        lo, hi = self.starts[i], self.starts[i + 1]
        end = bisect.bisect_right(self.days, as_of.toordinal(), lo, hi)
        if since is not None:
            lo = bisect.bisect_left(self.days, since.toordinal(), lo, end)
        return range(lo, end)

    def backlinks(self, positions: Iterable[int]) -> list[Backlink]:
        """The dated mentions at these positions (see `dated`)."""
        from .queries import Backlink

        return [self._backlink(k, Backlink) for k in positions]

    def _backlink(self, k: int, make: type[Backlink]) -> Backlink:
        path, page = self.files[self.sources[k]]
        day = dt.date.fromordinal(self.days[k])
        text = self.string(self.texts[k])
        return make(day, page, path, self.lines[k], text, bool(self.resolutions[k]))
