"""When the cached status summary may answer (`current`): the one a running watcher keeps
current; else the cached one while every file's stat and every setting hold; else patched
(`summary_patch`); else rebuilt. And the summary's *guard*: what the warm path (`quick`) checks
instead of opening the vault (the settings files' stats, what they gave, where a running
watcher keeps its state).

Lean at import, as `summary`: the warm path asks `watch_holds` before it loads anything else.
"""

from __future__ import annotations

import os

from . import summary_store as stored
from .summary import Summary
from .summary_store import load, read, save, summary_path

TYPE_CHECKING = False  # not typing's: the warm path must not pay for importing it
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from .facts import PageFacts
    from .queries import Graph
    from .vault import PageFile, Vault
    from .walk import Stat

    Fresh = dict[str, PageFacts | None]  # files' facts as a patch read them (None: unreadable)


def summary_of(
    vault: Vault,
    *,
    use_cache: bool = True,
    wait: bool = True,
    dated_only: bool = False,
    listed: tuple[list[Stat], list[str]] | None = None,
) -> Summary:
    """The vault's summary as a query asks for it (`current`), what would build it imported only
    where it is built: an edit's patch needs neither the backlink graph nor the query layer,
    whose imports took longer than the patch. ``wait``: first for a build `stale` left to a
    process of its own (`rebuild.warm_up`), rather than build the same in parallel;
    ``dated_only``: the caller reads only dated mentions (`stale`, the projection, `status`),
    which, where the summary must be rebuilt, come from the journal pages and page heads
    (`firstpass`: a `Summary.partial` one), the rebuild left to a process of its own."""
    if wait and use_cache:
        from .rebuild import wait_for_build

        wait_for_build(vault)

    def build(files: tuple[list[PageFile], list[str]]) -> Graph:
        from .queries import vault_graph

        return vault_graph(vault, use_cache, files)

    def first_pass(files: list[PageFile], warnings: list[str], fresh: Fresh) -> Summary:
        from functools import partial

        from .firstpass import first_summary

        rebuild = partial(summary_of, vault, use_cache=use_cache, wait=False)
        return first_summary(vault, files, warnings, vault.excluded, rebuild, fresh)

    instead = first_pass if dated_only else None
    exclude = vault.excluded
    return current(
        vault, use_cache=use_cache, exclude=exclude, build=build, instead=instead, listed=listed
    )


def current(
    vault: Vault,
    *,
    use_cache: bool,
    exclude: frozenset[str],
    build: Callable[[tuple[list[PageFile], list[str]]], Graph],
    instead: Callable[[list[PageFile], list[str], Fresh], Summary] | None = None,
    listed: tuple[list[Stat], list[str]] | None = None,
) -> Summary:
    """The vault's summary: the one a running watcher keeps current; else the cached one while no
    file's stat and no setting changed since it was built (its racily clean files' bytes too);
    else the cached one patched for a few edited journal pages; else one built from ``build``
    (the graph of the listed files) and cached, or, where it would be built and cached,
    ``instead``'s (of the listed files, and of the changed files' facts a patch read, which
    then sees to the cache). ``listed``: the vault's listing and its warnings, made just now
    (the watcher's own), instead of listing it."""
    from .errors import JournalAgentError
    from .index import _fingerprint, paused_gc, racy_digests, still_same
    from .walk import stamp

    fingerprint, excluded = _fingerprint(vault), repr(sorted(exclude))
    if use_cache and listed is None and not _watcher_asked(vault):  # `watch` keeps it current
        from .state import StateDir
        from .watchstamp import trusted_stamp

        try:
            trusted = trusted_stamp(StateDir.of(vault.root), fingerprint)
        except JournalAgentError:  # a state folder set wrongly: no watcher to trust
            trusted = None
        vouched = load(summary_path(vault), trusted) if trusted else None
        if vouched is not None and trusted and trusted.endswith(excluded):
            return vouched
    warnings: list[str] = list(listed[1]) if listed else []
    path = summary_path(vault)
    kept = read(path) if use_cache else None  # read once: a patch starts from it
    if use_cache and kept is None and instead and listed is None and _first_query(vault):
        from .vault import PageFile

        files = list(map(PageFile._make, vault.listing(warnings, stat=False)))
        found = instead(files, warnings, {})
        found.guard = _guard(vault, fingerprint, excluded, {})
        return found
    listing = listed[0] if listed else vault.listing(warnings)  # `PageFile`s only to build
    key = stamp(fingerprint, listing) + excluded if use_cache else None
    cached = kept if kept is not None and kept.stamp == key else None
    base = fingerprint + excluded
    guard = _guard(vault, fingerprint, excluded, kept.guard if kept else {}) if key else {}
    if cached is not None and still_same(vault, cached.racy):
        settle = bool(cached.racy) and settled(listing, cached.racy)
        if settle or cached.guard != guard:
            if settle:  # checked once more, now out of the window: the stat suffices
                from .index import FEW_FILES, settle_cache

                if len(cached.racy) > FEW_FILES:  # a bulk copy: the cached index's digests too
                    settle_cache(vault, cached.racy)  # (a few cost less to read than it)
                cached.racy = {}
            cached.guard = guard  # a settings file touched, its settings the same
            save(path, cached)
        return cached
    racy = racy_digests(vault, listing) if key else {}
    fresh: Fresh = {}  # the changed files a patch read
    if key and cached is None:  # a few pages changed since: patch (summary_patch)
        from .sidecar import Unreadable
        from .summary_patch import refresh

        try:
            patched = refresh(vault, path, kept, listing, key, base, racy, guard, exclude, fresh)
        except Unreadable:  # a side file that reads only in part: rebuilt
            patched = None
        if patched is not None:
            return patched
    from .vault import PageFile

    files = list(map(PageFile._make, listing))
    if key and instead is not None:
        found = instead(files, warnings, fresh)
        found.guard = guard  # what the warm path reads of the settings (the default window)
        return found
    with paused_gc():  # every object built here lives until the answer is printed
        graph = build((files, warnings))
        built = Summary.of(graph, key or "")
        built.racy, built.guard = racy, guard
        if key:
            from .sidecar import remember

            built.folded()  # kept in its base: else the first page to come folds every name
            save(path, built)
            remember(path, graph, built, listing, base)  # digested already (`walk.blocks`)
    return built


