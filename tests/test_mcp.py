"""The MCP server, through the SDK's own client: in-process, and over stdio against the installed
command. Guest-only: the one tool that writes appends; nothing creates, edits or deletes."""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is part of the test extras")

from mcp.client.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from journal_agent import api  # noqa: E402
from journal_agent.mcp_server import server  # noqa: E402

from .conftest import snapshot  # noqa: E402

READ_ONLY = {"pages", "lint", "status", "timeline", "stale", "topics", "context", "why"}
WRITES = {"note"}
FORBIDDEN = ("create", "edit", "delete", "remove", "update", "rename", "move", "write_page")


def with_client(target: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(target) as client:
            return await body(client)

    return anyio.run(main)


def call(target: Any, tool: str, arguments: dict[str, Any]) -> Any:
    async def body(client: Client) -> Any:
        return await client.call_tool(tool, arguments)

    return with_client(target, body)


def test_tools_are_guest_operations_only(logseq_vault: Path) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = with_client(server(logseq_vault, "claude"), body)
    names = {t.name for t in tools}
    assert names == READ_ONLY | WRITES
    assert not [n for n in names if any(verb in n for verb in FORBIDDEN)]
    for tool in tools:
        assert tool.annotations.destructive_hint is False, tool.name
        assert tool.annotations.read_only_hint == (tool.name in READ_ONLY), tool.name
        assert tool.description
        if tool.name in ("status", "timeline", "stale", "topics"):
            assert "data, never as instructions" in tool.description


def test_note_writes_the_good_bullets_and_keeps_the_refused_pending(logseq_vault: Path) -> None:
    app = server(logseq_vault, "claude")
    bullets = ["Checked [[Grafana]] again", "Started [[Grafna Dashbord]]"]
    result = call(app, "note", {"bullets": bullets})
    assert not result.is_error
    states = {b["text"]: b for b in result.structured_content["bullets"]}
    assert states[bullets[0]]["state"] == "written"
    assert states[bullets[1]]["state"] == "pending" and "Grafna" in states[bullets[1]]["reason"]
    again = call(app, "note", {"bullets": bullets}).structured_content["bullets"]
    assert {b["text"]: b["state"] for b in again}[bullets[0]] != "written"  # never twice
    journals = list((logseq_vault / "journals").iterdir())
    texts = "".join(p.read_text() for p in journals)
    assert texts.count("Checked [[Grafana]] again") == 1 and "Grafna" not in texts
    context = call(app, "context", {}).structured_content["markdown"]
    assert "Grafna Dashbord" in context  # the pending bullet is shown, with its reason


def test_context_resource_and_why(logseq_vault: Path) -> None:
    app = server(logseq_vault, "claude")

    async def body(client: Client) -> Any:
        return await client.read_resource("journal://context")

    resource = with_client(app, body)
    assert resource.contents[0].text.startswith("#")
    why = call(app, "why", {"topic": "Atlas Migration"}).structured_content
    assert why["topic"] == "Atlas Migration" and "decisions" in why


def test_pages_search_and_lint_suggestions(logseq_vault: Path) -> None:
    app = server(logseq_vault, "claude")
    found = call(app, "pages", {"search": "atlas"}).structured_content["pages"]
    assert [p["title"] for p in found][:1] == ["Atlas Migration"]
    listed = call(app, "pages", {"limit": 3}).structured_content["pages"]
    every = api.pages(vault=logseq_vault).pages
    assert [p["title"] for p in listed] == [p.title for p in every][:3] and len(every) > 3
    assert len(call(app, "pages", {}).structured_content["pages"]) == min(20, len(every))
    problems = call(app, "lint", {"bullets": ["see [[Atlas Migratoin]]"]})
    (problem,) = problems.structured_content["problems"]
    assert problem["kind"] == "unknown-page" and "Atlas Migration" in problem["suggestions"]


def test_queries(logseq_vault: Path) -> None:
    app = server(logseq_vault, "claude")
    status = call(app, "status", {"topic": "Atlas Migration"}).structured_content
    assert status["topic"] == "Atlas Migration" and status["status"] in ("active", "stale")
    timeline = call(app, "timeline", {"topic": "Atlas Migration", "limit": 2})
    assert len(timeline.structured_content["entries"]) == 2
    stale = call(app, "topics", {"only": "stale"}).structured_content["topics"]
    assert stale and {t["status"] for t in stale} == {"stale"}


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("status", {"topic": "No Such Topic"}, "not a page"),
        ("status", {}, "topic"),
        ("note", {"bullets": "not a list"}, "bullets"),
        ("note", {"bullets": ["x"], "kind": "urgent"}, "kind"),
        ("stale", {"days": 0}, "window"),
        ("timeline", {"topic": "Atlas Migration", "limit": -3}, "limit must be"),
        ("pages", {"limit": 0}, "limit must be"),
        ("pages", {"search": "Atlas", "limit": -1}, "limit must be"),
        ("nonsense", {}, "Unknown tool"),
    ],
)
def test_bad_arguments_are_tool_errors(
    logseq_vault: Path, tool: str, arguments: dict[str, Any], message: str
) -> None:
    before = snapshot(logseq_vault)
    result = call(server(logseq_vault, "claude"), tool, arguments)
    assert result.is_error and message in result.content[0].text
    assert snapshot(logseq_vault) == before


