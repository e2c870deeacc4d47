"""The status summary patched after journal edits says exactly what a rebuild says."""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import marshal
import os
import random
import time
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from journal_agent import buckets, segments, sidecar, summary_patch, walk
from journal_agent.api import Query
from journal_agent.queries import Graph, vault_graph
from journal_agent.summary import Summary
from journal_agent.summary_current import current
from journal_agent.summary_store import read, summary_path
from journal_agent.summary_topics import suggestible

from .conftest import ROOT, copy_vault
from .test_context import AS_OF, TOPICS, rich_vault

#: A vault of each flavor (fixtures of conftest).
FLAVORS = ["logseq_vault", "obsidian_vault", "markdown_vault"]
Row = tuple[str, str | None, int, int, list[tuple[int, str, int, str, bool]]]


def columns(s: Summary) -> list[Row]:
    """Every topic with its undated count (`undated`) and its dated mentions, as plain values,
    by title and path (a patch puts a new topic after the others, a rebuild in the registry's
    order: `summary_topics`)."""
    out = []
    for i, title in enumerate(s.titles):
        span = range(s.starts[i], s.starts[i + 1])
        mentions = [
            (s.days[k], s.files[s.sources[k]][0], s.lines[k], s.strings[s.texts[k]],
             bool(s.resolutions[k]))
            for k in span
        ]  # fmt: skip
        out.append((title, s.paths[i], s.extra[i], undated(s)[i], mentions))
    return sorted(out, key=lambda row: (row[0], row[1] or ""))


def backdate(path: Path, seconds: float = 5) -> None:
    """Date the file's mtime back (its ctime, from which the index's racy window runs, stays
    now: `conftest.past_racy` waits that out)."""
    stamp = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(stamp, stamp))


def backdate_all(root: Path) -> None:
    for path in root.rglob("*.md"):
        backdate(path, 60)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What each `summary_patch.refresh` returned (a Summary: patched; None: rebuilt)."""
    calls: list[Any] = []
    real = summary_patch.refresh

    def recording(*args: Any) -> Any:
        calls.append(real(*args))
        return calls[-1]

    monkeypatch.setattr(summary_patch, "refresh", recording)
    return calls


#: Each summary `cached` or `rebuilt` returned (by id, kept alive) with its topics' undated
#: mentions. The summary keeps none (they count in no status) but its side file does, per file,
#: for timelines (`backlinks`): patched, they must be a rebuild's too.
UNDATED: dict[int, tuple[Summary, list[int]]] = {}


@pytest.fixture(autouse=True)
def _forget() -> Iterator[None]:
    yield
    UNDATED.clear()


def undated(s: Summary) -> list[int]:
    """Per topic of ``s``, its undated mentions: as the side file counts them (`cached`), or
    the graph (`rebuilt`)."""
    return UNDATED[id(s)][1]


def cached(root: Path) -> Summary:
    q = Query.of(root, AS_OF, None, True)
    s = q.summary()
    side = sidecar.load_side(summary_path(q.vault))
    assert side is not None and side.stamp == s.stamp
    counts = [0] * len(s.titles)
    for k in range(0, len(side.pairs), 2):
        counts[side.pairs[k]] += side.pairs[k + 1]
    UNDATED[id(s)] = (s, counts)
    return s


def rebuilt(root: Path) -> Summary:
    q = Query.of(root, AS_OF, None, False)
    graphs: list[Graph] = []

    def build(listed: tuple[list[Any], list[str]]) -> Graph:
        graphs.append(vault_graph(q.vault, False, listed))
        return graphs[-1]

    s = current(q.vault, use_cache=False, exclude=q.vault.excluded, build=build)
    assert suggestible(s) == set(graphs[0].registry.suggestible())  # a refusal offers the graph's
    listed = graphs[0].listed(all_pages=True)  # in the summary's order
    UNDATED[id(s)] = (s, [sum(b.date is None for b in t.backlinks) for t in listed])
    return s


def edit(rng: random.Random, path: Path) -> None:
    """What a person does to a journal page: add a line about existing topics, delete one,
    tick one off, reword one."""
    lines = path.read_text().split("\n")
    body = [n for n, line in enumerate(lines) if line.strip()]
    kind = rng.choice(["add", "add", "delete", "done", "reword"])
    if kind == "add" or not body:
        a, b = rng.sample(TOPICS, 2)
        lines.insert(rng.randint(0, len(lines) - 1), f"- now [[{a}]] and #[[{b}]]")
    elif kind == "delete":
        del lines[rng.choice(body)]
    elif kind == "done":
        n = rng.choice(body)
        lines[n] = lines[n].replace("- ", "- DONE ", 1)
    else:
        n = rng.choice(body)
        lines[n] = lines[n] + " (reworded)"
    path.write_text("\n".join(lines))
    backdate(path)


def small_blocks(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """For odd seeds, blocks of 7 files (`walk.blocks`): a vault of many blocks, of which a
    patch re-reads the stats of those whose digest changed."""
    if seed % 2:
        monkeypatch.setattr(walk, "BLOCK", 7)


@pytest.mark.parametrize("seed", range(12))
def test_patched_equals_rebuilt_after_random_journal_edits(
    tmp_path: Path, spy: list[Any], seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_blocks(monkeypatch, seed)
    rng = random.Random(seed)
    root = rich_vault(tmp_path / "v", days=60, seed=seed)
    backdate_all(root)
    cached(root)
    journals = sorted((root / "journals").iterdir())
    for _round in range(3):
        for path in rng.sample(journals, rng.randint(1, 3)):
            edit(rng, path)
        spy.clear()
        patched = cached(root)
        assert spy and spy[-1] is not None, "the edits should have been patched"
        assert columns(patched) == columns(rebuilt(root))


@pytest.mark.parametrize("edited", ["the earlier file", "the later file"])
def test_a_day_of_two_journal_files_keeps_its_mentions_in_page_order(
    tmp_path: Path, spy: list[Any], edited: str
) -> None:
    """Two files are the journal of one day (Logseq reads an older file name format too): a
    mention added to either goes among the day's mentions by page, then line, as a rebuild
    puts it, not merely among that day's."""
    root = rich_vault(tmp_path / "v", days=30)
    day = dt.date.fromisoformat(AS_OF) - dt.timedelta(days=3)
    earlier = root / "journals" / f"{day.isoformat()}.md"  # "-" sorts before "_"
    later = root / "journals" / f"{day:%Y_%m_%d}.md"
    earlier.write_text("- [[Topic 01]] first\n- [[Topic 02]] then\n- [[Topic 01]] again\n")
    later.write_text("- [[Topic 01]] one\n- [[Topic 02]] two\n- [[Topic 01]] three\n")
    backdate_all(root)
    cached(root)
    path = earlier if edited == "the earlier file" else later
    lines = path.read_text().splitlines(keepends=True)
    for n, text in [(0, "- [[Topic 01]] new first\n"), (2, "- [[Topic 02]] new middle\n")]:
        lines.insert(n, text)
        path.write_text("".join(lines))
        backdate(path)
        spy.clear()
        assert columns(cached(root)) == columns(rebuilt(root))
        assert spy and spy[-1] is not None  # patched, not rebuilt


def test_the_statuses_follow_the_patch(tmp_path: Path, spy: list[Any]) -> None:
    root = rich_vault(tmp_path / "v", days=60)
    backdate_all(root)
    q = Query.of(root, AS_OF, None, True)
    stale = [t.page.title for t in q.statuses("stale")[0]]
    never = [t.page.title for t in q.statuses("unmentioned")[0]]
    path = root / "journals" / f"{AS_OF.replace('-', '_')}.md"
    path.write_text(path.read_text() + f"- picked up [[{stale[0]}]] and [[{never[0]}]] again\n")
    backdate(path)
    after = {t.page.title: t.status for t in q.statuses()[0]}
    assert spy[-1] is not None and after[stale[0]] == after[never[0]] == "active"


@pytest.mark.parametrize(
    "change",
    [
        "new-name",  # a new namespaced name: its parent may be a new page too
        "page",  # a topic page that now names a namespace nobody named
        "new-page",  # a page came that a journal names
        "alias",  # a journal page given an alias
        "ghost-dropped",  # the only reference to a page without a file removed
    ],
)
def test_what_cannot_be_patched_is_rebuilt(tmp_path: Path, spy: list[Any], change: str) -> None:
    root = rich_vault(tmp_path / "v", days=30)
    day = root / "journals" / f"{AS_OF.replace('-', '_')}.md"
    day.write_text(day.read_text() + "- a thought on [[Ghost]]\n")
    backdate_all(root)
    cached(root)
    if change == "new-name":
        day.write_text(day.read_text() + "- about [[Brand/New Thing]]\n")
        touched = day
    elif change == "page":
        touched = root / "pages" / "Topic 01.md"
        touched.write_text(touched.read_text() + "- see [[Topic 99/To Come]]\n")
    elif change == "new-page":  # the page a journal named before it had a file
        touched = root / "pages" / "Ghost.md"
        touched.write_text("- later [[Topic 01]]\n")
    elif change == "alias":
        day.write_text("alias:: Big Day\n\n" + day.read_text())
        touched = day
    else:
        day.write_text(day.read_text().replace("- a thought on [[Ghost]]\n", ""))
        touched = day
    backdate(touched)
    spy.clear()
    again = cached(root)
    assert spy == [None]
    assert columns(again) == columns(rebuilt(root))


@pytest.mark.parametrize("fixture", FLAVORS)
@pytest.mark.parametrize("seed", range(4))
def test_patched_equals_rebuilt_in_every_flavor(
    request: pytest.FixtureRequest, spy: list[Any], fixture: str, seed: int
) -> None:
    """Lines copied between journal pages carry every kind of reference the fixtures have
    (aliases, namespaces, tags, properties, labels, headings): patched or rebuilt, the answer
    is the rebuild's."""
    root: Path = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    journals = sorted(
        p for p in root.rglob("*.md") if Query.of(root, AS_OF, None, True).vault.date_of(
            p.relative_to(root).as_posix()) is not None
    )  # fmt: skip
    lines = [ln for p in journals for ln in p.read_text().splitlines() if ln.strip()]
    backdate_all(root)
    cached(root)
    for _round in range(3):
        for path in rng.sample(journals, min(len(journals), 2)):
            text = path.read_text()
            path.write_text(text + ("" if text.endswith("\n") else "\n") + rng.choice(lines) + "\n")
            backdate(path)
        assert columns(cached(root)) == columns(rebuilt(root))
    assert any(result is not None for result in spy)


