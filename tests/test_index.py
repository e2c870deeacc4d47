"""The index cache: reused only while nothing it was derived from changed.

Every case changes the vault (or the cache) in one way, then checks three things:

* how many files the cached load had to read again (``Index.rescanned``);
* that its answer is the one a full scan gives (``use_cache=False``): the same facts per file,
  the same warnings, the same derived status of every topic;
* the exact status or timeline the change must produce, through the public API.

A cached load that rescanned something also leaves a cache the next run fully reuses.
"""

from __future__ import annotations

import datetime as dt
import json
import marshal
import os
import pickle
import random
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from journal_agent import api
from journal_agent.errors import PageNotFound
from journal_agent.facts import PageFacts, facts_bytes, facts_from
from journal_agent.index import Index, cache_path, load_index
from journal_agent.queries import Graph, all_topics
from journal_agent.vault import open_vault

from .conftest import past_racy, settle

AS_OF = dt.date(2026, 11, 30)
DAYS = 21
FILES = 44  # page files of sample_vault/: 26 journals and 18 pages


# -- helpers ---------------------------------------------------------------------------------------


def index(vault: Path, *, use_cache: bool = True) -> Index:
    return load_index(open_vault(vault, use_cache=use_cache), use_cache=use_cache)


def answer(idx: Index) -> dict[str, dict[str, Any]]:
    """Every topic's derived status as of AS_OF, by title."""
    return {t.page.title: t.to_json() for t in all_topics(Graph(idx), AS_OF, DAYS)}


def full_scan(vault: Path) -> Index:
    return index(vault, use_cache=False)


def refresh(vault: Path, rescanned: int) -> dict[str, dict[str, Any]]:
    """A cached load rescans exactly ``rescanned`` files and answers exactly as a full scan does;
    the cache it leaves is then fully reused, with the same answer."""
    idx = index(vault)
    assert idx.rescanned == rescanned
    truth = full_scan(vault)
    assert idx.files == truth.files
    assert idx.warnings == truth.warnings
    got = answer(idx)
    assert got == answer(truth)
    again = index(vault)
    assert again.rescanned == 0
    assert again.files == truth.files and again.warnings == truth.warnings
    cached = api.topics(vault=vault, as_of=AS_OF)
    uncached = api.topics(vault=vault, as_of=AS_OF, use_cache=False)
    assert cached.to_json() == uncached.to_json() and cached.warnings == uncached.warnings
    return got


def status(vault: Path, topic: str, *, use_cache: bool = True) -> dict[str, Any]:
    return api.status(topic, vault=vault, as_of=AS_OF, use_cache=use_cache).to_json()


def timeline(vault: Path, topic: str, *, use_cache: bool = True) -> list[dict[str, Any]]:
    result = api.timeline(topic, vault=vault, as_of=AS_OF, use_cache=use_cache)
    entries: list[dict[str, Any]] = result.to_json()["entries"]
    return entries


def topic(
    title: str, path: str | None, state: str, last: str | None, silent: int | None, mentions: int
) -> dict[str, Any]:
    return {
        "topic": title,
        "path": path,
        "status": state,
        "last_mentioned": last,
        "days_silent": silent,
        "mentions": mentions,
    }


def warm(vault: Path) -> dict[str, dict[str, Any]]:
    """Build the cache (a cold run reads every file) and return the answer."""
    idx = index(vault)
    assert idx.rescanned == FILES
    return answer(idx)


def bump_mtime(path: Path, seconds: int = 1) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 10**9))


def append_line(path: Path, line: str) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text + ("" if text.endswith("\n") else "\n") + line + "\n", encoding="utf-8")


ERGONOMICS = topic("Ergonomics", "pages/Ergonomics.md", "active", "2026-11-18", 12, 1)
ERGONOMICS_UNMENTIONED = topic("Ergonomics", "pages/Ergonomics.md", "unmentioned", None, None, 0)
ERGONOMICS_JOURNAL = "journals/2026_11_18.md"  # "- LATER look at [[Ergonomics]] checklist again"


# -- cold, then warm -------------------------------------------------------------------------------


def test_first_run_builds_the_cache_second_run_reads_no_file(logseq_vault: Path) -> None:
    path = cache_path(open_vault(logseq_vault))
    assert not path.exists()
    cold = index(logseq_vault)
    assert cold.rescanned == FILES == len(cold.files)
    assert path.is_file()
    second = index(logseq_vault)
    assert second.rescanned == 0
    assert second.files == cold.files == full_scan(logseq_vault).files
    assert answer(second) == answer(cold)
    assert status(logseq_vault, "Atlas Migration") == topic(
        "Atlas Migration", "pages/Atlas Migration.md", "active", "2026-11-25", 5, 23
    )