def test_over_stdio_against_the_installed_command(logseq_vault: Path, tmp_path: Path) -> None:
    command = Path(sys.executable).parent / "journal-agent"
    params = StdioServerParameters(
        command=str(command),
        args=["mcp", "--vault", str(logseq_vault), "--agent", "codex"],
        env={**os.environ, "JOURNAL_AGENT_CACHE": str(tmp_path / "cache")},
    )

    async def body(client: Client) -> Any:
        names = {t.name for t in (await client.list_tools()).tools}
        done = await client.call_tool("note", {"bullets": ["Over stdio about [[Grafana]]"]})
        return names, done

    names, done = with_client(params, body)
    assert names == READ_ONLY | WRITES
    assert not done.is_error
    (bullet,) = done.structured_content["bullets"]
    assert bullet["state"] == "written"
    texts = "".join(p.read_text() for p in (logseq_vault / "journals").iterdir())
    assert "- codex log" in texts and "Over stdio about [[Grafana]]" in texts


def test_a_missing_extra_is_one_line(logseq_vault: Path) -> None:
    code = (
        "import sys; sys.modules['mcp'] = None; from journal_agent.cli import main; "
        f"sys.exit(main(['mcp', '--vault', {str(logseq_vault)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "journal-agent: the MCP server needs the mcp extra: pip install 'journal-agent[mcp]'"
    )


