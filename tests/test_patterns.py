"""The compiled-pattern cache (`patterns`): a pattern read back is the one `re` compiles, a
damaged file costs only the compiling, and the program's patterns are the same in every run."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from journal_agent import patterns
from journal_agent.cachedir import CACHE_ENV

from .conftest import SAMPLE_VAULT, copy_vault

SOURCES = [
    (r"(?P<key>[^\s:]+)::[ \t]*(?P<value>.*)$", int(re.M)),
    (r"\[\[(?:[^\[\]]|\[\[[^\]]*\]\])*\]\]", 0),
    (r"(?i:todo|doing)\b(?=\s)|(?<![`\\])`[^`\n]+`", int(re.DOTALL)),
    (r"(?P<y>[0-9]{4})_(?P<m>[0-9]{2})(?P=m)?", int(re.IGNORECASE)),
]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that has read no cache file and compiled nothing yet."""
    monkeypatch.setattr(patterns, "_KEPT", None)
    monkeypatch.setattr(patterns, "_NEW", {})


def _files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").glob("patterns-*.marshal"))


def test_patterns_read_back_are_those_re_compiles(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = [patterns.regex(source, flags) for source, flags in SOURCES]
    assert _files(tmp_path) == []  # written at exit, not per pattern
    patterns._write()
    assert len(_files(tmp_path)) == 1

    monkeypatch.setattr(patterns, "_KEPT", None)
    monkeypatch.setattr(patterns, "_NEW", {})

    def refuse(source: str, flags: int = 0) -> re.Pattern[str]:
        raise AssertionError(f"compiled, not read back: {source!r}")

    monkeypatch.setattr(re, "compile", refuse)
    again = [patterns.regex(source, flags) for source, flags in SOURCES]
    monkeypatch.undo()
    for (source, flags), old, new in zip(SOURCES, first, again, strict=True):
        assert new == re.compile(source, flags)  # same pattern, flags and code
        assert (new.pattern, new.flags, new.groupindex) == (old.pattern, old.flags, old.groupindex)
    assert again[0].search("a\nkey:: v w\n")["value"] == "v w"  # type: ignore[index]
    assert again[3].fullmatch("2024_0303") and not again[3].fullmatch("2024_0304")


def test_a_damaged_file_costs_only_the_compiling(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, flags = SOURCES[0]
    path = Path(patterns._path())
    path.parent.mkdir(parents=True)
    for damaged in (b"not marshal", marshal.dumps([1, 2]), marshal.dumps({(source, flags): 7})):
        path.write_bytes(damaged)
        monkeypatch.setattr(patterns, "_KEPT", None)
        assert patterns.regex(source, flags) == re.compile(source, flags)
    # code `_sre` refuses (it checks what it is given): compiled anew, the file mended at exit
    good = patterns._code(source, flags)
    bad = (good[0], [*good[1][:-4], 255, 255, 255, 255], *good[2:])
    path.write_bytes(marshal.dumps({(source, flags): bad}))
    monkeypatch.setattr(patterns, "_KEPT", None)
    monkeypatch.setattr(patterns, "_NEW", {})
    assert patterns.regex(source, flags) == re.compile(source, flags)
    patterns._write()
    assert marshal.loads(path.read_bytes()) == {(source, flags): good}


def test_a_file_that_only_grows_starts_again(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(patterns, "MAX_KEPT", 3)
    for n in range(3):
        patterns.regex(f"a{n}")
    patterns._write()
    monkeypatch.setattr(patterns, "_NEW", {})
    patterns.regex("b")
    patterns._write()
    assert set(marshal.loads(Path(patterns._path()).read_bytes())) == {("b", 0)}


def test_the_programs_patterns_are_the_same_in_every_run(tmp_path: Path) -> None:
    """Every pattern compiled by a cold query and an append, spelled the same whatever the hash
    seed (a set's order): else the file would grow by each run's spelling, and every run
    compile them again."""
    vault = copy_vault(SAMPLE_VAULT, tmp_path)
    cache = tmp_path / "cache"

    def run(seed: str) -> None:
        for words in (
            ["stale"],
            ["timeline", "Atlas Migration"],
            ["status", "Atlas Migration"],
            ["append", "--agent", "test", "A note about [[Atlas Migration]]"],
        ):
            for leftover in cache.glob("index-*"):
                leftover.unlink()  # cold: every page scanned
            subprocess.run(
                [sys.executable, "-m", "journal_agent", *words, "--vault", str(vault)],
                env={**os.environ, CACHE_ENV: str(cache), "PYTHONHASHSEED": seed},
                check=True,
                capture_output=True,
            )

    run("1")
    (path,) = _files(tmp_path)
    kept = marshal.loads(path.read_bytes())
    assert len(kept) > 80  # the scanner's grammar, the guard's, the date formats, ...
    for seed in ("2", "3"):
        run(seed)
        assert marshal.loads(path.read_bytes()) == kept, "a pattern is spelled anew each run"