# -- files changed, added, deleted, renamed --------------------------------------------------------


def test_edited_journal_is_rescanned_and_a_stale_topic_becomes_active(logseq_vault: Path) -> None:
    before = warm(logseq_vault)
    assert before["Vendor Contract"]["status"] == "stale"
    append_line(logseq_vault / "journals/2026_11_27.md", "- [[Vendor Contract]] signed with Acme")
    after = refresh(logseq_vault, 1)
    expected = topic("Vendor Contract", "pages/Vendor Contract.md", "active", "2026-11-27", 3, 6)
    assert after["Vendor Contract"] == expected
    assert status(logseq_vault, "Vendor Contract") == expected
    assert timeline(logseq_vault, "Vendor Contract")[0] == {
        "date": "2026-11-27",
        "page": "Nov 27th, 2026",
        "path": "journals/2026_11_27.md",
        "line": 2,
        "text": "[[Vendor Contract]] signed with Acme",
        "resolution": False,
    }


def test_new_journal_file_is_picked_up(logseq_vault: Path) -> None:
    warm(logseq_vault)
    (logseq_vault / "journals/2026_11_29.md").write_text(
        "- Ordered a standing desk #[[Home Office]]\n", encoding="utf-8"
    )
    after = refresh(logseq_vault, 1)
    assert after["Home Office"] == topic(
        "Home Office", "pages/Home Office.md", "active", "2026-11-29", 1, 4
    )
    assert "journals/2026_11_29.md" in index(logseq_vault).files


def test_deleted_journal_takes_its_mentions_with_it(logseq_vault: Path) -> None:
    before = warm(logseq_vault)
    assert before["Flaky CI"]["status"] == "resolved"  # "DONE [[Flaky CI]]" on 2026-11-10
    (logseq_vault / "journals/2026_11_10.md").unlink()
    after = refresh(logseq_vault, 0)
    assert after["Flaky CI"] == topic("Flaky CI", "pages/Flaky CI.md", "stale", "2026-10-13", 48, 7)
    assert "journals/2026_11_10.md" not in index(logseq_vault).files
    paths = {e["path"] for e in timeline(logseq_vault, "Flaky CI")}
    assert "journals/2026_11_10.md" not in paths


def test_deleted_page_nobody_links_is_no_longer_a_topic(logseq_vault: Path) -> None:
    assert warm(logseq_vault)["Plain Ideas"]["status"] == "unmentioned"
    (logseq_vault / "pages/Plain Ideas.md").unlink()
    assert "Plain Ideas" not in refresh(logseq_vault, 0)
    with pytest.raises(PageNotFound):
        status(logseq_vault, "Plain Ideas")


def test_renamed_page_changes_its_title(logseq_vault: Path) -> None:
    warm(logseq_vault)
    (logseq_vault / "pages/Ergonomics.md").rename(logseq_vault / "pages/Posture.md")
    after = refresh(logseq_vault, 1)  # same inode, size and mtime: a new path is a new entry
    files = index(logseq_vault).files
    assert "pages/Ergonomics.md" not in files
    assert files["pages/Posture.md"].title == "Posture"
    assert after["Posture"] == topic("Posture", "pages/Posture.md", "unmentioned", None, None, 0)
    # Logseq keeps a referenced page without a file: the old title is now such a page
    assert after["Ergonomics"] == topic("Ergonomics", None, "active", "2026-11-18", 12, 1)
    assert status(logseq_vault, "Ergonomics")["path"] is None


def test_renamed_page_keeping_its_old_name_as_alias_keeps_the_cached_backlinks(
    logseq_vault: Path,
) -> None:
    """References are resolved at query time, so the journals that name the old title are not
    read again: only the renamed page is."""
    warm(logseq_vault)
    old = logseq_vault / "pages/Ergonomics.md"
    new = logseq_vault / "pages/Posture.md"
    new.write_text("alias:: Ergonomics\n\n" + old.read_text(encoding="utf-8"), encoding="utf-8")
    old.unlink()
    after = refresh(logseq_vault, 1)
    assert after["Posture"] == topic("Posture", "pages/Posture.md", "active", "2026-11-18", 12, 1)
    assert status(logseq_vault, "Ergonomics")["topic"] == "Posture"