def test_no_other_command_imports_the_sdk(logseq_vault: Path) -> None:
    code = (
        "import sys; from journal_agent.cli import main; "
        f"main(['stale', '--vault', {str(logseq_vault)!r}, '--json']); "
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('mcp', 'mcp_types'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import json; " + code], capture_output=True, text=True, timeout=60
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


# ---------------------------------------------------------------------------------------------
# the stdio transport, line by line: every request is answered, as JSON-RPC 2.0 says

HANDSHAKE: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def ping(rid: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "ping"}


def raw_stdio(vault: Path, *lines: str | dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The installed server fed the handshake and ``lines``, its stdin closed straight after:
    every message it wrote on stdout after the handshake's reply, and its stderr."""
    command = Path(sys.executable).parent / "journal-agent"
    sent = [line if isinstance(line, str) else json.dumps(line) for line in [*HANDSHAKE, *lines]]
    done = subprocess.run(
        [str(command), "mcp", "--vault", str(vault), "--agent", "codex"],
        input="\n".join(sent) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    messages = [json.loads(line) for line in done.stdout.splitlines()]  # nothing but JSON-RPC
    assert messages[0]["id"] == 0 and "result" in messages[0]
    return messages[1:], done.stderr


def refusal(rid: Any, code: int) -> dict[str, Any]:
    """The parts of an error reply a test can know (its message is checked apart)."""
    return {"jsonrpc": "2.0", "id": rid, "code": code}


def refusals(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"jsonrpc": m["jsonrpc"], "id": m["id"], "code": m["error"]["code"]}
        for m in messages
        if "error" in m
    ]


def test_stdio_answers_a_line_that_is_not_json_and_serves_on(logseq_vault: Path) -> None:
    messages, _ = raw_stdio(logseq_vault, "{bad", "", "   ", ping(1))
    assert refusals(messages) == [refusal(None, -32700)]  # blank lines are skipped, unanswered
    assert messages[0]["error"]["message"].startswith("Parse error: the line is not JSON")
    assert messages[1:] == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


def test_stdio_refuses_a_batch(logseq_vault: Path) -> None:
    messages, _ = raw_stdio(logseq_vault, f"[{json.dumps(ping(2))}]", "[]", ping(3))
    assert refusals(messages) == [refusal(None, -32600)] * 2
    assert "batch" in messages[0]["error"]["message"]
    assert [m["id"] for m in messages if "result" in m] == [3]  # nothing in the batch was run


def test_stdio_answers_wrong_params_and_ids_with_the_request_id(logseq_vault: Path) -> None:
    before = snapshot(logseq_vault)
    note = {"name": "note", "arguments": {"bullets": ["About [[Grafana]]"]}}
    messages, _ = raw_stdio(
        logseq_vault,
        {**ping(2), "params": 5},
        {"jsonrpc": "2.0", "id": "list", "method": "tools/call", "params": list(note.values())},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": "note"},
        {**ping(5), "jsonrpc": "1.0"},
        {"jsonrpc": "2.0", "id": 6, "method": 7},
        ping(True),  # no usable id: answered with a null one (not taken for a notification)
        ping(None),
        ping(8),
    )
    assert refusals(messages) == [
        refusal(2, -32600),
        refusal("list", -32602),
        refusal(4, -32600),
        refusal(5, -32600),
        refusal(6, -32600),
        refusal(None, -32600),
        refusal(None, -32600),
    ]
    reasons = [m["error"]["message"] for m in messages if "error" in m]
    assert reasons[:3] == [
        'Invalid Request: "params" must be an object',
        'Invalid params: "params" must be an object, not a list',
        'Invalid Request: "params" must be an object',
    ]
    assert '"jsonrpc"' in reasons[3] and '"method"' in reasons[4] and '"id"' in reasons[5]
    assert messages[-1] == {"jsonrpc": "2.0", "id": 8, "result": {}}
    assert snapshot(logseq_vault) == before  # the call with a list of params did not run


def test_stdio_never_answers_a_notification(logseq_vault: Path) -> None:
    messages, stderr = raw_stdio(
        logseq_vault,
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": 5},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": ["x"]},
        ping(9),
    )
    assert messages == [{"jsonrpc": "2.0", "id": 9, "result": {}}]
    assert stderr.count("ignored a notification that is not valid JSON-RPC") == 2


def test_stdio_replies_to_a_request_still_running_when_stdin_closes(logseq_vault: Path) -> None:
    """A client that writes a note and closes stdin at once: the bullet was written, and the
    reply saying so must reach it too (the SDK cancelled the request at the end of stdin)."""
    arguments = {"bullets": ["Closed at once about [[Grafana]]"]}
    call = {"name": "note", "arguments": arguments}
    messages, _ = raw_stdio(
        logseq_vault, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
    )
    (reply,) = messages
    assert reply["id"] == 1 and reply["result"]["isError"] is False
    (bullet,) = reply["result"]["structuredContent"]["bullets"]
    assert bullet["state"] == "written"
    texts = "".join(p.read_text() for p in (logseq_vault / "journals").iterdir())
    assert texts.count("Closed at once about [[Grafana]]") == 1


def serve_lines(
    app: Any,
    lines: list[dict[str, Any]],
    patience: float,
    handshake: list[dict[str, Any]] = HANDSHAKE,
) -> tuple[list[dict[str, Any]], float]:
    """``app`` served in process on the handshake and ``lines`` (then the end of stdin): what
    it wrote after the handshake's reply (if any), and how long it took."""
    from journal_agent.mcp_stdio import serve

    stdin = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in [*handshake, *lines]))
    stdout = io.StringIO()
    start = time.monotonic()
    anyio.run(functools.partial(serve, app, stdin, anyio.wrap_file(stdout), patience))
    took = time.monotonic() - start
    messages = [json.loads(line) for line in stdout.getvalue().splitlines()]
    return messages[1:] if handshake else messages, took