def _first_query(vault: Vault) -> bool:
    """Whether no index of the vault is cached either: then the first pass (`firstpass`)
    reuses nothing by its stat and reads every file, which tells its size, so the vault is
    listed without a stat per file (a tenth of that pass at 20,000 pages); the summary it
    makes is not kept, and the one that is (`rebuild.warm_up`) lists it anew."""
    from .index import cache_path

    return not os.path.exists(cache_path(vault))


def _guard(vault: Vault, fingerprint: str, excluded: str, was: dict[str, Any]) -> dict[str, Any]:
    """What the warm path (`quick`) checks instead of opening the vault: the stat of every file
    and folder the settings come from (`flavors.SETTINGS_FILES`), and what those settings gave
    (the fingerprint of the cache, the walk's rules, the default window, the excluded pages).
    ``was``: the cached summary's, whose watcher's place is kept while what it depends on holds
    (finding it anew reads the person's config file)."""
    import sys

    from . import __version__
    from .derived import DEFAULT_DAYS
    from .flavors import SETTINGS_FILES
    from .walk import probe

    root = os.path.realpath(vault.where)
    return {
        "root": root,
        "version": __version__,
        "python": list(sys.version_info[:2]),
        "settings": probe(root, SETTINGS_FILES),
        "fingerprint": fingerprint,
        "exclude": excluded,
        "extensions": list(vault.settings.extensions),
        "hidden": list(vault.settings.hidden),
        "skipped": list(vault.settings.skipped),
        "days": vault.own_config.days or DEFAULT_DAYS,
        "watch": was["watch"] if watch_holds(was.get("watch")) else _watch_guard(vault),
    }


def _watch_guard(vault: Vault) -> dict[str, Any] | None:
    """Where the warm path finds what a running watcher vouches for (`watchstamp`): the state
    folder, and what its place depends on (the environment, the person's config file)."""
    from .errors import JournalAgentError
    from .state import STATE_ENV, StateDir
    from .userconfig import CONFIG_ENV, config_path
    from .walk import probe

    try:
        folder = os.path.realpath(StateDir.of(vault.root).path)
        config = probe("", (str(config_path()),))[0]
    except JournalAgentError:  # a config file in error: the CLI says so
        return None
    env = {k: os.environ.get(k) for k in (STATE_ENV, CONFIG_ENV, "XDG_CONFIG_HOME", "HOME")}
    return {"folder": folder, "config": config, "env": env}


def watch_holds(watch: dict[str, Any] | None) -> bool:
    """Whether the place a `_watch_guard` found still holds: the environment and the person's
    config file it depends on are as they were."""
    from .walk import probe

    if not watch or any(os.environ.get(k) != v for k, v in watch["env"].items()):
        return False
    return probe("", (watch["config"][0],)) == [watch["config"]]


def _watcher_asked(vault: Vault) -> bool:
    """Whether the warm path that handed this process the vault's summary (`summary_store.HANDED`)
    asked the running watcher, if any, moments ago, where the summary's guard says it keeps its
    state (`quick.watched`: while `watch_holds`); finding that place anew reads the person's
    config file, with platformdirs. A watcher that vouched since is not needed: the stat of
    every file is the check it saves."""
    handed = stored.HANDED
    return (
        handed is not None
        and handed[0] == summary_path(vault)
        and watch_holds(handed[1].guard.get("watch"))
    )


def settled(files: Sequence[Stat], racy: dict[str, bytes]) -> bool:
    """Whether every racily clean file has left the racy window: its bytes, just found the
    same, can no longer change without its stat changing (after a bulk copy or checkout every
    file is racy, and each run would read them all again)."""
    import time

    from .index import RACY_NS
    from .walk import changed_after

    return not any(f[0] in racy for f in changed_after(files, time.time_ns() - RACY_NS))
