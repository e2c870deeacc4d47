"""Pending bullets in-process: recorded once, flushed within a budget, split on refusal, kept with
their reason, resolved for good; late bullets go to their own day's page when it exists; the
outbox when the vault cannot take them; the fenced ``journal`` block and the transcript shapes."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import journal_agent
from journal_agent import pending, transcript
from journal_agent.errors import BadArgument
from journal_agent.pending import PendingStore, flush, make, record
from journal_agent.transcript import journal_blocks, read_transcript
from journal_agent.vault import open_vault

from .conftest import journal, snapshot

MON, TUE, WED = dt.date(2026, 11, 24), dt.date(2026, 11, 25), dt.date(2026, 11, 26)  # 26: no page


def lines(vault: Path, day: dt.date, text: str) -> int:
    path = journal(vault, day.isoformat())
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines() if line.strip() == f"- {text}")


def soon() -> float:
    return time.monotonic() + 10


@pytest.fixture
def store(logseq_vault: Path) -> PendingStore:
    return PendingStore.of(logseq_vault)


def test_a_bullet_is_recorded_once_per_agent_session_and_text(store: PendingStore) -> None:
    items = make(
        ["Checked [[Grafana]]", "  ", "Checked [[Grafana]] "], agent="claude", session="s1"
    )
    assert len(items) == 2 and items[0].id == items[1].id  # blank skipped, white space ignored
    assert [i.id for i in store.record(items)] == [items[0].id]
    assert store.record(make(["Checked [[Grafana]]"], agent="claude", session="s1")) == []
    other = make(["Checked [[Grafana]]"], agent="claude", session="s2")
    assert len(store.record(other)) == 1 and len(store.items()) == 2
    stored = json.loads((store.path / f"{items[0].id}.json").read_text())
    assert stored == {
        "text": "Checked [[Grafana]]",
        "agent": "claude",
        "day": dt.date.today().isoformat(),
        "session": "s1",
        "noted": items[0].noted,
        "source": None,
        "seq": items[0].seq,
    }


def test_without_a_session_the_day_is_the_key(store: PendingStore) -> None:
    mon = make(["Standup"], agent="a", day=MON)
    tue = make(["Standup"], agent="a", day=TUE)
    assert mon[0].id != tue[0].id
    assert make(["Standup"], agent="a", session="x", day=MON)[0].id == (
        make(["Standup"], agent="a", session="x", day=TUE)[0].id
    )


def test_a_resolved_bullet_never_comes_back(store: PendingStore) -> None:
    [item] = make(["Dropped [[Nowhere]]"], agent="claude", session="s1")
    store.record([item])
    store.resolve(item, "dropped")
    assert store.items() == [] and store.record([item]) == []
    # a flush killed between the tombstone and the cleanup: resolved, and cleaned up on listing
    (store.path / f"{item.id}.json").write_text(json.dumps({"text": item.text}))
    assert store.items() == [] and not (store.path / f"{item.id}.json").exists()


def test_flush_writes_once_and_splits_a_refusal(logseq_vault: Path, store: PendingStore) -> None:
    vault = open_vault(logseq_vault)
    texts = ["Good one on [[Grafana]]", "Bad one on [[No Such Page]]", "Another on [[Flaky CI]]"]
    store.record(make(texts, agent="claude", session="s1", day=TUE))
    report = flush(vault, until=soon(), today=TUE)
    assert sorted(i.text for i in report.written) == sorted([texts[0], texts[2]])
    [bad] = report.failed
    assert (
        bad.text == texts[1]
        and bad.reason == "no page named 'No Such Page'; writing it would create one"
    )
    [left] = store.items()
    assert (left.text, left.reason) == (texts[1], bad.reason)
    again = flush(vault, until=soon(), today=TUE)  # retried, still refused, nothing twice
    assert again.written == [] and len(again.failed) == 1
    assert [lines(logseq_vault, TUE, t) for t in texts] == [1, 0, 1]
    (logseq_vault / "pages" / "No Such Page.md").write_text("- a page now\n")
    assert [i.text for i in flush(vault, until=soon(), today=TUE).written] == [texts[1]]
    assert store.items() == [] and lines(logseq_vault, TUE, texts[1]) == 1


def test_a_flush_killed_after_writing_reflushes_safely(
    logseq_vault: Path, store: PendingStore
) -> None:
    vault = open_vault(logseq_vault)
    [item] = make(["Once on [[Grafana]]"], agent="claude", session="s1", day=TUE)
    store.record([item])
    journal_agent.append([item.text], vault=vault, agent="claude", date=TUE, session="s1")
    report = flush(vault, until=soon(), today=TUE)  # the tombstone never landed: found written
    assert [i.id for i in report.duplicates] == [item.id] and store.items() == []
    assert lines(logseq_vault, TUE, item.text) == 1


def on_page(vault: Path, day: dt.date, texts: list[str]) -> list[str]:
    """Which of ``texts`` are bullets of the day's page, in the page's order."""
    path = journal(vault, day.isoformat())
    found = [line.strip()[2:] for line in path.read_text().splitlines()]
    return [t for t in found if t in texts]


def test_bullets_are_written_in_the_order_handed_over(
    logseq_vault: Path, store: PendingStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within one call and across calls, even when they share ``noted`` (whole seconds): not in
    the order of their ids."""
    monkeypatch.setattr(pending, "now_utc", lambda: "2026-11-25T09:00:00+00:00")
    vault = open_vault(logseq_vault)
    first = [f"{n} on [[Grafana]]" for n in ("first", "second", "third", "fourth")]
    later = [f"{n} on [[Flaky CI]]" for n in ("fifth", "sixth")]
    assert sorted(first, key=lambda t: make([t], agent="claude", session="s1")[0].id) != first
    store.record(make(first, agent="claude", session="s1", day=TUE))
    store.record(make(later, agent="claude", session="s1", day=TUE))
    assert [i.text for i in store.items()] == first + later
    flush(vault, until=soon(), today=TUE)
    assert on_page(logseq_vault, TUE, first + later) == first + later


