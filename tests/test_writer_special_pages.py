"""Pages a plain rename would change behind the person's back: hard-linked, read-only, another
user's.

The policy (`POLICIES`): a hard-linked page is refused (journal-agent writes by atomic rename,
which would cut the links, and an in-place write could be torn by a crash); a read-only page is
refused (it was made so on purpose); another user's page is written keeping its owner, group and
mode when journal-agent may give them (as root), else refused. Every case also holds to what any
policy must give:

* nothing is lost: every name of the file holds the old page or the new one, byte for byte;
* the outcome is one of two: a refusal (a `JournalAgentError` with a one-line message, or the
  CLI's exit 1 or 2 with one line on stderr; the page, its inode, mode and owner untouched, the
  ledger without the bullets) or a correct write (the page is what the same append gives on an
  ordinary page, the ledger holds each bullet once);
* no temporary file or other file is left.

A field left ``None`` accepts either answer. What happens is printed (``pytest -rP``).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

import journal_agent

from .conftest import copy_vault, journal, ledger_counts

DAY = "2026-11-25"  # the page exists, with claude's block
AGENT = "claude"
BULLETS = ["Checked the special page for [[Grafana]]", "A second note"]
NOBODY = 65534  # uid and gid of nobody / nogroup


@dataclass(frozen=True)
class Policy:
    """What the writer must do with one kind of page; ``None``: either answer is accepted."""

    outcome: Literal["refused", "written"] | None = None
    in_place: bool | None = None  # written into the same inode (every other name sees it)
    keep_mode: bool | None = None  # the page's permission bits are kept
    keep_owner: bool | None = None  # the page's owner and group are kept


POLICIES: dict[str, Policy] = {
    "hard-linked": Policy(outcome="refused"),
    "read-only": Policy(outcome="refused"),
    "other-owner": Policy(
        outcome="written" if hasattr(os, "geteuid") and os.geteuid() == 0 else "refused",
        keep_mode=True,
        keep_owner=True,
    ),
}


@dataclass(frozen=True)
class Observed:
    outcome: Literal["refused", "written"]
    in_place: bool
    keep_mode: bool
    keep_owner: bool
    message: str


def _append(vault: Path, how: str) -> str | None:
    """Run the append; None if it succeeded, else the one-line error (asserted one line)."""
    if how == "api":
        try:
            journal_agent.append(BULLETS, vault=vault, agent=AGENT, date=DAY, session="special")
        except journal_agent.JournalAgentError as exc:
            message = str(exc).strip()
            assert message and "\n" not in message, repr(message)
            return message
        return None
    argv = ["append", "--json", "--vault", str(vault), "--agent", AGENT, "--date", DAY]
    proc = subprocess.run(
        [sys.executable, "-m", "journal_agent", *argv, *BULLETS],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if proc.returncode == 0:
        assert json.loads(proc.stdout)["written"] == BULLETS
        return None
    lines = proc.stderr.splitlines()
    assert proc.returncode in (1, 2) and len(lines) == 1, (proc.returncode, proc.stderr)
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if not p.is_dir()}


def _check(vault: Path, tmp_path: Path, how: str, other_names: list[Path], case: str) -> Observed:
    """Run the append on ``vault``'s page (prepared by the caller) and check what any policy
    must give; return what was observed."""
    page = journal(vault, DAY)
    old = page.read_bytes()
    before = page.stat()
    twin = copy_vault(vault, tmp_path / "twin")  # an ordinary copy: what a correct write gives
    journal(twin, DAY).chmod(0o644)
    journal_agent.append(BULLETS, vault=twin, agent=AGENT, date=DAY)
    new = journal(twin, DAY).read_bytes()
    files = _files(vault)
    rel = page.relative_to(vault).as_posix()

    message = _append(vault, how)
    after = page.stat()
    data = page.read_bytes()
    ledger = ledger_counts(vault, rel, AGENT)
    mine = [ledger[b] for b in BULLETS]
    if message is not None:  # refused: everything as it was
        assert data == old, "refused, yet the page changed"
        assert (after.st_ino, after.st_mode, after.st_uid, after.st_gid, after.st_nlink) == (
            before.st_ino,
            before.st_mode,
            before.st_uid,
            before.st_gid,
            before.st_nlink,
        ), "refused, yet the page's file changed"
        assert mine == [0, 0], "refused, yet the ledger holds the bullets"
    else:  # written: as on an ordinary page
        assert data == new, "written, but not what the same append gives on an ordinary page"
        assert mine == [1, 1], f"written, but the ledger holds the bullets {mine} times"
    for name in other_names:  # nothing lost under another name either
        assert name.read_bytes() in (old, new), f"{name} holds neither the old nor the new page"
    left = {f for f in _files(vault) - files if not f.startswith(".journal-agent/")}
    assert not left, f"files left behind: {sorted(left)}"

    observed = Observed(
        outcome="refused" if message is not None else "written",
        in_place=after.st_ino == before.st_ino,
        keep_mode=stat.S_IMODE(after.st_mode) == stat.S_IMODE(before.st_mode),
        keep_owner=(after.st_uid, after.st_gid) == (before.st_uid, before.st_gid),
        message=message or "",
    )
    print(f"{case} ({how}): {observed}")
    policy = POLICIES[case]
    if policy.outcome is not None:
        assert observed.outcome == policy.outcome, observed
    if observed.outcome == "written":
        for field in ("in_place", "keep_mode", "keep_owner"):
            wanted = getattr(policy, field)
            if wanted is not None:
                assert getattr(observed, field) == wanted, f"{field}: {observed}"
    return observed


HOW = pytest.mark.parametrize("how", ["api", "cli"])


@HOW
def test_a_hard_linked_page(logseq_vault: Path, tmp_path: Path, how: str) -> None:
    page = journal(logseq_vault, DAY)
    elsewhere = tmp_path / "elsewhere" / page.name  # a backup, a sync tool, a second vault
    elsewhere.parent.mkdir()
    os.link(page, elsewhere)
    observed = _check(logseq_vault, tmp_path, how, [elsewhere], "hard-linked")
    # the other name is the same file exactly when the page was written in place (or refused)
    same = os.stat(elsewhere).st_ino == journal(logseq_vault, DAY).stat().st_ino
    assert same == (observed.outcome == "refused" or observed.in_place)


@HOW
def test_a_read_only_page(logseq_vault: Path, tmp_path: Path, how: str) -> None:
    page = journal(logseq_vault, DAY)
    page.chmod(0o444)
    observed = _check(logseq_vault, tmp_path, how, [], "read-only")
    if observed.outcome == "written" and observed.keep_mode:
        assert stat.S_IMODE(page.stat().st_mode) == 0o444


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
@HOW
def test_a_page_owned_by_another_user(logseq_vault: Path, tmp_path: Path, how: str) -> None:
    page = journal(logseq_vault, DAY)
    os.chown(page, NOBODY, NOBODY)
    page.chmod(0o640)
    observed = _check(logseq_vault, tmp_path, how, [], "other-owner")
    if observed.outcome == "written" and observed.keep_owner:
        assert (page.stat().st_uid, page.stat().st_gid) == (NOBODY, NOBODY)
