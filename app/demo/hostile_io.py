"""The hostile server's transports, hand-written so they can send what no library would.

stdio: one frame per line on stdout. HTTP: a bare HTTP/1.1 server on asyncio streams; a request's
answer is a JSON body, or an SSE stream when other frames travel before it (questions, garbage);
a frame may also become silence, a socket closed mid-answer, a killed process, or (stdio) an exit
that leaves a child holding the pipes open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from app.demo.hostile_core import HostileServer
from app.demo.hostile_frames import Outgoing

ServerFactory = Callable[[Callable[[Outgoing], None]], HostileServer]

ORPHAN_SECONDS = 120
"""How long the child left behind by the `orphan` action lives if nobody ends it."""
ORPHAN_EXIT_CODE = 3

REASONS = {200: "OK", 202: "Accepted", 400: "Bad Request", 404: "Not Found"}
REASONS.update({405: "Method Not Allowed", 429: "Too Many Requests", 503: "Service Unavailable"})


def die() -> None:
    """Kill this process at once, as a crash or an OOM killer would."""
    os.kill(os.getpid(), signal.SIGKILL)


def die_leaving_an_orphan() -> None:
    """Exit with `ORPHAN_EXIT_CODE`, leaving a sleeping child that inherited stdin, stdout and
    stderr (as a server that forked a worker does), so the pipes stay open after the exit; the
    child's pid goes to stderr first, for a test to check that it was ended."""
    child = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({ORPHAN_SECONDS})"])
    sys.stderr.write(f"orphan pid {child.pid}\n")
    sys.stderr.flush()
    os._exit(ORPHAN_EXIT_CODE)


# -- stdio -----------------------------------------------------------------------------------------


class StdioLink:
    """Frames out on stdout, one per line; `drop` closes stdout and lingers until stdin ends."""

    def __init__(self) -> None:
        self.out: Any = sys.stdout.buffer
        self.dropped = False

    def send(self, item: Outgoing) -> None:
        if self.dropped or item.action == "silence":
            return
        if item.action == "kill":
            die()
        if item.action == "orphan":
            die_leaving_an_orphan()
        if item.action == "drop":
            self.dropped = True
            self.out.flush()
            os.close(sys.stdout.fileno())  # the stream object never closes fd 1 itself
            return
        self.out.write(item.encode() + b"\n")
        self.out.flush()


def serve_stdio(factory: ServerFactory) -> None:
    """Answer newline-delimited JSON-RPC on stdin/stdout until stdin ends."""
    link = StdioLink()
    server = factory(link.send)
    for line in sys.stdin.buffer:
        if link.dropped:
            continue  # linger: the process stays alive, but nothing more is said
        try:
            message = json.loads(line)
        except ValueError:
            continue
        server.handle(message)


# -- HTTP ------------------------------------------------------------------------------------------


class HttpLink:
    """Routes the core's frames to the open POST that each belongs to."""

    def __init__(self) -> None:
        self.routes: dict[str | int, asyncio.Queue[Outgoing]] = {}

    def send(self, item: Outgoing) -> None:
        if item.action == "kill":
            die()
        queue = self.routes.get(item.route) if item.route is not None else None
        if queue is not None:
            queue.put_nowait(item)


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, dict[str, str], bytes] | None:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method = lines[0].split(" ")[0]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    body = await reader.readexactly(length) if length else b""
    return method, headers, body


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join([*lines, "Connection: close", "", ""])).encode("latin-1")


def _whole(status: int, body: bytes, headers: dict[str, str] | None = None) -> bytes:
    fields = {"Content-Type": "application/json", **(headers or {})}
    fields["Content-Length"] = str(len(body))
    return _head(status, fields) + body


class HttpServer:
    """One hostile server behind a bare HTTP/1.1 endpoint (every path is the MCP endpoint)."""

    def __init__(self, factory: ServerFactory) -> None:
        self.link = HttpLink()
        self.server = factory(self.link.send)

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await _read_request(reader)
            if request is not None:
                await self._answer(*request, reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(
        self,
        method: str,
        headers: dict[str, str],
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        if method == "DELETE":
            writer.write(_whole(200, b""))
            return
        if method != "POST":
            writer.write(_whole(405, b"", {"Allow": "POST, DELETE"}))
            return
        try:
            message = json.loads(body)
        except ValueError:
            writer.write(_whole(400, b'{"error": "bad JSON"}'))
            return
        rpc_id = message.get("id") if isinstance(message, dict) else None
        is_request = isinstance(message, dict) and "method" in message
        if not is_request or not isinstance(rpc_id, str | int):
            self.server.handle(message)
            writer.write(_whole(202, b""))
            return
        queue: asyncio.Queue[Outgoing] = asyncio.Queue()
        self.link.routes[rpc_id] = queue
        try:
            self.server.handle(message)
            await self._stream(queue, reader, writer)
        finally:
            self.link.routes.pop(rpc_id, None)

    async def _stream(
        self,
        queue: asyncio.Queue[Outgoing],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        """Write what the core says for this request: one JSON body, or SSE events."""
        streaming = False
        while True:
            item = await queue.get()
            if item.action == "drop":
                writer.transport.abort()
                return
            if item.action == "silence":
                await reader.read()  # until the client gives up and closes the socket
                return
            if not streaming and item.final:
                writer.write(_whole(item.http_status, item.encode(), item.headers))
                return
            if not streaming:
                streaming = True
                writer.write(_head(200, {"Content-Type": "text/event-stream"}))
            writer.write(b"event: message\ndata: " + item.encode() + b"\n\n")
            await writer.drain()
            if item.final:
                return


def serve_http(factory: ServerFactory, host: str, port: int) -> None:
    """Serve until killed."""

    async def main() -> None:
        http = HttpServer(factory)
        server = await asyncio.start_server(http.connection, host, port)
        async with server:
            await server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
