"""watch, with real file events: the index after each burst equals a cold rebuild, and people's
edits to agent bullets (and an app's overwrite with an older copy) are seen and never undone."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import journal_agent
from journal_agent import WatchRunning
from journal_agent.index import load_index
from journal_agent.state import StateDir
from journal_agent.vault import open_vault
from journal_agent.watch import DEBOUNCE, Watcher
from journal_agent.watchbullets import read_observations
from journal_agent.watchstamp import DIRTY

from .conftest import journal, pin_today

DAY = "2026-11-29"
DEADLINE = 30.0


@pytest.fixture(autouse=True)
def today_is_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """DAY is today: the one day whose journal page these appends may create."""
    pin_today(monkeypatch, DAY)


@pytest.fixture(autouse=True)
def short_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quiet pass comes after a second here, not after `watch.QUIET`, and a bullet gone
    from its page waits three seconds to be pasted elsewhere, not `watchbullets.MOVE_WINDOW`:
    tests wait for both."""
    monkeypatch.setattr("journal_agent.watch.QUIET", 1.0)
    monkeypatch.setattr("journal_agent.watchbullets.MOVE_WINDOW", 3.0, raising=False)


class Running:
    """A watcher running in a thread, with what it reported."""

    def __init__(self, vault: Path, poll: bool = False) -> None:
        self.lines: list[str] = []
        self.watcher = Watcher(open_vault(vault), poll=poll, report=self.lines.append)
        self.thread = threading.Thread(target=self.watcher.run, daemon=True)
        self.thread.start()
        self.settle(1)

    def settle(self, at_least: int | None = None) -> None:
        """Wait until the watcher has refreshed after what was just done (or ``at_least``), and
        is idle: no change waiting, and its quiet pass done."""
        target = at_least if at_least is not None else self.watcher.refreshes + 1
        deadline = time.monotonic() + DEADLINE
        while self.watcher.refreshes < target or not self.watcher.idle:
            assert time.monotonic() < deadline, "the watcher never refreshed"
            assert self.thread.is_alive(), "the watcher stopped"
            time.sleep(0.02)

    def refreshed(self) -> None:
        """Wait until the watcher has refreshed after what was just done, idle or not (a bullet
        gone from its page may still wait to be pasted elsewhere)."""
        target = self.watcher.refreshes + 1
        deadline = time.monotonic() + DEADLINE
        while self.watcher.refreshes < target:
            assert time.monotonic() < deadline, "the watcher never refreshed"
            time.sleep(0.02)

    def quiet(self) -> None:
        """Wait until whatever was just done, if it made any event, is refreshed: for changes
        that may make none (below a hidden folder, say)."""
        time.sleep(DEBOUNCE * 3)
        self.settle(at_least=0)

    def stop(self) -> None:
        self.watcher.stop()
        self.thread.join(DEADLINE)
        assert not self.thread.is_alive()


@pytest.fixture
def running(logseq_vault: Path) -> Iterator[Running]:
    watcher = Running(logseq_vault)
    yield watcher
    watcher.stop()


def assert_index_fresh(vault: Path) -> None:
    warm = load_index(open_vault(vault))
    assert warm.rescanned == 0, "the watcher left files for the next query to scan"
    cold = load_index(open_vault(vault), use_cache=False)
    assert warm.files == cold.files and warm.warnings == cold.warnings


def test_a_human_edit_and_a_rename_save(logseq_vault: Path, running: Running) -> None:
    page = logseq_vault / "pages" / "Grafana.md"
    page.write_text(page.read_text() + "- a new line about [[Flaky CI]]\n")
    running.settle()
    assert_index_fresh(logseq_vault)
    tmp = page.with_name(".Grafana.md.swp")
    tmp.write_text(page.read_text() + "- saved by rename\n")
    os.replace(tmp, page)
    running.settle()
    assert_index_fresh(logseq_vault)
    assert not (StateDir.of(logseq_vault).path / DIRTY).exists()


