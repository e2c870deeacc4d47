"""`status` and `timeline` answered from the status summary say exactly what the graph says.

A warm `status TOPIC` looks the topic up in the summary by its query key (`Summary.find`)
instead of loading the index and building the registry, and a warm `timeline TOPIC` adds the
undated mentions of the few files the summary's side file names (`backlinks`); a name the
summary does not know for certain (ambiguous, a journal or unlisted page, a spelling it never
saw) falls back to the graph. For every page of every fixture vault, under every spelling we
can think of, before and after edits that patch the summary, the answer (or the refusal) must
be the graph's. A Logseq name that no page has is refused from the summary too, with the names
the graph would offer (`summary_topics.refuse_unknown`).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Any

import pytest

from journal_agent import api
from journal_agent.api import Query
from journal_agent.errors import JournalAgentError
from journal_agent.registry import load_registry, query_keys
from journal_agent.vault import open_vault

from .conftest import ROOT, copy_vault, past_racy, settle

AS_OF = "2026-11-29"
RULES = sorted((ROOT / "tests" / "vaults" / "obsidian_rules").iterdir())


def spellings(root: Path) -> list[str]:
    """Every page's title, aliases and path, in other cases, with odd edges and mistyped,
    and a few names no page has."""
    registry, _ = load_registry(open_vault(root), use_cache=False)
    names: list[str] = ["Nope", "", "pages/", "2026-11-29", "Nov 29th, 2026"]
    for page in registry:
        for name in (page.title, *page.aliases, *((page.path,) if page.path else ())):
            names += [name, name.lower(), name.upper(), f"/{name}", f"{name}.md", f" {name}"]
            names += [name[1:], f"{name[:-1]}q"]  # typos: what a refusal offers instead
    return list(dict.fromkeys(names))


def answer(root: Path, name: str, use_cache: bool) -> Any:
    """``status`` and ``timeline`` of ``name`` (or the refusal)."""
    try:
        status = api.status(name, vault=root, as_of=AS_OF, use_cache=use_cache).to_json()
        found = api.timeline(name, vault=root, as_of=AS_OF, use_cache=use_cache)
        return status, found.to_json(), found.warnings
    except JournalAgentError as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize(
    "fixture", ["logseq_vault", "obsidian_vault", "markdown_vault", *[r.name for r in RULES]]
)
def test_lookups_from_the_summary_are_the_graphs(
    request: pytest.FixtureRequest, tmp_path: Path, fixture: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if fixture.endswith("_vault"):
        root: Path = request.getfixturevalue(fixture)
    else:
        root = copy_vault(ROOT / "tests" / "vaults" / "obsidian_rules" / fixture, tmp_path)
    from journal_agent import queries

    graphs: list[int] = []
    real = queries.Graph.__init__

    def counted(self: Any, *args: Any, **kw: Any) -> None:
        graphs.append(1)
        real(self, *args, **kw)

    mention_itself(root)
    api.topics(vault=root, as_of=AS_OF)  # the summary, cached
    monkeypatch.setattr(queries.Graph, "__init__", counted)
    found = refused = 0
    for round_ in range(3):
        names = spellings(root)
        summary = Query.of(root, AS_OF, None, True).summary()
        key = query_keys(open_vault(root))
        for name in names:
            graphs.clear()
            warm = answer(root, name, True)
            if summary.find(key(name)) is not None:  # known for certain: no graph was needed
                assert not graphs, name
                found += 1
            elif warm[0] == "PageNotFound" and not graphs:  # no page has it (`refuse_unknown`)
                refused += 1
            assert warm == answer(root, name, False), name
        if round_ == 0:
            edit_some(root)
        elif round_ == 1:
            come_and_go(root)
    assert found > 0
    assert refused > 0 if fixture == "logseq_vault" else not refused  # Logseq's names only


def mention_itself(root: Path) -> None:
    """Make a few pages link themselves (a page's references to itself are no backlinks), and
    one page that nothing names (`come_and_go` deletes it)."""
    registry, _ = load_registry(open_vault(root), use_cache=False)
    own = [p for p in registry if p.path and p.date is None and not p.path.startswith(".")]
    for page in own[:3]:
        assert page.path is not None
        path = root / page.path
        path.write_text(path.read_text().rstrip("\n") + f"\n- about [[{page.title}]] itself\n")
    known = next(p for p in registry if p.path and p.date is None and "/" not in p.title)
    assert known.path is not None
    (root / known.path).parent.joinpath("Scratch.md").write_text("- a scratch note\n")


def come_and_go(root: Path) -> None:
    """The new day's journal page about a known page and a name nobody used, a new page that
    nothing names yet, and a page that nothing named deleted: each patches the summary."""
    vault = open_vault(root)
    registry, _ = load_registry(vault, use_cache=False)
    known = next(p for p in registry if p.path and p.date is None and "/" not in p.title)
    day = root / vault.journal_rel(dt.date(2026, 11, 30))
    day.parent.mkdir(parents=True, exist_ok=True)
    day.write_text(f"- more on [[{known.title}]] and [[Quite New Thing]]\n")
    assert known.path is not None
    folder = (root / known.path).parent
    (folder / "Fresh Page.md").write_text(f"- notes on [[{known.title}]]\n")
    (folder / "Scratch.md").unlink(missing_ok=True)
    stamp = time.time_ns() - 3_000_000_000
    for path in (day, folder / "Fresh Page.md"):
        os.utime(path, ns=(stamp, stamp))


def edit_some(root: Path) -> None:
    """Repeat the first bullet of every page at its end (journals too), three seconds back:
    the summary is patched, not rebuilt, and the side file follows."""
    for path in sorted(root.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        lines = path.read_text().splitlines()
        bullets = [ln for ln in lines if ln.startswith("- ")]
        if bullets:
            path.write_text("\n".join([*lines, bullets[0]]) + "\n")
            stamp = time.time_ns() - 3_000_000_000
            os.utime(path, ns=(stamp, stamp))


@pytest.mark.parametrize("seed", range(20))
def test_a_topics_undated_counts_are_found_as_a_step_per_pair_finds_them(seed: int) -> None:
    """`backlinks._undated_counts` searches the side file's (topic, count) pairs as bytes:
    it must find exactly what a Python step per pair finds, in file order, where a topic's
    bytes also stand across two numbers (large positions make such matches common)."""
    import bisect
    import random
    from array import array

    from journal_agent.backlinks import _undated_counts

    rng = random.Random(seed)
    topics = [rng.choice([0, 1, 256, 65536, 65537, 16777216, 16777472, rng.randrange(2**31)])
              for _ in range(rng.randrange(0, 400))]  # fmt: skip
    spans, pairs, n = array("i", [0]), array("i"), 0
    for t in topics:
        pairs.extend((t, rng.randrange(1, 9)))
        n += 1
        if rng.random() < 0.4:  # the next pair starts a new file
            spans.append(n)
    spans.append(n)
    for i in {*topics, 0, 1, 256, 65536, 7}:
        expected = {
            bisect.bisect_right(spans, k // 2) - 1: pairs[k + 1]
            for k in range(0, len(pairs), 2)
            if pairs[k] == i
        }
        found = _undated_counts(pairs, spans, i)
        assert found == expected and list(found) == sorted(expected), i


@pytest.fixture
def memo_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every topic's backlinks kept (`backlinks.Memo`), not only those of topics in more than
    `backlinks.MEMO_MIN` files (the fixture vaults have none)."""
    from journal_agent import backlinks

    monkeypatch.setattr(backlinks, "MEMO_MIN", 0)


def timelines(root: Path, use_cache: bool) -> list[Any]:
    names = [p.title for p in load_registry(open_vault(root), use_cache=False)[0]]
    return [answer(root, name, use_cache) for name in sorted(names)]


@pytest.mark.parametrize("fixture", ["logseq_vault", "obsidian_vault"])
@pytest.mark.parametrize("seed", range(4))
def test_kept_backlinks_are_the_graphs_after_random_edits(
    request: pytest.FixtureRequest, fixture: str, seed: int, memo_all: None, short_racy_window: int
) -> None:
    """Pages edited, added, deleted, renamed or given an alias between timelines, the next
    timeline run at once (the changed files racy: not kept) or once they left the racy window
    (kept), and again with nothing changed (all taken at once): what each warm timeline takes
    from what the last one kept is still the graph's."""
    import random

    from .test_summary_patch import backdate, backdate_all, edit_page, reshape

    root: Path = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    vault = open_vault(root)
    files = sorted(p for p in root.rglob("*.md") if not any(x.startswith(".") for x in p.parts))
    pages = [p for p in files if vault.date_of(p.relative_to(root).as_posix()) is None]
    others = [ln for p in files for ln in p.read_text().splitlines() if ln.startswith("- ")]
    backdate_all(root)
    past_racy(root)
    assert timelines(root, True) == timelines(root, False) == timelines(root, True)
    for _round in range(5):
        for path in rng.sample(pages, min(len(pages), rng.randint(1, 3))):
            edit_page(rng, path, others)
            backdate(path)
        if rng.random() < 0.5:
            reshape(rng, vault.flavor.name, pages, others)
        if rng.random() < 0.5:
            past_racy(root)
        graphs = timelines(root, False)
        assert timelines(root, True) == graphs == timelines(root, True)


def kept_stamps(root: Path) -> list[str]:
    """The summary stamp each topic's kept backlinks were kept with (`backlinks.Memo`)."""
    import marshal

    from journal_agent.summary_store import summary_path

    folder = Path(summary_path(open_vault(root))).parent
    return [marshal.loads(p.read_bytes())[2] for p in sorted(folder.glob("*.hot-*"))]


def test_with_nothing_changed_every_kept_backlink_is_taken_at_once(
    logseq_vault: Path, memo_all: None, short_racy_window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kept with the summary that still answers, no file racy then (kept anew by a timeline
    that found nothing to read after a change elsewhere): no file is looked at one by one,
    the side file is not read, and the timelines are still the graph's."""
    from journal_agent import backlinks, index, sidecar

    monkeypatch.setattr(backlinks, "MEMO_TOPICS", 10_000)  # every topic's kept
    settle(logseq_vault, short_racy_window)
    first = timelines(logseq_vault, True)
    assert kept_stamps(logseq_vault) and all(kept_stamps(logseq_vault))
    (logseq_vault / "pages" / "Aside.md").write_text("- a page that names nothing\n")
    past_racy(logseq_vault)  # another summary: what was kept is taken file by file, kept anew
    first = timelines(logseq_vault, True)

    def never(*args: Any) -> Any:
        raise AssertionError("a file, or the side file, looked at")

    def nothing_read(vault: Any, files: list[Any]) -> Any:
        assert not files, "a file read"
        return {}

    monkeypatch.setattr(backlinks.Memo, "take", never)
    monkeypatch.setattr(index, "facts_of", nothing_read)
    again = timelines(logseq_vault, True)
    kept = [
        t[1]["topic"]
        for t in again
        if len(t) == 3 and any(e["date"] is None for e in t[1]["entries"])
    ]  # the topics with an undated mention: those have their backlinks kept
    monkeypatch.setattr(sidecar, "load_side", never)
    assert kept and [answer(logseq_vault, name, True) for name in kept] == [
        t for t in again if len(t) == 3 and t[1]["topic"] in kept
    ]
    assert again == first == timelines(logseq_vault, False)


def test_backlinks_kept_while_a_file_was_racy_are_checked_file_by_file(
    logseq_vault: Path, memo_all: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed in the racy window may change again keeping its stat (the summary's
    stamp): what was kept then is taken only file by file, once that file has settled."""
    from journal_agent import index

    monkeypatch.setattr(index, "RACY_NS", 1_000_000_000)  # long enough for one timeline
    settle(logseq_vault)
    page = next((logseq_vault / "pages").glob("*.md"))
    page.write_text(page.read_text() + "- one more about [[Racy Topic]]\n")

    def timeline() -> Any:
        return api.timeline("Racy Topic", vault=logseq_vault, as_of=AS_OF).to_json()

    first = timeline()
    assert [e["path"] for e in first["entries"]] == [page.relative_to(logseq_vault).as_posix()]
    assert kept_stamps(logseq_vault) == [""]
    past_racy(logseq_vault)
    graph = api.timeline("Racy Topic", vault=logseq_vault, as_of=AS_OF, use_cache=False)
    assert timeline() == first == graph.to_json()
    assert kept_stamps(logseq_vault) != [""]
    assert timeline() == first


def test_a_kept_backlink_whose_name_lands_elsewhere_now_is_read_again(
    tmp_path: Path, memo_all: None
) -> None:
    """An alias moves from one name to another while the file that uses both keeps its bytes:
    the topic has as many blocks in it as before, but other ones."""
    root = tmp_path / "v"
    (root / "pages").mkdir(parents=True)
    (root / "logseq").mkdir()
    (root / "logseq" / "config.edn").write_text("{}")
    notes = root / "pages" / "Notes.md"
    notes.write_text("- about [[Y]]\n- about [[Z]]\n")
    (root / "pages" / "X.md").write_text("alias:: Y\n\n- x\n")
    from .test_summary_patch import backdate_all

    backdate_all(root)
    stat = notes.stat()
    assert [e["text"] for e in api.timeline("X", vault=root).to_json()["entries"]] == [
        "about [[Y]]"
    ]
    (root / "pages" / "X.md").write_text("alias:: Z\n\n- x\n")
    backdate_all(root)
    os.utime(notes, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # its stat as kept
    found = api.timeline("X", vault=root).to_json()
    assert [e["text"] for e in found["entries"]] == ["about [[Z]]"]
    assert found == api.timeline("X", vault=root, use_cache=False).to_json()


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"\x00garbage",
        "another format",
        "a wrong shape",
        "not a dict",
        "not compressed",
        "not marshalled",
        "entries not a text",
    ],
)
def test_damaged_kept_backlinks_are_read_again(
    logseq_vault: Path, memo_all: None, damage: Any
) -> None:
    import marshal
    import zlib

    from journal_agent import backlinks
    from journal_agent.summary_store import summary_path

    from .test_summary_patch import backdate_all

    backdate_all(logseq_vault)
    before = timelines(logseq_vault, True)
    kept = list(Path(summary_path(open_vault(logseq_vault))).parent.glob("*.hot-*"))
    assert kept
    for path in kept:
        made_by, packed, stamp, entries = marshal.loads(path.read_bytes())
        found = marshal.loads(zlib.decompress(packed))
        if damage == "another format":
            made_by = (backlinks.MEMO_FORMAT + 1, made_by[1])
            data = marshal.dumps((made_by, packed, stamp, entries))
        elif damage == "a wrong shape":
            packed = zlib.compress(marshal.dumps({rel: (1, 2) for rel in found}))
            data = marshal.dumps((made_by, packed, stamp, entries))
        elif damage == "not a dict":
            data = marshal.dumps(
                (made_by, zlib.compress(marshal.dumps(list(found))), stamp, entries)
            )
        elif damage == "not compressed":
            data = marshal.dumps((made_by, marshal.dumps(found), stamp, entries))
        elif damage == "not marshalled":
            data = marshal.dumps((made_by, b"\x00garbage", stamp, entries))
        elif damage == "entries not a text":
            data = marshal.dumps((made_by, packed, stamp, list(entries)))
        else:
            data = damage
        path.write_bytes(data)
    assert timelines(logseq_vault, True) == before == timelines(logseq_vault, False)


def test_kept_backlinks_follow_a_file_name_format_that_retitles_their_pages(
    tmp_path: Path, memo_all: None
) -> None:
    """The settings alone rename the page a kept backlink stands on; no file changes."""
    from .test_summary_patch import backdate_all

    root = tmp_path / "v"
    (root / "pages").mkdir(parents=True)
    (root / "logseq").mkdir()
    (root / "logseq" / "config.edn").write_text("{}")
    (root / "pages" / "Work___Notes.md").write_text("- about [[X]]\n")
    (root / "pages" / "X.md").write_text("- x\n")
    backdate_all(root)
    before = api.timeline("X", vault=root).to_json()["entries"][0]["page"]
    (root / "logseq" / "config.edn").write_text("{:file/name-format :triple-lowbar}")
    found = api.timeline("X", vault=root).to_json()
    assert found["entries"][0]["page"] != before
    assert found == api.timeline("X", vault=root, use_cache=False).to_json()


def test_only_the_topics_written_last_are_kept(
    logseq_vault: Path, memo_all: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from journal_agent import backlinks
    from journal_agent.summary_store import summary_path

    monkeypatch.setattr(backlinks, "MEMO_TOPICS", 2)
    timelines(logseq_vault, True)
    folder = Path(summary_path(open_vault(logseq_vault))).parent
    assert len(list(folder.glob("*.hot-*"))) == 2
