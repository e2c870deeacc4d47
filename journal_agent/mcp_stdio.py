"""The MCP server on stdin/stdout: the SDK's stdio transport, with every line answered.

The SDK's own reader drops a line it cannot parse or validate without a word (the client waits
forever for its reply). This reader sits in front of it: a valid message goes on to the SDK as it
came; a malformed one is answered here as JSON-RPC 2.0 says (a parse error, or an invalid request
carrying the request's own id when it has a usable one); a notification or a response is never
answered, only reported on stderr; a blank line is skipped, as the SDK skips it. At the end of
stdin it holds the SDK's input open until each request passed on has its reply (`PATIENCE` seconds
at most): the SDK would cancel them, and a client that sends a request and closes stdin at once
would never see the reply of work that was done. The SDK still writes stdout (its writer, and its
diversion of fd 1 to stderr while serving), so stdout carries only JSON-RPC messages, one a line.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Protocol, cast

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from .errors import short

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from mcp.server.mcpserver import MCPServer

#: How long the requests still running when stdin ends may take to send their replies.
PATIENCE = 10.0
CANCELLED = "notifications/cancelled"
#: Requests answered by a stream of notifications that ends only when the client leaves (the
#: 2026-07-28 listen): nothing to wait for at the end of stdin.
ENDLESS = frozenset({"subscriptions/listen"})


@dataclass(frozen=True)
class Verdict:
    """What one line of stdin comes to: a message for the SDK (with its text, passed on as it
    came), a reply of ours, and/or a note for stderr; none of them for a blank line."""

    text: str | None = None
    message: JSONRPCMessage | None = None
    reply: JSONRPCError | None = None
    note: str | None = None


def triage(raw: bytes) -> Verdict:
    """Judge one line of stdin the way JSON-RPC 2.0 asks."""
    text = raw.decode("utf-8", errors="replace")  # as the SDK reads stdin
    if not text.strip():
        return Verdict()  # the SDK skips a blank line too (it never answers one)
    try:
        # exactly the SDK's own reading, so what it accepts goes on unchanged
        message = jsonrpc_message_adapter.validate_json(text, by_name=False)
    except (ValueError, RecursionError) as exc:
        return _refusal(text, exc)
    if isinstance(message, JSONRPCNotification) and _has_id(text):
        # the notification model ignores unknown keys: a request whose id is unusable (null,
        # true, 1.5) passes for one, and would never be answered
        return _refusal(text, None)
    return Verdict(text=text, message=message)


def _has_id(text: str) -> bool:
    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(decoded, dict) and "id" in decoded


def _refusal(text: str, exc: Exception | None) -> Verdict:
    """The answer to a line the SDK would drop (or take for a notification)."""
    try:
        decoded = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        return _reply(None, PARSE_ERROR, "the JSON is nested too deeply")
    except ValueError as error:
        return _reply(None, PARSE_ERROR, f"the line is not JSON ({_why(error)})")
    if isinstance(decoded, list):
        # MCP has had no batches since 2025-06-18; the SDK's HTTP transport refuses them so too
        return _reply(
            None,
            INVALID_REQUEST,
            "a batch (a JSON array) is not accepted: send one JSON-RPC message per line",
        )
    if not isinstance(decoded, dict):
        return _reply(None, INVALID_REQUEST, "a JSON-RPC message is a JSON object")
    code, why = _fault(decoded, exc)
    if "id" not in decoded and "method" in decoded:
        return Verdict(note=f"ignored a notification that is not valid JSON-RPC: {why}")
    if "method" not in decoded and ("result" in decoded or "error" in decoded):
        # never answer a response: two peers refusing each other's errors would never stop
        rid = short(json.dumps(decoded.get("id")))
        return Verdict(note=f"ignored a response (id {rid}) that is not valid JSON-RPC")
    return _reply(request_id(decoded.get("id")), code, why)


def _fault(message: dict[str, Any], exc: Exception | None) -> tuple[int, str]:
    """The error code, and what makes ``message`` no valid MCP request, in words."""
    params = message.get("params")
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, '"jsonrpc" must be "2.0"'
    if not isinstance(message.get("method"), str):
        return INVALID_REQUEST, '"method" must be a string'
    if "id" in message and as_request_id(message["id"]) is None:
        return INVALID_REQUEST, '"id" must be a string or an integer'
    if isinstance(params, list):
        # JSON-RPC allows parameters by position; every MCP method takes them by name
        return INVALID_PARAMS, '"params" must be an object, not a list'
    if params is not None and not isinstance(params, dict):
        return INVALID_REQUEST, '"params" must be an object'
    if isinstance(exc, ValidationError):
        for error in exc.errors():
            if error["type"] == "json_invalid":  # JSON that Python reads but the SDK does not
                return PARSE_ERROR, f"the line is not JSON ({short(error['msg'], 100)})"
    return INVALID_REQUEST, "not a JSON-RPC request"


def request_id(value: object) -> RequestId | None:
    """The id to echo: a string or an integer (MCP's ids; 2.0 stands for 2, so the client can
    match the refusal of such an id), else none (null)."""
    if isinstance(value, bool):
        return None  # True is an int to Python, not an id
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value if isinstance(value, str | int) else None


_LABELS = {
    PARSE_ERROR: "Parse error",
    INVALID_REQUEST: "Invalid Request",
    INVALID_PARAMS: "Invalid params",
}


def _reply(rid: RequestId | None, code: int, why: str) -> Verdict:
    error = ErrorData(code=code, message=f"{_LABELS[code]}: {why}")
    return Verdict(reply=JSONRPCError(jsonrpc="2.0", id=rid, error=error))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _why(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return short(str(exc), 100)


class _Sink(Protocol):
    """The SDK's write stream, as we use it."""

    async def send(self, item: SessionMessage, /) -> None: ...
    async def aclose(self) -> None: ...