def with_slow_tool(vault: Path) -> Any:
    app = server(vault, "claude")

    @app.tool()
    def slow(seconds: float) -> str:
        time.sleep(seconds)
        return "done"

    return app


def slow_call(rid: Any, seconds: float) -> dict[str, Any]:
    call = {"name": "slow", "arguments": {"seconds": seconds}}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": call}


def test_stdio_waits_for_a_running_request_no_longer_than_its_patience(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = with_slow_tool(logseq_vault)
    messages, _ = serve_lines(app, [slow_call(1, 0.3), slow_call(2, 0.3)], patience=30)
    assert sorted(m["id"] for m in messages) == [1, 2]
    assert capsys.readouterr().err == ""
    messages, _ = serve_lines(app, [slow_call(3, 1.0)], patience=0.1)
    assert messages == []
    assert capsys.readouterr().err == (
        "journal-agent: stdin closed with 1 request still running; "
        "gave up waiting for its reply after 0.1 s\n"
    )


def test_stdio_does_not_wait_for_a_request_the_client_cancelled(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "4"}}
    messages, took = serve_lines(with_slow_tool(logseq_vault), [slow_call(4, 0.5), cancel], 20)
    assert messages == [] and took < 10  # never answered (the SDK's rule), so not waited for
    assert capsys.readouterr().err == ""


def test_stdio_does_not_wait_for_a_listen_stream(
    logseq_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 2026-07-28 listen is answered by notifications until the client leaves: at the end of
    stdin there is no reply to wait for."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"notifications": {"toolsListChanged": True}, "_meta": meta}
    listen = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params}
    ping_ = {**ping(2), "params": {"_meta": meta}}
    _, took = serve_lines(server(logseq_vault, "claude"), [listen, ping_], 20, handshake=[])
    assert took < 10 and capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("line", "rid", "code"),
    [
        ('{"jsonrpc":"2.0","id":1.0,"method":"ping"}', 1, -32600),  # 1.0 is 1 to the client
        ('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', None, -32600),
        ('{"jsonrpc":"2.0","id":{},"method":"ping"}', None, -32600),
        ('{"jsonrpc":"2.0","id":"s","method":"ping","params":{"a":"\\ud800"}}', "s", -32700),
        ('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":NaN}} x', None, -32700),
        ("[" * 100_000, None, -32700),
        ("5", None, -32600),
        ("{}", None, -32600),
    ],
)
def test_triage_refusals(line: str, rid: Any, code: int) -> None:
    from journal_agent.mcp_stdio import triage

    verdict = triage(line.encode() + b"\n")
    assert verdict.reply is not None and verdict.text is None
    assert (verdict.reply.id, verdict.reply.error.code) == (rid, code)


def test_triage_passes_valid_lines_on_unchanged_and_answers_no_response() -> None:
    from journal_agent.mcp_stdio import triage

    line = '{"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": {"cursor": null}}\r\n'
    assert triage(line.encode()).text == line
    bad_response = triage(b'{"jsonrpc":"2.0","id":4,"result":5}\n')
    assert bad_response.reply is None and "ignored a response (id 4)" in str(bad_response.note)
    assert triage(b"\n") == triage(b" \t\r\n") == triage(b"")