def test_renamed_journal_moves_its_mentions_to_the_new_day(logseq_vault: Path) -> None:
    warm(logseq_vault)
    (logseq_vault / ERGONOMICS_JOURNAL).rename(logseq_vault / "journals/2026_11_19.md")
    after = refresh(logseq_vault, 1)
    assert after["Ergonomics"] == topic(
        "Ergonomics", "pages/Ergonomics.md", "active", "2026-11-19", 11, 1
    )
    newest = timeline(logseq_vault, "Ergonomics")[0]
    assert (newest["date"], newest["page"], newest["path"]) == (
        "2026-11-19",
        "Nov 19th, 2026",
        "journals/2026_11_19.md",
    )


# -- what counts as a change: mtime, size, inode ---------------------------------------------------


def test_touched_file_is_rescanned_and_answers_the_same(logseq_vault: Path) -> None:
    before = warm(logseq_vault)
    page = logseq_vault / "journals/2026_11_24.md"
    content = page.read_bytes()
    bump_mtime(page)
    assert refresh(logseq_vault, 1) == before
    assert page.read_bytes() == content


def test_same_size_rewrite_with_a_new_mtime_changes_the_answer(logseq_vault: Path) -> None:
    assert warm(logseq_vault)["Ergonomics"] == ERGONOMICS
    page = logseq_vault / ERGONOMICS_JOURNAL
    old = page.stat()
    page.write_bytes(page.read_bytes().replace(b"[[Ergonomics]]", b"[[Ergonomica]]"))
    os.utime(page, ns=(old.st_atime_ns, old.st_mtime_ns + 10**9))
    assert (page.stat().st_size, page.stat().st_ino) == (old.st_size, old.st_ino)
    after = refresh(logseq_vault, 1)
    assert after["Ergonomics"] == ERGONOMICS_UNMENTIONED
    assert status(logseq_vault, "Ergonomics") == ERGONOMICS_UNMENTIONED


def test_atomic_replace_with_same_mtime_and_size_is_caught_by_the_inode(logseq_vault: Path) -> None:
    assert warm(logseq_vault)["Ergonomics"] == ERGONOMICS
    page = logseq_vault / ERGONOMICS_JOURNAL
    old = page.stat()
    tmp = page.with_name(".2026_11_18.md.tmp")
    tmp.write_bytes(page.read_bytes().replace(b"[[Ergonomics]]", b"[[Ergonomica]]"))
    os.utime(tmp, ns=(old.st_atime_ns, old.st_mtime_ns))
    os.replace(tmp, page)
    new = page.stat()
    assert (new.st_mtime_ns, new.st_size) == (old.st_mtime_ns, old.st_size)
    assert new.st_ino != old.st_ino
    after = refresh(logseq_vault, 1)
    assert after["Ergonomics"] == ERGONOMICS_UNMENTIONED


def test_same_size_rewrite_with_its_mtime_set_back_is_caught_by_the_ctime(
    logseq_vault: Path, short_racy_window: int
) -> None:
    """An edit in place that keeps the size and sets the old mtime back (``cp -p`` over the
    file, ``rsync --inplace``, a tool that preserves times), long after the index was written:
    the inode's change time, which no one can set back, still says it changed (git's check)."""
    past_racy(logseq_vault)
    assert warm(logseq_vault)["Ergonomics"] == ERGONOMICS
    page = logseq_vault / ERGONOMICS_JOURNAL
    old = page.stat()
    with open(page, "r+b") as f:  # in place: the same inode
        data = f.read()
        f.seek(0)
        f.write(data.replace(b"[[Ergonomics]]", b"[[Ergonomica]]"))
    os.utime(page, ns=(old.st_atime_ns, old.st_mtime_ns))
    new = page.stat()
    assert (new.st_mtime_ns, new.st_size, new.st_ino) == (old.st_mtime_ns, old.st_size, old.st_ino)
    past_racy(logseq_vault)  # out of the racy window: the stat alone decides
    after = refresh(logseq_vault, 1)
    assert after["Ergonomics"] == ERGONOMICS_UNMENTIONED
    assert status(logseq_vault, "Ergonomics") == ERGONOMICS_UNMENTIONED


def test_same_size_rewrite_within_one_mtime_tick_is_noticed(logseq_vault: Path) -> None:
    """A file indexed in the same clock tick as its last write (coarse clocks: FAT 2 s, HFS+
    1 s) can be rewritten with the same size and mtime: its bytes are compared on the next run."""
    page = logseq_vault / ERGONOMICS_JOURNAL
    page.write_bytes(page.read_bytes())  # just written: indexed while "racily clean"
    tick = page.stat().st_mtime_ns
    assert warm(logseq_vault)["Ergonomics"] == ERGONOMICS
    page.write_bytes(page.read_bytes().replace(b"[[Ergonomics]]", b"[[Ergonomica]]"))
    os.utime(page, ns=(tick, tick))  # what a coarse clock leaves: the same timestamp
    assert answer(index(logseq_vault))["Ergonomics"] == ERGONOMICS_UNMENTIONED


