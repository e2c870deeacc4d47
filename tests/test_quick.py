"""The warm path (`quick`) prints what the CLI prints, and leaves to the CLI what it cannot be
sure of.

`quick.answer` answers ``stale``, ``topics`` and ``status`` from the cached summary without
opening the vault's settings; it must agree with `cli.main` byte for byte (standard output,
standard error, exit code) on every fixture vault, under every option it takes, and answer
nothing at all (None, nothing printed) whenever the files, the settings, the package or the
arguments are not exactly what it can vouch for: the CLI then answers, and says what is wrong.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import journal_agent
from journal_agent import cli, derived, quick
from journal_agent.index import RACY_NS

from .conftest import ROOT, copy_vault, journal, past_racy, settle
from .graph_gen import generate, write_graph
from .test_point_lookups import spellings

AS_OF = "2026-11-29"
#: The index's racy window in the processes a test starts; this one's is short (`settle`).
SUBPROCESS_RACY_NS = RACY_NS
pytestmark = pytest.mark.usefixtures("short_racy_window")
RULES = sorted((ROOT / "tests" / "vaults" / "obsidian_rules").iterdir())
QUERIES = [
    ["stale"],
    ["stale", "--json"],
    ["stale", "--all-pages", "--days", "3"],
    ["topics"],
    ["topics", "--json", "--all-pages"],
    ["topics", "--days", "400", "--as-of", "2026-06-01"],
    ["stale", "--as-of", "2025-01-01"],
    ["status", "--json"],  # a topic is added
    ["timeline", "--json"],  # every third name: each the CLI does not know builds a graph
]
Run = tuple[int | None, str, str]


def full(words: list[str], capsys: pytest.CaptureFixture[str]) -> Run:
    code = cli.main(words)
    out = capsys.readouterr()
    return code, out.out, out.err


def warm(words: list[str], capsys: pytest.CaptureFixture[str]) -> Run:
    code = quick.answer(words)
    out = capsys.readouterr()
    return code, out.out, out.err


def strange_vault(root: Path) -> Path:
    """Names and texts JSON must escape, titles alike but for case, a topic mentioned only
    after the as-of day, and Logseq's built-in pages (``--all-pages``)."""
    names = ['say "hi"', "back\\slash", "tab\tname", "Ünïcode 😀", "\u2028line", "abc", "ABD"]
    for name in names:
        (root / "pages").mkdir(parents=True, exist_ok=True)
        (root / "pages" / f"{name}.md").write_text(f"- {name}\n")
    (root / "pages" / "Titled.md").write_text('title:: Ctrl \x01 \\ "q"\n\n- body\n')
    (root / "pages" / "Later.md").write_text("- later\n")
    days = {"2026-10-01": names[:3], "2026-11-20": names[3:], "2026-11-28": ['Ctrl \x01 \\ "q"']}
    for day, linked in days.items():
        text = "".join(f'- TODO [[{n}]] said "x\\y" \x02 é\n' for n in linked)
        (root / "journals").mkdir(exist_ok=True)
        journal(root, day).write_text(text)
    journal(root, "2026-12-24").write_text("- [[Later]] after the as-of day\n")
    return root


