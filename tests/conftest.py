"""Shared fixtures: every test that writes works on a copy of a vault under tmp_path."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

# A suite started in the background (``pytest &`` from a script) inherits SIGINT ignored, and so
# would every process it starts; the tests that interrupt one (Ctrl-C) need it back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_VAULT = ROOT / "sample_vault"
FIXTURE_VAULTS = Path(__file__).resolve().parent / "vaults"
#: Figures of tests/test_logseq_graph_oracle.py ("graph: what: N pages compared, K agree").
ORACLE_FIGURES = pytest.StashKey[list[str]]()


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Hypothesis keeps its files under pytest's temporary folder, not in the repository
    (set before collection: it writes a cache as soon as tests are decorated); so does the
    compiled-pattern cache of the modules collection imports (`patterns`: written at exit, to
    the cache folder of that moment, before any test's own)."""
    from hypothesis.configuration import set_hypothesis_home_dir

    factory: pytest.TempPathFactory = config._tmp_path_factory  # type: ignore[attr-defined]
    set_hypothesis_home_dir(factory.getbasetemp() / "hypothesis")
    os.environ["JOURNAL_AGENT_CACHE"] = str(factory.getbasetemp() / "session-cache")


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """The Logseq oracle's per-graph figures, when its tests ran."""
    figures = config.stash.get(ORACLE_FIGURES, [])
    if figures:
        terminalreporter.section("Logseq graph-parser oracle: pages agreeing")
        for line in figures:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No JOURNAL_AGENT_* variable of the developer's shell leaks into a test, and the index
    cache, the user config file and the user state folder are the test's own (tests write only
    under tmp_path)."""
    for key in list(os.environ):
        if key.startswith("JOURNAL_AGENT_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("JOURNAL_AGENT_CACHE", str(tmp_path / "cache"))
    # nor the person's own config file or state folder (the outbox of pending bullets lives there)
    monkeypatch.setenv("JOURNAL_AGENT_CONFIG", str(tmp_path / "no-user-config.toml"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    # a cold `stale` builds the full index in-process, not in a process that outlives the test
    # (tests/test_firstpass.py starts the background one on purpose)
    monkeypatch.setenv("JOURNAL_AGENT_BACKGROUND", "0")


def pin_today(monkeypatch: pytest.MonkeyPatch, day: str | dt.date) -> None:
    """Make ``day`` today for the writer: the one day whose journal page an append may create,
    and the page an append without a date writes (file times and waits stay real)."""
    from journal_agent import writer

    when = day if isinstance(day, dt.date) else dt.date.fromisoformat(day)
    monkeypatch.setattr(writer, "local_today", lambda: when)


def settle(root: Path, racy_ns: int | None = None) -> None:
    """Make the vault's files as they are between sessions: dated 10 s back, and their last
    change out of the index's racy window (`past_racy`)."""
    past = time.time() - 10
    for path in [root, *root.rglob("*")]:
        os.utime(path, (past, past), follow_symlinks=False)
    past_racy(root, racy_ns)


def past_racy(root: Path, racy_ns: int | None = None) -> None:
    """Wait until the last change of every file below ``root`` is out of the index's racy
    window (``racy_ns``: the window of a process this one starts; else this process's,
    `index.RACY_NS`). A file's ctime cannot be dated back (it is part of its stat,
    `vault.PageFile.changed_ns`): only time puts a change out of the window."""
    from journal_agent import index

    changed = max(path.lstat().st_ctime_ns for path in [root, *root.rglob("*")])
    window = index.RACY_NS if racy_ns is None else racy_ns
    time.sleep(max(0, changed + window - time.time_ns()) / 1e9 + 0.02)  # ctime: a coarse clock


@pytest.fixture
def short_racy_window(monkeypatch: pytest.MonkeyPatch) -> int:
    """The index's racy window made a tenth of a second in this process, so that `settle` and
    `past_racy` wait that long rather than 2 s (a process a test starts keeps the 2 s); the
    window."""
    from journal_agent import index

    monkeypatch.setattr(index, "RACY_NS", 100_000_000)
    return 100_000_000


def copy_vault(src: Path, tmp_path: Path) -> Path:
    dest = tmp_path / src.name
    shutil.copytree(src, dest, symlinks=True)
    return dest


@pytest.fixture
def logseq_vault(tmp_path: Path) -> Path:
    """A writable copy of sample_vault/ (a Logseq file graph)."""
    return copy_vault(SAMPLE_VAULT, tmp_path)


@pytest.fixture
def obsidian_vault(tmp_path: Path) -> Path:
    return copy_vault(FIXTURE_VAULTS / "obsidian", tmp_path)


@pytest.fixture
def markdown_vault(tmp_path: Path) -> Path:
    return copy_vault(FIXTURE_VAULTS / "markdown", tmp_path)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root with its bytes: to prove a refusal changed nothing."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def journal(vault: Path, day: str) -> Path:
    """The Logseq journal file of ``day`` (YYYY-MM-DD) in ``vault`` (default file-name format)."""
    return vault / "journals" / f"{day.replace('-', '_')}.md"


def visible_files(vault: Path) -> set[str]:
    """Every file whose path has no hidden component (what an outliner would index)."""
    return {
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(vault).parts)
    }


def ledger_counts(vault: Path, page: str, agent: str) -> Counter[str]:
    """How many times each bullet text is in the vault's ledger file for ``page`` (a vault-relative
    path) and ``agent``, read as the file it is (``.journal-agent/ledger.jsonl``, one JSON object
    a line; a torn line is skipped)."""
    try:
        data = (vault / ".journal-agent" / "ledger.jsonl").read_bytes()
    except FileNotFoundError:
        return Counter()
    found: Counter[str] = Counter()
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("page") == page and entry.get("agent") == agent:
            found[entry.get("text")] += 1
    return found