def test_the_pickled_cache_of_an_earlier_version_is_removed(logseq_vault: Path) -> None:
    path = cache_path(open_vault(logseq_vault))
    legacy = path.with_suffix(".pickle")
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_bytes(b"an index an earlier version wrote")
    index(logseq_vault)
    assert path.is_file() and not legacy.exists()


def test_old_files_are_not_read_again_on_warm_runs(
    logseq_vault: Path, short_racy_window: int
) -> None:
    """Only recently written files keep a digest; a warm run reads no other file."""
    settle(logseq_vault)
    assert index(logseq_vault).rescanned == FILES
    data = marshal.loads(cache_path(open_vault(logseq_vault)).read_bytes())
    assert all(entry[4] is None for entry in data["files"].values())


# -- the encoding of a file's facts ------------------------------------------------------------

_names = st.text(max_size=8)
_some = st.lists(_names, max_size=2).map(tuple)
_mention = st.tuples(_names, st.integers(0, 10**6), st.booleans(), _names)


@settings(max_examples=300, deadline=None)
@given(
    st.builds(
        PageFacts,
        _names,
        st.none() | st.dates(),
        _some,
        st.none() | _names,
        _some,
        _some,
        st.lists(_mention, max_size=3).map(tuple),
        _some,
        _some,
    )
)
@example(PageFacts("a page", None, (), "", (), (), (), (), ()))  # its tombstone empty, not none
def test_facts_read_back_as_encoded_with_or_without_their_mentions(facts: PageFacts) -> None:
    """The fields a page leaves empty are left out of the encoding and read back as they were
    (an empty tombstone is not no tombstone); without mentions, the rest is the same."""
    data = facts_bytes(facts)
    assert facts_from(data) == facts
    assert facts_from(data, mentions=False) == facts._replace(mentions=())


# -- a corrupt or foreign cache --------------------------------------------------------------------


