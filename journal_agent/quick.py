"""The warm path: ``stale``, ``topics`` and ``status`` answered from the cached status summary
without loading the library, and ``timeline TOPIC --json`` to a pipe without the CLI's parser
and the query layer (`timeline`). The console script's entry (`run`).

On a vault whose files did not change since the last query, the answer is milliseconds of work
on the cached summary (`summary`); what costs is starting: importing the argument parser,
typing and the settings readers takes longer than listing every page file. So for those three
commands, written in the plain forms below, this module checks what `cli` would check, with the
standard library's cheapest parts only: the settings files unchanged since the summary was
written (their stats, kept in its guard, from which the settings, the page rules and the default
window follow), then every page file's stat (`walk.stamp`) unless a running `watch` vouches for
the summary (`watchstamp`), and prints what `cli` prints (`render`). When only page files
changed, the library brings the summary up to date (`summary_current.summary_of`: patched or
rebuilt, as `cli` would) and this module prints it, without `cli`'s argument parser and topic
objects. Anything else, and any doubt, goes to `cli.main`, which answers everything: a
cache that is missing or written by another version, changed settings, an option it does not
know, a topic name the summary does not know by that spelling. A vault that changed is neither
listed nor its summary read twice: what was read here is handed over (`handed`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys

TYPE_CHECKING = False  # not typing's: the warm path must not pay for importing it
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Iterator, Sequence
    from typing import Any, NoReturn

    from .derived import Status
    from .queries import Graph
    from .summary import Summary
    from .vault import Vault
    from .walk import Listing

    #: What the warm path read of a vault that changed: its listing, and (where it lies, the
    #: cached summary as read).
    Seen = tuple[Listing, tuple[str, Summary]]

#: The options each command may carry here (the rest go to `cli`); a value follows those in
#: `VALUED`.
OPTIONS = {
    "stale": {"--vault", "--as-of", "--days", "--json", "--all-pages"},
    "topics": {"--vault", "--as-of", "--days", "--json", "--all-pages"},
    "status": {"--vault", "--as-of", "--days", "--json"},
    "timeline": {"--vault", "--as-of", "--days", "--json"},  # JSON to a pipe only (`answer`)
}
#: The commands that name a topic (a word that is no option).
NAMING = ("status", "timeline")
VALUED = {"--vault", "--as-of", "--days"}
VAULT_ENV = "JOURNAL_AGENT_VAULT"  # `vault.ENV_VAR`


def run() -> NoReturn:
    """The ``journal-agent`` command: `main`, then `leave`."""
    leave(main())


def leave(code: int) -> NoReturn:
    """End the process with ``code`` once its output is flushed, skipping the interpreter's
    teardown where nothing needs it: freeing every object of a run one by one (a hundred
    modules, a summary of thousands of topics) took 10 to 30 ms of a 200 ms query on a
    20,000-page vault. Where anything may (an ``atexit`` function, another thread, output that
    does not flush), the interpreter ends as usual."""
    import atexit

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - a closed pipe: the interpreter says what it said
        sys.exit(code)
    threading = sys.modules.get("threading")
    pending = getattr(atexit, "_ncallbacks", None)  # CPython's; elsewhere, end as usual
    if pending is None or pending() or (threading is not None and threading.active_count() > 1):
        sys.exit(code)
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command: a warm status query here, everything else by `cli.main`."""
    words = list(sys.argv[1:] if argv is None else argv)
    seen: list[Seen] = []
    refreshed = False
    try:
        code = answer(words, seen)
        if code is None and seen:  # the vault changed: the library brings the summary up to date
            refreshed = True
            code = answer(words, seen, refresh=True)
    except KeyboardInterrupt:
        return 130
    except Exception:  # noqa: BLE001 - any doubt: `cli` answers, and says what is wrong
        code = None
    if code is not None:
        return code
    from .cli import main as full

    with handed(seen, summary_too=not refreshed):  # refreshed: `cli` reads the summary afresh
        return full(argv)