def test_pending_files_of_earlier_versions_still_load_in_a_stable_order(
    store: PendingStore,
) -> None:
    """Files without ``seq`` (or with a foreign one) load, ordered by when noted, then id."""
    store.record(make(["new [[Grafana]]"], agent="a", session="s"))
    store.path.mkdir(parents=True, exist_ok=True)
    old = {"agent": "a", "day": TUE.isoformat(), "session": "s", "source": None}
    for item_id, noted, text, extra in [
        ("00000000000000bb", "2026-11-25T09:00:00+00:00", "old b", {}),
        ("00000000000000aa", "2026-11-25T09:00:00+00:00", "old a", {"seq": "x"}),
        ("00000000000000cc", "2026-11-25T08:00:00+00:00", "older", {}),
    ]:
        data = dict(old, text=text, noted=noted, **extra)
        (store.path / f"{item_id}.json").write_text(json.dumps(data))
    texts = [i.text for i in store.items()]
    assert texts == ["older", "old a", "old b", "new [[Grafana]]"]


def test_a_late_bullet_goes_to_its_own_days_page(logseq_vault: Path, store: PendingStore) -> None:
    vault = open_vault(logseq_vault)
    store.record(make(["Monday's note on [[Grafana]]"], agent="claude", session="s1", day=MON))
    report = flush(vault, until=soon(), today=WED)
    assert [i.day for i in report.written] == [MON] and report.moved == {}
    assert lines(logseq_vault, MON, "Monday's note on [[Grafana]]") == 1


def test_the_flushs_today_is_the_one_day_whose_page_is_made(
    logseq_vault: Path, store: PendingStore
) -> None:
    """The writer creates no page but today's; the flush tells it which day that is, so the
    two agree (a flush that began before midnight, or a test's day)."""
    vault = open_vault(logseq_vault)
    store.record(make(["Wednesday's note on [[Grafana]]"], agent="claude", session="s1", day=WED))
    report = flush(vault, until=soon(), today=WED)
    assert [i.day for i in report.written] == [WED] and report.failed == []
    assert lines(logseq_vault, WED, "Wednesday's note on [[Grafana]]") == 1


def test_a_late_bullet_whose_page_is_missing_goes_to_today(
    logseq_vault: Path, store: PendingStore
) -> None:
    """Only today's journal page may be created: a day without a page gets none afterwards."""
    vault = open_vault(logseq_vault)
    [item] = make(["Wednesday's note on [[Grafana]]"], agent="claude", session="s1", day=WED)
    store.record([item])
    thu = WED + dt.timedelta(days=1)
    report = flush(vault, until=soon(), today=thu)
    assert report.moved == {item.id: thu} and not journal(logseq_vault, WED.isoformat()).exists()
    assert report.to_json()["written"][0]["written_on"] == thu.isoformat()
    assert lines(logseq_vault, thu, item.text) == 1
    # killed before its tombstone; meanwhile the person wrote Wednesday's page: still once
    (store.path / "done" / item.id).unlink()
    assert store.record([item])
    journal(logseq_vault, WED.isoformat()).write_text("- a late human note\n")
    again = flush(vault, until=soon(), today=thu + dt.timedelta(days=1))
    assert [i.id for i in again.duplicates] == [item.id]
    assert lines(logseq_vault, WED, item.text) == 0 and lines(logseq_vault, thu, item.text) == 1