def _corrupt(kind: str, valid: bytes) -> bytes:
    if kind == "truncated":
        return valid[: len(valid) // 2]
    if kind == "random":
        return random.Random(7).randbytes(len(valid))
    if kind == "empty":
        return b""
    if kind == "pickled list":
        return pickle.dumps([1, 2, 3])
    if kind == "pickled dict without the keys":
        return pickle.dumps({"version": 1})
    if kind == "marshalled list":
        return marshal.dumps([1, 2, 3])
    if kind == "other fingerprint":
        data = marshal.loads(valid)
        return marshal.dumps({"fingerprint": "0" * 64, "files": data["files"]})
    if kind in ("one file's facts garbage", "one file's facts of another shape"):
        data = marshal.loads(valid)
        mtime, size, inode, _facts, digest = data["files"][ERGONOMICS_JOURNAL]
        bad = b"\xff" * 9 if kind.endswith("garbage") else marshal.dumps(("title", None))
        data["files"][ERGONOMICS_JOURNAL] = (mtime, size, inode, bad, digest)
        return marshal.dumps(data)
    if kind == "pickle of an earlier version":
        return b"cjournal_agent_no_such_module\nThing\n."  # a class of a module that is gone
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind",
    [
        "truncated",
        "random",
        "empty",
        "pickled list",
        "pickled dict without the keys",
        "marshalled list",
        "other fingerprint",
        "one file's facts garbage",
        "one file's facts of another shape",
        "pickle of an earlier version",
    ],
)
def test_corrupt_cache_is_rebuilt_silently(
    logseq_vault: Path, kind: str, capfd: pytest.CaptureFixture[str]
) -> None:
    before = warm(logseq_vault)
    path = cache_path(open_vault(logseq_vault))
    path.write_bytes(_corrupt(kind, path.read_bytes()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert refresh(logseq_vault, 1 if kind.startswith("one file") else FILES) == before
        assert status(logseq_vault, "Ergonomics") == ERGONOMICS
    assert caught == []
    assert capfd.readouterr() == ("", "")


def test_cache_folder_that_cannot_be_written_only_costs_speed(
    logseq_vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("JOURNAL_AGENT_CACHE", str(blocker))
    for _ in range(2):
        idx = index(logseq_vault)
        assert idx.rescanned == FILES and idx.warnings == []
        assert idx.files == full_scan(logseq_vault).files
    assert blocker.read_text() == "a file where the cache folder should be"
    assert capfd.readouterr() == ("", "")


def test_cache_written_for_other_settings_is_rebuilt(logseq_vault: Path) -> None:
    warm(logseq_vault)
    assert timeline(logseq_vault, "Atlas Migration")[0]["page"] == "Nov 25th, 2026"
    config = logseq_vault / "logseq/config.edn"
    text = config.read_text(encoding="utf-8")
    assert ':journal/page-title-format "MMM do, yyyy"' in text
    config.write_text(text.replace('"MMM do, yyyy"', '"yyyy-MM-dd"'), encoding="utf-8")
    refresh(logseq_vault, FILES)  # config.edn is no page: only the settings tell
    assert index(logseq_vault).files["journals/2026_11_25.md"].title == "2026-11-25"
    newest = timeline(logseq_vault, "Atlas Migration")[0]
    assert (newest["date"], newest["page"]) == ("2026-11-25", "2026-11-25")


# -- use_cache=False -------------------------------------------------------------------------------


def test_use_cache_false_never_writes_the_cache(logseq_vault: Path, tmp_path: Path) -> None:
    path = cache_path(open_vault(logseq_vault, use_cache=False))
    assert full_scan(logseq_vault).rescanned == FILES
    api.topics(vault=logseq_vault, as_of=AS_OF, use_cache=False)
    api.stale(vault=logseq_vault, as_of=AS_OF, use_cache=False)
    assert status(logseq_vault, "Ergonomics", use_cache=False) == ERGONOMICS
    timeline(logseq_vault, "Ergonomics", use_cache=False)
    assert not path.exists()
    assert not (tmp_path / "cache").exists()


def test_use_cache_false_never_reads_the_cache(logseq_vault: Path) -> None:
    """A cache that lies about one file (its stat unchanged) is believed by a cached run and
    ignored, and left untouched, by an uncached one."""
    warm(logseq_vault)
    path = cache_path(open_vault(logseq_vault))
    data = marshal.loads(path.read_bytes())
    mtime, size, inode, blob, digest = data["files"][ERGONOMICS_JOURNAL]
    facts = facts_from(blob)
    lie = facts_bytes(facts._replace(mentions=()))
    data["files"][ERGONOMICS_JOURNAL] = (mtime, size, inode, lie, digest)
    path.write_bytes(marshal.dumps(data))
    lying = path.read_bytes()
    stamp = path.stat().st_mtime_ns
    assert status(logseq_vault, "Ergonomics")["status"] == "unmentioned"  # the lie is believed
    assert full_scan(logseq_vault).files[ERGONOMICS_JOURNAL] == facts
    assert status(logseq_vault, "Ergonomics", use_cache=False) == ERGONOMICS
    assert timeline(logseq_vault, "Ergonomics", use_cache=False)[0]["path"] == ERGONOMICS_JOURNAL
    assert (path.read_bytes(), path.stat().st_mtime_ns) == (lying, stamp)


# -- processes -----------------------------------------------------------------------------------

CHILD = r"""
import datetime as dt, json, os, sys, time
from journal_agent.index import load_index
from journal_agent.queries import Graph, all_topics
from journal_agent.vault import open_vault

vault, ready, go = sys.argv[1:4]
v = open_vault(vault)
open(ready, "w").close()
deadline = time.monotonic() + 60
while not os.path.exists(go):
    if time.monotonic() > deadline:
        sys.exit("no start signal")
    time.sleep(0.001)
idx = load_index(v)
topics = all_topics(Graph(idx), dt.date(2026, 11, 30), 21)
print(json.dumps({"rescanned": idx.rescanned, "warnings": idx.warnings,
                  "topics": {t.page.title: t.to_json() for t in topics}}))
"""


def _env(seed: int) -> dict[str, str]:
    # One hash seed for every process of a test: the cache fingerprint currently depends on it
    # (see test_warm_cache_is_reused_by_a_process_with_another_hash_seed).
    return dict(os.environ, PYTHONHASHSEED=str(seed))


def run_together(vault: Path, folder: Path, count: int, seed: int = 0) -> list[dict[str, Any]]:
    """Start ``count`` processes that load the index of ``vault`` at the same moment."""
    folder.mkdir(parents=True)
    go = folder / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(vault), str(folder / f"ready{n}"), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(seed),
            cwd=folder,
        )
        for n in range(count)
    ]
    deadline = time.monotonic() + 60
    while not all((folder / f"ready{n}").exists() for n in range(count)):
        assert time.monotonic() < deadline, "children did not start"
        assert all(c.poll() is None for c in children), [c.communicate() for c in children]
        time.sleep(0.005)
    go.touch()
    results = []
    for child in children:
        out, err = child.communicate(timeout=60)
        assert (child.returncode, err) == (0, "")
        results.append(json.loads(out))
    return results


def _round_changes(vault: Path, n: int) -> int:
    """Change the vault before round ``n``; return how many files a warm run must read."""
    if n == 0:
        return FILES  # cold
    if n == 1:
        append_line(vault / "journals/2026_11_27.md", "- [[Vendor Contract]] signed with Acme")
        return 1
    if n == 2:
        (vault / "journals/2026_11_29.md").write_text("- #[[Home Office]] desk\n", "utf-8")
        bump_mtime(vault / "journals/2026_11_24.md")
        return 2
    if n == 3:
        (vault / "journals/2026_11_10.md").unlink()
        (vault / "pages/Ergonomics.md").rename(vault / "pages/Posture.md")
        return 1
    page = vault / ERGONOMICS_JOURNAL
    old = page.stat()
    page.write_bytes(page.read_bytes().replace(b"[[Ergonomics]]", b"[[Ergonomica]]"))
    os.utime(page, ns=(old.st_atime_ns, old.st_mtime_ns + 10**9))
    return 1


def test_two_processes_refreshing_at_once_leave_a_good_cache(
    logseq_vault: Path, tmp_path: Path
) -> None:
    path = cache_path(open_vault(logseq_vault))
    for n in range(5):
        changed = _round_changes(logseq_vault, n)
        truth = full_scan(logseq_vault)  # uncached: leaves the cache alone
        expected = answer(truth)
        for result in run_together(logseq_vault, tmp_path / f"round{n}", 2):
            # each read either the previous round's cache or the other's fresh one
            assert result["rescanned"] in (changed, 0)
            assert result["topics"] == expected
            assert result["warnings"] == truth.warnings
        assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]  # no temp left
        data = marshal.loads(path.read_bytes())
        assert sorted(data["files"]) == sorted(truth.files)
        (third,) = run_together(logseq_vault, tmp_path / f"round{n}-after", 1)
        assert third["rescanned"] == 0
        assert third["topics"] == expected