def test_a_timeline_for_a_pipe_is_what_json_dumps_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`timeline --json` to a pipe encodes its entries by one format (`Backlink.encoder`): byte
    for byte what ``json.dumps`` writes of them, names and texts that need escaping too."""
    import json

    root = strange_vault(tmp_path / "strange")
    (root / "pages" / 'He said "so" \\ ok.md').write_text('- undated "q" \\ \x03 [[say "hi"]]\n')
    for name in ['say "hi"', "back\\slash", "Ünïcode 😀", "tab\tname"]:
        code, out, _ = full(
            ["timeline", name, "--json", "--as-of", AS_OF, "--vault", str(root)], capsys
        )
        found = journal_agent.timeline(name, vault=root, as_of=AS_OF).to_json()
        assert code == 0 and found["entries"]
        assert out == json.dumps(found, ensure_ascii=False) + "\n"


def test_a_kept_timeline_is_what_the_cli_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where nothing changed since a topic's backlinks were kept (`backlinks.Memo`), the warm
    path prints its undated entries as they were kept, encoded and in order: byte for byte the
    CLI's without a cache, for every topic, as of several days; pages alike but for case (by
    line, then in path order), several blocks a page, resolutions, texts JSON must escape."""
    from journal_agent import backlinks

    monkeypatch.setattr(backlinks, "MEMO_MIN", 0)  # every topic's backlinks kept
    monkeypatch.setattr(backlinks, "MEMO_TOPICS", 10_000)
    root = strange_vault(tmp_path / "strange")
    pages = root / "pages"
    lines = ['- DONE [[abc]] "done"', "- [[ABD]] and [[abc]] \\ \x04", "  - [[abc]] nested"]
    for n, name in enumerate(["Zed", "zed", "ZED ", "alpha", "Ünïcode Page", "b\\q"]):
        (pages / f"{name}.md").write_text("\n".join(lines[n % 3 :] + lines[: n % 3]) + "\n")
    settle(root)
    names = ["abc", "ABD", 'say "hi"', "Ünïcode 😀", "Later", "alpha"]
    days = [AS_OF, "2026-10-15", "2026-12-31"]
    asked = [
        ["timeline", n, "--json", "--vault", str(root), "--as-of", d] for n in names for d in days
    ]
    assert full(["stale", "--vault", str(root)], capsys)[0] == 0  # writes the summary
    for words in asked:  # keeps every topic's backlinks, with the summary it answered from
        assert warm(words, capsys)[0] == 0, words

    made: list[object] = []  # topics whose backlinks are found anew (none kept: no undated)
    found_anew = backlinks._backlinks

    def spied(*args: Any) -> Any:
        made.append(args)
        return found_anew(*args)

    monkeypatch.setattr(backlinks, "_backlinks", spied)
    for words in asked:
        made.clear()
        found = warm(words, capsys)
        assert found[0] == 0 and found == full([*words, "--no-cache"], capsys), words
        assert ('"date": null' in found[1]) is not bool(made), words
    assert '"date": null' in warm(asked[0], capsys)[1]


def vault_of(request: pytest.FixtureRequest, tmp_path: Path, fixture: str) -> Path:
    if fixture == "strange":
        return strange_vault(tmp_path / "strange")
    if fixture == "generated":
        return write_graph(tmp_path / "generated", generate(seed=5, pages=120, days=90))
    if fixture.endswith("_vault"):
        root: Path = request.getfixturevalue(fixture)
        return root
    return copy_vault(ROOT / "tests" / "vaults" / "obsidian_rules" / fixture, tmp_path)