def edit_page(rng: random.Random, path: Path, others: list[str]) -> None:
    """What a person does to an ordinary page: reword a line, repeat one at the end, add a
    child under the last bullet, delete a line, or paste a line from elsewhere."""
    lines = path.read_text().rstrip("\n").split("\n")
    body = [n for n, line in enumerate(lines) if line.strip()]
    kind = rng.choice(["reword", "repeat", "child", "child", "delete", "paste"])
    if kind == "reword" and body:
        n = rng.choice(body)
        lines[n] += " (more)"
    elif kind == "repeat" and body:
        lines.append(lines[rng.choice(body)])
    elif kind == "delete" and body:
        del lines[rng.choice(body)]
    elif kind == "paste":
        lines.append(rng.choice(others))
    else:
        lines.append("\t- and a detail")
    path.write_text("\n".join(lines) + "\n")
    backdate(path)


@pytest.mark.parametrize("fixture", FLAVORS)
@pytest.mark.parametrize("seed", range(6))
def test_patched_equals_rebuilt_after_random_page_edits(
    request: pytest.FixtureRequest,
    spy: list[Any],
    fixture: str,
    seed: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ordinary pages edited (with a journal page now and then, and pages added, deleted,
    renamed or given an alias): whether the summary was patched (a page's head unchanged: only
    its undated counts change) or rebuilt, it is the rebuild's, and edits do get patched."""
    small_blocks(monkeypatch, seed)
    root: Path = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    vault = Query.of(root, AS_OF, None, True).vault
    files = sorted(p for p in root.rglob("*.md") if not any(x.startswith(".") for x in p.parts))
    dated = [p for p in files if vault.date_of(p.relative_to(root).as_posix()) is not None]
    pages = [p for p in files if p not in dated and p.read_text().strip()]
    others = [ln for p in files for ln in p.read_text().splitlines() if ln.startswith("- ")]
    backdate_all(root)
    cached(root)
    for _round in range(8):
        for path in rng.sample(pages, min(len(pages), rng.randint(1, 2))):
            edit_page(rng, path, others)
        if rng.random() < 0.3:
            edit_page(rng, rng.choice(dated), others)
        if rng.random() < 0.3:
            reshape(rng, vault.flavor.name, pages, others)
        assert columns(cached(root)) == columns(rebuilt(root))
    assert sum(result is not None for result in spy) >= 2


def reshape(rng: random.Random, flavor: str, pages: list[Path], others: list[str]) -> None:
    """A change that is no edit of a page's body: a page added, deleted or renamed, or an
    alias given (``pages`` follows)."""
    kind = rng.choice(["add", "delete", "rename", "alias"])
    path = rng.choice(pages)
    if kind == "add":
        new = path.with_name(f"Added {rng.randint(0, 999)}.md")
        new.write_text(rng.choice(others) + "\n")
        backdate(new)
        pages.append(new)
    elif kind == "delete" and len(pages) > 2:
        path.unlink()
        pages.remove(path)
    elif kind == "rename":
        new = path.with_name(f"Renamed {rng.randint(0, 999)}.md")
        path.rename(new)
        pages[pages.index(path)] = new
    else:
        text, name = path.read_text(), f"Another Name {rng.randint(0, 9)}"
        if flavor == "logseq":
            path.write_text(f"alias:: {name}\n\n{text}")
        else:  # front matter
            path.write_text(f"---\naliases: [{name}]\n---\n{text}")
        backdate(path)


@pytest.mark.parametrize(
    "damage",
    ["a field missing", "a base field missing", "the base file gone", "a pickle", "a bucket"],
)
def test_a_sidecar_of_another_shape_is_rebuilt_not_read(
    tmp_path: Path, spy: list[Any], damage: str
) -> None:
    import marshal
    import pickle

    root = rich_vault(tmp_path / "v", days=30)
    backdate_all(root)
    cached(root)
    side = next((tmp_path / "cache").glob("*.summary-side"))
    (base,) = (tmp_path / "cache").glob("*.summary-side-base-*")
    if damage == "a field missing":  # as a side file of an earlier version reads
        data = marshal.loads(side.read_bytes())
        del data["titled"]
        side.write_bytes(marshal.dumps(data))
    elif damage == "a base field missing":
        data = marshal.loads(base.read_bytes())
        del data["targets"]
        base.write_bytes(marshal.dumps(data))
    elif damage == "the base file gone":
        base.unlink()
    elif damage == "a bucket":  # of the targets, decoded when a name in it is looked up
        data = marshal.loads(base.read_bytes())
        buckets = marshal.loads(data["targets"][0])
        buckets[""] = tuple(b"\xffnot marshal" for _ in buckets[""])
        data["targets"] = (marshal.dumps(buckets), *data["targets"][1:])
        base.write_bytes(marshal.dumps(data))
    else:
        side.write_bytes(pickle.dumps({"format": 13, "side": {}}))
    day = root / "journals" / f"{AS_OF.replace('-', '_')}.md"
    day.write_text(day.read_text() + "- more on [[Topic 01]]\n")
    backdate(day)
    spy.clear()
    assert columns(cached(root)) == columns(rebuilt(root))
    assert spy == ([] if damage == "a bucket" else [None])  # a bucket raises, met by a rebuild


def test_a_journal_edit_writes_neither_base_file_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A journal edit changes neither the listing, nor where names land, nor the topics: the
    base files of the summary and its side file (a hundred thousand names, paths and targets
    at 100,000 files) stay as they are, and only the small files beside them are written. A
    page that comes, or a new day's journal page, changes the listing: the side file's base
    stays too (its paths follow the listing, the segment the page falls in is written beside
    it), and so does the summary's, which holds every title and name folded since it was built
    (`Summary.folded`)."""
    monkeypatch.setattr(segments, "SEGMENT", 8)  # the pages fall in different segments
    root = rich_vault(tmp_path / "v", days=30)
    backdate_all(root)
    cached(root)
    cache = tmp_path / "cache"

    def bases() -> dict[str, tuple[int, int]]:
        return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in cache.glob("*-base-*")}

    def paths() -> list[str]:
        side = sidecar.load_side(summary_path(Query.of(root, AS_OF, None, True).vault))
        assert side is not None and len(side.segments) > 2
        return side.rels

    before = bases()
    assert len(before) == 2  # the summary's and its side file's
    day = root / "journals" / f"{AS_OF.replace('-', '_')}.md"
    day.write_text(day.read_text() + "- more on [[Topic 01]]\n")
    backdate(day)
    assert columns(cached(root)) == columns(rebuilt(root))
    assert bases() == before
    added = ["pages/Brand New.md", "journals/2026_11_30.md", "pages/Aa New.md", "pages/Zz New.md"]
    for n, rel in enumerate(added):
        (root / rel).write_text(f"- about [[Topic 01]] {n}\n")
        backdate(root / rel)
        assert columns(cached(root)) == columns(rebuilt(root))
        assert bases() == before, rel
        listed = sorted(str(p.relative_to(root)) for p in root.rglob("*.md"))
        assert rel in listed and paths() == listed


def test_the_folded_names_a_new_days_page_is_looked_for_in_follow_the_topics(
    tmp_path: Path, spy: list[Any]
) -> None:
    """A page that comes is looked for in every title and name, folded (`Summary.folded`,
    kept in the summary's base file): kept across patches that leave the topics alone (and
    the summary's rewrites: a base file is not written again for it), grown with the topic
    a patch adds, so a new day's page that the new topic's title contains is rebuilt."""
    from journal_agent.packed import unfolded as _unfolded

    def unfolded(kept: Any) -> tuple[str, str]:
        found = _unfolded(kept)
        assert found is not None
        return found

    root = rich_vault(tmp_path / "v", days=30)
    backdate_all(root)
    cached(root)
    path = summary_path(Query.of(root, AS_OF, None, True).vault)
    day = dt.date.fromisoformat(AS_OF)

    def new_day(days: int, line: str = "- more on [[Topic 01]]") -> None:
        page = root / "journals" / f"{(day + dt.timedelta(days=days)):%Y_%m_%d}.md"
        page.write_text(f"{line}\n")
        backdate(page)

    def base() -> dict[str, Any]:
        found = read(path)
        assert found is not None and found._base is not None
        return found._base[1]

    new_day(1)
    assert columns(cached(root)) == columns(rebuilt(root)) and spy[-1] is not None
    folded = base()["folded"]
    assert "topic 01" in unfolded(folded)[1].split("\0")  # a name: not a title again
    assert "topic 01" not in unfolded(folded)[0].split("\0")
    new_day(2)
    assert columns(cached(root)) == columns(rebuilt(root)) and spy[-1] is not None
    assert base()["folded"] is not None and base()["folded"] == folded  # the same titles
    spy.clear()
    page = root / "pages" / f"Retro {(day + dt.timedelta(days=3)):%Y_%m_%d}.md"
    page.write_text("- about [[Topic 01]]\n")
    backdate(page)
    assert columns(cached(root)) == columns(rebuilt(root)) and spy[-1] is not None
    titles, names = unfolded(base()["folded"])  # grown with the topic that came
    again = read(path)
    assert again is not None and again.folded() == (titles, names)
    assert names.endswith(page.stem.lower()) and not titles.endswith(page.stem.lower())
    spy.clear()
    new_day(3)  # its file name is in the new topic's title
    assert columns(cached(root)) == columns(rebuilt(root)) and spy == [None]
    new_day(4)
    assert columns(cached(root)) == columns(rebuilt(root)) and "folded" in base()
    spy.clear()
    new_day(5, f"- [[Review {(day + dt.timedelta(days=5)):%Y_%m_%d}]]")  # a new topic of its own
    assert columns(cached(root)) == columns(rebuilt(root)) and spy == [None]


def test_a_patch_keeps_the_watchers_place_while_what_it_finds_it_by_holds(
    tmp_path: Path, spy: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary's guard says where a running watcher keeps its state (the warm path looks
    there): a patch keeps the place the cached summary found while the environment and the
    person's config file it was found by hold, and finds it anew when they changed."""
    from journal_agent.summary_current import _watch_guard

    root = rich_vault(tmp_path / "v", days=30)
    backdate_all(root)
    monkeypatch.setenv("JOURNAL_AGENT_STATE", str(tmp_path / "state-a"))
    cached(root)
    day = root / "journals" / f"{AS_OF.replace('-', '_')}.md"
    for state in ["state-a", "state-b", "state-b"]:
        monkeypatch.setenv("JOURNAL_AGENT_STATE", str(tmp_path / state))
        day.write_text(day.read_text() + f"- more on [[Topic 01]] in {state}\n")
        backdate(day)
        spy.clear()
        s = cached(root)
        assert spy and spy[-1] is not None  # patched
        watch = s.guard["watch"]
        assert watch == _watch_guard(Query.of(root, AS_OF, None, True).vault)
        assert watch["env"]["JOURNAL_AGENT_STATE"] == str(tmp_path / state)


def test_a_reader_meets_a_base_replaced_between_its_two_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that puts a new base file (and removes the one the cache file named) between a
    reader's read of the cache file and of its base: the reader reads the cache file again and
    gets the new pair, never one file of each."""
    from journal_agent import cachedir

    path = str(tmp_path / "c.summary")
    cachedir.save_with_base(path, {"v": 1}, {"b": b"one"}, None)
    real = cachedir._base_name

    def racing(cache: str, token: str) -> str:
        monkeypatch.setattr(cachedir, "_base_name", real)
        cachedir.save_with_base(path, {"v": 2}, {"b": b"two"}, None)
        return real(cache, token)

    monkeypatch.setattr(cachedir, "_base_name", racing)
    found = cachedir.load_with_base(path)
    assert found is not None
    data, read = found
    token = read[0]
    assert (data, read[1], read[2]) == ({"v": 2}, {"b": b"two"}, {"b": b"two"})
    assert [p.name for p in tmp_path.glob("c.summary-base-*")] == [f"c.summary-base-{token}"]
    cachedir.save_with_base(path, {"v": 3}, {"b": b"two"}, read)  # the same base
    assert [p.name for p in tmp_path.glob("c.summary-base-*")] == [f"c.summary-base-{token}"]
    assert cachedir.load_with_base(path) == ({"v": 3}, read)


def test_a_kept_base_that_another_writer_removed_is_written_again(tmp_path: Path) -> None:
    """A writer that keeps the base it read, which a concurrent writer's new base replaced and
    removed meanwhile, writes it again rather than leave a cache file naming no base."""
    from journal_agent import cachedir

    path = str(tmp_path / "c.summary")
    cachedir.save_with_base(path, {"v": 1}, {"b": b"one"}, None)
    read = cachedir.load_with_base(path)
    assert read is not None
    for gone in tmp_path.glob("c.summary-base-*"):
        gone.unlink()
    cachedir.save_with_base(path, {"v": 2}, {"b": b"one"}, read[1])
    assert cachedir.load_with_base(path) == ({"v": 2}, read[1])


def test_a_base_whose_chunks_grew_or_changed_a_few_is_kept_with_them_in_the_cache_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A base whose fields are the same or differ only by chunks (tuples of bytes with more at
    their end, or some replaced in place) is not written again: those chunks go in the cache
    file by their place, read back over the base's; any other change (a field that is not
    chunks, fewer chunks, another field), or chunks outweighing `cachedir.MORE_SHARE` of the
    base, writes a new base (and removes the old)."""
    from journal_agent import cachedir

    path = str(tmp_path / "c.summary")

    def bases() -> list[str]:
        return sorted(p.name for p in tmp_path.glob("c.summary-base-*"))

    def saved(base: dict[str, Any]) -> Any:
        found = cachedir.load_with_base(path)
        cachedir.save_with_base(path, {"v": 1}, base, found[1] if found else None)
        found = cachedir.load_with_base(path)
        assert found is not None and found[1][1] == base
        return found[1]

    first = saved({"t": (b"a" * 100, b"q"), "x": b"xx"})
    assert bases() == [f"c.summary-base-{first[0]}"]
    for t in [(b"a" * 100, b"q", b"b"), (b"a" * 100, b"r", b"c"), (b"z", b"q", b"c", b"d")]:
        read = saved({"t": t, "x": b"xx"})
        assert read[0] == first[0] and bases() == [f"c.summary-base-{first[0]}"]
        assert read[2] == first[2]  # the base file as it was
    data = marshal.loads(Path(path).read_bytes())
    assert data["_more"] == {"t": {0: b"z", 2: b"c", 3: b"d"}}
    for changed in ({"t": (b"z",), "x": b"xx"}, {"t": (b"a",), "x": b"xy"}, {"t": (b"a",)}):
        read = saved(changed)
        assert read[0] != first[0] and bases() == [f"c.summary-base-{read[0]}"]
        assert read[2] == changed
        first = read
    monkeypatch.setattr(cachedir, "MORE_MIN", 0)
    grown = saved({"t": (b"a", b"b" * 100)})  # more than a sixteenth of the base
    assert grown[0] != read[0] and grown[2] == {"t": (b"a", b"b" * 100)}
    replaced = saved({"t": (b"c", b"b" * 99 + b"c")})
    assert replaced[0] != grown[0] and replaced[2] == {"t": (b"c", b"b" * 99 + b"c")}


def test_chunks_the_cache_file_places_past_the_base_are_refused(tmp_path: Path) -> None:
    """A cache file whose chunks do not fit its base (a place past the end but one, a place
    that is not a number, chunks of a field the base has as bytes) is not read: its owner
    rebuilds."""
    from journal_agent import cachedir

    path = str(tmp_path / "c.summary")
    cachedir.save_with_base(path, {"v": 1}, {"t": (b"a", b"b"), "x": b"x"}, None)
    data = marshal.loads(Path(path).read_bytes())
    for more in ({"t": {3: b"c"}}, {"t": {"0": b"c"}}, {"x": {0: b"c"}}, {"t": (b"c",)}):
        Path(path).write_bytes(marshal.dumps({**data, "_more": more}))
        assert cachedir.load_with_base(path) is None, more
    Path(path).write_bytes(marshal.dumps({**data, "_more": {"t": {2: b"c", 0: b"z"}}}))
    found = cachedir.load_with_base(path)
    assert found is not None and found[1][1] == {"t": (b"z", b"b", b"c"), "x": b"x"}


def test_a_topic_that_comes_keeps_the_base_files(tmp_path: Path, spy: list[Any]) -> None:
    """A new topic (a name no file used before) adds its title, path, names and folded names
    to the summary's base, its new texts too, and where its names land to the side file's, as
    chunks, which their cache files hold: the base files' hundred thousand names and texts are
    not written again; the summary is still the rebuild's."""
    root = rich_vault(tmp_path / "v", days=30)
    backdate_all(root)
    cached(root)
    stored = summary_path(Query.of(root, AS_OF, None, True).vault)
    folder = Path(stored).parent
    files = sorted(folder.glob(f"{Path(stored).name}-base-*"))
    files += sorted(folder.glob(f"{Path(sidecar.side_path(stored)).name}-base-*"))
    assert len(files) == 2
    before = [f.read_bytes() for f in files]
    day = root / "journals" / f"{AS_OF.replace('-', '_')}.md"
    for n in range(3):
        day.write_text(day.read_text() + f"- started [[Brand New {n}]]\n")
        backdate(day)
        spy.clear()
        found = cached(root)
        assert spy and spy[-1] is not None, "patched"
        assert_as_rebuilt(found, root)
        assert f"Brand New {n}" in found.titles
        assert sorted(folder.glob("*-base-*")) == sorted(files)
        assert [f.read_bytes() for f in files] == before
    again = read(stored)
    assert again is not None and again.titles == found.titles and again.folded() == found.folded()
    assert again.strings == found.strings
    data = marshal.loads(Path(stored).read_bytes())  # what each patch writes: no text but new ones
    assert "strings" not in data and data["_more"]["strings"]


@pytest.mark.parametrize("seed", range(6))
def test_name_tables_stored_in_buckets_answer_as_the_whole_table(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary's name table stored in buckets (a few names each here), with the parts that
    patches added after it (a name given again in a later part takes its value), answers every
    look-up as the table merged in order, and reads back whole as it; names never seen are
    None; a part that is not one raises ValueError (the summary then answers from the graph)."""
    monkeypatch.setattr(buckets, "SIZE", 4)
    rng = random.Random(seed)
    names = [
        "".join(rng.choice("aZé日\u0301 /_.%") for _ in range(rng.randint(1, 6))) for _ in range(80)
    ]
    table = {name: rng.randrange(100) for name in rng.sample(names, rng.randint(1, 60))}
    parts, merged = buckets.table_parts(table), dict(table)
    assert len(parts) > 2 or len(table) < 4  # bucketed
    for _ in range(rng.randint(0, 3)):
        more = {name: rng.randrange(100) for name in rng.sample(names, rng.randint(1, 5))}
        parts, merged = (*parts, marshal.dumps(more)), {**merged, **more}
    assert all(buckets.table_get(parts, name) == merged.get(name) for name in [*names, "none"])
    assert buckets.table_whole(parts) == merged
    for broken in [(), (b"x",), (marshal.dumps(len(parts)), *parts[1:]), (*parts, b"\x00")]:
        with pytest.raises(ValueError):
            buckets.table_whole(broken)
    with pytest.raises(ValueError):
        buckets.table_get((marshal.dumps(1), marshal.dumps([1])), "a")


def test_a_topic_is_found_from_one_bucket_of_the_stored_name_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Summary.find` of a summary read from its file decodes one bucket of a name table
    (and the parts added since), not the table: every name is found as in the table without
    it ever being read whole; a corrupt table finds nothing (the graph answers), and is stored
    anew as read (empty)."""
    from journal_agent.summary_store import save

    monkeypatch.setattr(buckets, "SIZE", 4)
    titles = [f"Topic {n}" for n in range(40)]
    made = Summary("stamp", titles, [f"pages/{t}.md" for t in titles])
    made.extra, made.starts = array("b", [0] * 40), array("i", [0] * 41)
    made.names = {t.lower(): n for n, t in enumerate(titles)}
    made.spelled = dict(zip(titles, range(40), strict=True))
    path = str(tmp_path / "x.summary")
    save(path, made)
    found = read(path)
    assert found is not None
    found.add_names("names", {"topic 3": 39, "new": 7})
    whole = buckets.table_whole
    monkeypatch.setattr(buckets, "table_whole", None)  # read whole: fails
    assert [found.find(t.lower()) for t in titles] == [*range(3), 39, *range(4, 40)]
    assert [found.find(t, "spelled") for t in titles] == list(range(40))
    assert (found.find("new"), found.find("never"), found.find("Topic 1")) == (7, None, None)
    found._names["spelled"] = (marshal.dumps(2), b"not a table", b"")
    assert found.find("Topic 1", "spelled") is None
    monkeypatch.setattr(buckets, "table_whole", whole)
    save(path, found)
    again = read(path)
    assert again is not None and again.spelled == {}
    assert again.names == {**{t.lower(): n for n, t in enumerate(titles)}, "topic 3": 39, "new": 7}


@pytest.mark.parametrize("seed", range(4))
def test_targets_stored_in_buckets_answer_as_the_whole_table(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sidecar.Targets` kept in buckets (a few names each here) answers every look-up as the
    table it was made of, before and after names are added (stored as a chunk of their own,
    or in the buckets they fall in once the chunks are too many) and once decoded whole; names
    never seen are None."""
    monkeypatch.setattr(buckets, "SIZE", 4)
    rng = random.Random(seed)
    letters = "aZé日\u0301 /_.%"

    def name() -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))

    table = {
        folder: {name(): tuple(rng.sample(range(50), rng.randint(0, 2))) for _ in range(n)}
        for folder, n in [("", rng.randint(0, 60)), ("sub", rng.randint(1, 9))]
    }
    stored = sidecar.Targets.stored(sidecar.Targets(table).chunks(64))
    for folder, memo in table.items():
        assert all(stored.get(folder, k) == v for k, v in memo.items())
    assert stored.get("", "never seen name") is None and stored.get("other", "x") is None
    added = {("", name()): (7,), ("sub", name()): (), ("new", name()): (3, 4)}
    for (folder, k), v in added.items():
        stored.set(folder, k, v)
        table.setdefault(folder, {})[k] = v
    chunks = stored.chunks(64)
    assert len(chunks) == 2  # the buckets as read, and a chunk of the names added
    again = sidecar.Targets.stored(chunks)
    for folder, memo in table.items():
        assert all(again.get(folder, k) == v for k, v in memo.items())
    assert again.whole() == table
    assert again.chunks(64) is chunks  # unchanged: as read
    more = sidecar.Targets.stored(chunks)
    more.set("", "one more", (1,))
    table[""]["one more"] = (1,)
    merged = more.chunks(2)  # past the limit: the buckets anew
    assert len(merged) == 1 and sidecar.Targets.stored(merged).whole() == table


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("relisted", [False, True])
def test_the_stats_now_are_the_listings_whatever_blocks_changed(
    seed: int, relisted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`stats_now` makes anew only the blocks whose digest (or, where pages came or went, whose
    stats) differ from the side file's, from the columns the listing was digested with: it
    equals `file_stats` of the whole listing, for stats before 1970 and inodes with the top
    bit, files whose stat changed anywhere, pages that came (zeros in the side file until
    read) and the listing digested or not."""
    monkeypatch.setattr(walk, "BLOCK", 8)
    rng = random.Random(seed)

    def stat() -> tuple[int, int, int]:
        return rng.randint(-(2**62), 2**62), rng.randrange(2**40), rng.randrange(2**64)

    for _ in range(60):
        then = sorted({f"p/{rng.randrange(10**4):04}.md" for _ in range(rng.randrange(40))})
        files = [(rel, *stat()) for rel in then]
        stats, blocks = sidecar.file_stats(files), walk.blocks(files)
        side = cast(sidecar.Sidecar, SimpleNamespace(stats=stats, blocks=blocks))
        now = list(files)
        for _change in range(rng.randrange(4)):
            if now and rng.random() < 0.5:
                n = rng.randrange(len(now))
                now[n] = (now[n][0], *stat())
            elif relisted:
                rel = f"p/{rng.randrange(10**4):04}.md"
                if rel not in {f[0] for f in now}:
                    now = sorted([*now, (rel, *stat())])
        if relisted:  # the side file's tables follow the listing: a page that came has zeros
            was = {f[0]: f for f in files}
            side.stats = sidecar.file_stats([was.get(f[0], (f[0], 0, 0, 0)) for f in now])
        if rng.random() < 0.5:
            walk.blocks(now)  # digested: its columns kept
        assert sidecar.stats_now(now, side, relisted) == sidecar.file_stats(now)


@pytest.mark.parametrize("seed", range(6))
def test_a_side_file_tells_a_listing_of_its_paths_by_the_changed_blocks_alone(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Sidecar.same_rels` compares the paths of the blocks whose digest changed and trusts
    the others' digests: it says what comparing every path says, for listings that differ by
    stats alone, by a path renamed in place, by paths that came or went, across block edges
    and the edges of the segments the paths are kept in (which are not the blocks')."""
    monkeypatch.setattr(walk, "BLOCK", 8)
    rng = random.Random(seed)
    for _ in range(40):
        then = sorted(
            (f"pages/{rng.randrange(10**6):06}.md", rng.randrange(9), 1, n)
            for n in range(rng.randrange(0, 40))
        )
        cuts = sorted(rng.sample(range(1, len(then)), min(3, len(then) - 1))) if then else []
        paths = [f[0] for f in then]
        parts = ["\0".join(paths[a:b]) for a, b in itertools.pairwise([0, *cuts, len(then)])]
        side = sidecar.Sidecar(
            "", "", parts if then else [], sidecar.file_stats(then),
            walk.blocks(then), sidecar.Targets({}), False, frozenset(), {}, frozenset(),
            frozenset(), b"", array("i"), array("i"), array("i"),
        )  # fmt: skip
        now = list(then)
        for _change in range(rng.randrange(3)):
            n = rng.randrange(len(now) + 1)
            kind = rng.choice(["stat", "rename", "add", "drop"])
            if kind == "add" or not now:
                now.insert(n, (f"pages/{rng.randrange(10**6):06}.md", 1, 1, 1))
            elif kind == "drop":
                del now[min(n, len(now) - 1)]
            else:
                rel, mtime, size, inode = now[min(n, len(now) - 1)]
                renamed = f"pages/{rng.randrange(10**6):06}.md" if kind == "rename" else rel
                now[min(n, len(now) - 1)] = (renamed, mtime + 1, size, inode)
        now.sort()
        assert side.same_rels(now) == ([f[0] for f in now] == [f[0] for f in then])
        assert side.rels == [f[0] for f in then]
        assert side.same_rels(now) == ([f[0] for f in now] == [f[0] for f in then])  # split


def test_new_topics_add_their_names_as_parts_merged_past_a_bound(
    tmp_path: Path, spy: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name no file used before, in a journal page, is a new topic (Logseq): its names go
    into the summary's name tables as a marshalled part of their own (the hundred thousand
    others are neither read nor rewritten); past `summary.MAX_PARTS` such parts, all are
    bucketed anew.
    Either way the tables are a rebuild's, and the titles stay packed as read (keyed from the
    packed text, not made a list that the save would pack again)."""
    from journal_agent import summary, summary_store
    from journal_agent.cachedir import load_with_base

    for module in (summary, summary_store):  # the bound on parts, as each module took it
        monkeypatch.setattr(module, "MAX_PARTS", 2)
    packed: list[bool] = []  # whether the titles were still packed when a patch saved them

    def saving(path: str, found: Summary) -> None:
        packed.append(found._titles is None)
        summary_store.save(path, found)

    monkeypatch.setattr(summary_patch, "save", saving)
    root = rich_vault(tmp_path / "v", days=30)
    backdate_all(root)
    cached(root)
    stored = summary_path(Query.of(root, AS_OF, None, True).vault)
    seen = []
    day = root / "journals" / f"{AS_OF.replace('-', '_')}.md"
    for n in range(4):
        day.write_text(day.read_text() + f"- started [[Brand New {n}]]\n")
        backdate(day)
        spy.clear()
        assert_as_rebuilt(cached(root), root)
        assert spy and spy[-1] is not None, "patched"
        assert packed[-1]
        found = load_with_base(stored)
        assert found is not None
        _, (_, base, _) = found
        tables = [base[t] for t in ("names", "spelled")]
        seen.append(tuple(len(t) - 1 - marshal.loads(t[0]) for t in tables))  # type: ignore[index, arg-type]
    assert seen == [(1, 1), (2, 2), (0, 0), (1, 1)]


# -- racily clean files ---------------------------------------------------------------------------


def test_a_summary_built_over_a_just_written_page_is_reused_while_its_bytes_hold(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page written a moment ago (its stat may not show the next change yet) no longer makes
    every query rebuild: the summary keeps its digest and is trusted while the bytes are the
    same. A same-size rewrite in the same clock tick is still noticed."""
    page = logseq_vault / "journals" / "2026_11_29.md"
    page.write_text("- looked at [[Grafana]]\n")
    builds: list[int] = []
    real = Summary.of

    def counted(*args: Any) -> Summary:
        builds.append(1)
        return real(*args)

    monkeypatch.setattr(Summary, "of", counted)
    Query.of(logseq_vault, AS_OF, None, True).statuses()
    Query.of(logseq_vault, AS_OF, None, True).statuses()
    assert builds == [1]  # the page is racy, and the cached summary still answers
    st = page.stat()
    page.write_text("- looked at [[Backups]]\n")  # same size, same inode
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert page.stat().st_mtime_ns == st.st_mtime_ns and page.stat().st_size == st.st_size
    found, _ = Query.of(logseq_vault, AS_OF, None, True).statuses()
    # noticed by its ctime (patched) or, in the same tick of the clock, by its bytes (rebuilt)
    last = {t.page.title: t.last for t in found}
    assert last["Backups"] is not None and last["Backups"].path == "journals/2026_11_29.md"


@pytest.mark.parametrize("bulk", [True, False])
def test_racy_pages_stop_being_read_once_they_leave_the_window(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch, bulk: bool
) -> None:
    """After a bulk copy every page is racy and its bytes are checked on each query; once the
    window has passed and the bytes were found the same, the summary forgets the digests, the
    cached index too where they are more than `index.FEW_FILES` (fewer are read faster than the
    index is rewritten), and a later edit is still seen (by its stat)."""
    from journal_agent import index, summary_store

    if bulk:
        monkeypatch.setattr(index, "FEW_FILES", 0)  # the fixture's pages count as a bulk copy

    page = logseq_vault / "journals" / "2026_11_29.md"
    page.write_text("- looked at [[Grafana]]\n")
    vault = Query.of(logseq_vault, AS_OF, None, True).vault
    path = str(index.cache_path(vault))
    path = path.removesuffix(".facts") + ".summary"  # as `summary_current.current` names it

    def digests() -> dict[str, bytes | None]:
        entries = index._read_cache(index.cache_path(vault), index._fingerprint(vault))
        return {rel: entry[4] for rel, entry in entries.items()}

    cached(logseq_vault)
    first = summary_store.load(path, cached(logseq_vault).stamp)
    assert first is not None and "journals/2026_11_29.md" in first.racy
    assert digests()["journals/2026_11_29.md"] == first.racy["journals/2026_11_29.md"]
    later = time.time_ns() + index.RACY_NS + 1
    monkeypatch.setattr(time, "time_ns", lambda: later)  # as `summary_current.settled` sees it
    reads: list[str] = []
    real = index.still_same

    def counted(vault: Any, digests: dict[str, bytes]) -> bool:
        reads.extend(digests)
        return real(vault, digests)

    monkeypatch.setattr(index, "still_same", counted)  # `summary_current` imports it per call
    settled = cached(logseq_vault)
    assert settled.racy == {} and "journals/2026_11_29.md" in reads
    if bulk:
        assert set(digests().values()) == {None}  # a first pass over it reads no file for them
    else:
        assert digests()["journals/2026_11_29.md"] == first.racy["journals/2026_11_29.md"]
    reads.clear()
    cached(logseq_vault)
    assert reads == []  # the stat alone decides now
    page.write_text("- looked at [[Backups]] instead\n")
    backdate(page)
    found, _ = Query.of(logseq_vault, AS_OF, None, True).statuses()
    last = {t.page.title: t.last for t in found}
    assert last["Backups"] is not None and last["Backups"].path == "journals/2026_11_29.md"


def test_a_new_first_spelling_of_a_page_without_a_file_is_rebuilt(
    tmp_path: Path, spy: list[Any]
) -> None:
    """A page that exists only by reference takes its title from the first file Logseq parses
    that names it (the newest journal page), as that file spells it last: a journal edit that
    writes another spelling there renames it, which only a rebuild knows."""
    from .test_queries import logseq

    root = logseq(
        tmp_path / "v",
        {"Other": "- about [[Other]]\n"},
        {"2026-11-28": "- met [[Side Quest]] folks\n", "2026-11-29": "- more [[Side Quest]]\n"},
    )
    backdate_all(root)
    assert "Side Quest" in cached(root).titles
    day = root / "journals" / "2026_11_29.md"
    day.write_text("- more [[Side Quest]]\n- then the [[side quest]]\n")
    backdate(day)
    again = cached(root)
    assert columns(again) == columns(rebuilt(root))
    assert "side quest" in again.titles


#: Changes whose names the graph resolves otherwise than a patch would guess (found by
#: fuzzing): a flavor, the vault's files, then one file written.
RESOLVED_OTHERWISE: dict[str, tuple[str, dict[str, str], dict[str, str | None]]] = {
    "the file of a built-in page goes (the page stays, without a file)": (
        "logseq",
        {"pages/Contents.md": "- x\n", "journals/2026_11_28.md": "- a day\n"},
        {"pages/Contents.md": None},
    ),
    "the file of a built-in page comes": (
        "logseq",
        {"pages/a.md": "- x\n", "journals/2026_11_28.md": "- a day\n"},
        {"pages/FAVORITES.md": "- y\n"},
    ),
    "the file of a built-in page renamed": (
        "logseq",
        {"pages/contents.md": "- x\n", "journals/2026_11_28.md": "- a day\n"},
        {"pages/contents.md": None, "pages/CONTENTS.md": "- x\n"},
    ),
    "a new name spelled two ways in one journal page (the last spelling titles it)": (
        "logseq",
        {"journals/2026_11_27.md": "- a day\n", "journals/2026_11_28.md": "- x\n"},
        {"journals/2026_11_28.md": "- [[New Thing]]\n- then [[new thing]]\n"},
    ),
    "a page without a file spelled anew, last, in the newest journal page that names it": (
        "logseq",
        {"journals/2026_11_27.md": "- [[Side]]\n", "journals/2026_11_28.md": "- [[Side]]\n"},
        {"journals/2026_11_28.md": "- [[Side]]\n- [[SIDE]] again\n"},
    ),
    "an older journal page that spells a page without a file otherwise": (
        "logseq",
        {"journals/2026_11_27.md": "- [[Side]]\n", "journals/2026_11_28.md": "- [[Side]]\n"},
        {"journals/2026_11_27.md": "- [[SIDE]] and [[side]]\n"},
    ),
    "a namespace parent a journal spells otherwise than the file's title": (
        "logseq",
        {
            "pages/Team___Alpha.md": "- the team\n",
            "journals/2026_11_27.md": "- [[Team/Alpha]] met\n",
            "journals/2026_11_28.md": "- a day\n",
        },
        {"journals/2026_11_28.md": "- [[team/alpha]] again\n"},
    ),
    "a new spelling of a page that declares an alias (its alias has a file)": (
        "logseq",
        {
            "pages/Atlas Migration.md": "alias:: Project Atlas\n\n- moving\n",
            "pages/Project Atlas.md": "- the old page\n",
            "journals/2026_11_27.md": "- about [[Atlas Migration]]\n",
            "journals/2026_11_28.md": "- a day\n",
        },
        {"journals/2026_11_28.md": "- a day\n- more on [[atlas migration]]\n"},
    ),
    "the date of a journal page that declares an alias": (
        "logseq",
        {
            "journals/2026_11_20.md": "alias:: Big Day\n\n- notes\n",
            "journals/2026_11_28.md": "- a day\n",
            "pages/Big Day.md": "- the big day\n",
        },
        {"journals/2026_11_28.md": "- a day\n- remember [[Nov 20th, 2026]]\n"},
    ),
    "a link with slashes at its ends": (
        "markdown",
        {"Slashed.md": "- a note\n", "journals/2026-11-28.md": "- a day\n"},
        {"journals/2026-11-28.md": "- a day\n- see [[/Slashed/]]\n"},
    ),
    "a link to a note named like a journal page": (
        "markdown",
        {
            "journals/2026-11-20.md": "- that day\n",
            "journals/2026-11-28.md": "- a day\n",
            "notes/2026-11-20.md": "- a note named like a day\n",
        },
        {"journals/2026-11-28.md": "- a day\n- back to [[2026-11-20]]\n"},
    ),
    "a new note named like a journal page": (
        "obsidian",
        {"Daily/2026/11/2026-11-20.md": "- that day\n", "Notes/Other.md": "- x\n"},
        {"Notes/2026-11-20.md": "- a note named like a day\n"},
    ),
    "a link to a note whose name starts with a space": (
        "markdown",
        {"journals/2026-11-28.md": "- a day\n", "notes/ Z 8.md": "- a note\n"},
        {"journals/2026-11-28.md": "- a day\n- see [[ Z 8]]\n"},
    ),
    "the date of a day of two files, one of which declares an alias": (
        "logseq",
        {
            "journals/2026_11_20.md": "alias:: Big Day\n\n- notes\n",
            "journals/2026-11-20.md": "- more notes\n",
            "pages/Nov 20th, 2026.md": "- and a page of the day\n",
            "journals/2026_11_28.md": "- a day\n",
            "pages/Big Day.md": "- the big day\n",
        },
        {"journals/2026_11_28.md": "- a day\n- remember [[Nov 20th, 2026]]\n"},
    ),
    "a page of two files, one of which declares an alias": (
        "logseq",
        {
            "pages/Atlas.md": "- moving\n",
            "pages/Atlas Two.md": "title:: Atlas\nalias:: Project Atlas\n\n- more\n",
            "pages/Project Atlas.md": "- the old page\n",
            "journals/2026_11_27.md": "- about [[Atlas]]\n",
            "journals/2026_11_28.md": "- a day\n",
        },
        {"journals/2026_11_28.md": "- a day\n- more on [[atlas]]\n"},
    ),
    "a new note whose name ends in a final sigma": (
        "obsidian",
        {"Notes/Other.md": "- x\n", "Daily/2026-11-28.md": "- [[Other]]\n"},
        {"Notes/ΣΊΣΥΦΟΣ.md": "- a note\n"},
    ),
    "a new note titled with .md at its end": (
        "markdown",
        {"notes/Other.md": "- x\n", "journals/2026-11-28.md": "- [[Plan.md]] and [[Plan]]\n"},
        {"notes/Plan.md.md": "- a note\n"},
    ),
    "a new note whose name starts with a space": (
        "obsidian",
        {"Notes/Other.md": "- x\n"},
        {"People/ Side Quest.md": "- a note\n"},
    ),
    "a note named as a journal page that is there": (
        "obsidian",
        {"Daily/2026-11-28.md": "- a day\n", "notes/2026-11-28.md": "- a note\n"},
        {"notes/Other.md": "- x\n"},
    ),
    "a new note of another extension": (
        "markdown",
        {"notes/x.md": "- x\n", "journals/2026-11-28.md": "- a day\n"},
        {"notes/istanbul.markdown": "- a note\n"},
    ),
    "a link by path to a note whose name starts with a space": (
        "obsidian",
        {"notes/deep/ Edge.md": "- a note\n", "Daily/2026-11-27.md": "- a day\n"},
        {"Daily/2026-11-28.md": "- see [[notes/deep/ Edge]]\n"},
    ),
    "a Markdown link to a note whose name starts with a space, .md twice": (
        "markdown",
        {"Notes/ Edge.md": "- a note\n", "journals/2026-11-28.md": "- a day\n"},
        {"notes/Leaf.md": "- [t](Notes/%20Edge.md.md)\n"},
    ),
    "a page that goes whose path another page's alias spells in another case": (
        "logseq",
        {
            "pages/X.md": "- x\n",
            "pages/sq.md": "alias:: pages/x.md\n",
            "journals/2026_11_28.md": "- a day\n",
        },
        {"pages/X.md": None},
    ),
    "a page of two files, one of which goes": (
        "logseq",
        {"pages/Foo.md": "- x\n", "pages/Other.md": "title:: Foo\n"},
        {"pages/Other.md": None},
    ),
    "a page that goes as a new page names it": (
        "logseq",
        {"pages/Foo.md": "- x\n", "journals/2026_11_28.md": "- a day\n"},
        {"pages/Foo.md": None, "pages/Edge.md": "- see [[Foo]]\n"},
    ),
    "a note that goes whose name an alias holds with .md": (
        "obsidian",
        {"People/Plan.md": "- x\n", "People/Road.md": "---\naliases: [Plan.Md]\n---\n- y\n"},
        {"People/Plan.md": None},
    ),
    "a note renamed whose path an alias holds": (
        "markdown",
        {"notes/Proj/Sub.md": "- x\n", "notes/Road.md": "---\naliases: [Proj/Sub]\n---\n"},
        {"notes/Proj/Sub.md": None, "notes/Proj/file.md": "- x\n"},
    ),
    "a note that goes whose name spells another's": (
        "obsidian",
        {"notes/plan.md": "- x\n", "notes/Plan.md.md": "- y\n"},
        {"notes/Plan.md.md": None},
    ),
    "a new note whose path keys as another's with a final sigma": (
        "markdown",
        {"Notes/ΟΔΟΣ.md": "- x\n", "journals/2026-11-28.md": "- a day\n"},
        {"notes/οδοσ.md": "- y\n"},
    ),
}
CONFIG = {
    "logseq": ("logseq/config.edn", "{:file/name-format :triple-lowbar}"),
    "obsidian": (".obsidian/daily-notes.json", '{"folder": "Daily"}'),
    "markdown": ("journals/.keep.txt", ""),  # a journals/ folder: a plain-Markdown vault
}


@pytest.mark.parametrize("case", sorted(RESOLVED_OTHERWISE))
def test_names_the_graph_resolves_otherwise_are_as_a_rebuild_says(
    tmp_path: Path, spy: list[Any], case: str
) -> None:
    """Alias groups (a page that declares aliases, the day of a journal page that does), names
    a journal page may share with a note, names with spaces or slashes at their ends: the
    summary after the change is a rebuild's, not a patch's guess."""
    flavor, files, changes = RESOLVED_OTHERWISE[case]
    root = tmp_path / "v"
    for rel, content in [CONFIG[flavor], *files.items()]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content)
    backdate_all(root)
    assert Query.of(root, AS_OF, None, True).vault.flavor.name == flavor
    cached(root)
    for changed, text in changes.items():  # None: the file goes
        if text is None:
            (root / changed).unlink()
            continue
        (root / changed).parent.mkdir(parents=True, exist_ok=True)
        (root / changed).write_text(text)
        backdate(root / changed)
    assert_as_rebuilt(cached(root), root)


def test_a_journal_that_starts_using_a_page_as_a_property_is_rebuilt(
    tmp_path: Path, spy: list[Any]
) -> None:
    """A page without a file that is also a property key is one of Logseq's property pages
    (left out of `topics` by default): a journal edit that adds or drops that use changes what
    the page is."""
    from .test_queries import logseq

    root = logseq(
        tmp_path / "v",
        {"Other": "- see [[flavor]] notes\n"},
        {"2026-11-28": "- tried [[flavor]]\n", "2026-11-29": "- a day with [[Other]]\n"},
    )
    backdate_all(root)
    before = cached(root)
    assert not before.extra[before.titles.index("flavor")]
    day = root / "journals" / "2026_11_29.md"
    day.write_text("- a day with [[Other]]\n  flavor:: sweet\n")
    backdate(day)
    again = cached(root)
    assert columns(again) == columns(rebuilt(root))
    assert list(again.extra) == list(rebuilt(root).extra)


@pytest.mark.parametrize("seed", range(3))
def test_page_keys_of_many_names_are_each_names_key(seed: int) -> None:
    """`flavors.page_keys` keys all titles at once over the joined text: what it gives is what
    each key gives a name at a time, for names that end in a final sigma, start with combining
    marks, hold any of `str.strip`'s spaces, slashes at their ends, or a NUL."""
    from journal_agent.flavors import logseq_key, page_keys, wiki_key

    rng = random.Random(seed)
    alphabet = [*"ΣσςAai/.'- ", *"İ\u00a0\u2003\x1c\n\t\u0301éﬁßΩ\u212b\u0345\u00ad\x00"]
    for _ in range(3000):
        names = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
            for _ in range(rng.randint(0, 6))
        ]
        for key in (wiki_key, logseq_key):
            assert page_keys(names, key) == [key.__wrapped__(n) for n in names], names


def test_stats_keep_inodes_with_the_top_bit_and_mtimes_before_1970(logseq_vault: Path) -> None:
    """overlayfs (xino) and NFS hand out inode numbers with the top bit set, and a file can be
    dated before 1970: the stamp and the side file's stats take both (a signed 64-bit column
    raised OverflowError on every query)."""
    from journal_agent.index import _fingerprint
    from journal_agent.vault import PageFile, open_vault
    from journal_agent.walk import stamp

    files = [
        PageFile("journals/a.md", -1_000_000_000, 10, 2**63 + 7),
        PageFile("pages/b.md", 1_764_000_000_000_000_000, 0, 2**64 - 1),
    ]
    side = cast(sidecar.Sidecar, SimpleNamespace(stats=sidecar.file_stats(files)))
    assert [sidecar.stat_of(side, n) for n in range(2)] == [tuple(f[1:]) for f in files]
    usual = [files[0]._replace(inode=7), ("pages/c.md", 2**63 - 1, 2**40, 0)]  # no top bit
    side = cast(sidecar.Sidecar, SimpleNamespace(stats=sidecar.file_stats(usual)))
    assert [sidecar.stat_of(side, n) for n in range(2)] == [tuple(f[1:]) for f in usual]
    fingerprint = _fingerprint(open_vault(logseq_vault))
    other = [files[0]._replace(inode=7), files[1]]
    assert stamp(fingerprint, files) != stamp(fingerprint, other)


def day_pages(root: Path) -> list[Path]:
    vault = Query.of(root, AS_OF, None, True).vault
    return sorted(
        p for p in root.rglob("*.md") if vault.date_of(p.relative_to(root).as_posix()) is not None
    )


@pytest.mark.parametrize("fixture", FLAVORS)
@pytest.mark.parametrize("seed", range(5))
def test_journal_pages_that_come_and_go_are_patched_as_a_rebuild_says(
    request: pytest.FixtureRequest, spy: list[Any], fixture: str, seed: int
) -> None:
    """The new day's page written (with lines copied from anywhere: every kind of reference
    the fixtures have, property keys too), an old one deleted, another edited: patched or
    rebuilt, the answer is the rebuild's; and the common case, a new day's page about known
    topics, is patched."""
    root: Path = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    vault = Query.of(root, AS_OF, None, True).vault
    lines = [ln for p in root.rglob("*.md") for ln in p.read_text().splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(("---", "title", "alias"))]
    plain = [ln for ln in lines if ln.startswith("- ") and "[[" in ln and "::" not in ln]
    before = cached(root)
    certain = [
        t for t, p in zip(before.titles, before.paths, strict=True) if p and t in before.spelled
    ]
    backdate_all(root)
    cached(root)
    day = dt.date.fromisoformat(AS_OF)
    for round_ in range(6):
        day += dt.timedelta(days=rng.randint(1, 3) if round_ else 1)
        new = root / vault.journal_rel(day)
        new.parent.mkdir(parents=True, exist_ok=True)
        if round_ == 0:  # the next day, about a topic known by its title
            chosen = [f"- more on [[{rng.choice(certain)}]]"]
        else:
            chosen = rng.sample(lines, rng.randint(1, 4))
        new.write_text("\n".join(chosen) + "\n")
        backdate(new)
        journals = day_pages(root)
        if round_ and rng.random() < 0.5 and len(journals) > 2:
            rng.choice(journals[:-1]).unlink()
        if round_ and rng.random() < 0.5:
            edit_page(rng, rng.choice(day_pages(root)), plain)
        spy.clear()
        found = cached(root)
        if round_ == 0:
            assert spy and spy[-1] is not None, "a new day's page about known topics"
        assert columns(found) == columns(rebuilt(root))


@pytest.mark.parametrize(
    ("fixture", "link"),
    [
        ("logseq_vault", "[[Nov 30th, 2026]]"),  # lands on the day's journal, file or not
        ("logseq_vault", "[[2026-11-30]]"),  # the same day, written as a date
        (
            "obsidian_vault",
            "[[2026-11-30]]",
        ),  # a page that exists by reference, until it has a file
        ("obsidian_vault", "[x](../Daily/2026/11/2026%2D11%2D30.md)"),
        ("markdown_vault", "[[2026-11-30]]"),
    ],
)
def test_a_new_days_page_that_others_already_link_is_as_a_rebuild_says(
    request: pytest.FixtureRequest, spy: list[Any], fixture: str, link: str
) -> None:
    root: Path = request.getfixturevalue(fixture)
    vault = Query.of(root, AS_OF, None, True).vault
    page = root / next(p for p in sorted(filter(None, cached(root).paths)) if "/" not in p[:1])
    page.write_text(page.read_text() + f"\n- see {link}\n")
    first = next(ln for p in day_pages(root) for ln in p.read_text().splitlines() if "[[" in ln)
    backdate_all(root)
    before = cached(root)
    new = root / vault.journal_rel(dt.date(2026, 11, 30))
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_text(first + "\n")
    backdate(new)
    assert columns(cached(root)) == columns(rebuilt(root))
    new.unlink()
    assert columns(cached(root)) == columns(before) == columns(rebuilt(root))


def test_a_new_days_page_with_a_new_property_key_is_rebuilt(tmp_path: Path, spy: list[Any]) -> None:
    """Logseq makes a page of every property key: a new day's page that uses one no page
    used before adds a topic."""
    from .test_queries import logseq

    root = logseq(tmp_path / "v", {"Other": "- see [[Other]]\n"}, {"2026-11-28": "- [[Other]]\n"})
    backdate_all(root)
    cached(root)
    new = root / "journals" / "2026_11_29.md"
    new.write_text("- a day with [[Other]]\n  mood:: fine\n")
    backdate(new)
    spy.clear()
    again = cached(root)
    assert spy == [None] and "mood" in again.titles
    assert columns(again) == columns(rebuilt(root))


def assert_as_rebuilt(found: Summary, root: Path) -> None:
    """The topics, their mentions, the names a query finds them by (and those a refusal
    offers) and the listing `topics` answers (in its order) are a rebuild's."""
    again = rebuilt(root)
    assert columns(found) == columns(again)
    assert names(found) == names(again)
    assert suggestible(found) == suggestible(again)
    assert listing(found) == listing(again)


def listing(s: Summary) -> list[tuple[str, str | None, str, int | None, int]]:
    """`topics --all-pages`, in its order."""
    topics = s.topics(dt.date.fromisoformat(AS_OF), 21, all_pages=True)
    return [(t.page.title, t.page.path, t.status, t.days_silent, t.mentions) for t in topics]


def names(s: Summary) -> tuple[dict[str, str], dict[str, str]]:
    """The query tables, by title (positions differ from a rebuild's once a topic came)."""
    return (
        {k: s.titles[i] for k, i in s.names.items()},
        {k: s.titles[i] for k, i in s.spelled.items()},
    )


@pytest.mark.parametrize("fixture", FLAVORS)
@pytest.mark.parametrize("seed", range(5))
def test_pages_that_come_are_patched_as_a_rebuild_says(
    request: pytest.FixtureRequest, spy: list[Any], fixture: str, seed: int
) -> None:
    """New pages, beside the others or in a new folder, with lines copied from anywhere (every
    kind of reference the fixtures have, property keys too), some named like existing pages or
    by names other pages already use; now and then a page edited too: patched or rebuilt, the
    topics, their mentions and the names a query finds them by are the rebuild's; a new page
    about known topics is patched."""
    root: Path = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    before = cached(root)
    folders = sorted({(root / p).parent for p in before.paths if p})
    lines = [ln for p in root.rglob("*.md") for ln in p.read_text().splitlines() if ln.strip()]
    plain = [ln for ln in lines if ln.startswith("- ") and "[[" in ln and "::" not in ln]
    known = [t for t, p in zip(before.titles, before.paths, strict=True) if p]
    certain = [t for t in known if t in before.spelled and "/" not in t]
    backdate_all(root)
    last = cached(root)
    for round_ in range(6):
        folder = rng.choice(folders) if round_ else folders[0]
        name = (
            f"New Page {seed} {round_}" if round_ < 3 else rng.choice([*certain, "Misc", "ghost"])
        )
        path = folder / f"{name}.md"
        if path.exists():
            continue
        if round_ == 0:
            chosen = [f"- more on [[{rng.choice(certain)}]]"]
        else:
            chosen = rng.sample(lines, rng.randint(1, 4))
        path.write_text("\n".join(chosen) + "\n")
        backdate(path)
        if round_ > 2 and rng.random() < 0.5:
            edit_page(rng, rng.choice(sorted(root.rglob("*.md"))), plain)
        spy.clear()
        found = cached(root)
        if round_ == 0:
            assert spy and spy[-1] is not None, "a new page about known topics"
            assert found.titles[: len(last.titles)] == last.titles, "it moves no other topic"
        assert_as_rebuilt(found, root)
        last = found


def test_a_later_spelling_of_a_page_without_a_file_is_patched(
    tmp_path: Path, spy: list[Any]
) -> None:
    """A page without a file keeps the title the first file Logseq parses that names it gives
    it (the newest journal page first): an older journal page may spell it any way (patched),
    and one that stops naming it changes nothing while the newer one still names it."""
    from .test_queries import logseq

    root = logseq(
        tmp_path / "v",
        {"Other": "- about [[Other]]\n"},
        {
            "2026-11-29": "- met [[Side Quest]] folks\n",
            "2026-11-28": "- more [[Side Quest]]\n",
            "2026-11-27": "- a day with [[Other]]\n",
        },
    )
    backdate_all(root)
    cached(root)
    for day, text in [
        ("2026_11_27", "- the [[side quest]] again\n- a day with [[Other]]\n"),
        ("2026_11_28", "- nothing on it today\n"),
        ("2026_11_27", "- the [[SIDE QUEST]] again\n"),
    ]:
        page = root / "journals" / f"{day}.md"
        page.write_text(text)
        backdate(page)
        spy.clear()
        again = cached(root)
        assert spy and spy[-1] is not None, day
        assert columns(again) == columns(rebuilt(root))
        assert "Side Quest" in again.titles


@pytest.mark.parametrize("seed", range(8))
def test_names_spelled_in_any_case_are_patched_as_a_rebuild_says(
    logseq_vault: Path, spy: list[Any], seed: int
) -> None:
    """Journal pages that come, go and change, and ordinary pages that name more pages or fewer,
    naming pages (with and without files, built-in and property pages) in other cases than
    their titles: patched or rebuilt, the answer is the rebuild's."""
    rng = random.Random(seed)
    root = logseq_vault
    before = cached(root)
    titles = [t for t in before.titles if "/" not in t]
    pages = [root / p for p in before.paths if p and "/" not in p.removeprefix("pages/")]
    backdate_all(root)
    cached(root)
    for _round in range(8):
        days = day_pages(root)
        cases: list[Callable[[str], str]] = [str.lower, str.upper, str.title, str.strip]
        fresh = [f"Fresh Thread {rng.randint(0, 5)}", f"Nov {rng.randint(1, 30)}th, 2026"]
        spelled = [rng.choice(cases)(t) for t in titles + fresh]
        line = "- " + " and ".join(f"[[{n}]]" for n in rng.sample(spelled, rng.randint(1, 3)))
        kind = rng.choice(["edit", "new", "delete", "page", "page", "unlink", "scratch", "drop"])
        if kind == "scratch":  # a page nothing names yet
            path = root / "pages" / f"scratch {rng.randint(0, 99)}.md"
            path.write_text(line + "\n")
            pages.append(path)
            backdate(path)
        elif kind == "drop" and len(pages) > 3:
            path = pages.pop(rng.randrange(len(pages)))
            if rng.random() < 0.5:
                path.unlink()
            else:
                pages.append(path.rename(path.with_name(f"renamed {rng.randint(0, 99)}.md")))
        if kind in ("scratch", "drop"):
            pages = [p for p in pages if p.exists()]
            assert columns(cached(root)) == columns(rebuilt(root))
            continue
        if kind == "new":
            path = root / "journals" / f"2026_12_{rng.randint(1, 28):02d}.md"
        else:
            path = rng.choice(pages if kind in ("page", "unlink") else days)
        if kind == "delete":
            path.unlink()
            continue
        text = path.read_text() if path.exists() else ""
        if kind == "unlink":  # a line that names pages taken out
            named = [ln for ln in text.split("\n") if "[[" in ln or "#" in ln]
            if named:
                text = text.replace(rng.choice(named), "- (moved)", 1)
        else:
            text += ("\n" if text and not text.endswith("\n") else "") + line + "\n"
        path.write_text(text)
        backdate(path)
        assert columns(cached(root)) == columns(rebuilt(root))
    assert any(result is not None for result in spy)


@pytest.mark.parametrize("fixture", FLAVORS)
def test_a_page_nothing_names_that_goes_or_is_renamed_is_patched(
    request: pytest.FixtureRequest, spy: list[Any], fixture: str
) -> None:
    """A page deleted or renamed that nothing names (a scratch page) is patched out (and in,
    under its new name); one that is named lives on without a file in Logseq, or leaves its
    links unresolved in Obsidian: a rebuild says so."""
    root: Path = request.getfixturevalue(fixture)
    before = cached(root)
    named = next(
        p
        for i, p in enumerate(before.paths)
        if p and (undated(before)[i] or before.starts[i] < before.starts[i + 1])
    )
    folder = (root / named).parent
    scratch = [folder / f"Scratch {n}.md" for n in range(3)]
    for n, path in enumerate(scratch):
        path.write_text(f"- notes {n} on [[{Path(named).stem}]]\n")
    backdate_all(root)
    cached(root)
    changes: list[Callable[[], object]] = [
        lambda: scratch[0].unlink(),
        lambda: scratch[1].rename(folder / "Scratch Renamed.md"),
        lambda: (root / named).unlink(),  # it is named: not patched
    ]
    for n, change in enumerate(changes):
        change()
        spy.clear()
        found = cached(root)
        assert (spy[-1] is not None) == (n < 2), n
        assert_as_rebuilt(found, root)


def test_a_summary_patched_all_day_keeps_its_size(tmp_path: Path, spy: list[Any]) -> None:
    """A person rewording the same line of today's page again and again: each patch stores the
    new text once, and texts edited away do not pile up in the cached summary."""
    from .test_queries import logseq

    root = logseq(
        tmp_path / "v",
        {"Other": "- about [[Other]]\n"},
        {"2026-11-28": "- met [[Other]] folks\n", "2026-11-29": "- a day with [[Other]]\n"},
    )
    backdate_all(root)
    day = root / "journals" / "2026_11_29.md"
    sizes = []
    for n in range(150):
        day.write_text(f"- a day with [[Other]], take {n}\n- and [[Other]] again\n")
        backdate(day)
        found = cached(root)
        sizes.append(len(found.strings))
    assert all(result is not None for result in spy[1:])
    assert max(sizes) <= 2 * len(set(found.texts)) + 64 + 2
    assert columns(found) == columns(rebuilt(root))


@pytest.mark.parametrize("fixture", FLAVORS)
@pytest.mark.parametrize("seed", range(4))
def test_names_nobody_used_before_are_patched_as_a_rebuild_says(
    request: pytest.FixtureRequest, spy: list[Any], fixture: str, seed: int
) -> None:
    """Journal and other pages that start using names no file used (in Logseq each is a new
    page without a file, titled by its first spelling in the first file; in Obsidian and plain
    Markdown a link to no note), in several spellings across several files at once: patched or
    rebuilt, the topics, their mentions and the names a query finds them by are the rebuild's,
    and a name that only one journal page uses is patched."""
    root: Path = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    before = cached(root)
    days = day_pages(root)
    pages = [root / p for p in before.paths if p and "/" not in p.rpartition("/")[0]][:5]
    backdate_all(root)
    cached(root)
    for round_ in range(5):
        name = f"Unheard Of {seed} {round_}"
        targets = [rng.choice(days)] if round_ == 0 else rng.sample(days + pages, 2)
        for path in targets:
            spelling = rng.choice([name, name.lower(), name.upper()]) if round_ else name
            path.write_text(path.read_text().rstrip("\n") + f"\n- about [[{spelling}]]\n")
            backdate(path)
        spy.clear()
        found = cached(root)
        if round_ == 0:
            assert spy and spy[-1] is not None, "a new name in one journal page"
        assert_as_rebuilt(found, root)


@pytest.mark.parametrize("fixture", FLAVORS)
def test_pages_that_come_and_go_with_new_names_at_once_are_patched(
    request: pytest.FixtureRequest, spy: list[Any], fixture: str
) -> None:
    """In one refresh: a page nothing named deleted, another added, and the new day's journal
    page naming a known page and names nobody used (new topics move every position after
    them): patched, and what a rebuild says."""
    root: Path = request.getfixturevalue(fixture)
    before = cached(root)
    known = next(
        t
        for t, p in zip(before.titles, before.paths, strict=True)
        if p and "/" not in t and t in before.spelled
    )
    folder = (root / before.paths[before.titles.index(known)]).parent  # type: ignore[operator]
    (folder / "Scratch.md").write_text("- a scratch note\n")
    backdate_all(root)
    cached(root)
    (folder / "Scratch.md").unlink()
    (folder / "Fresh Page.md").write_text(f"- notes on [[{known}]]\n")
    day = root / Query.of(root, AS_OF, None, True).vault.journal_rel(dt.date(2026, 11, 30))
    day.parent.mkdir(parents=True, exist_ok=True)
    day.write_text(f"- more on [[{known}]], [[Aardvark Plans]] and [[Zebra Plans]]\n")
    for path in (folder / "Fresh Page.md", day):
        backdate(path)
    spy.clear()
    found = cached(root)
    assert spy and spy[-1] is not None
    assert_as_rebuilt(found, root)


def change_at_random(rng: random.Random, root: Path, names: list[str]) -> None:
    """One change a person or an agent makes: edit, write, delete or rename a journal page or
    another page, naming known pages (in any case), names nobody used, or nothing."""
    vault = Query.of(root, AS_OF, None, True).vault
    files = [p for p in sorted(root.rglob("*.md")) if ".obsidian" not in p.parts]
    days = [p for p in files if vault.date_of(p.relative_to(root).as_posix())]
    pages = [p for p in files if p not in days]
    fresh = [f"Brand New {rng.randint(0, 9)}", f"brand new {rng.randint(0, 9)}"]
    cases: list[Callable[[str], str]] = [str.lower, str.upper, str.strip]
    spelled = [rng.choice(cases)(n) for n in names + fresh]
    line = "- " + " and ".join(f"[[{n}]]" for n in rng.sample(spelled, rng.randint(0, 2)))
    kind = rng.choice(["edit day", "new day", "drop day", "edit", "new", "drop", "rename"])
    if len(days if kind.endswith("day") else pages) < 2:
        kind = "new day"
    if kind == "new day":
        path = root / vault.journal_rel(dt.date(2026, 12, rng.randint(1, 5)))
        path.parent.mkdir(parents=True, exist_ok=True)
    elif kind == "new":
        path = rng.choice(pages).with_name(f"Page {rng.randint(0, 20)}.md")
    else:
        path = rng.choice(days if kind.endswith("day") else pages)
    if kind.startswith("drop"):
        path.unlink()
    elif kind == "rename":
        path.rename(path.with_name(f"Renamed {rng.randint(0, 20)}.md"))
    else:
        text = path.read_text() if path.exists() else ""
        path.write_text(text + ("\n" if text and not text.endswith("\n") else "") + line + "\n")
        backdate(path)


@pytest.mark.parametrize("fixture", FLAVORS)
@pytest.mark.parametrize("seed", range(6))
def test_changes_mixed_at_random_are_patched_as_a_rebuild_says(
    request: pytest.FixtureRequest,
    spy: list[Any],
    fixture: str,
    seed: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Several changes of every kind at once, round after round: patched or rebuilt, the
    topics, their mentions and the names a query finds them by are always the rebuild's, and
    the side file's tables follow the listing, in segments of a few files or in one."""
    monkeypatch.setattr(segments, "SEGMENT", (2, 5, 1024)[seed % 3])
    root: Path = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    titles = [t for t in cached(root).titles if "/" not in t]
    backdate_all(root)
    cached(root)
    vault = Query.of(root, AS_OF, None, True).vault
    for _round in range(6):
        for _change in range(rng.randint(1, 3)):
            change_at_random(rng, root, titles)
        found = cached(root)
        assert_as_rebuilt(found, root)
        side = sidecar.load_side(summary_path(vault))
        assert side is not None and side.rels == [f[0] for f in vault.listing()]
    assert any(result is not None for result in spy)


@pytest.mark.parametrize(
    "rule", sorted(p.name for p in (ROOT / "tests" / "vaults" / "obsidian_rules").iterdir())
)
@pytest.mark.parametrize("seed", range(3))
def test_changes_mixed_at_random_follow_obsidians_rules(
    tmp_path: Path, spy: list[Any], rule: str, seed: int
) -> None:
    """The same in the vaults that pin Obsidian's resolution (notes sharing a name, relative and
    path links, aliases, embeds, headings, tables): always the rebuild's."""
    root = copy_vault(ROOT / "tests" / "vaults" / "obsidian_rules" / rule, tmp_path)
    rng = random.Random(seed)
    titles = [t for t in cached(root).titles if "/" not in t]
    backdate_all(root)
    cached(root)
    for _round in range(5):
        for _change in range(rng.randint(1, 3)):
            change_at_random(rng, root, titles)
        assert_as_rebuilt(cached(root), root)


def test_page_lists_read_back_item_by_item_or_whole(tmp_path: Path) -> None:
    """The titles, paths and texts are kept as one text each (`packed.pack`): an item reads
    back without the whole list (`title`, `path`, `string`), the whole list as it was (None: no
    file), and a list whose ends do not fit its text is no summary (rebuilt)."""
    from journal_agent.summary_store import save

    titles = ["Été", "", "b/c", "Ω long title"]
    paths = ["pages/Été.md", None, "pages/b___c.md", None]
    made = Summary("stamp", titles, paths)
    made.extra, made.starts = array("b", [0, 1, 0, 0]), array("i", [0, 0, 0, 0, 0])
    made.strings = ["first", "", "é\0✓"]  # the mentions' texts, kept the same way (a NUL too)
    path = str(tmp_path / "x.summary")
    save(path, made)
    found = read(path)
    assert found is not None and found.count() == 4
    assert [found.title(i) for i in range(4)] == titles
    assert [found.path(i) for i in range(4)] == paths
    assert [found.string(k) for k in range(3)] == ["first", "", "é\0✓"]
    assert (found.titles, found.paths, found.strings) == (titles, paths, ["first", "", "é\0✓"])
    (base,) = tmp_path.glob("x.summary-base-*")
    fields = marshal.loads(base.read_bytes())
    ((text, ends),) = map(marshal.loads, fields["titles"])  # one chunk
    fields["titles"] = (marshal.dumps((text, array("i", [1, 2, 3, len(text) + 1]).tobytes())),)
    base.write_bytes(marshal.dumps(fields))
    assert read(path) is None
    save(path, Summary("stamp"))  # no topic, no text
    empty = read(path)
    assert empty is not None and (empty.count(), empty.titles, empty.strings) == (0, [], [])


@pytest.mark.parametrize("before", [[], [""], ["", ""], ["first", "é\0✓"], ["a", "b", "c"]])
@pytest.mark.parametrize("more", [[], [""], ["new"], ["x\0y", "", "ü"]])
def test_texts_added_by_a_patch_stay_packed_and_read_back(
    tmp_path: Path, before: list[str], more: list[str]
) -> None:
    """A patch adds its few new texts to the packed ones as read (`Summary.share_strings`),
    without making a list of every text: each reads back as the list would have it, before and
    after the summary is saved again."""
    from journal_agent.summary_store import save

    path = str(tmp_path / "x.summary")
    made = Summary("stamp")
    made.strings = before
    save(path, made)
    old = read(path)
    assert old is not None and old._strings is None  # packed, as read
    new = Summary("stamp")
    new.share_strings(old, more)
    assert new._strings is None and new.string_count() == len(before) + len(more)
    assert [new.string(k) for k in range(new.string_count())] == before + more
    assert new.strings == before + more
    new = Summary("stamp")
    new.share_strings(old, more)
    save(path, new)
    again = read(path)
    assert again is not None and again.strings == before + more
    listed = Summary("stamp")
    listed.share_strings(again, more)  # made a list above: the list grows
    assert listed._strings == before + more + more


@pytest.mark.parametrize("made_lists", ["never", "before", "after"])
def test_topics_appended_to_a_summary_as_read_are_saved_and_folded(
    tmp_path: Path, made_lists: str
) -> None:
    """A topic a patch adds (`Summary.append_topic`) goes into the titles and paths
    as read (packed, or lists if they were made lists before or after), into the folded
    titles and names `summary_topics.named` searches, as folding them all again would, and
    into the titles' keys (`Summary.title_keys`) as keying them all again would."""
    from journal_agent.flavors import logseq_key, wiki_key
    from journal_agent.summary_store import save

    made = Summary("stamp", ["Été", "b/c"], ["pages/Été.md", None])
    made.extra, made.starts = array("b", [0, 0]), array("i", [0, 0, 0])
    made.names, made.spelled = {"été": 0, "b/c": 1}, {"Été": 0, "b/c": 1}
    path = str(tmp_path / "x.summary")
    save(path, made)
    first = read(path)
    assert first is not None
    first.folded()  # made once, and kept in the base file
    assert first.title_keys(logseq_key) == "été\0b/c"  # so too
    save(path, first)
    old = read(path)
    assert old is not None and old._titles is None and old._folded is not None
    assert old._keys is not None and old.title_keys(logseq_key) == "été\0b/c"
    assert old.title_keys(wiki_key) == "été\0b/c" and old._keys is not None  # made anew
    assert old.title_keys(logseq_key) == "été\0b/c"
    if made_lists == "before":
        assert old.titles == ["Été", "b/c"]
    new = copy.copy(old)
    p = new.append_topic("Ωmega", "pages/Ωmega.md", ["ωmega"], ["Ωmega"], logseq_key)
    if made_lists == "after":
        assert new.titles[p] == "Ωmega"
    assert (old.count(), new.count(), p) == (2, 3, 2)  # the summary read is left as it was
    save(path, new)
    again = read(path)
    assert again is not None
    assert again.titles == ["Été", "b/c", "Ωmega"]
    assert again.paths == ["pages/Été.md", None, "pages/Ωmega.md"]
    assert again._keys is not None and len(again._keys) == 2  # a chunk more
    assert again.title_keys(logseq_key) == "été\0b/c\0ωmega"
    assert (again.find("ωmega"), again.spelled["Ωmega"]) == (2, 2)
    kept = again.folded()
    again._folded = None
    assert kept == again.folded() == ("", "été\0b/c\0ωmega")  # each title is a name
    again.names = {"été": 0, "other": 2}  # a title no name folds to is searched as a title
    assert again.folded() == ("b/c\0ωmega", "été\0other")
    again.titles = ["Z", "b/c", "Ωmega"]  # titles set anew: keyed anew
    assert again._keys is None and again.title_keys(logseq_key) == "z\0b/c\0ωmega"


def _titled(titles: list[str], how: str, path: str, key: Callable[[str], str]) -> Summary:
    """A summary of these titles: made here (a list), or saved and read back (packed), its
    titles' keys kept in its base too ("kept")."""
    from journal_agent.summary_store import save

    made = Summary("stamp", titles, [None] * len(titles))
    made.extra, made.starts = array("b", bytes(len(titles))), array("i", bytes(4 * len(titles) + 4))
    if how == "list":
        return made
    if how == "kept":
        made.title_keys(key)
    save(path, made)
    found = read(path)
    assert found is not None and (found._keys is not None) == (
        how == "kept" and made._keys is not None
    )
    return found


@pytest.mark.parametrize("flavor", ["logseq", "obsidian"])
@pytest.mark.parametrize("seed", range(3))
def test_a_title_key_is_found_by_search_as_a_dict_of_every_key_finds_it(
    tmp_path: Path, flavor: str, seed: int
) -> None:
    """`summary_topics._Titles` searches the keys of every title joined by NULs (a patch that
    names a new topic looks up a few names among a hundred thousand titles): each key is where
    a dict of every title's key puts it, -1 where two titles share it, None where none has it;
    the same from titles that are a list already, or that hold a NUL, and from the keys kept
    in the summary's base (`Summary.title_keys`)."""
    from journal_agent.flavors import logseq_key, wiki_key
    from journal_agent.summary_topics import _Titles

    key = logseq_key if flavor == "logseq" else wiki_key
    rng = random.Random(seed)
    pool = ["Alpha", "alpha", "ΣΟΦΟΣ", "σοφος", "/Slash/", "Slash", "", " Spaced ", "Spaced",
            "Cafe\u0301", "Café", "a", "ab", "b", "ab/", "x\x00y", "İstanbul", "ǅemal"]  # fmt: skip
    vault = SimpleNamespace(flavor=SimpleNamespace(page_key=key))
    for _ in range(50):
        titles = rng.sample(pool, rng.randrange(1, len(pool)))
        expected: dict[str, int] = {}
        for i, title in enumerate(titles):
            expected[key(title)] = -1 if key(title) in expected else i
        probes = [*expected, *(key(t) for t in pool), "", "a\x00b", "zz", "lph", "\x00"]
        for how in ("list", "packed", "kept"):
            summary = _titled(titles, how, str(tmp_path / "x.summary"), key)
            found = _Titles(vault, summary)  # type: ignore[arg-type]
            for probe in probes:
                assert found.get(probe) == expected.get(probe), (titles, probe, how)


@pytest.mark.parametrize("seed", range(4))
def test_a_list_kept_in_chunks_reads_back_as_one(seed: int) -> None:
    """`packed.unpack_chunks` joins a list kept in chunks (the base's, one more per patch) in one
    step: each item, the whole list and whether it splits at every NUL are those of the list
    packed at once (empty chunks, empty items and items holding a NUL too)."""
    from journal_agent.packed import extended, item, pack, split, unpack, unpack_chunks, whole

    rng = random.Random(seed)
    for _ in range(200):
        items = [
            rng.choice(["", "a", "é✓", "x\x00y", "long text " * 3]) for _ in range(rng.randrange(8))
        ]
        cuts = sorted(rng.randrange(len(items) + 1) for _ in range(rng.randrange(4)))
        chunks = [items[a:b] for a, b in zip([0, *cuts], [*cuts, len(items)], strict=True)]
        found = unpack_chunks(tuple(pack(c) for c in chunks))
        at_once = unpack(pack(items))
        assert found is not None and at_once is not None
        assert [item(found, k) for k in range(len(items))] == items == split(found)
        assert found[0] == at_once[0] and list(found[1]) == list(at_once[1])
        nul_free = not any("\0" in i for i in items)
        assert whole(found) == whole(at_once) == nul_free or not items
        grown = extended(found, chunks[-1])
        assert split(grown) == items + chunks[-1]
        assert whole(grown) == nul_free or not items
    assert unpack_chunks(()) is None and unpack_chunks((pack(["a"]), b"junk")) is None