def test_warm_cache_is_reused_by_a_process_with_another_hash_seed(
    logseq_vault: Path, tmp_path: Path
) -> None:
    (first,) = run_together(logseq_vault, tmp_path / "first", 1, seed=0)
    assert first["rescanned"] == FILES
    (second,) = run_together(logseq_vault, tmp_path / "second", 1, seed=1)
    assert second["topics"] == first["topics"]
    assert second["rescanned"] == 0


# -- unreadable files ------------------------------------------------------------------------------

BAD = "journals/2026_11_29.md"
GOOD_TEXT = "- [[Backups]] café restore drill\n"


@pytest.mark.parametrize(
    "payload, reason",
    [
        (GOOD_TEXT.encode("latin-1"), "not UTF-8"),
        (b"- [[Backups]] \x00\x01\x02 restore drill\n", "binary"),
        (GOOD_TEXT.encode() + b"- " + b"x" * 9000 + b"\n- \x00 late\n", "binary"),  # past 8 KB
    ],
)
def test_unreadable_file_is_reported_cold_and_warm_and_picked_up_when_fixed(
    logseq_vault: Path, payload: bytes, reason: str
) -> None:
    bad = logseq_vault / BAD
    bad.write_bytes(payload)
    backups = topic("Backups", "pages/Backups.md", "active", "2026-11-20", 10, 2)
    for rescanned in (FILES + 1, 0):  # cold, then warm
        idx = index(logseq_vault)
        assert idx.rescanned == rescanned
        assert len(idx.warnings) == 1
        assert idx.warnings[0].startswith(BAD) and reason in idx.warnings[0]
        assert idx.warnings == full_scan(logseq_vault).warnings
        assert BAD not in idx.files
        assert answer(idx)["Backups"] == backups
    assert api.topics(vault=logseq_vault, as_of=AS_OF).warnings == idx.warnings
    bad.write_text(GOOD_TEXT, encoding="utf-8")
    after = refresh(logseq_vault, 1)
    assert index(logseq_vault).warnings == []
    assert after["Backups"] == topic("Backups", "pages/Backups.md", "active", "2026-11-29", 1, 3)


