"""The adapters: the checked-in bundles are what the installed package generates, their hooks are
what ``hook install`` merges into the host's settings, and the merge is safe (a backup, other
hooks and settings untouched, idempotent, explicit timeouts in the host's unit)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import pytest

from journal_agent.hosts import HOSTS, host_named

from .conftest import ROOT
from .hookkit import CLI, environment, run

ADAPTERS = ROOT / "adapters"
HOOKS_FILE = {
    "claude-code": "hooks/hooks.json",
    "codex": "hooks.json",
    "gemini": "hooks/hooks.json",
}
SETTINGS = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}


def files_under(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_the_checked_in_bundle_is_what_the_package_generates(host: str) -> None:
    assert files_under(ADAPTERS / host) == host_named(host).bundle(), (
        f"adapters/{host} is stale: run journal-agent hook bundle {host} --out adapters/{host}"
        " --force"
    )


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_bundle_command_and_install_write_the_same_hooks(host: str, tmp_path: Path) -> None:
    env = environment(tmp_path)
    out = tmp_path / "bundle"
    assert run(["hook", "bundle", host, "--out", str(out)], env).returncode == 0
    assert files_under(out) == files_under(ADAPTERS / host)
    done = run(["hook", "install", host], env)
    assert done.returncode == 0, done.stderr
    settings = json.loads((tmp_path / "home" / SETTINGS[host]).read_text())
    bundled = json.loads((ADAPTERS / host / HOOKS_FILE[host]).read_text())
    assert settings == {"hooks": bundled["hooks"]}
    assert not list((tmp_path / "home").rglob("*.bak-*"))  # nothing to back up


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_bundle_never_replaces_other_files_unless_forced(host: str, tmp_path: Path) -> None:
    """``hook bundle codex --out .`` in a repository once replaced its README.md and AGENTS.md:
    a file of the same name with other contents is refused (nothing written) unless --force;
    the same bundle again is no clash."""
    env = environment(tmp_path)
    out = tmp_path / "project"
    out.mkdir()
    theirs = {"README.md": "# My project\n", ".mcp.json": '{"mcpServers": {"mine": {}}}\n'}
    for rel, text in theirs.items():
        (out / rel).write_text(text)
    clashing = sorted(rel for rel in host_named(host).bundle() if rel in theirs)
    assert clashing, "every bundle writes a README.md"
    refused = run(["hook", "bundle", host, "--out", str(out)], env)
    assert refused.returncode == 2 and all(rel in refused.stderr for rel in clashing)
    assert "nothing was written" in refused.stderr
    assert files_under(out) == theirs
    forced = run(["hook", "bundle", host, "--out", str(out), "--force"], env)
    assert forced.returncode == 0, forced.stderr
    assert files_under(out) == {**theirs, **host_named(host).bundle()}
    assert run(["hook", "bundle", host, "--out", str(out)], env).returncode == 0  # the same


def test_bundle_is_never_written_into_the_vault(tmp_path: Path) -> None:
    env = environment(tmp_path)
    vault = tmp_path / "vault"
    (vault / "journals").mkdir(parents=True)
    for out in (vault, vault / "adapters"):
        done = run(["hook", "bundle", "codex", "--out", str(out), "--vault", str(vault)], env)
        assert done.returncode == 2 and "inside the vault" in done.stderr
    env_vault = {**env, "JOURNAL_AGENT_VAULT": str(vault)}
    assert run(["hook", "bundle", "gemini", "--out", str(vault)], env_vault).returncode == 2
    assert [p.name for p in vault.iterdir()] == ["journals"]


def test_install_never_overwrites_an_earlier_backup(tmp_path: Path) -> None:
    """Two installs into one settings file within a second each keep their backup: the second
    once replaced the first, and the original settings were lost."""
    from journal_agent.hosts.install import install

    path = tmp_path / "settings.json"
    path.write_text('{"model": "opus"}')
    now = dt.datetime(2026, 12, 1, 12, 0, 0)
    first = install(host_named("claude-code"), path, now=now)
    second = install(host_named("gemini"), path, now=now)
    assert first.backup and second.backup and first.backup != second.backup
    assert Path(first.backup).read_text() == '{"model": "opus"}'
    assert "journal-agent hook claude-code" in Path(second.backup).read_text()


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_every_hook_has_an_explicit_timeout_in_the_hosts_unit(host: str) -> None:
    found = host_named(host)
    handlers = [
        h for groups in found.hooks_config()["hooks"].values() for g in groups for h in g["hooks"]
    ]
    timeouts = [h["timeout"] for h in handlers]
    if host == "gemini":  # milliseconds: 10 would be 10 ms
        assert all(1000 <= t <= 60000 for t in timeouts)
    else:
        assert all(1 <= t <= 60 for t in timeouts)
    end = found.events["SessionEnd"].timeout
    assert end <= (3000 if host == "gemini" else 3)  # Codex caps SessionEnd at 3 s
    assert all(h["command"].startswith(f"journal-agent hook {host} ") for h in handlers)


OTHERS = {
    "model": "opus",
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {"type": "command", "command": "other-tool start"},
                    # an earlier journal-agent, another timeout: replaced, never duplicated
                    {
                        "type": "command",
                        "command": "journal-agent hook HOST SessionStart",
                        "timeout": 99,
                    },
                ],
            }
        ],
    },
    "permissions": {"allow": ["Bash(ls)"]},
}


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_install_merges_safely_and_idempotently(host: str, tmp_path: Path) -> None:
    env = environment(tmp_path)
    path = tmp_path / "home" / SETTINGS[host]
    path.parent.mkdir(parents=True)
    before = json.dumps(OTHERS, indent=4).replace("HOST", host)
    path.write_text(before)
    done = run(["hook", "install", host], env)
    assert done.returncode == 0 and "hooks installed (backup:" in done.stdout
    [backup] = path.parent.glob(f"{path.name}.bak-*")
    assert backup.read_text() == before
    after = json.loads(path.read_text())
    original = json.loads(before)
    assert after["model"] == "opus" and after["permissions"] == original["permissions"]
    assert after["hooks"]["PreToolUse"] == original["hooks"]["PreToolUse"]
    ours = host_named(host).hooks_config()["hooks"]
    for event, groups in after["hooks"].items():
        kept = [g for g in original["hooks"].get(event, [])]
        if event == "SessionStart":
            kept = [
                {
                    "matcher": "startup",
                    "hooks": [{"type": "command", "command": "other-tool start"}],
                }
            ]
        assert groups == kept + ours.get(event, [])
    again = run(["hook", "install", host], env)
    assert again.stdout.strip() == "already installed"
    assert len(list(path.parent.glob(f"{path.name}.bak-*"))) == 1
    assert json.loads(path.read_text()) == after


def test_install_print_writes_nothing(tmp_path: Path) -> None:
    env = environment(tmp_path)
    done = run(["hook", "install", "gemini", "--print", "--json"], env)
    data = json.loads(done.stdout)
    assert (data["written"], data["changed"]) == (False, True)
    assert data["settings"] == host_named("gemini").hooks_config()
    assert not (tmp_path / "home" / ".gemini").exists()


def test_install_refuses_a_file_it_cannot_read(tmp_path: Path) -> None:
    env = environment(tmp_path)
    path = tmp_path / "home" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {}, // a comment\n}')
    done = run(["hook", "install", "claude-code"], env)
    assert done.returncode == 2 and "not valid JSON" in done.stderr
    assert "--print shows them" in done.stderr
    shown = run(["hook", "install", "claude-code", "--print"], env)  # what to add by hand
    assert shown.returncode == 0 and "not valid JSON" in shown.stdout
    hooks = json.loads(shown.stdout[shown.stdout.index("{") :])
    assert hooks == host_named("claude-code").hooks_config()
    data = json.loads(run(["hook", "install", "claude-code", "--print", "--json"], env).stdout)
    assert "not valid JSON" in data["unreadable"] and data["written"] is False
    assert path.read_text() == '{"hooks": {}, // a comment\n}'
    assert list(path.parent.iterdir()) == [path]


def test_install_writes_through_a_linked_settings_file(tmp_path: Path) -> None:
    env = environment(tmp_path)
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text("{}")
    link = tmp_path / "home" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(dotfiles)
    assert run(["hook", "install", "claude-code"], env).returncode == 0
    assert link.is_symlink() and "journal-agent hook" in dotfiles.read_text()


def test_project_and_explicit_settings_files(tmp_path: Path) -> None:
    env = environment(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(
        [str(CLI), "hook", "install", "codex", "--project"],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
    )
    assert "journal-agent hook codex Stop" in (project / ".codex" / "hooks.json").read_text()
    target = tmp_path / "elsewhere.json"
    assert run(["hook", "install", "claude-code", "--settings", str(target)], env).returncode == 0
    assert json.loads(target.read_text()) == host_named("claude-code").hooks_config()