def answer(words: list[str], seen: list[Seen] | None = None, refresh: bool = False) -> int | None:
    """Print the answer of a warm status query and return its exit code; None (nothing printed)
    when `cli` must answer (``seen``: gets what was read of a vault that changed). ``refresh``:
    the summary brought up to date from what ``seen`` holds, by the library (`summary_current`,
    as `cli` would, without its parser and its topic objects)."""
    query = parse(words)
    encoded = query is not None and "--json" in query and not sys.stdout.isatty()
    if query is None or (query["command"] == "timeline" and not encoded):
        return None  # (a timeline's text: `cli`)
    gc.disable()  # as `cli.main`: one answer, then exit
    raw = query.get("--vault") or os.environ.get(VAULT_ENV) or ""
    dated = query["command"] in ("stale", "status")  # what the first pass answers
    summary = current(raw, seen, dated) if refresh and seen else warm_summary(raw, seen)
    if summary is None:
        return None
    result = respond(summary, query, encoded, raw)  # encoded: as `render.json_text` writes it
    if result is None:
        return None
    from . import render

    for stream in (sys.stdout, sys.stderr):  # as `cli.main`: a strange name must not end it
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    command = query["command"]
    text = {"stale": render.text_stale, "topics": render.text_topics}.get(command)
    if isinstance(result, str):  # a status, encoded
        out = result
    elif encoded:
        out = render.json_listing(result)
    elif "--json" in query:
        out = render.json_text(result)
    else:
        out = (text or render.text_status)(result)
    for warning in summary.warnings:
        render.fail(f"warning: {warning}", 0)
    return render.emit(out)


def current(raw: str, seen: list[Seen], dated_only: bool) -> Summary | None:
    """The summary of the vault at ``raw`` brought up to date (`summary_current`) from what the
    warm path just read of it (``dated_only``: see `summary_current.summary_of`); None on any error
    (`cli` says what is wrong)."""
    from .summary_current import summary_of
    from .vault import open_vault

    with handed(seen):
        try:
            return summary_of(open_vault(raw), dated_only=dated_only)
        except Exception:  # noqa: BLE001 - `cli` answers errors
            return None


@contextlib.contextmanager
def handed(seen: list[Seen], summary_too: bool = True) -> Iterator[None]:
    """The listing and the summary read of a vault, handed to the library for the query it
    answers (`walk.HANDED`: every listing of that vault by those rules; `summary_store.HANDED`: used
    once, unless not ``summary_too``, where it may have moved on since): it is not listed or
    read twice. The cache folder it was found in too (`cachedir.FOUND`), so that the library
    does not ask platformdirs again."""
    from . import cachedir, summary_store, walk

    if seen:
        walk.HANDED, read = seen[-1]
        summary_store.HANDED = read if summary_too else None
        cachedir.FOUND = os.path.dirname(read[0])
    try:
        yield
    finally:
        walk.HANDED = summary_store.HANDED = cachedir.FOUND = None


def parse(words: list[str]) -> dict[str, Any] | None:
    """The command, its options and topic, if written in a form this module answers: each
    option once, spelled out, its value a separate word that is not an option."""
    if not words or words[0] not in OPTIONS:
        return None
    allowed = OPTIONS[words[0]]
    query: dict[str, Any] = {"command": words[0]}
    rest = iter(words[1:])
    for word in rest:
        if word in query or not word.isascii() and not _utf8(word):
            return None  # given twice, or not UTF-8 (bytes the shell passed through)
        if word in VALUED and word in allowed:
            value = next(rest, "-")
            if value.startswith("-") or not value:
                return None
            query[word] = value
        elif word in allowed:
            query[word] = True
        elif word.startswith("-") or words[0] not in NAMING or "topic" in query:
            return None
        else:
            query["topic"] = word
    if words[0] in NAMING and "topic" not in query:
        return None
    return query


