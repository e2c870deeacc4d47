"""`why TOPIC`: the decision bullets about a topic, newest first, labelled as rationale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from journal_agent import PageNotFound
from journal_agent.api_context import why
from journal_agent.cli import main
from journal_agent.decisions import is_decision

from .conftest import SAMPLE_VAULT
from .test_queries import logseq

AS_OF = "2026-11-29"


@pytest.mark.parametrize(
    "text",
    [
        "Decision: rollback is a DNS flip",
        "decision: lower case",
        "DECIDED: upper case",
        "Rationale: the why",
        "**Decision:** in bold",
        "Decision — with a dash",
        "use the DNS flip #decision",
        "use the DNS flip #[[Decisions]]",
        "[[Decision]] rollback is a DNS flip",
    ],
)
def test_decision_bullets(text: str) -> None:
    assert is_decision(text)


@pytest.mark.parametrize(
    "text",
    [
        "We decided to wait",  # prose: no fuzzy word matching
        "Decisions pending on the budget",
        "TODO decide the rollback",
        "#decisionmaking is hard",
        "Resolved: the flag is gone",
    ],
)
def test_not_decision_bullets(text: str) -> None:
    assert not is_decision(text)


def test_sample_vault() -> None:
    result = why("atlas", vault=SAMPLE_VAULT, as_of=AS_OF)
    data = result.to_json()
    assert data["topic"] == "Atlas Migration" and data["status"] == "active"
    assert "history, not current truth" in data["note"]
    assert [(d["date"], d["text"]) for d in data["decisions"]] == [
        ("2026-11-12", "Decision: rollback is a DNS flip, not a data restore [[Atlas Migration]]")
    ]
    assert data["decisions"][0]["mentions_since"] > 0


def test_newest_first_with_details_and_the_topic_page_itself(tmp_path: Path) -> None:
    root = logseq(
        tmp_path,
        {"Cache": "- Decision: no TTL below 60 s\n- notes\n"},
        {
            "2026-11-01": "- Decision: use [[Cache]] for sessions\n\t- because the DB is slow\n"
            "\t- and cheap\n",
            "2026-11-20": "- decided: evict [[Cache]] nightly #decision\n",
            "2026-11-21": "- [[Cache]] hit rate 90%\n",
            "2026-12-05": "- Decision: after the as-of day [[Cache]]\n",
        },
    )
    decisions = why("Cache", vault=root, as_of=AS_OF).decisions
    assert [(d.date and d.date.isoformat(), d.text) for d in decisions] == [
        ("2026-11-20", "decided: evict [[Cache]] nightly #decision"),
        ("2026-11-01", "Decision: use [[Cache]] for sessions"),
        (None, "Decision: no TTL below 60 s"),
    ]
    assert decisions[1].details == ("because the DB is slow", "and cheap")
    assert [d.mentions_since for d in decisions] == [1, 2, 0]


def test_unknown_topic_is_refused() -> None:
    with pytest.raises(PageNotFound):
        why("No Such Topic", vault=SAMPLE_VAULT, as_of=AS_OF)


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["why", "Atlas Migration", "--vault", str(SAMPLE_VAULT), "--as-of", AS_OF]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Decisions about Atlas Migration (active, last mentioned 2026-11-25): 1"
    assert "history, not current truth" in out[1]
    assert out[2].startswith("2026-11-12  Decision: rollback is a DNS flip")
    argv = ["why", "Flaky CI", "--vault", str(SAMPLE_VAULT), "--as-of", AS_OF, "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "resolved"
