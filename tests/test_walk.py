"""walk: the vault's listing, and `relisted`, which a running watcher uses to list the vault
again by stat-ing only the paths its file events name. After random file changes, it must equal
a full listing exactly (the stamp of every cached answer is made of it), its block digests too,
or say that only a full listing can tell."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from journal_agent import walk
from journal_agent.walk import BLOCK, blocks, page_files, relisted

EXTENSIONS = (".md", ".org")
HIDDEN = ("Private/",)
SKIPPED = ("assets", "logseq")  # a Logseq graph's (`flavors.LOGSEQ_SKIPPED`)
FOLDERS = ["", "pages/", "journals/", "pages/sub/", "pages/sub/deep/", "Private/", "assets/",
           "logseq/", "pages/.dot/", "pages/assets/", "new/", "new/deeper/"]  # fmt: skip
NAMES = ["a.md", "B.MD", "c.org", "d.txt", ".e.md", "f g.md", "ü.md", "h.markdown"]


def listing(root: Path) -> tuple[list[walk.Stat], list[str], list[str]]:
    warnings: list[str] = []
    links: list[str] = []
    files = page_files(str(root), EXTENSIONS, HIDDEN, SKIPPED, warnings, links=links)
    return files, warnings, links


def change(root: Path, rng: random.Random) -> set[str]:
    """One random change below ``root``; the paths a file event would name for it."""
    existing = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    kind = rng.choice(["write", "write", "write", "delete", "rename", "folder-gone", "touch"])
    if kind in ("delete", "rename", "touch") and existing:
        rel = rng.choice(existing)
        if kind == "delete":
            (root / rel).unlink()
            return {rel}
        if kind == "touch":
            os.utime(root / rel, ns=(rng.randrange(10**18), rng.randrange(10**18)))
            return {rel}
        dest = rng.choice(FOLDERS) + rng.choice(NAMES)
        (root / dest).parent.mkdir(parents=True, exist_ok=True)
        if (root / dest).is_dir():
            return set()
        os.replace(root / rel, root / dest)
        return {rel, dest}
    if kind == "folder-gone":
        folder = rng.choice(FOLDERS[1:])
        gone = {p.relative_to(root).as_posix() for p in (root / folder).rglob("*") if p.is_file()}
        shutil.rmtree(root / folder, ignore_errors=True)
        return gone
    rel = rng.choice(FOLDERS) + rng.choice(NAMES)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("- x\n" * rng.randrange(1, 5))
    return {rel}


def test_unlisted_says_of_each_path_what_the_listing_does(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    for folder in FOLDERS:
        for name in NAMES:
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / name).write_text("- x\n")
    every = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    listed = {f[0] for f in listing(root)[0]}
    assert {
        rel for rel in every if walk.unlisted(rel, EXTENSIONS, HIDDEN, SKIPPED) is None
    } == listed
    assert (
        walk.unlisted("Private/a.md", EXTENSIONS, HIDDEN, SKIPPED)
        == "'Private/' is hidden by the vault's settings"
    )


@pytest.mark.parametrize("seed", range(12))
def test_relisted_equals_a_full_listing_after_random_changes(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    root = tmp_path / "vault"
    root.mkdir()
    for _ in range(30):
        change(root, rng)
    files, warnings, links = listing(root)
    assert warnings == [] and links == []
    blocks(files)  # digested, as a refresh digests it for the stamp
    for _ in range(60):
        changed: set[str] = set()
        for _ in range(rng.randrange(1, 4)):
            changed |= change(root, rng)
        again = relisted(str(root), EXTENSIONS, HIDDEN, SKIPPED, files, changed)
        full, _, _ = listing(root)
        assert again == full
        assert again is not files
        assert blocks(again) == walk._digests(full)[0]
        assert walk.newest(again) == max((f[1] for f in full), default=None)
        files = again


@pytest.mark.parametrize("digested", [False, True])
def test_files_changed_after_a_time_are_those_a_filter_finds(digested: bool) -> None:
    """`walk.changed_after` looks only in the blocks whose newest change is after the time (where
    the listing was digested): the same files, in the same order, as a filter over all."""
    rng = random.Random(7)
    for n in (0, 1, BLOCK - 1, BLOCK, 3 * BLOCK + 5):
        files = [(f"p{i:05}.md", rng.randrange(500 if i % 700 else 1000), 1, i) for i in range(n)]
        if digested:
            blocks(files)
        for after in (-1, 0, 500, 990, 999, 1000):
            assert list(walk.changed_after(files, after)) == [f for f in files if f[1] > after]


def test_relisted_digests_again_only_the_blocks_a_change_falls_in(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "pages").mkdir(parents=True)
    for i in range(3 * BLOCK):
        (root / "pages" / f"p{i:05}.md").write_text("- x\n")
    files, _, _ = listing(root)
    digests = blocks(files)
    (root / "pages" / "p01500.md").write_text("- changed\n")
    again = relisted(str(root), EXTENSIONS, HIDDEN, SKIPPED, files, {"pages/p01500.md"})
    assert again is not None
    fresh = blocks(again)
    assert fresh == walk._digests(again)[0]
    assert [a == b for a, b in zip(fresh, digests, strict=True)] == [True, False, True]


@pytest.mark.parametrize("what", ["file link", "folder link", "fifo", "folder named like a page"])
def test_relisted_leaves_what_is_not_plain_to_a_full_listing(tmp_path: Path, what: str) -> None:
    root = tmp_path / "vault"
    (root / "pages" / "sub").mkdir(parents=True)
    (root / "pages" / "sub" / "a.md").write_text("- a\n")
    files, _, _ = listing(root)
    if what == "file link":
        (root / "pages" / "b.md").symlink_to(root / "pages" / "sub" / "a.md")
        changed = {"pages/b.md"}
    elif what == "folder link":
        (root / "linked").symlink_to(root / "pages" / "sub")
        changed = {"linked/a.md"}
    elif what == "fifo":
        os.mkfifo(root / "pages" / "c.md")
        changed = {"pages/c.md"}
    else:
        (root / "pages" / "d.md").mkdir()
        changed = {"pages/d.md"}
    assert relisted(str(root), EXTENSIONS, HIDDEN, SKIPPED, files, changed) is None
    _, warnings, links = listing(root)
    assert warnings or links or what == "folder named like a page"


def test_a_full_listing_names_the_links_it_follows_and_the_folders_it_meets_twice(
    tmp_path: Path,
) -> None:
    root = tmp_path / "vault"
    (root / "pages").mkdir(parents=True)
    (root / "pages" / "a.md").write_text("- a\n")
    (root / "pages" / "b.md").symlink_to(root / "pages" / "a.md")
    (root / "again").symlink_to(root / "pages")
    files, warnings, links = listing(root)
    assert warnings == []
    assert len(files) == 2  # the folder reached twice is listed once; the file link is a page
    assert "again" in links and {"pages/", "again/"} & set(links)  # the folder met twice
    assert {"pages/b.md", "again/b.md"} & set(links)


FUTURE_NS = 4_000_000_000_123_456_789  # 2096


def split_vault(root: Path, n: int = 40) -> Path:
    """A vault whose folders hold enough page files for `walk._stat_split` once `SPLIT_STAT` is
    lowered: one dated before 1970, one in the future, some not pages."""
    for folder in ("pages", "journals", "pages/sub"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for k in range(n):
            (root / folder / f"p{k:03}.md").write_text("- x\n" * k)
        (root / folder / "notes.txt").write_text("not a page")
    os.utime(root / "pages" / "p007.md", ns=(-5_000_000_123, -5_000_000_123))  # 1969
    os.utime(root / "pages" / "p008.md", ns=(FUTURE_NS, FUTURE_NS))
    return root


@pytest.fixture
def split(monkeypatch: pytest.MonkeyPatch) -> None:
    """Folders of 8 page files or more are stat-ed by two processes."""
    if not walk.can_fork() or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("stat-ing in two processes needs Linux, two cores and no other thread")
    monkeypatch.setattr(walk, "SPLIT_STAT", 8)


def no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_listing_stat_ed_by_two_processes_is_the_one_of_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: None
) -> None:
    root = split_vault(tmp_path / "vault")
    forks: list[int] = []
    here: list[str] = []
    fork, stat_here = os.fork, walk._stat_here

    def counted_fork() -> int:
        forks.append(1)
        return fork()

    def counted_here(fd: int, prefix: str, names: list[str], *rest: list[Any]) -> None:
        here.extend(names)
        stat_here(fd, prefix, names, *rest)

    monkeypatch.setattr(os, "fork", counted_fork)
    monkeypatch.setattr(walk, "_stat_here", counted_here)
    two = listing(root)
    assert len(forks) == 3 and no_child_left()  # one per folder, each waited for
    assert len(here) == 60  # this process stat-ed half the files, the children the rest
    monkeypatch.setattr(walk, "SPLIT_STAT", 10**9)
    assert two == listing(root)
    # a file's change time is the later of its mtime and its ctime (`PageFile.changed_ns`)
    old, future = (root / "pages/p007.md").stat(), (root / "pages/p008.md").stat()
    assert ("pages/p007.md", old.st_ctime_ns, 7 * 4, old.st_ino) in two[0]
    assert ("pages/p008.md", FUTURE_NS, 8 * 4, future.st_ino) in two[0]


def test_a_file_gone_before_its_stat_is_skipped_with_a_warning_by_either_process(
    tmp_path: Path, split: None
) -> None:
    root = split_vault(tmp_path / "vault", 10)
    names = [f"p{k:03}.md" for k in range(10)]
    (root / "pages" / "p001.md").unlink()  # in the parent's half
    (root / "pages" / "p008.md").unlink()  # in the child's
    found: list[walk.Stat] = []
    warnings: list[str] = []
    fd = os.open(root / "pages", walk.DIR_FLAGS)
    try:
        walk._stat_split(fd, "pages/", names, found, warnings)
    finally:
        os.close(fd)
    assert [rel for rel, *_ in found] == [
        f"pages/{n}" for n in names if n not in ("p001.md", "p008.md")
    ]
    assert warnings == [
        "pages/p001.md: skipped: No such file or directory",
        "pages/p008.md: skipped: No such file or directory",
    ]


def test_a_child_that_fails_leaves_its_half_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: None
) -> None:
    root = split_vault(tmp_path / "vault")
    expected = listing(root)

    def fails(fd: int, names: list[str]) -> bytes:
        raise MemoryError  # in the child: it leaves without sending anything

    monkeypatch.setattr(walk, "_stat_numbers", fails)
    assert listing(root) == expected and no_child_left()


def test_no_fork_while_another_thread_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: None
) -> None:
    import threading

    root = split_vault(tmp_path / "vault")
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked beside a thread"))
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        files, warnings, _ = listing(root)
    finally:
        stop.set()
        thread.join()
    assert len(files) == 120 and warnings == []


INTERRUPTED = """
import os, sys
from journal_agent import walk
def interrupted(fd, prefix, names, *rest):
    if names:  # the folder of pages (the vault's own holds none)
        raise KeyboardInterrupt
walk._stat_here = interrupted  # this process's half; the child's is `_stat_numbers`
try:
    walk.page_files(sys.argv[1], (".md",), (), (), [])
except KeyboardInterrupt:
    try:
        os.waitpid(-1, os.WNOHANG)
        print("a child left")
    except ChildProcessError:
        print("interrupted, no child left")
"""


def test_an_interrupted_listing_does_not_wait_forever_for_its_child(
    tmp_path: Path, split: None
) -> None:
    """The child's half of a large folder fills more than a pipe holds: a parent interrupted
    before reading it closes the pipe before waiting, so the child's write fails and it leaves
    (waiting first would wait forever)."""
    folder = tmp_path / "vault" / "pages"
    folder.mkdir(parents=True)
    for k in range(6000):  # the child's 3,000 stats: 72 KB, more than a 64 KB pipe
        (folder / f"p{k}.md").write_bytes(b"")
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED, str(tmp_path / "vault")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.stdout.strip() == "interrupted, no child left", done.stderr