def _utf8(word: str) -> bool:
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def warm_summary(raw: str, seen: list[Seen] | None = None) -> Summary | None:
    """The cached summary of the vault at ``raw`` if nothing it depends on changed since it was
    written: the settings files (by stat), the package, and every page file (by stat); else
    None, with what was read (``seen``) when only page files changed."""
    from . import __version__
    from .cachedir import cache_name
    from .summary_store import read
    from .walk import page_files, probe, stamp

    if not raw:
        return None  # the vault named in the person's config file: `cli` finds it
    root = os.path.realpath(os.path.expanduser(raw))
    if not os.path.isdir(root):
        return None
    path = cache_name("index", root, suffix=".summary", guess=True)
    summary = read(path)
    if summary is None:
        return None
    guard = summary.guard
    if (
        guard.get("root") != root
        or guard.get("version") != __version__
        or guard.get("python") != list(sys.version_info[:2])
        or probe(root, tuple(entry[0] for entry in guard["settings"])) != guard["settings"]
    ):
        return None
    if watched(summary):
        return summary
    rules = (root, tuple(guard["extensions"]), tuple(guard["hidden"]), tuple(guard["skipped"]))
    warnings: list[str] = []
    files = page_files(*rules, warnings)
    if seen is not None:
        seen.append(((rules, files, warnings), (path, summary)))
    if summary.racy or stamp(guard["fingerprint"], files) + guard["exclude"] != summary.stamp:
        return None  # changed, or a racily clean file must be read again
    return summary


def watched(summary: Summary) -> bool:
    """Whether a running watcher vouches for the summary (`watchstamp`), its state folder where
    it was when the summary was written."""
    from .summary_current import watch_holds
    from .watchstamp import vouched_at

    watch = summary.guard.get("watch")
    if watch is None or not watch_holds(watch):
        return False
    return vouched_at(watch["folder"], summary.guard["fingerprint"]) == summary.stamp


def respond(
    summary: Summary, query: dict[str, Any], encoded: bool = False, raw: str = ""
) -> dict[str, Any] | str | None:
    """The command's JSON answer from the summary, as `cli` gives it; None if it cannot tell.
    ``encoded``: a status, and each listed topic, already encoded as JSON (`render.json_listing`
    prints a listing); ``raw``: the vault as named (a timeline opens it)."""
    import datetime as dt
    import functools

    from .derived import status_encoder, status_object, thread_object, unmentioned_encoded

    window: int = summary.guard["days"]
    if "--days" in query:
        days = query["--days"]
        if not (days.isascii() and days.isdigit()) or not 1 <= int(days) <= 36500:
            return None  # `cli` refuses it
        window = int(days)
    day = query.get("--as-of")
    if day is not None:
        if not (day.isascii() and len(day) == 10 and day[4] == day[7] == "-"):
            return None
        try:
            as_of = dt.date.fromisoformat(day)
        except ValueError:
            return None  # `cli` says it is no day
    else:
        as_of = dt.date.today()
    limit = as_of.toordinal()

    @functools.cache  # thousands of topics, a few hundred days
    def last(silent: int | None) -> str | None:
        return None if silent is None else dt.date.fromordinal(limit - silent).isoformat()

    if query["command"] == "timeline":
        return timeline(summary, raw, query["topic"], as_of)
    if query["command"] == "status":
        if summary.partial is not None:
            return partial_status(summary.partial, query["topic"], as_of, window, encoded)
        i = summary.find(query["topic"], "spelled")
        if i is None:  # spelled otherwise (another case, a leading /): by the vault's query key
            i = keyed(summary, raw, query["topic"])
        if i is None:
            return None
        status, silent, _, n = summary.row(i, limit, window)
        make = status_encoder() if encoded else status_object
        return make(summary.title(i), summary.path(i), status, last(silent), silent, n)
    only = "stale" if query["command"] == "stale" else None
    rows, undated = listed(summary, limit, window, only, "--all-pages" in query)
    title, path = summary.lookups(len(rows) + len(undated))
    head = {"as_of": as_of.isoformat(), "days": window}
    if only is None:
        make = status_encoder() if encoded else status_object
        listing = [make(title(i), path(i), s, last(d), d, n) for i, s, d, _, n in rows]
        if encoded:
            listing += unmentioned_encoded(map(title, undated), map(path, undated))
        else:
            listing += [make(title(i), path(i), "unmentioned", None, None, 0) for i in undated]
        head["topics"] = listing
        return head
    texts = [summary.string(summary.texts[end - 1]) for _, _, _, end, _ in rows]
    if encoded:
        thread = status_encoder(thread=True)
        head["threads"] = [
            thread(title(i), path(i), s, last(d), d, n, text)
            for (i, s, d, _, n), text in zip(rows, texts, strict=True)
        ]
    else:
        items = [status_object(title(i), path(i), s, last(d), d, n) for i, s, d, _, n in rows]
        head["threads"] = [thread_object(*pair) for pair in zip(items, texts, strict=True)]
    return head