def test_out_of_time_leaves_bullets_untried(logseq_vault: Path, store: PendingStore) -> None:
    vault = open_vault(logseq_vault)
    store.record(make(["Later on [[Grafana]]"], agent="claude", session="s1"))
    report = flush(vault, until=time.monotonic() - 1)
    assert len(report.untried) == 1 and report.left == report.untried
    assert store.items()[0].reason is None


def test_the_outbox_keeps_bullets_of_a_missing_vault(logseq_vault: Path, tmp_path: Path) -> None:
    away = logseq_vault.rename(tmp_path / "away")
    items = make(["While away: [[Grafana]]"], agent="claude", session="s1")
    [kept] = record(items, None, logseq_vault, "no such folder")
    assert (kept.where, kept.reason) == ("outbox", "no such folder")
    assert record(items, None, logseq_vault, "no such folder") == []  # once
    assert [i.text for i in pending.outbox(logseq_vault).items()] == [items[0].text]
    away.rename(logseq_vault)
    report = flush(open_vault(logseq_vault), until=soon())
    assert [i.text for i in report.written] == [items[0].text]
    assert pending.outbox(logseq_vault).items() == []


def test_note_api(logseq_vault: Path) -> None:
    result = journal_agent.note(
        ["Noted [[Grafana]]", "Noted [[Nowhere]]"],
        vault=logseq_vault,
        agent="claude",
        kind="decision",
    )
    states = [(b["state"], b["text"]) for b in result.to_json()["bullets"]]
    assert states == [
        ("written", "Decision: Noted [[Grafana]]"),
        ("pending", "Decision: Noted [[Nowhere]]"),
    ]
    only = journal_agent.note(["Later [[Grafana]]"], vault=logseq_vault, agent="claude", budget=0)
    assert only.to_json()["bullets"][0]["state"] == "pending"
    assert sorted(i.text for i in journal_agent.pending_bullets(vault=logseq_vault).pending) == [
        "Decision: Noted [[Nowhere]]",
        "Later [[Grafana]]",
    ]
    with pytest.raises(BadArgument):
        journal_agent.note(["x" * 20000], vault=logseq_vault)


