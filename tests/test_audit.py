"""`audit`: what people did to an agent's bullets, from the ledger against the vault as it is now.

Every kind of change is made here the way a person (or Logseq) would make it, on a copy of a
vault under tmp_path; the audit must name it, and must never write anything.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from journal_agent import BadArgument
from journal_agent.api import append
from journal_agent.api_context import audit
from journal_agent.cli import main

from .conftest import snapshot
from .test_queries import logseq

TODAY = dt.date.today().isoformat()
BULLETS = [
    "Checked the restore time of [[Backups]]",
    "Decision: keep [[Grafana]] alerts on p99 because p50 hides spikes",
    "Moved the nightly job to 06:00 for [[Flaky CI]]",
    "Noted the cut-over date for [[Atlas Migration]]",
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A Logseq graph whose journal of today holds a human bullet and claude's four bullets."""
    pages = {t: "- about\n" for t in ("Backups", "Grafana", "Flaky CI", "Atlas Migration")}
    root = logseq(tmp_path / "v", pages, {TODAY: "- Morning: planning\n"})
    append(BULLETS, vault=root, agent="claude", session="s1")
    return root


def page(root: Path) -> Path:
    return root / "journals" / f"{TODAY.replace('-', '_')}.md"


def edit(root: Path, old: str, new: str) -> None:
    path = page(root)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def kinds(root: Path, **kw: object) -> dict[str, str]:
    """Each finding's bullet -> kind."""
    return {f.text: f.kind for f in audit(vault=root, **kw).findings}  # type: ignore[arg-type]


def test_untouched_bullets_are_all_as_written(vault: Path) -> None:
    result = audit(vault=vault, agent="claude")
    assert (result.checked, result.intact, result.findings) == (4, 4, [])


def test_deleted(vault: Path) -> None:
    edit(vault, f"\t- {BULLETS[0]}\n", "")
    assert kinds(vault) == {BULLETS[0]: "deleted"}


def test_edited_is_matched_to_the_similar_bullet(vault: Path) -> None:
    edit(vault, "p50 hides spikes", "p50 hides the latency spikes")
    found = audit(vault=vault).findings
    assert [(f.kind, f.text) for f in found] == [("edited", BULLETS[1])]
    assert found[0].now == BULLETS[1].replace("p50 hides spikes", "p50 hides the latency spikes")
    assert found[0].similarity is not None and found[0].similarity >= 60


def test_a_human_child_in_the_owned_block_is_not_an_edit(vault: Path) -> None:
    edit(vault, f"\t- {BULLETS[0]}\n", "\t- Human note: good, thanks\n")
    assert kinds(vault) == {BULLETS[0]: "deleted"}


def test_moved_out_of_the_owned_block_on_the_same_page(vault: Path) -> None:
    edit(vault, f"\t- {BULLETS[2]}\n", "")
    with page(vault).open("a") as f:
        f.write(f"- {BULLETS[2]}\n")
    found = audit(vault=vault).findings
    assert [(f.kind, f.where) for f in found] == [
        ("moved", page(vault).relative_to(vault).as_posix())
    ]


def test_moved_to_another_page(vault: Path) -> None:
    edit(vault, f"\t- {BULLETS[3]}\n", "")
    topic = vault / "pages" / "Atlas Migration.md"
    topic.write_text(topic.read_text() + f"- {BULLETS[3]}\n")
    found = audit(vault=vault).findings
    assert [(f.kind, f.where) for f in found] == [("moved", "pages/Atlas Migration.md")]


def test_owned_block_removed(vault: Path) -> None:
    page(vault).write_text("- Morning: planning\n- later, a human line\n")
    assert kinds(vault) == {b: "block-removed" for b in BULLETS}


def test_page_removed_counts_as_the_block_removed(vault: Path) -> None:
    page(vault).unlink()
    assert kinds(vault) == {b: "block-removed" for b in BULLETS}