def partial_status(
    graph: Graph, topic: str, as_of: dt.date, window: int, encoded: bool
) -> dict[str, Any] | str | None:
    """``status TOPIC`` from the first pass's graph (a summary being rebuilt: `api.status`);
    None for a name it does not hold or may title otherwise (`cli` then waits for the full
    summary)."""
    from .derived import status_encoder, status_object
    from .errors import JournalAgentError
    from .firstpass import titled_for_certain
    from .queries import derive

    try:
        found = graph.topic(topic)
    except JournalAgentError:
        return None
    if not titled_for_certain(found):
        return None
    found = derive(found, as_of, window)
    make = status_encoder() if encoded else status_object  # as `respond` makes a status
    last = found.last.date.isoformat() if found.last and found.last.date else None
    return make(
        found.page.title, found.page.path, found.status, last, found.days_silent, found.mentions
    )


def keyed(summary: Summary, raw: str, topic: str) -> int | None:
    """The topic that ``topic``, not spelled as the summary keeps any name, names by the
    vault's query key (`registry.query_keys`), as `api.status` looks it up; None if the
    summary does not know it for certain (`cli` builds the graph). Opening the vault is the
    cost, which only such a name pays."""
    from .registry import query_keys

    with opened(raw) as vault:
        return summary.find(query_keys(vault)(topic))


def timeline(summary: Summary, raw: str, topic: str, as_of: dt.date) -> dict[str, Any] | None:
    """``timeline TOPIC --json`` to a pipe: the topic's backlinks from the summary and the files
    that mention it (`backlinks`, as `api.Query.timeline` takes them), encoded; None where those
    do not answer for certain (`cli` builds the graph, or says the topic is unknown). Without
    the CLI's parser and the query layer: their imports were a fifth of a warm timeline."""
    from .backlinks import topic_timeline

    with opened(raw) as vault:
        return topic_timeline(vault, summary, topic, as_of)


@contextlib.contextmanager
def opened(raw: str) -> Iterator[Vault]:
    """The vault at ``raw``, its caches taken meanwhile from the folder the warm path found the
    summary in (`cachedir.FOUND`), where the topic's kept backlinks are too: platformdirs is
    not asked."""
    from . import cachedir
    from .vault import open_vault

    was, cachedir.FOUND = cachedir.FOUND, cachedir.cache_root(guess=True)
    try:
        yield open_vault(raw)
    finally:
        cachedir.FOUND = was


def listed(
    summary: Summary, limit: int, window: int, only: str | None, all_pages: bool
) -> tuple[list[tuple[int, Status, int | None, int, int]], list[int]]:
    """`Summary.rows` in the listing's order (`derived.recency`): those with a dated mention up
    to the as-of day, then, where every status is asked for, the positions of the rest, which
    are unmentioned as of that day: most topics of a large vault, so not looped over one by one
    but found in C and sorted by their titles lower-cased all at once (`lowered`)."""
    from .derived import lowered, recency

    if only is not None:
        rows = summary.rows(limit, window, only, all_pages)
        title = summary.lookups(len(rows))[0]
    else:
        rows = summary.rows(limit, window, None, all_pages, summary.mentioned())
        title = summary.titles.__getitem__  # every topic is listed
    dated = [row for row in rows if row[2] is not None] if only is None else rows
    dated.sort(key=lambda r: recency(None if r[2] is None else limit - r[2], title(r[0])))
    if only is not None:
        return dated, []
    undated = [row[0] for row in rows if row[2] is None]  # mentioned after the as-of day only
    undated += summary.unmentioned(all_pages)
    undated.sort()  # ties keep the positions' order, as in `rows`
    undated.sort(key=lowered(summary.titles).__getitem__)
    return dated, undated
