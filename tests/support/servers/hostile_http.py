"""A raw asyncio HTTP/1.1 server on 127.0.0.1 for the hostile-HTTP tests: each test scripts the
bytes it answers with, so framing a real server would never produce (9,000 repeated headers, a
5,000-digit Content-Length, `101 Switching Protocols`, a zip bomb) reaches the client as written.

`async with RawHttpServer(responder) as server:` listens on a free port; `responder(request,
writer)` answers one request and returns whether the connection stays open. `server.requests`
keeps what arrived, in order. Leaving the block closes the listener and every connection.
`handshake_answer` answers the legacy MCP handshake, so a test scripts only the exchange at issue.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

MAX_REQUEST_BODY = 1024 * 1024
"""The largest request body the server reads (the client's requests are small JSON)."""


@dataclass
class RawRequest:
    """One request as it arrived: its line, lower-case headers and body."""

    line: str
    headers: dict[str, str]
    body: bytes

    @property
    def message(self) -> dict[str, Any] | None:
        """The JSON-RPC message of a POST, else None."""
        if not self.line.startswith("POST ") or not self.body:
            return None
        value = json.loads(self.body)
        return value if isinstance(value, dict) else None

    @property
    def rpc_method(self) -> str | None:
        message = self.message
        return None if message is None else message.get("method")


Responder = Callable[[RawRequest, asyncio.StreamWriter], Awaitable[bool]]


@dataclass
class RawHttpServer:
    """A scripted HTTP/1.1 server on 127.0.0.1 (see the module docstring)."""

    responder: Responder
    requests: list[RawRequest] = field(default_factory=list)
    url: str = ""
    port: int = 0
    _listener: asyncio.Server | None = None
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)

    async def __aenter__(self) -> RawHttpServer:
        self._listener = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._listener.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._listener is not None
        self._listener.close()
        for writer in list(self._writers):
            writer.close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await self._listener.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while (request := await read_request(reader)) is not None:
                self.requests.append(request)
                if not await self.responder(request, writer):
                    break
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client gave up on us, which is what most tests expect
        finally:
            self._writers.discard(writer)
            writer.close()


async def read_request(reader: asyncio.StreamReader) -> RawRequest | None:
    """The next request on a connection, or None when the client closed it."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    line, *lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for entry in filter(None, lines):
        name, _, value = entry.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = min(int(headers.get("content-length", "0")), MAX_REQUEST_BODY)
    return RawRequest(line, headers, await reader.readexactly(length))


def response(
    body: bytes, *, status: str = "200 OK", headers: Iterable[str] = (), length: bool = True
) -> bytes:
    """A response's bytes; `length=False` leaves the framing to `headers`."""
    head = [f"HTTP/1.1 {status}", *headers]
    if length:
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def json_response(value: Any, *, status: str = "200 OK", headers: Iterable[str] = ()) -> bytes:
    """A JSON answer."""
    body = json.dumps(value).encode()
    return response(body, status=status, headers=["Content-Type: application/json", *headers])


def result(request: RawRequest, value: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC result answering `request`."""
    message = request.message
    assert message is not None
    return {"jsonrpc": "2.0", "id": message["id"], "result": value}


INITIALIZE_RESULT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tasks": {"list": {}}},
    "serverInfo": {"name": "raw-hostile", "version": "1.0"},
}


def handshake_answer(request: RawRequest) -> bytes | None:
    """The answer of a plain legacy server to the handshake (initialize, notifications and the
    standalone GET, refused with 405); None for anything else, which the test scripts."""
    if request.line.startswith("GET "):
        return response(b"no standalone stream", status="405 Method Not Allowed")
    method = request.rpc_method
    if method == "initialize":
        return json_response(result(request, INITIALIZE_RESULT))
    if method is not None and method.startswith("notifications/"):
        return response(b"", status="202 Accepted")
    return None