@pytest.mark.parametrize(
    "fixture",
    [
        "logseq_vault",
        "obsidian_vault",
        "markdown_vault",
        "generated",
        "strange",
        *[r.name for r in RULES],
    ],
)
def test_the_warm_path_prints_what_the_cli_prints(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    fixture: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = vault_of(request, tmp_path, fixture)
    settle(root)
    names = spellings(root)
    answered = 0
    for words in QUERIES:
        named = {"status": names, "timeline": names[::3]}.get(words[0], [None])
        for topic in named:
            asked = [*words, *([topic] if topic else []), "--vault", str(root)]
            if "--as-of" not in words:
                asked += ["--as-of", AS_OF]
            if topic is not None and (not topic or topic.startswith("-")):
                assert warm(asked, capsys) == (None, "", "")  # the CLI parses those
                continue
            cold = full(asked, capsys)  # also writes the summary, with its guard
            found = warm(asked, capsys)
            if found[0] is None:
                assert found == (None, "", "") and topic is not None, asked
                continue  # a spelling the summary does not know: the CLI answers
            answered += 1
            assert found == cold == full(asked, capsys), asked
    assert answered >= len(QUERIES) - 1


def test_warnings_and_the_vault_from_the_environment(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (logseq_vault / "pages" / "broken.md").write_bytes(b"- caf\xe9 [[Backups]]\n")
    settle(logseq_vault)
    monkeypatch.setenv("JOURNAL_AGENT_VAULT", str(logseq_vault))
    asked = ["stale", "--as-of", AS_OF]
    cold = full(asked, capsys)
    assert "warning: pages/broken.md" in cold[2]
    assert warm(asked, capsys) == cold


def test_anything_unsure_goes_to_the_cli(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    settle(logseq_vault)
    v = ["--vault", str(logseq_vault)]
    assert full(["stale", *v], capsys)[0] == 0
    assert warm(["stale", *v], capsys)[0] == 0
    for words in (
        ["stale", "--no-cache", *v],
        ["stale", "--vault"],
        ["stale", f"--vault={logseq_vault}"],
        ["stale", "--json", "--json", *v],
        ["stale", "--all", *v],  # argparse takes a prefix; this module does not
        ["stale", "--days", "0", *v],
        ["stale", "--days", "-3", *v],
        ["stale", "--days", "٣", *v],  # an Arabic-Indic digit: int() reads it, argparse too
        ["stale", "--as-of", "2026-02-30", *v],
        ["stale", "--as-of", "20261129", *v],
        ["stale", "extra", *v],
        ["status", *v],
        ["status", "Backups", "Other", *v],
        ["status", "Backups", "--all-pages", *v],
        ["status", "backups\udcff", *v],  # not UTF-8
        ["timeline", "Backups", *v],
        ["stale", "--help"],
        ["stale"],  # the vault of the person's config file: the CLI reads it
        ["stale", "--vault", str(logseq_vault / "nope")],
        [],
    ):
        assert warm(words, capsys) == (None, "", ""), words
    monkeypatch.setattr(journal_agent, "__version__", "0.0.0")  # another version wrote it
    assert warm(["stale", *v], capsys) == (None, "", "")


def test_a_change_is_seen_and_the_cli_answers_it(
    logseq_vault: Path, obsidian_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settle(logseq_vault)
    settle(obsidian_vault)
    asked = ["topics", "--json", "--as-of", AS_OF, "--vault", str(logseq_vault)]
    full(asked, capsys)

    def changed(edit: object) -> None:
        assert warm(asked, capsys) == (None, "", ""), edit  # never a stale answer
        settle(logseq_vault)
        assert warm(asked, capsys) == (None, "", "")  # the stamp differs still
        cold = full(asked, capsys)  # patches or rebuilds, and writes the guard again
        assert warm(asked, capsys) == cold, edit

    page = journal(logseq_vault, "2026-11-20")
    page.write_text(page.read_text() + "- [[Brand New Thread]] started\n")
    changed("a journal edited")
    (logseq_vault / "pages" / "added.md").write_text("- see [[Backups]]\n")
    changed("a page added")
    config = logseq_vault / "logseq" / "config.edn"
    os.utime(config)
    changed("the config touched, its settings the same")
    config.write_text(config.read_text().replace("{", '{:hidden ["pages/added.md"]\n', 1))
    changed("a page hidden by the config")
    (logseq_vault / ".journal-agent.toml").write_text("days = 5\n")
    changed("the window set by the vault's own config")

    asked = ["stale", "--as-of", AS_OF, "--vault", str(obsidian_vault)]
    full(asked, capsys)
    (obsidian_vault / ".obsidian" / "app.json").write_text('{"userIgnoreFilters": ["Projects"]}')
    changed_obsidian = warm(asked, capsys)
    assert changed_obsidian == (None, "", "")
    settle(obsidian_vault)
    assert warm(asked, capsys) == (None, "", "")
    assert warm(asked, capsys) == (None, "", "")
    cold = full(asked, capsys)
    assert warm(asked, capsys) == cold


def test_a_racily_clean_file_goes_to_the_cli(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settle(logseq_vault)
    journal(logseq_vault, "2026-11-29").write_text("- [[Backups]] again\n")  # just now
    asked = ["stale", "--as-of", AS_OF, "--vault", str(logseq_vault)]
    full(asked, capsys)
    assert warm(asked, capsys) == (None, "", "")  # its bytes must be read: the CLI does


def test_the_command_answers_warm_without_loading_the_cli(logseq_vault: Path) -> None:
    """The installed command and ``python -m journal_agent``: the same output either way, and a
    warm query imports neither the argument parser nor the vault's settings readers, nor
    OpenSSL."""
    settle(logseq_vault, SUBPROCESS_RACY_NS)
    asked = ["stale", "--vault", str(logseq_vault), "--as-of", AS_OF]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    command = [str(Path(sys.executable).with_name("journal-agent")), *asked]
    first = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    importing = [sys.executable, "-X", "importtime", "-m", "journal_agent", *asked]
    again = subprocess.run(importing, capture_output=True, text=True, env=env, check=True)
    assert again.stdout == first.stdout and "stale thread(s)" in first.stdout
    loaded = {line.rsplit("|", 1)[-1].strip() for line in again.stderr.splitlines()}
    assert "journal_agent.quick" in loaded
    assert not {"argparse", "journal_agent.cli", "journal_agent.flavors", "typing"} & loaded
    assert "_hashlib" not in loaded  # OpenSSL: `digests`


#: A process that ends by `quick.leave` after printing, with an object whose finaliser would
#: print at the interpreter's teardown; what it does before is the test's.
LEAVING = """
import os, sys
from journal_agent.quick import leave
class Teardown:
    def __del__(self):
        os.write(1, b"<teardown>")
kept = Teardown()
{before}
print("x" * 300_000, end="")
print("done", file=sys.stderr)
leave(3)
"""


@pytest.mark.parametrize(
    ("before", "teardown", "after"),
    [
        ("", False, ""),
        ("import atexit; atexit.register(lambda: os.write(1, b'<atexit>'))", True, "<atexit>"),
        (
            "import threading, time; threading.Thread(target=lambda: (time.sleep(0.3), "
            "os.write(1, b'<thread>'))).start()",
            True,
            "<thread>",
        ),
    ],
    ids=["nothing pending", "an atexit function", "another thread"],
)
def test_the_command_leaves_without_teardown_unless_something_needs_it(
    before: str, teardown: bool, after: str
) -> None:
    """The command skips the interpreter's teardown (`quick.leave`): its output all flushed
    (through a pipe, a buffer's worth and more), its exit code kept. Where an ``atexit``
    function or another thread is pending, the interpreter ends as usual and runs them."""
    done = subprocess.run(
        [sys.executable, "-c", LEAVING.format(before=before)], capture_output=True, text=True
    )
    assert done.returncode == 3 and done.stderr == "done\n"
    out = done.stdout
    assert out.startswith("x" * 300_000) and after in out
    assert ("<teardown>" in out) == teardown


@pytest.mark.parametrize("command", ["context", "append", "stale after an edit", "timeline"])
def test_the_library_loads_without_dataclasses(logseq_vault: Path, command: str) -> None:
    """The commands the hooks run (the projection at a session's start, `append` at its end),
    a query that patches the summary, and one that loads the graph: they load the library but
    not `dataclasses`, which imports `inspect` and compiles each class's methods, a fifth of
    a hook's time on a small vault (`records`). The patch does without `pathlib` too: 2 ms of
    the 17 ms an edit may add to a query on a 20,000-page vault."""
    settle(logseq_vault, SUBPROCESS_RACY_NS)
    v = ["--vault", str(logseq_vault), "--as-of", AS_OF]
    asked = {
        "context": ["context", *v],
        "append": ["append", "--vault", str(logseq_vault), "Read [[Backups]]"],  # today's page
        "stale after an edit": ["stale", *v],
        "timeline": ["timeline", "Backups", *v],
    }[command]
    run = [sys.executable, "-X", "importtime", "-m", "journal_agent"]
    subprocess.run([*run, "stale", *v], capture_output=True, check=True)  # the caches
    if command == "stale after an edit":
        page = journal(logseq_vault, "2026-11-27")
        page.write_text(page.read_text() + "- [[Backups]] checked\n")
        past_racy(logseq_vault, SUBPROCESS_RACY_NS)
    done = subprocess.run([*run, *asked], capture_output=True, text=True, check=True)
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "journal_agent.vault" in loaded and done.stdout
    assert not {"dataclasses", "inspect"} & loaded
    if command == "stale after an edit":  # nor, to patch, `pathlib` (`Vault.where`) and those
        assert not {"pathlib", "urllib.parse", "ipaddress"} & loaded  # it imports


def test_a_running_watcher_spares_the_walk(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While `watch` runs with nothing waiting, the warm path trusts the summary it keeps, as
    the CLI does, without listing a file; with a change waiting, or no watcher, it lists them."""
    from journal_agent import walk
    from journal_agent.state import StateDir
    from journal_agent.watchstamp import DIRTY

    from .test_watch import Running

    settle(logseq_vault)
    listed: list[int] = []
    real = walk.page_files

    def counting(*args: object, **kw: object) -> list[tuple[str, int, int, int]]:
        if threading.current_thread() is threading.main_thread():  # not the watcher's own
            listed.append(1)
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(walk, "page_files", counting)
    asked = ["topics", "--json", "--as-of", AS_OF, "--vault", str(logseq_vault)]
    watcher = Running(logseq_vault)
    try:
        found = warm(asked, capsys)
        assert found[0] == 0 and listed == []
        page = logseq_vault / "pages" / "Grafana.md"
        page.write_text(page.read_text() + "- more on [[Backups]]\n")
        past = time.time() - 10
        os.utime(page, (past, past))  # out of the racy window, for the walk below
        watcher.settle()
        found = warm(asked, capsys)
        assert listed == [] and found == full([*asked, "--no-cache"], capsys)
        (StateDir.of(logseq_vault).path / DIRTY).touch()  # a change waiting: every file listed
        assert warm(asked, capsys) == found and listed == [1]
    finally:
        watcher.stop()
    listed.clear()
    assert warm(asked, capsys) == found and listed == [1]  # nobody watches: every file listed


def test_a_changed_vault_is_listed_once(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the warm path finds a change, the CLI it hands the query to uses its listing (made
    moments ago) instead of listing the vault again; nothing else ever sees that listing."""
    from journal_agent import walk
    from journal_agent.flavors import LOGSEQ_SKIPPED

    settle(logseq_vault)
    asked = ["stale", "--json", "--as-of", AS_OF, "--vault", str(logseq_vault)]
    full(asked, capsys)
    folders: list[str] = []
    real = walk._folder

    def counting(root: str, fd: int, folder: str, *rest: Any) -> None:
        folders.append(folder)
        real(root, fd, folder, *rest)

    monkeypatch.setattr(walk, "_folder", counting)
    walk.page_files(str(logseq_vault.resolve()), (".md",), (), LOGSEQ_SKIPPED, [])
    once = len(folders)
    page = journal(logseq_vault, "2026-11-20")
    page.write_text(page.read_text() + "- [[Brand New Thread]] went quiet\n")
    settle(logseq_vault)
    folders.clear()
    digested: list[int] = []
    real_digests = walk._digests

    def digests(files: Any) -> Any:
        digested.append(len(files))
        return real_digests(files)

    monkeypatch.setattr(walk, "_digests", digests)
    assert quick.main(asked) == 0
    out = capsys.readouterr().out
    assert len(folders) == once and walk.HANDED is None
    assert len(digested) == 1  # nor its stats digested twice
    assert (0, out, "") == full([*asked, "--no-cache"], capsys)
    assert len(folders) == 2 * once  # a later query lists the vault itself


@pytest.mark.parametrize("changed", [False, True])
def test_a_name_no_page_has_is_answered_with_one_listing(
    logseq_vault: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    changed: bool,
) -> None:
    """A `status` of a name no page has (a typo) goes from the warm path to the CLI, whose
    summary check and graph (for the names to suggest) take the warm path's listing: the vault
    is listed once, on a warm vault and on one that changed (the summary patched first), and
    the refusal is the one made without any cache; nothing is left handed over."""
    from journal_agent import summary_store, walk

    settle(logseq_vault)
    asked = ["status", "Bakups", "--as-of", AS_OF, "--vault", str(logseq_vault)]
    full(asked, capsys)  # the cache built
    if changed:
        page = journal(logseq_vault, "2026-11-20")
        page.write_text(page.read_text() + "- [[Backups]] again\n")
        past = time.time() - 10
        os.utime(page, (past, past))  # out of the racy window, the settings files untouched
    listings: list[int] = []
    real = walk._folder

    def counting(root: str, fd: int, folder: str, *rest: Any) -> None:
        if folder == root:
            listings.append(1)
        real(root, fd, folder, *rest)

    monkeypatch.setattr(walk, "_folder", counting)
    found = (quick.main(asked), *capsys.readouterr())
    assert len(listings) == 1 and walk.HANDED is None and summary_store.HANDED is None
    assert found[0] == 2 and "did you mean 'Backups'" in found[2]
    assert found == full([*asked, "--no-cache"], capsys)


@pytest.mark.parametrize("fixture", ["logseq_vault", "obsidian_vault", "markdown_vault"])
def test_a_changed_vault_is_answered_as_a_rebuild_without_the_cli(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str], fixture: str
) -> None:
    """After each kind of change (a journal page edited, the new day's page written, a page
    added, deleted or renamed, a just-written racy page), the warm path has the library bring
    the summary up to date and prints what a rebuild prints, for every query form; the CLI
    (argument parser, topic objects) is not run, and nothing is left handed over."""
    from journal_agent import summary_store, walk

    root: Path = request.getfixturevalue(fixture)
    vault = journal_agent.api.Query.of(root, AS_OF, None, True).vault
    settle(root)
    full(["stale", "--as-of", AS_OF, "--vault", str(root)], capsys)  # the cache built
    ran: list[list[str]] = []
    pages = sorted(p for p in root.rglob("*.md") if ".obsidian" not in p.parts)
    days = [p for p in pages if vault.date_of(p.relative_to(root).as_posix())]
    day, topic, other = days[-1], *[p for p in pages if p not in days and "_" not in p.stem][:2]
    new = vault.journal_path(dt.date(2026, 11, 30))
    new.parent.mkdir(parents=True, exist_ok=True)
    edits: list[Callable[[], object]] = [
        lambda: day.write_text(day.read_text() + "\n- picked [[Backups]] up again\n"),
        lambda: new.write_text(f"- more on [[{topic.stem}]]\n"),
        lambda: (topic.parent / "Brand New.md").write_text(f"- see [[{topic.stem}]]\n"),
        lambda: (topic.parent / "Brand New.md").unlink(),
        lambda: topic.rename(topic.with_name("Renamed.md")),
        lambda: day.write_text(day.read_text() + "\n- just now\n"),  # racy: not settled
    ]

    def instead(argv: list[str]) -> int:
        ran.append(list(argv))
        return 0

    for n, edit in enumerate(edits):
        edit()
        past = time.time() - 10
        for page in root.rglob("*.md"):  # out of the racy window (the settings files untouched)
            if n < len(edits) - 1 and ".obsidian" not in page.parts:
                os.utime(page, (past, past))
        for words in (["stale"], ["topics", "--json"], ["status", other.stem, "--json"]):
            asked = [*words, "--as-of", AS_OF, "--vault", str(root)]
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(cli, "main", instead)
                found = (quick.main(asked), *capsys.readouterr())
            expected = full([*asked, "--no-cache"], capsys)
            if expected[0] == 0:
                assert found == expected, (n, words)
            assert walk.HANDED is None and summary_store.HANDED is None
    assert all(argv[0] == "status" for argv in ran)  # a name the summary cannot answer alone


def test_a_status_where_the_summary_is_rebuilt_reads_the_first_pass(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a change no patch covers (a page that was a topic deleted), `status` is answered
    by the warm path from the first pass's graph, as `stale` is, without the CLI, and prints
    what the CLI prints without a cache; a name that graph does not hold (``type``: a page
    Logseq makes of a property key in a page's head) goes to the CLI."""
    from journal_agent import firstpass

    passes: list[int] = []
    real = firstpass.first_graph

    def first_graph(*args: Any) -> Any:
        passes.append(1)
        return real(*args)

    monkeypatch.setattr(firstpass, "first_graph", first_graph)
    ran: list[list[str]] = []

    def instead(argv: list[str]) -> int:
        ran.append(list(argv))
        return 0

    named = logseq_vault / "pages" / "Atlas Migration.md"
    text = named.read_text()
    for words in (
        ["status", "Atlas Migration", "--json"],
        ["status", "backups"],
        ["status", "type", "--json"],
    ):
        asked = [*words, "--as-of", AS_OF, "--vault", str(logseq_vault)]
        named.write_text(text)
        settle(logseq_vault)
        full(["stale", "--as-of", AS_OF, "--vault", str(logseq_vault)], capsys)  # cached
        named.unlink()
        past = time.time() - 10
        for page in logseq_vault.rglob("*.md"):  # the settings files untouched: the warm path
            os.utime(page, (past, past))
        past_racy(logseq_vault)
        passes.clear()
        with monkeypatch.context() as patch:
            patch.setattr(cli, "main", instead)
            found = (quick.main(asked), *capsys.readouterr())
        assert passes == [1]
        if words[1] == "type":
            assert ran == [asked]
        else:
            assert not ran and found == full([*asked, "--no-cache"], capsys), words


@pytest.mark.parametrize("fixture", ["logseq_vault", "obsidian_vault", "markdown_vault"])
def test_a_status_spelled_otherwise_is_answered_warm(
    request: pytest.FixtureRequest, fixture: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A topic named otherwise than the summary spells any name (another case; a leading
    ``/`` in Logseq, ``.md`` or spaces around it elsewhere) is looked up by the vault's query
    key, as `api.status` looks it up, without the CLI: what the CLI prints. A name the summary
    does not know for certain still goes to the CLI."""
    root: Path = request.getfixturevalue(fixture)
    settle(root)
    v = ["--vault", str(root), "--as-of", AS_OF]
    assert full(["stale", *v], capsys)[0] == 0  # the summary, written
    summary = quick.warm_summary(str(root))
    assert summary is not None
    titles = [summary.title(i) for i in range(summary.count()) if summary.path(i)][:6]
    other = "/{}" if fixture == "logseq_vault" else " {}.md"
    answered = 0
    for title in titles:
        for name in (title.lower(), title.upper(), other.format(title)):
            if name in summary.spelled:
                continue
            for form in ([], ["--json"]):
                found, cli_said = (
                    warm(["status", name, *form, *v], capsys),
                    full(["status", name, *form, *v], capsys),
                )
                if cli_said[0] == 0:
                    assert found == cli_said, name
                    answered += 1
                else:
                    assert found == (None, "", ""), name
    assert answered >= 2 * len(titles)
    assert warm(["status", "No Such Page Anywhere", *v], capsys) == (None, "", "")


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "older pickle"])
def test_a_damaged_cache_goes_to_the_cli(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    """A summary file that is not one this version wrote is never trusted: the CLI answers (and
    writes it anew), then the warm path answers as it does."""
    import pickle

    from journal_agent.cachedir import cache_name

    settle(logseq_vault)
    asked = ["stale", "--json", "--as-of", AS_OF, "--vault", str(logseq_vault)]
    expected = full(asked, capsys)
    path = Path(cache_name("index", os.path.realpath(logseq_vault), suffix=".summary"))
    data = path.read_bytes()
    path.write_bytes(
        {
            "garbage": b"\x00not marshal at all" * 50,
            "truncated": data[: len(data) // 2],
            "empty": b"",
            "older pickle": pickle.dumps({"format": 7, "summary": None}),
        }[damage]
    )
    assert warm(asked, capsys) == (None, "", "")
    assert full(asked, capsys) == expected
    assert warm(asked, capsys) == expected


@pytest.mark.skipif(sys.platform == "win32", reason="the warm path guesses no folder on Windows")
@pytest.mark.parametrize("xdg", [None, "", "relative/cache", "ABS"])
def test_the_warm_path_finds_the_cache_where_platformdirs_puts_it(
    logseq_vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    xdg: str | None,
) -> None:
    """Without ``JOURNAL_AGENT_CACHE`` the warm path looks for the summary where it guesses
    platformdirs puts the user cache folder (`cachedir._guessed`, so as not to import it): the
    same folder for every way ``XDG_CACHE_HOME`` can be set, so it answers what the CLI
    answered, from the cache the CLI wrote."""
    from platformdirs import user_cache_dir

    from journal_agent import cachedir

    monkeypatch.delenv(cachedir.CACHE_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg") if xdg == "ABS" else xdg)
    assert cachedir._guessed() == user_cache_dir("journal-agent", appauthor=False)
    settle(logseq_vault)
    asked = ["stale", "--json", "--as-of", AS_OF, "--vault", str(logseq_vault)]
    expected = full(asked, capsys)
    assert os.listdir(cachedir._guessed())  # the CLI wrote its caches there
    assert warm(asked, capsys) == expected


@pytest.mark.skipif(sys.platform == "win32", reason="no folder is guessed on Windows")
def test_the_library_takes_the_guessed_user_folders_once_platformdirs_named_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library asks platformdirs for the user cache, config and state folders (5 ms of a hook)
    until it named the folders `cachedir._guesses` names (`cachedir.CONFIRMED`, a file in the
    cache folder): then, in a process that does not import platformdirs, the same folders.
    Where platformdirs names another folder, that one, every time, and it is not kept."""
    from platformdirs import user_cache_dir, user_config_dir, user_state_dir

    from journal_agent import cachedir, userconfig

    monkeypatch.delenv(cachedir.CACHE_ENV)
    monkeypatch.delenv(userconfig.CONFIG_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    cache = user_cache_dir("journal-agent", appauthor=False)
    config = user_config_dir("journal-agent", appauthor=False)
    state = user_state_dir("journal-agent", appauthor=False)
    probe = (
        "import sys; from journal_agent import cachedir, userconfig;"
        " print(cachedir.cache_root(), userconfig.config_path(), cachedir.user_folder('state'),"
        " 'platformdirs' in sys.modules)"
    )

    def found() -> str:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in (cachedir.CACHE_ENV, userconfig.CONFIG_ENV)
        }
        ran = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
        )
        return ran.stdout.strip()

    assert found() == f"{cache} {config}/config.toml {state} True"  # asked: they are the guesses
    confirmed = Path(cache, cachedir.CONFIRMED).read_text().splitlines()
    assert sorted(confirmed) == [f"cache\t{cache}", f"config\t{config}", f"state\t{state}"]
    assert found() == f"{cache} {config}/config.toml {state} False"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative")  # platformdirs: ~/.config, as guessed
    home_config = os.path.join(os.environ["HOME"], ".config", "journal-agent")
    assert found() == f"{cache} {home_config}/config.toml {state} True"
    assert found() == f"{cache} {home_config}/config.toml {state} False"
    elsewhere = {"cache": str(tmp_path / "elsewhere"), "config": str(tmp_path / "other")}
    monkeypatch.setattr(cachedir, "_guesses", lambda: elsewhere)
    assert cachedir.cache_root() == cache  # its own answer, where the guess is not it
    assert str(userconfig.config_path().parent) == user_config_dir("journal-agent")
    assert cachedir.cache_root(guess=True) == elsewhere["cache"]
    assert not os.path.exists(elsewhere["cache"]) and not os.path.exists(elsewhere["config"])


@pytest.mark.skipif(sys.platform == "win32", reason="the warm path guesses no folder on Windows")
def test_a_vault_that_changed_is_patched_in_the_folder_the_warm_path_found(
    logseq_vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """After a journal edit, the warm path hands the library the folder where it found the
    summary (`cachedir.FOUND`): it answers as the CLI does, never importing platformdirs (a
    tenth of the run at 20,000 pages), and the patched summary is where it looks next time."""
    from journal_agent import cachedir, userconfig

    monkeypatch.delenv(cachedir.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(userconfig.CONFIG_ENV)  # found as a person's, where platformdirs says
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    settle(logseq_vault)
    asked = ["stale", "--json", "--as-of", AS_OF, "--vault", str(logseq_vault)]
    full(asked, capsys)
    page = logseq_vault / "journals" / "2026_11_27.md"
    page.write_text(page.read_text() + "- more on [[Vendor Contract]]\n")
    past_racy(logseq_vault, SUBPROCESS_RACY_NS)  # the settings files left as they were
    probe = (
        "import sys; from journal_agent import quick; code = quick.main(sys.argv[1:]); "
        "print('platformdirs' in sys.modules, code, file=sys.stderr)"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe, *asked],
        env={k: v for k, v in os.environ.items() if k != cachedir.CACHE_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stderr.strip() == "False 0"
    assert warm(asked, capsys) == (0, ran.stdout, "")  # patched, where the warm path looks
    assert full(asked, capsys) == (0, ran.stdout, "")


@pytest.mark.parametrize(
    "head",
    [
        {"as_of": "2026-11-29", "days": 21},
        {"topic": 'say "hi" \\ \u2028 ✓ \x01', "path": None},
        {"topic": "Ünïcode 😀", "path": "pages/a\tb.md"},
        {},
    ],
)
@pytest.mark.parametrize("items", [[], [{"a": 1}], [{"a": "x\ny"}, {"b": None}, []]])
def test_a_listing_encoded_by_hand_is_what_json_writes(
    head: dict[str, Any], items: list[Any]
) -> None:
    """`render.json_listing` writes its head without the json module: byte for byte what
    ``json.dumps(…, ensure_ascii=False)`` writes of the whole."""
    import json

    from journal_agent import render

    encoded = [json.dumps(item, ensure_ascii=False) for item in items]
    found = render.json_listing({**head, "entries": encoded})
    assert found == json.dumps({**head, "entries": items}, ensure_ascii=False)


#: What the warm path must not import: each costs milliseconds of a query that takes a tenth
#: of a second on a large vault (`json` imports `re` and `enum`: ten of them on a slow machine).
HEAVY = ("json", "re", "enum", "typing", "argparse", "pathlib", "platformdirs")


@pytest.mark.parametrize("words", [["stale", "--json"], ["topics", "--json"], ["status", "--json"]])
def test_a_warm_answer_imports_nothing_heavy(
    words: list[str], logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a process of its own, to a pipe, the warm path answers as the CLI does without
    importing any of `HEAVY` (JSON written with json's C string encoder alone)."""
    settle(logseq_vault)
    topic = ["Vendor Contract"] if words[0] == "status" else []
    asked = [words[0], *topic, *words[1:], "--as-of", AS_OF, "--vault", str(logseq_vault)]
    expected = full(asked, capsys)
    probe = (
        "import sys; from journal_agent import quick; code = quick.main(sys.argv[1:]); "
        f"print(sorted(set({HEAVY!r}) & set(sys.modules)), code, file=sys.stderr)"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe, *asked], capture_output=True, text=True, check=True
    )
    assert (ran.stderr.strip(), ran.stdout) == (f"[] {expected[0]}", expected[1])


@pytest.mark.parametrize(
    "texts",
    [
        [],
        [""],
        ["ΟΔΟΣ", "ΟΔΟΣA", "Σ", "ΑΣ", "ΣΑ", "a Σ b", "ΑΣ\u0301", "Σ'", "İstanbul", "ẞ", "ǅ"],
        ["", "ΑΣ", "", "Ab", "\u2028Σ", "x\tΣ"],
        ["nul \0 inside", "ΑΣ"],  # a NUL in a text: lower-cased one by one
    ],
)
def test_titles_lowered_at_once_are_each_lowered(texts: list[str]) -> None:
    """`derived.lowered` joins the titles to lower-case them in one call: a NUL between two
    must bound a final sigma as a text's end does."""
    assert derived.lowered(texts) == [text.lower() for text in texts]