@pytest.mark.parametrize("budget", [-1.0, float("nan"), 3601.0])
def test_a_budget_that_makes_no_deadline_is_refused_before_anything_is_recorded(
    logseq_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: float
) -> None:
    """Recording, flushing and fixing pending bullets all take a budget of 0 to 3600 seconds:
    a negative one, NaN or more is refused by name, with every file as it was (a negative
    budget used to flush nothing and say nothing, or record a fix it then did not try)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    journal_agent.note(["Noted [[Nowhere]]"], vault=logseq_vault, agent="claude", budget=0)
    [item] = journal_agent.pending_bullets(vault=logseq_vault).pending
    before, state = snapshot(logseq_vault), snapshot(tmp_path)
    calls: list[Callable[[], object]] = [
        lambda: journal_agent.note(["More [[Grafana]]"], vault=logseq_vault, budget=budget),
        lambda: journal_agent.flush_pending(vault=logseq_vault, budget=budget),
        lambda: journal_agent.fix_pending(item.id, "Noted [[Grafana]]", vault=logseq_vault,
                                          budget=budget),
    ]  # fmt: skip
    for call in calls:
        with pytest.raises(BadArgument, match="must be between 0 and 3600 seconds"):
            call()
        assert snapshot(logseq_vault) == before and snapshot(tmp_path) == state


def test_render_shows_each_bullet_with_its_reason(store: PendingStore) -> None:
    assert pending.render([]) == ""
    [item] = make(["Links [[Nowhere]]"], agent="claude", session="s1", day=MON)
    text = pending.render([store.failed(item, "no page named 'Nowhere'")])
    assert f"- `{item.id[:8]}` 2026-11-24: Links [[Nowhere]] — no page named 'Nowhere'" in text
    [raw] = make(["esc \x1b[2J\x9b bullet"], agent="claude", session="s1", day=MON)
    text = pending.render([store.failed(raw, "control characters U+001B are not text")])
    assert "esc \\x1b[2J\\x9b bullet — control" in text and "\x1b" not in text


@pytest.mark.parametrize(
    ("text", "bullets"),
    [
        ("```journal\n- one\n* two\n\n+ three\nfour\n```", ["one", "two", "three", "four"]),
        ("prose\n~~~ Journal\n- a\n~~~\nmore\n```journal\n- b", ["a", "b"]),  # open at the end
        ("```python\n- not this\n```\n````journal\n- x ```\n````", ["x ```"]),
        ("no block here\n- not a bullet", []),
        ("```journals\n- no\n```", []),
        # an example inside another fenced block is that block's content (CommonMark)
        ("````markdown\n```journal\n- example\n```\n````\n```journal\n- real\n```", ["real"]),
        ("~~~python\nx = '''\n```journal\n- example\n```\n'''\n~~~", []),
        ("```\n~~~journal\n- example\n~~~\n```\n~~~journal\n- real", ["real"]),
        ("```text\n````journal\n- example\n````\n```", []),
        ("``` `journal`\n- not a fence\n```journal\n- real\n```", ["real"]),
        # line ends only: another line break stays in its bullet (the guard refuses it whole)
        (
            "```journal\r\n- a\u2028b\x0bc\x85d\x1ce\r\n- f\r- g\n```",
            ["a\u2028b\x0bc\x85d\x1ce", "f", "g"],
        ),
    ],
)
def test_journal_blocks(text: str, bullets: list[str]) -> None:
    assert journal_blocks(text)[0] == bullets


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("```journal\n- a\n```", (["a"], 0)),
        # a code fence left open above the journal block: its fence closes the code block
        ("Fixed it:\n```python\nx = 1\n\n```journal\n- Fixed [[Grafana]]\n```", ([], 1)),
        ("````markdown\n```journal\n- example\n```\n````\n```journal\n- real\n```", (["real"], 1)),
        ("```text\n~~~ Journal\n~~~journals\n```", ([], 1)),
        ("```journal\n- a\n~~~journal\n```", (["a", "~~~journal"], 0)),
    ],
)
def test_journal_fences_inside_other_blocks_are_counted(
    text: str, found: tuple[list[str], int]
) -> None:
    """A ``journal`` fence inside another fenced block is that block's content: counted, so
    the hook says it took no bullet from it (`loop._bullets`)."""
    assert journal_blocks(text) == found


def test_transcript_shapes_and_what_they_skip(tmp_path: Path) -> None:
    block = "```journal\\n- {}\\n```"
    claude = tmp_path / "c.jsonl"
    claude.write_text(
        "\n".join(
            [
                '{"type":"assistant","isSidechain":true,"message":{"role":"assistant","content":"'
                + block.format("subagent")
                + '"}}',
                '{"type":"user","message":{"role":"user","content":"'
                + block.format("user")
                + '"}}',
                "not json " + block.format("torn"),
                '{"type":"assistant","timestamp":"2026-11-24T12:00:00Z","message":{"role":"assistant",'
                '"content":[{"type":"text","text":"' + block.format("kept") + '"}]}}',
            ]
        )
    )
    [message] = read_transcript(claude).messages
    assert journal_blocks(message.text)[0] == ["kept"] and message.day == dt.date(2026, 11, 24)
    gemini = tmp_path / "g.json"
    gemini.write_text(
        json.dumps(
            {"messages": [{"type": "gemini", "content": [{"text": "```journal\n- g\n```"}]}]}
        )
    )
    assert [journal_blocks(m.text)[0] for m in read_transcript(gemini).messages] == [["g"]]
    assert read_transcript(tmp_path / "missing.jsonl").messages == []


def test_a_gemini_session_log_counts_a_message_once_and_not_once_rewound(tmp_path: Path) -> None:
    """Gemini CLI 0.39+ writes ``session-*.jsonl``: a metadata line, a line per message (one
    updated is written again whole), ``$rewindTo`` (that message and the later ones are gone)
    and ``$set`` lines, one of them a snapshot of every message."""

    def said(key: str, bullet: str, kind: str = "gemini") -> dict[str, Any]:
        text = f"done\n\n```journal\n- {bullet}\n```"
        return {"id": key, "timestamp": "2026-11-24T12:00:00Z", "type": kind,
                "content": [{"text": text}]}  # fmt: skip

    lines: list[Any] = [
        {"sessionId": "s", "projectHash": "h", "startTime": "2026-11-24T11:00:00Z"},
        said("u1", "a user quoting a block", "user"),
        said("g1", "first, old copy"),
        {"$set": {"lastUpdated": "2026-11-24T12:00:01Z"}},
        said("g1", "first"),  # updated: written again whole
        said("g2", "rewound away"),
        said("g3", "rewound away too"),
        {"$rewindTo": "g2"},
        said("g4", "after the rewind"),
        {"$set": {"messages": [said("g0", "only in a snapshot"), said("g4", "after the rewind")]}},
        said("g5", "newest"),
    ]
    log = tmp_path / "session-2026-11-24T11-00-abcd1234.jsonl"
    log.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))
    found = [journal_blocks(m.text)[0] for m in read_transcript(log).messages]
    assert found == [["first"], ["only in a snapshot"], ["after the rewind"], ["newest"]]
    assert read_transcript(log).messages[0].day == dt.date(2026, 11, 24)
    assert [journal_blocks(m.text)[0] for m in read_transcript(log, newest_only=True).messages] == [
        ["newest"]
    ]


def test_a_transcript_is_read_from_its_end_skipping_huge_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read backwards a chunk at a time, whatever the chunk boundaries; a line too long to be a
    reply is skipped unparsed; what is left unread, or skipped holding a fence, is said."""

    def said(text: str) -> str:
        return json.dumps({"type": "assistant", "message": {"role": "assistant", "content": text}})

    tool = json.dumps({"type": "user", "toolUseResult": {}, "message": {"content": "x" * 500}})
    fenced = tool.replace("xxx", "```journal\\n- tool output\\n", 1)
    lines = [said(f"```journal\n- r{i}\n```") for i in range(4)]
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        "\r\n".join([lines[0], tool, lines[1], "", fenced, lines[2], tool, lines[3]]).encode()
    )
    monkeypatch.setattr(transcript, "MAX_LINE_BYTES", 400)
    texts = [f"```journal\n- r{i}\n```" for i in range(4)]
    for chunk in [1, 2, 3, 7, 64, 399, 400, 401, 1000, 1 << 20]:
        monkeypatch.setattr(transcript, "_CHUNK", chunk)
        whole = read_transcript(path)
        assert [m.text for m in whole.messages] == texts, chunk
        assert whole.note == (
            f"transcript {path}: 1 line(s) over 400 bytes holding a journal fence skipped "
            "unparsed (taken for tool output)"
        )
        assert [m.text for m in read_transcript(path, newest_only=True).messages] == texts[3:]
        tail = read_transcript(path, budget=len(lines[3]) + len(tool) + 3)  # from after lines[2]
        unread = path.stat().st_size - len(lines[3]) - len(tool) - 3
        assert tail == (
            [transcript.Message(texts[3])],
            f"transcript {path}: its first {unread} bytes not read (a hook reads its last "
            f"{len(lines[3]) + len(tool) + 3} bytes)",
        )
    size = path.stat().st_size
    assert read_transcript(path, seconds=0) == (
        [],
        f"transcript {path}: its first {size} bytes not read (a hook reads for 0 s)",
    )
    gemini = tmp_path / "g.json"  # one document: read whole, or not at all
    gemini.write_text(json.dumps({"messages": [{"type": "gemini", "content": texts[0]}]}, indent=2))
    assert read_transcript(gemini).messages == [transcript.Message(texts[0])]
    assert read_transcript(gemini, budget=50) == (
        [],
        f"transcript {gemini}: a JSON document of {gemini.stat().st_size} bytes, over the 50 "
        "bytes a hook reads; not read",
    )
    assert read_transcript(tmp_path).note == f"transcript {tmp_path} not read: it is a folder"