def logseq_overwrite(root: Path, older: str, human: str) -> str:
    """What Logseq does to a journal changed on disk while it had the page open
    (logseq/logseq#11327): the disk version goes to logseq/bak/<page>/<ISO time>.md, then the
    app's older copy, with the person's new typing, is saved over the page."""
    disk = page(root).read_bytes()
    stem = page(root).relative_to(root).as_posix().removesuffix(".md")
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H_%M_%S.000Z")
    bak = root / "logseq" / "bak" / stem / f"{stamp}.md"
    bak.parent.mkdir(parents=True)
    bak.write_bytes(disk)
    page(root).write_text(older + human)
    return bak.relative_to(root).as_posix()


def test_logseq_overwrite_is_reported_as_lost_with_the_backup_as_evidence(vault: Path) -> None:
    evidence = logseq_overwrite(vault, "- Morning: planning\n", "- typed in Logseq meanwhile\n")
    before = snapshot(vault)
    found = audit(vault=vault, agent="claude").findings
    assert {f.text: f.kind for f in found} == {b: "lost" for b in BULLETS}
    assert {f.evidence for f in found} == {evidence}
    assert snapshot(vault) == before  # reported, never restored


def test_logseq_overwrite_of_part_of_the_block(vault: Path) -> None:
    """Logseq had loaded the page after the first two bullets were written: its older copy keeps
    them, and the two written later vanish."""
    older = "- Morning: planning\n- claude log\n" + "".join(f"\t- {b}\n" for b in BULLETS[:2])
    logseq_overwrite(vault, older, "- typed in Logseq meanwhile\n")
    assert kinds(vault) == {BULLETS[2]: "lost", BULLETS[3]: "lost"}


def test_a_backup_older_than_the_bullet_is_no_evidence(vault: Path) -> None:
    evidence = logseq_overwrite(vault, "- Morning: planning\n", "")
    bak = vault / evidence
    old = bak.with_name("2020-01-01T00_00_00.000Z.md")
    bak.rename(old)
    assert kinds(vault) == {b: "block-removed" for b in BULLETS}


def test_agent_and_since_filters(vault: Path) -> None:
    append(["Another agent's note on [[Backups]]"], vault=vault, agent="codex")
    page(vault).write_text("- Morning: planning\n")
    assert set(kinds(vault, agent="codex")) == {"Another agent's note on [[Backups]]"}
    assert len(kinds(vault)) == 5
    assert kinds(vault, since="2999-01-01") == {}
    assert len(kinds(vault, since="2000-01-01T00:00")) == 5
    with pytest.raises(BadArgument):
        audit(vault=vault, since="last week")


def test_audit_writes_nothing(vault: Path) -> None:
    edit(vault, f"\t- {BULLETS[0]}\n", "")
    before = snapshot(vault)
    audit(vault=vault)
    assert snapshot(vault) == before


def test_cli_text_and_json(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(vault, f"\t- {BULLETS[0]}\n", "")
    assert main(["audit", "--vault", str(vault), "--agent", "claude"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("claude's bullets: 4 checked, 3 as written, 1 changed")
    assert "deleted" in out and BULLETS[0] in out
    assert main(["audit", "--vault", str(vault), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["deleted"] == 1 and data["checked"] == 4
    assert data["findings"][0]["text"] == BULLETS[0]
    assert data["findings"][0]["session"] == "s1"


def test_no_ledger_means_nothing_to_report(tmp_path: Path) -> None:
    root = logseq(tmp_path / "v", {"A": "- a\n"}, {TODAY: "- hi [[A]]\n"})
    result = audit(vault=root)
    assert (result.checked, result.findings) == (0, [])
    assert not os.path.exists(root / ".journal-agent")


def test_a_plain_markdown_vault(markdown_vault: Path) -> None:
    """The owned block and the audit are the same in every flavor."""
    append(
        ["Read [[topic]] again", "Second look at [[topic]]"], vault=markdown_vault, agent="codex"
    )
    path = markdown_vault / "journals" / f"{TODAY}.md"
    path.write_text(path.read_text().replace("Second look", "A second look"))
    found = audit(vault=markdown_vault, agent="codex")
    assert (found.checked, found.intact) == (2, 1)
    assert [(f.kind, f.now) for f in found.findings] == [("edited", "A second look at [[topic]]")]
