"""The backend seam: the writer's guest rules and retry policy against the mock backend, and the
file backend's rules for a page someone else is writing."""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
from pathlib import Path

import pytest

import journal_agent
from journal_agent import MockBackend, WriteConflict
from journal_agent.backends.base import Backend
from journal_agent.backends.file import SUSPICIOUS_QUIET

from .conftest import journal, pin_today

DAY = "2026-11-29"
PATH = "journals/2026_11_29.md"
NOTE = "Checked [[Grafana]] dashboards"


@pytest.fixture(autouse=True)
def today_is_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """DAY is today: the one day whose journal page these appends may create."""
    pin_today(monkeypatch, DAY)


def test_every_backend_is_a_backend() -> None:
    assert issubclass(journal_agent.FileBackend, Backend)
    assert issubclass(MockBackend, Backend)


def test_append_through_the_mock_backend(logseq_vault: Path) -> None:
    backend = MockBackend({PATH: "- a human note\n"})
    result = journal_agent.append([NOTE], vault=logseq_vault, date=DAY, backend=backend)
    assert result.written == [NOTE]
    assert backend.pages[PATH] == f"- a human note\n- agent log\n\t- {NOTE}\n"
    assert backend.closed and not journal(logseq_vault, DAY).exists()  # no file was touched
    again = journal_agent.append(
        [NOTE], vault=logseq_vault, date=DAY, backend=MockBackend(backend.pages)
    )
    assert again.duplicates == [NOTE] and again.written == []


def test_a_save_during_the_commit_is_planned_again(logseq_vault: Path) -> None:
    """Someone saves between our read and our commit: the writer plans on their version."""
    saves = iter(["- a human note\n- a second human note\n"])

    def human(path: str, text: str | None) -> str | None:
        return next(saves, text)

    backend = MockBackend({PATH: "- a human note\n"}, edit=human)
    journal_agent.append([NOTE], vault=logseq_vault, date=DAY, backend=backend)
    assert backend.commits == 2
    assert (
        backend.pages[PATH] == f"- a human note\n- a second human note\n- agent log\n\t- {NOTE}\n"
    )


def test_a_page_that_never_stops_changing_is_a_conflict(logseq_vault: Path) -> None:
    counter = iter(range(10_000))

    def busy(path: str, text: str | None) -> str:
        return f"- edit {next(counter)}\n"

    backend = MockBackend({PATH: "- start\n"}, edit=busy)
    with pytest.raises(WriteConflict, match="changed under each of our attempts"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY, backend=backend, wait=5)
    assert NOTE not in backend.pages[PATH]


def test_a_new_page_starts_from_the_template_and_is_created_once(logseq_vault: Path) -> None:
    backend = MockBackend()
    result = journal_agent.append([NOTE], vault=logseq_vault, date=DAY, backend=backend)
    assert result.created and backend.pages[PATH] == f"- agent log\n\t- {NOTE}\n"


def test_a_page_gone_before_the_commit_is_made_from_a_template_checked_first(
    logseq_vault: Path,
) -> None:
    """The page existed when first read, and is deleted before the commit: the page the
    template would make is refused as the existing one would be, and nothing is created."""
    (logseq_vault / "logseq" / "config.edn").write_text('{:default-templates {:journals "D"}}')
    (logseq_vault / "pages" / "Templates.md").write_text(
        "- D\n  template:: D\n\t- a\n<<<<<<< HEAD\n\t- b\n=======\n\t- c\n>>>>>>> x\n"
    )
    backend = MockBackend({PATH: "- a human note\n"}, edit=lambda path, text: None)
    with pytest.raises(journal_agent.UnsafePage, match="journal template 'D'"):
        journal_agent.append([NOTE], vault=logseq_vault, date=DAY, backend=backend)
    assert backend.pages == {}


def test_another_days_page_gone_before_the_commit_is_not_made_again(logseq_vault: Path) -> None:
    """Someone deletes another day's page between our read and our commit: it is not created
    (only today's page is), and the bullets are refused, not lost silently."""
    path = "journals/2026_11_25.md"
    backend = MockBackend({path: "- a human note\n"}, edit=lambda path, text: None)
    with pytest.raises(journal_agent.BadArgument, match="creates only today's"):
        journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25", backend=backend)
    assert backend.pages == {}


# -- the file backend: a page being written by someone else ---------------------------------------


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="POSIX")
def test_a_page_held_open_for_writing_is_waited_for(logseq_vault: Path) -> None:
    """While an editor has the page open for writing (mid-save), the page is not read; once it
    closes it, the append goes on and keeps the editor's text."""
    page = journal(logseq_vault, "2026-11-25")
    handle = open(page, "a")  # noqa: SIM115 - held open across the append on purpose
    handle.write("- the editor's last line\n")
    handle.flush()

    def close_soon() -> None:
        time.sleep(0.3)
        handle.close()

    closer = threading.Thread(target=close_soon)
    closer.start()
    start = time.monotonic()
    journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25", wait=5)
    closer.join()
    text = page.read_text()
    assert "- the editor's last line\n" in text and NOTE in text
    assert time.monotonic() - start >= 0.25


def test_a_page_held_open_past_the_wait_is_a_conflict(logseq_vault: Path) -> None:
    page = journal(logseq_vault, "2026-11-25")
    before = page.read_bytes()
    with open(page, "r+b"):
        os.utime(page)  # just modified: an editor in the middle of a save
        with pytest.raises(WriteConflict, match="saving the page"):
            journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25", wait=0.3)
    assert page.read_bytes() == before


def test_an_idle_open_handle_does_not_block_forever(logseq_vault: Path) -> None:
    """A program that keeps the page open without writing it: once the page has been quiet for
    a while, it is a base like any other."""
    page = journal(logseq_vault, "2026-11-25")
    old = time.time() - 2 * SUSPICIOUS_QUIET
    os.utime(page, (old, old))
    with open(page, "r+b"):
        journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25", wait=1)
    assert NOTE in page.read_text()


def test_an_empty_page_written_a_moment_ago_is_given_time_to_fill(logseq_vault: Path) -> None:
    page = journal(logseq_vault, "2026-11-25")
    full = page.read_bytes()
    page.write_bytes(b"")  # an editor that truncated, and writes the text a moment later

    def fill() -> None:
        time.sleep(0.3)
        page.write_bytes(full)

    filler = threading.Thread(target=fill)
    filler.start()
    journal_agent.append([NOTE], vault=logseq_vault, date="2026-11-25", wait=5)
    filler.join()
    text = page.read_text()
    assert text.startswith(full.decode()) and NOTE in text


def test_an_old_empty_page_is_written(logseq_vault: Path) -> None:
    page = journal(logseq_vault, "2026-11-25")
    page.write_bytes(b"")
    old = time.time() - 2 * SUSPICIOUS_QUIET
    os.utime(page, (old, old))
    journal_agent.append([NOTE], vault=logseq_vault, date=dt.date(2026, 11, 25), wait=1)
    assert page.read_text() == f"- agent log\n\t- {NOTE}\n"