def test_for_context_lists_one_agents_pending_bullets(logseq_vault: Path) -> None:
    vault = open_vault(logseq_vault)
    store = PendingStore.of(logseq_vault)
    store.record(make(["mine [[Nowhere]]"], agent="claude") + make(["theirs"], agent="codex"))
    assert [i.text for i in pending.for_context(vault, "claude")] == ["mine [[Nowhere]]"]
    # as of a day: what was noted by then (the local day of its time; its day without one)
    [late] = make(["late"], agent="gemini", day=MON)
    [old] = make(["old"], agent="gemini", day=MON)
    store.record([late._replace(noted="2026-11-26T12:00:00+00:00"), old._replace(noted="")])
    later = dt.date(2026, 11, 28)
    shown = [[i.text for i in pending.for_context(vault, "gemini", as_of=d)] for d in (MON, later)]
    assert shown == [["old"], ["old", "late"]]


def test_bullets_noted_without_any_vault_move_into_the_first_one(logseq_vault: Path) -> None:
    items = make(["Before any vault: [[Grafana]]"], agent="claude", session="s1")
    [kept] = record(items, None, None, "no vault given")
    assert pending.outbox(None).items()[0].reason == "no vault given"
    report = flush(open_vault(logseq_vault), until=soon())
    assert [i.id for i in report.written] == [kept.id] and pending.outbox(None).items() == []