def test_a_thousand_files_at_once(logseq_vault: Path, running: Running) -> None:
    before = running.watcher.refreshes
    for i in range(1000):
        (logseq_vault / "pages" / f"Bulk {i}.md").write_text(f"- bulk {i} about [[Grafana]]\n")
    running.settle()
    deadline = time.monotonic() + DEADLINE
    while load_index(open_vault(logseq_vault)).rescanned and time.monotonic() < deadline:
        running.settle()
    assert running.watcher.refreshes - before < 100  # bursts, not one refresh per file
    assert_index_fresh(logseq_vault)


def test_a_deleted_and_an_edited_agent_bullet(logseq_vault: Path, running: Running) -> None:
    notes = ["Checked [[Grafana]] dashboards today", "Rotated the [[Flaky CI]] runners"]
    journal_agent.append(notes, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    page = journal(logseq_vault, DAY)
    text = page.read_text()
    text = text.replace(f"\t- {notes[0]}\n", "")
    text = text.replace(notes[1], "Rotated the [[Flaky CI]] runners twice")
    page.write_text(text)
    running.settle()
    kinds = {o.text: o.kind for o in read_observations(StateDir.of(logseq_vault))}
    assert kinds == {notes[0]: "deleted", notes[1]: "edited"}
    assert any("deleted claude's bullet" in line for line in running.lines)
    audit = journal_agent.audit(vault=logseq_vault, agent="claude")
    assert {f.text: (f.kind, f.seen is not None) for f in audit.findings} == {
        notes[0]: ("deleted", True),
        notes[1]: ("edited", True),
    }
    assert notes[0] not in page.read_text()  # never restored


def test_an_agent_bullet_moved_under_a_persons_bullet(logseq_vault: Path, running: Running) -> None:
    """Cut from the owned block and pasted under a person's bullet on the same page: moved, as
    `audit` says, never deleted."""
    notes = ["Checked [[Grafana]] dashboards today", "Rotated the [[Flaky CI]] runners"]
    journal_agent.append(notes, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    page = journal(logseq_vault, DAY)
    text = page.read_text().replace(f"\t- {notes[0]}\n", "")
    page.write_text(f"- a person's bullet\n\t- {notes[0]}\n{text}")
    running.settle()
    assert [(o.text, o.kind) for o in read_observations(StateDir.of(logseq_vault))] == [
        (notes[0], "moved")
    ]
    assert any("moved claude's bullet" in line for line in running.lines)
    audit = journal_agent.audit(vault=logseq_vault, agent="claude")
    assert [(f.text, f.kind, f.seen is not None) for f in audit.findings] == [
        (notes[0], "moved", True)
    ]


NOTES = ["Checked [[Grafana]] dashboards today", "Rotated the [[Flaky CI]] runners"]


def cut(vault: Path, note: str) -> None:
    """Cut the agent's bullet ``note`` out of today's page (saved)."""
    page = journal(vault, DAY)
    text = page.read_text()
    assert f"\t- {note}\n" in text
    page.write_text(text.replace(f"\t- {note}\n", ""))


def paste(page: Path, text: str) -> None:
    """Paste ``text`` as a top-level bullet at the end of ``page`` (saved)."""
    page.write_text(page.read_text() + f"- {text}\n")


def watched_and_audited(vault: Path) -> tuple[list[Any], list[Any]]:
    """What watch recorded and what audit finds: (text, kind, where) of each, by text."""
    seen = sorted((o.text, o.kind, o.where) for o in read_observations(StateDir.of(vault)))
    found = journal_agent.audit(vault=vault, agent="claude").findings
    return seen, sorted((f.text, f.kind, f.where) for f in found)


def test_an_agent_bullet_moved_to_another_journal_page(
    logseq_vault: Path, running: Running
) -> None:
    """Cut from today's page and pasted on another day's (both saved at once): moved there, as
    `audit` says, never deleted."""
    journal_agent.append(NOTES, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    cut(logseq_vault, NOTES[0])
    paste(journal(logseq_vault, "2026-11-24"), NOTES[0])
    running.settle()
    seen, audited = watched_and_audited(logseq_vault)
    assert seen == audited == [(NOTES[0], "moved", "journals/2026_11_24.md")]
    assert any("moved claude's bullet" in line and "2026_11_24" in line for line in running.lines)
    assert all(f.seen for f in journal_agent.audit(vault=logseq_vault, agent="claude").findings)


def test_an_agent_bullet_pasted_on_a_topic_page_seconds_after_the_cut(
    logseq_vault: Path, running: Running
) -> None:
    """Cut and saved, then pasted on a topic page and saved a moment later (another burst of
    events): the cut alone is no deletion yet, the paste makes it a move."""
    journal_agent.append(NOTES, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    cut(logseq_vault, NOTES[1])
    running.refreshed()
    assert read_observations(StateDir.of(logseq_vault)) == []
    time.sleep(0.5)
    paste(logseq_vault / "pages" / "Flaky CI.md", NOTES[1])
    running.settle()
    seen, audited = watched_and_audited(logseq_vault)
    assert seen == audited == [(NOTES[1], "moved", "pages/Flaky CI.md")]


def test_an_agent_bullet_moved_and_edited_is_deleted_as_audit_says(
    logseq_vault: Path, running: Running
) -> None:
    """Pasted on another page and edited there: no copy of the text stands anywhere, so
    `audit` says deleted (an edit is only looked for in the owned block), and so does watch;
    the one pasted as it was is moved."""
    journal_agent.append(NOTES, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    cut(logseq_vault, NOTES[0])
    cut(logseq_vault, NOTES[1])
    paste(logseq_vault / "pages" / "Grafana.md", NOTES[0].replace("today", "this morning"))
    paste(logseq_vault / "pages" / "Flaky CI.md", NOTES[1])
    running.settle()
    seen, audited = watched_and_audited(logseq_vault)
    assert seen == audited
    assert seen == [(NOTES[0], "deleted", None), (NOTES[1], "moved", "pages/Flaky CI.md")]


def test_only_a_pasted_copy_makes_a_deleted_bullet_moved(
    logseq_vault: Path, running: Running
) -> None:
    """Deleted bullets whose text stands on another page are still deleted, as `audit` says,
    when that page has not changed since the bullet was written, or the text there is an
    agent's own bullet; beside them, one pasted elsewhere is moved."""
    old = logseq_vault / "pages" / "Backups.md"
    paste(old, "Checked the [[Backups]] restore")
    time.sleep(3.1)  # changed before the bullet is written, past a ledger time's slack (2 s)
    notes = [*NOTES, "Checked the [[Backups]] restore"]
    journal_agent.append([NOTES[1]], vault=logseq_vault, agent="claude", date="2026-11-24")
    journal_agent.append(notes, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    for note in notes:
        cut(logseq_vault, note)
    paste(logseq_vault / "pages" / "Grafana.md", NOTES[0])
    running.settle()
    seen, audited = watched_and_audited(logseq_vault)
    assert seen == audited
    assert seen == [
        (NOTES[0], "moved", "pages/Grafana.md"),
        (notes[2], "deleted", None),
        (NOTES[1], "deleted", None),
    ]
    assert sum("deleted claude's bullet" in line for line in running.lines) == 2


def test_an_agent_bullet_cut_and_pasted_back_is_untouched(
    logseq_vault: Path, running: Running
) -> None:
    """Cut and saved, then pasted back into its owned block: nothing happened to it."""
    journal_agent.append(NOTES, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    page = journal(logseq_vault, DAY)
    whole = page.read_text()
    cut(logseq_vault, NOTES[0])
    running.refreshed()
    page.write_text(whole)
    running.settle()
    assert read_observations(StateDir.of(logseq_vault)) == [] and running.lines == []
    assert journal_agent.audit(vault=logseq_vault, agent="claude").findings == []


def test_each_new_bullet_is_the_edit_of_one_agent_bullet_at_most(
    logseq_vault: Path, running: Running
) -> None:
    """Two bullets gone and one new, similar to both: one was edited into it, the other deleted,
    as `audit` says (a new line outside the owned block is no edit of either)."""
    notes = ["x [[Grafana]]", "y [[Grafana]]"]
    journal_agent.append(notes, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    page = journal(logseq_vault, DAY)
    page.write_text("- claude log\n\t- x [[Grafana]] edited\n- y [[Grafana]] elsewhere\n")
    running.settle()
    seen = {o.text: (o.kind, o.now) for o in read_observations(StateDir.of(logseq_vault))}
    assert seen == {notes[0]: ("edited", "x [[Grafana]] edited"), notes[1]: ("deleted", None)}
    audit = journal_agent.audit(vault=logseq_vault, agent="claude")
    assert {f.text: (f.kind, f.now) for f in audit.findings} == seen


def test_an_agent_bullet_indented_under_another_is_not_gone(
    logseq_vault: Path, running: Running
) -> None:
    """Still in the owned block (its subtree), as `audit` reads it: nothing happened to it."""
    notes = ["x [[Grafana]]", "y [[Grafana]]"]
    journal_agent.append(notes, vault=logseq_vault, agent="claude", date=DAY)
    running.settle()
    page = journal(logseq_vault, DAY)
    page.write_text(page.read_text().replace(f"\t- {notes[1]}", f"\t\t- {notes[1]}"))
    assert f"\t\t- {notes[1]}\n" in page.read_text()
    running.settle()
    assert read_observations(StateDir.of(logseq_vault)) == [] and running.lines == []
    assert journal_agent.audit(vault=logseq_vault, agent="claude").findings == []


def test_an_app_overwrite_with_an_older_copy_is_reported(
    logseq_vault: Path, running: Running
) -> None:
    page = journal(logseq_vault, DAY)
    page.write_text("- morning notes\n")
    running.settle()
    older = page.read_text()  # the copy an app keeps open
    journal_agent.append(["Deployed [[Grafana]] fix"], vault=logseq_vault, agent="claude", date=DAY)
    journal_agent.append(["Reran [[Flaky CI]]"], vault=logseq_vault, agent="codex", date=DAY)
    running.settle()
    page.write_text(older + "- typed in the app meanwhile\n")  # the app saves its older copy
    running.settle()
    seen = {(o.agent, o.kind) for o in read_observations(StateDir.of(logseq_vault))}
    assert seen == {("claude", "lost"), ("codex", "lost")}
    assert any("older copy" in line for line in running.lines)
    assert "Deployed" not in page.read_text()  # reported, never restored
    (finding,) = journal_agent.audit(vault=logseq_vault, agent="claude").findings
    assert finding.kind == "lost" and "watch saw a save drop it" in (finding.evidence or "")


def test_polling_sees_edits_too(logseq_vault: Path) -> None:
    watcher = Running(logseq_vault, poll=True)
    try:
        page = logseq_vault / "pages" / "Grafana.md"
        page.write_text(page.read_text() + "- polled line\n")
        watcher.settle()
        assert_index_fresh(logseq_vault)
    finally:
        watcher.stop()


def test_one_watcher_per_vault(logseq_vault: Path, running: Running) -> None:
    with pytest.raises(WatchRunning, match="already running"):
        Watcher(open_vault(logseq_vault)).run()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_stops_cleanly_on_a_signal(logseq_vault: Path, tmp_path: Path, sig: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "journal_agent", "watch", "--vault", str(logseq_vault)],
        stderr=subprocess.PIPE,
        env={**os.environ, "JOURNAL_AGENT_CACHE": str(tmp_path / "cache")},
    )
    time.sleep(2.0)
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0, err
    assert b"Traceback" not in err and b"watch: stopped" in err


def test_queries_trust_a_running_idle_watcher(
    logseq_vault: Path, running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the watcher has nothing waiting, a query loads the summary it keeps current without
    listing a file; with a change waiting, or the settings changed, it validates every file."""
    from journal_agent.api import Query
    from journal_agent.vault import Vault

    listed: list[int] = []
    real = Vault.page_files

    def counting(self: Vault, warnings: list[str] | None = None) -> Any:
        if threading.current_thread() is threading.main_thread():  # not the watcher's own
            listed.append(1)
        return real(self, warnings)

    monkeypatch.setattr(Vault, "page_files", counting)
    first, _ = Query.of(logseq_vault, DAY, None, True).statuses()
    assert listed == []
    page = logseq_vault / "pages" / "Grafana.md"
    page.write_text(page.read_text() + "- more on [[Backups]]\n")
    running.settle()
    second, _ = Query.of(logseq_vault, DAY, None, True).statuses()
    assert listed == []  # the watcher refreshed it: still trusted
    cold, _ = Query.of(logseq_vault, DAY, None, False).statuses()
    assert [t.to_json() for t in second] == [t.to_json() for t in cold]
    (logseq_vault / ".journal-agent.toml").write_text('exclude = ["Grafana"]\n')
    running.settle()
    third, _ = Query.of(logseq_vault, DAY, None, True).statuses()
    assert "Grafana" not in {t.page.title for t in third}


class Heard:
    """Every file event a watcher is handed (``deaf``: dropped, as if the kernel lost them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[Any] = []
        self.deaf = False
        real = Watcher._on_event

        def hear(watcher: Watcher, event: Any) -> None:
            if not self.deaf:
                self.events.append(event)
                real(watcher, event)

        monkeypatch.setattr(Watcher, "_on_event", hear)


def test_reading_the_vault_makes_no_events(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only changes are asked of the kernel: a search tool reading every page (as ripgrep or a
    backup does) queues nothing, so it cannot overflow the event queue."""
    heard = Heard(monkeypatch)
    running = Running(logseq_vault)
    try:
        heard.events.clear()
        for _ in range(3):
            for path in sorted(logseq_vault.rglob("*.md")):
                path.read_bytes()
        time.sleep(0.5)
        assert heard.events == []
        page = logseq_vault / "pages" / "Grafana.md"
        page.write_text(page.read_text() + "- and a change after the reads\n")
        running.settle()
        assert {e.src_path for e in heard.events if e.src_path.endswith(".md")} == {str(page)}
        assert_index_fresh(logseq_vault)
    finally:
        running.stop()


def test_lost_events_make_the_watcher_check_everything(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the kernel's queue overflows, watchdog drops the events and only logs it: changes
    made meanwhile are unseen. The watcher hears the log, marks the summary untrusted and
    checks every page and every agent bullet. (A real overflow cannot be caused on demand
    here without changing the machine's inotify limits: this test drops the events itself and
    logs watchdog's own warning.)"""
    import logging

    heard = Heard(monkeypatch)
    running = Running(logseq_vault)
    try:
        note = "Checked [[Grafana]] dashboards today"
        journal_agent.append([note], vault=logseq_vault, agent="claude", date=DAY)
        running.settle()
        heard.deaf = True
        page = journal(logseq_vault, DAY)
        page.write_text(page.read_text().replace(note, "Checked [[Grafana]] dashboards, twice"))
        other = logseq_vault / "pages" / "Grafana.md"
        other.write_text(other.read_text() + "- unseen: [[Backups]]\n")
        time.sleep(0.5)
        assert running.watcher.idle and read_observations(StateDir.of(logseq_vault)) == []
        heard.deaf = False
        before = running.watcher.refreshes
        logging.getLogger("watchdog.observers.inotify_c").warning(
            "Inotify queue overflowed; filesystem events were lost"
        )
        running.settle(before + 1)
        assert any("events were lost" in line for line in running.lines)
        assert_index_fresh(logseq_vault)
        kinds = {o.text: o.kind for o in read_observations(StateDir.of(logseq_vault))}
        assert kinds == {note: "edited"}
    finally:
        running.stop()


def trusted_and_cold(vault: Path) -> tuple[list[Any], list[Any]]:
    """The statuses a query answers trusting the running watcher (it must list no file), and
    those of a cold rebuild."""
    from journal_agent.api import Query

    trusted, _ = Query.of(vault, DAY, None, True).statuses()
    cold, _ = Query.of(vault, DAY, None, False).statuses()
    return [t.to_json() for t in trusted], [t.to_json() for t in cold]


class Listings:
    """How the watcher lists the vault: full listings, and changed paths stat-ed alone."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from journal_agent import walk

        self.full = 0
        self.partial: list[bool] = []  # per call of `relisted`: did it list the vault?
        real_full, real_partial = walk.page_files, walk.relisted

        def full(*args: Any, **kwargs: Any) -> Any:
            self.full += 1
            return real_full(*args, **kwargs)

        def partial(*args: Any) -> Any:
            found = real_partial(*args)
            self.partial.append(found is not None)
            return found

        monkeypatch.setattr("journal_agent.watch.page_files", full)
        monkeypatch.setattr("journal_agent.watch.relisted", partial)


def test_a_change_is_listed_by_its_own_path_and_checked_in_full_once_quiet(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refresh stats only the paths the events name; the quiet pass then lists the vault in
    full once, finds nothing else, and brings the index up to date. The stamp it leaves is the
    one a query without the watcher computes, so that query reuses the summary as it is."""
    from journal_agent import summary_store
    from journal_agent.index import _fingerprint
    from journal_agent.walk import stamp

    listings = Listings(monkeypatch)
    running = Running(logseq_vault)
    try:
        assert listings.full == 2  # the first refresh, and its quiet pass
        page = logseq_vault / "journals" / "2026_11_24.md"
        page.write_text(page.read_text() + "- started on [[A brand new thread]]\n")
        running.settle()
        assert listings.partial == [True] and listings.full == 3
        assert_index_fresh(logseq_vault)
        trusted, cold = trusted_and_cold(logseq_vault)
        assert trusted == cold and "A brand new thread" in str(trusted)
    finally:
        running.stop()
    vault = open_vault(logseq_vault)
    key = stamp(_fingerprint(vault), vault.listing()) + repr([])
    assert summary_store.load(summary_store.summary_path(vault), key) is not None


@pytest.mark.parametrize("way", ["moved out", "moved in", "deleted", "renamed"])
def test_a_folder_of_pages_that_comes_or_goes(logseq_vault: Path, tmp_path: Path, way: str) -> None:
    """A folder that comes, goes or moves gives one event for itself, none for what it holds
    (moved out of the vault) or ones the watcher cannot tell apart: the vault is listed in
    full, and a query trusting the watcher answers as a cold one."""
    outside = tmp_path / "elsewhere"
    (outside / "notes").mkdir(parents=True)
    for name in ("One", "Two"):
        (outside / "notes" / f"{name}.md").write_text(f"- about [[{name} topic]]\n")
    folder = logseq_vault / "pages" / "notes"
    if way != "moved in":
        shutil.move(outside / "notes", folder)
    running = Running(logseq_vault)
    try:
        before = trusted_and_cold(logseq_vault)[1]
        if way == "moved in":
            shutil.move(outside / "notes", folder)
        elif way == "moved out":
            shutil.move(folder, outside / "notes")
        elif way == "deleted":
            shutil.rmtree(folder)
        else:
            folder.rename(folder.with_name("renamed"))
        running.settle()
        trusted, cold = trusted_and_cold(logseq_vault)
        assert trusted == cold
        assert cold != before  # pages, or their paths, came or went
    finally:
        running.stop()


def test_a_missed_event_is_found_by_the_quiet_pass(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change whose event never came (dropped here, as the kernel may) is found by the full
    listing of the quiet pass after the next refresh, its page looked at like any other."""
    heard = Heard(monkeypatch)
    running = Running(logseq_vault)
    try:
        heard.deaf = True
        unseen = logseq_vault / "journals" / "2026_11_24.md"
        unseen.write_text(unseen.read_text() + "- unseen: [[Missed thread]]\n")
        time.sleep(0.5)
        heard.deaf = False
        page = logseq_vault / "pages" / "Grafana.md"
        page.write_text(page.read_text() + "- seen: [[Flaky CI]]\n")
        running.settle()
        trusted, cold = trusted_and_cold(logseq_vault)
        assert trusted == cold and "Missed thread" in str(trusted)
        assert_index_fresh(logseq_vault)
    finally:
        running.stop()


def test_a_change_no_event_reports_is_found_within_a_check(
    logseq_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change no event ever reports (a network share edited from another machine, an
    observer thread that died; dropped here) is found by the full listing the watcher makes
    every `watch.CHECK_EVERY` seconds, with no other change to wake it."""
    monkeypatch.setattr("journal_agent.watch.CHECK_EVERY", 1.0)
    heard = Heard(monkeypatch)
    running = Running(logseq_vault)
    try:
        heard.deaf = True
        before = running.watcher.refreshes
        unseen = logseq_vault / "journals" / "2026_11_24.md"
        unseen.write_text(unseen.read_text() + "- unseen: [[Never reported]]\n")
        running.settle(before + 1)
        trusted, cold = trusted_and_cold(logseq_vault)
        assert trusted == cold and "Never reported" in str(trusted)
    finally:
        running.stop()


def random_change(vault: Path, outside: Path, rng: random.Random) -> str:
    """One change a person or a tool makes to a vault (``outside``: a folder beside it)."""
    pages = sorted(p for p in vault.rglob("*.md") if ".journal-agent" not in p.parts)
    folders = ["pages", "journals", "pages/sub", "pages/sub/deep", "pages/.hidden", "assets"]
    kind = rng.choice(["edit", "edit", "new", "delete", "rename", "folder in", "folder out",
                       "folder rename", "link", "touch"])  # fmt: skip
    topic = f"[[Soak {rng.randrange(8)}]]"
    if kind == "edit" and pages:
        page = rng.choice(pages)
        page.write_text(page.read_text() + f"- more on {topic}\n")
    elif kind == "new":
        folder = vault / rng.choice(folders)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"New {rng.randrange(100)}.md").write_text(f"- about {topic}\n")
    elif kind == "delete" and pages:
        rng.choice(pages).unlink()
    elif kind == "rename" and pages:
        page = rng.choice(pages)
        page.rename(page.with_name(f"Renamed {rng.randrange(100)}.md"))
    elif kind == "folder in":
        moved = outside / f"batch{rng.randrange(1000)}"
        moved.mkdir(parents=True, exist_ok=True)
        for n in range(3):
            (moved / f"Batch {moved.name} {n}.md").write_text(f"- batch on {topic}\n")
        shutil.move(moved, vault / "pages" / moved.name)
    elif kind == "folder out":
        subs = sorted(p for p in (vault / "pages").iterdir() if p.is_dir() and p.name != "sub")
        if subs:
            shutil.move(subs[0], outside / f"out{rng.randrange(1000)}")
    elif kind == "folder rename":
        subs = sorted(p for p in (vault / "pages").rglob("*") if p.is_dir())
        if subs and not subs[0].with_name(f"{subs[0].name}x").exists():
            subs[0].rename(subs[0].with_name(f"{subs[0].name}x"))
    elif kind == "link" and pages:
        link = vault / "pages" / f"Link {rng.randrange(100)}.md"
        if not link.exists() and not link.is_symlink():
            link.symlink_to(rng.choice(pages))
    elif kind == "touch" and pages:
        os.utime(rng.choice(pages), ns=(time.time_ns(), time.time_ns() - 10**9))
    return kind


@pytest.mark.parametrize("seed", [int(s) for s in os.environ.get("SOAK_SEEDS", "1 2").split()])
def test_random_changes_keep_the_watched_summary_exact(
    logseq_vault: Path, tmp_path: Path, seed: int
) -> None:
    """After each random change (edits, pages and folders that come, go and move, links),
    once the watcher is idle: its listing is a full listing, and a query trusting it answers
    exactly as a cold rebuild."""
    rng = random.Random(seed)
    running = Running(logseq_vault)
    try:
        for _ in range(16):
            kind = random_change(logseq_vault, tmp_path / "outside", rng)
            running.quiet()
            assert running.watcher._listing is not None
            assert running.watcher._listing[0] == open_vault(logseq_vault).listing(), kind
            trusted, cold = trusted_and_cold(logseq_vault)
            assert trusted == cold, kind
    finally:
        running.stop()