def test_file_that_could_not_be_read_is_read_again_once_it_can(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.open

    def denied(path: Any, flags: int, *args: Any, **kw: Any) -> int:
        if os.fspath(path).endswith("2026_11_18.md"):  # as a file root cannot be denied is
            raise PermissionError(13, "Permission denied", path)
        return real(path, flags, *args, **kw)

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", denied)
        idx = index(logseq_vault)
        assert [w.split(":")[0] for w in idx.warnings] == [ERGONOMICS_JOURNAL]
    idx = index(logseq_vault)
    assert idx.warnings == []
    assert answer(idx)["Ergonomics"] == ERGONOMICS


# -- growth ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, 1, 5, FILES])
def test_changing_k_files_rescans_exactly_k(logseq_vault: Path, k: int) -> None:
    warm(logseq_vault)
    files = sorted(p for p in logseq_vault.rglob("*.md") if "logseq" not in p.parts)
    assert len(files) == FILES
    chosen = random.Random(k).sample(files, k)
    for n, page in enumerate(chosen):
        append_line(page, f"- growth note {n} about [[Plain Ideas]]")
    after = refresh(logseq_vault, k)
    dated = sum(page.parent.name == "journals" for page in chosen)  # the pages' do not count
    assert after["Plain Ideas"]["mentions"] == dated


# -- the status summary ---------------------------------------------------------------------------


@pytest.mark.parametrize("as_of", ["2026-09-05", "2026-10-20", "2026-11-29", "2030-01-01"])
def test_the_cached_summary_answers_exactly_like_the_graph(logseq_vault: Path, as_of: str) -> None:
    long_ago = 1_700_000_000_000_000_000  # not racily clean: the summary may be used
    for path in logseq_vault.rglob("*.md"):
        os.utime(path, ns=(long_ago, long_ago))
    truth = api.topics(vault=logseq_vault, as_of=as_of, use_cache=False).to_json()
    built = api.topics(vault=logseq_vault, as_of=as_of).to_json()  # builds and saves it
    summary_file = cache_path(open_vault(logseq_vault)).with_suffix(".summary")
    assert summary_file.exists()
    loaded = api.topics(vault=logseq_vault, as_of=as_of).to_json()  # answers from it
    assert truth == built == loaded
    stale = api.stale(vault=logseq_vault, as_of=as_of, days=10).to_json()
    assert stale == api.stale(vault=logseq_vault, as_of=as_of, days=10, use_cache=False).to_json()


def test_the_summary_is_not_trusted_after_a_change(logseq_vault: Path) -> None:
    long_ago = 1_700_000_000_000_000_000
    for path in logseq_vault.rglob("*.md"):
        os.utime(path, ns=(long_ago, long_ago))
    before = api.status("Vendor Contract", vault=logseq_vault, as_of=AS_OF).to_json()
    api.topics(vault=logseq_vault, as_of=AS_OF)  # the summary now exists
    page = logseq_vault / "journals" / "2026_11_27.md"
    page.write_text(page.read_text() + "- [[Vendor Contract]] signed\n")
    after = {t["topic"]: t for t in api.topics(vault=logseq_vault, as_of=AS_OF).to_json()["topics"]}
    assert before["status"] == "stale" and after["Vendor Contract"]["status"] == "active"


@pytest.mark.parametrize("cores", [2, 3])
@pytest.mark.parametrize("chunk", [1, 3, 10_000])
def test_a_parallel_cold_scan_equals_a_serial_one(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch, cores: int, chunk: int
) -> None:
    """A large cold index is scanned by this process and forked workers, each taking every
    n-th file, the children sending theirs a chunk at a time; the result must be the same."""
    from journal_agent import workers
    from journal_agent.walk import can_fork

    serial = load_index(open_vault(logseq_vault), use_cache=False)
    monkeypatch.setattr(workers, "PARALLEL_MIN", 4)
    monkeypatch.setattr(workers, "CHUNK", chunk)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert can_fork()  # so the workers really run
    parallel = load_index(open_vault(logseq_vault), use_cache=False)
    assert parallel.files == serial.files and parallel.warnings == serial.warnings
    assert parallel.rescanned == serial.rescanned == FILES


@pytest.mark.parametrize("sends", ["nothing", "a cut chunk", "an error", "a wrong chunk"])
def test_a_child_that_fails_has_its_chunks_scanned_here(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch, sends: str
) -> None:
    """A forked child that fails sends nothing, part of a chunk, or a chunk that is not one:
    this process scans those chunks itself, and no child is left behind."""
    from journal_agent import workers
    from journal_agent.walk import can_fork

    serial = load_index(open_vault(logseq_vault), use_cache=False)
    monkeypatch.setattr(workers, "PARALLEL_MIN", 4)
    monkeypatch.setattr(workers, "CHUNK", 2)
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert can_fork()
    child = workers._Shares._child

    def failing(shares: Any, k: int) -> Iterator[bytes]:  # runs in the children only
        frames = child(shares, k)
        if sends == "nothing":
            return
        yield next(frames)  # one whole chunk
        if sends == "an error":
            raise OSError("the child's own failure")
        if sends == "a wrong chunk":
            yield workers._FRAME.pack(k, 1, 5) + b"12345"
        else:
            yield next(frames)[:-7]

    monkeypatch.setattr(workers._Shares, "_child", failing)
    parallel = load_index(open_vault(logseq_vault), use_cache=False)
    assert parallel.files == serial.files and parallel.warnings == serial.warnings
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("slow", ["the child", "this process"])
def test_the_chunks_a_slow_process_has_not_begun_are_done_by_the_other(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch, slow: str
) -> None:
    """This process, done with its own share, takes over a child's last chunks that the child
    has not begun, instead of waiting for it, and a child done first takes over this process's
    the same way: the results are the same, and the slow one stops early."""
    from journal_agent import workers
    from journal_agent.vault import PageFile

    monkeypatch.setattr(workers, "PARALLEL_MIN", 4)
    monkeypatch.setattr(workers, "CHUNK", 1)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    vault = open_vault(logseq_vault)
    files = [PageFile._make(stat) for stat in vault.listing([])]
    here, done_here = os.getpid(), []

    def work(_vault: Any, file: PageFile) -> str:
        if os.getpid() == here:
            done_here.append(file.rel)
        if (os.getpid() == here) == (slow == "this process"):
            time.sleep(0.2)  # a process on a busy core
        return file.rel.upper()

    started = time.monotonic()
    found = workers.each_file(vault, files, work)
    took = time.monotonic() - started
    assert found == {f.rel: f.rel.upper() for f in files}
    mine = len(files[0::2])
    if slow == "the child":  # most of the child's share done here
        assert len(done_here) > mine + (len(files) - mine) // 2
    else:  # most of this process's share done by the child
        assert len(done_here) < mine // 2 + 1
    assert took < 0.2 * len(files) / 4
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_chunks_are_read_back_whatever_pieces_the_pipe_gives() -> None:
    """A child's frames arrive in pieces of any size: each is taken once it is whole."""
    import random

    from journal_agent.workers import _FRAME, frames_in

    rng = random.Random(7)
    for _ in range(200):
        sent = [
            (rng.randint(0, 3), n, rng.randbytes(rng.choice([0, 1, 5, 300])))
            for n in range(rng.randint(0, 6))
        ]
        stream = b"".join(_FRAME.pack(k, n, len(data)) + data for k, n, data in sent)
        got, pending, at = [], bytearray(), 0
        while at < len(stream) or pending:
            step = rng.randint(0, 40)
            pending += stream[at : at + step]
            at += step
            done, frames = frames_in(pending)
            got += frames
            del pending[:done]
            if at >= len(stream):
                assert not pending
                break
        assert got == sent


def test_an_error_here_ends_the_children_at_once(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When this process's own share fails, the children's work is not wanted: they are ended,
    not waited for, and none is left behind."""
    from journal_agent import workers
    from journal_agent.vault import PageFile

    monkeypatch.setattr(workers, "PARALLEL_MIN", 4)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    vault = open_vault(logseq_vault)
    files = [PageFile._make(stat) for stat in vault.listing([])]
    here = os.getpid()

    def work(_vault: Any, _file: Any) -> None:
        if os.getpid() == here:
            raise RuntimeError("this process's share failed")
        time.sleep(60)  # a child's long share

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="share failed"):
        workers.each_file(vault, files, work)
    assert time.monotonic() - started < 30
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_the_digests_are_hashlibs() -> None:
    """`digests` skips importing OpenSSL, not the algorithms: a different digest would rename
    the cache files and, worse, the state folder holding the ledger (`state.vault_slug`)."""
    import hashlib

    from journal_agent import digests

    for data in (b"", b"- [[Atlas]] shipped", bytes(range(256)) * 9):
        assert digests.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        ours, theirs = digests.blake2b(data, digest_size=16), hashlib.blake2b(data, digest_size=16)
        assert ours.digest() == theirs.digest()
    assert digests.sha256(b"abc").hexdigest().startswith("ba7816bf8f01cfea")  # FIPS 180-2


def test_warm_runs_import_neither_the_workers_nor_pickle() -> None:
    """The many-file scan (`workers`: pickle, mmap) is imported when it runs, not with the
    library: a timeline, an append or a hook on a warm cache never scans many files."""
    code = (
        "import sys, journal_agent.api, journal_agent.index, journal_agent.loop;"
        " print(sorted({'journal_agent.workers', 'pickle', 'mmap'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