class _Relay:
    """Reads stdin for the SDK: passes the valid lines on, answers the others, and at the end of
    stdin holds the SDK's input open until every request passed on has its reply."""

    def __init__(self, stdin: IO[bytes], patience: float) -> None:
        self._stdin = stdin
        self._patience = patience
        self._out: _Sink | None = None  # the SDK's write stream, once it exists
        self._ready = anyio.Event()
        self._running: Counter[RequestId] = Counter()  # a client may reuse an id
        self._settled = anyio.Event()

    def connect(self, out: _Sink) -> None:
        """Send our replies where the SDK sends its own (one writer: no torn lines)."""
        self._out = out
        self._ready.set()

    async def lines(self) -> AsyncIterator[str]:
        """The lines the SDK is to read, as they came."""
        async for raw in anyio.wrap_file(self._stdin):
            verdict = triage(raw)
            if verdict.note is not None:
                _say(verdict.note)
            if verdict.reply is not None:
                await self._ready.wait()
                assert self._out is not None
                await self._out.send(SessionMessage(verdict.reply))
            if verdict.message is not None and verdict.text is not None:
                self._started(verdict.message)
                yield verdict.text
        # The SDK cancels what is still running when its input ends, and the replies are lost
        # though the work is done (a bullet written): a client may send and close at once.
        await self._drain()

    def _started(self, message: JSONRPCMessage) -> None:
        if isinstance(message, JSONRPCRequest) and message.method not in ENDLESS:
            self._running[coerce_request_id(message.id)] += 1
        elif isinstance(message, JSONRPCNotification) and message.method == CANCELLED:
            rid = cancelled_request_id_from_params(message.params)
            if rid is not None:
                self.settle(rid)  # the SDK never answers a request the client cancelled

    def settle(self, rid: RequestId) -> None:
        """The SDK has sent its reply to the request ``rid``."""
        key = coerce_request_id(rid)  # as the SDK matches a cancellation to its request
        if self._running[key] > 1:
            self._running[key] -= 1
        else:
            self._running.pop(key, None)
        self._settled.set()

    async def _drain(self) -> None:
        with anyio.move_on_after(self._patience):
            while self._running:
                self._settled = anyio.Event()
                await self._settled.wait()
        if left := self._running.total():
            _say(
                f"stdin closed with {left} request{'s' if left > 1 else ''} still running; "
                f"gave up waiting for {'their replies' if left > 1 else 'its reply'} after "
                f"{self._patience:g} s"
            )


class _Outbox:
    """The SDK's write stream, telling the relay of each reply the SDK sends."""

    def __init__(self, inner: _Sink, relay: _Relay) -> None:
        self._inner = inner
        self._relay = relay

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)  # taken by the writer, which writes it before it ends
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            self._relay.settle(message.id)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Outbox:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _say(note: str) -> None:
    print(f"journal-agent: {note}", file=sys.stderr, flush=True)


async def serve(
    app: MCPServer,
    stdin: IO[bytes] | None = None,
    stdout: anyio.AsyncFile[str] | None = None,
    patience: float = PATIENCE,
) -> None:
    """Serve ``app`` on stdin/stdout (or the given streams) until stdin ends and the requests
    still running have their replies (``patience`` seconds at most)."""
    relay = _Relay(stdin if stdin is not None else sys.stdin.buffer, patience)
    # `stdio_server` only iterates the lines it is given; with stdout left to it, it claims fd 1
    lines = cast("anyio.AsyncFile[str]", relay.lines())
    async with stdio_server(stdin=lines, stdout=stdout) as (read_stream, write_stream):
        relay.connect(write_stream)
        lowlevel = app._lowlevel_server  # as MCPServer.run_stdio_async (and the SDK's Client) do
        init = lowlevel.create_initialization_options()
        await lowlevel.run(read_stream, _Outbox(write_stream, relay), init)
