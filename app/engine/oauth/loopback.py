"""The loopback redirect of a browser sign-in: a one-shot HTTP listener on 127.0.0.1.

The authorization server sends the browser to `http://127.0.0.1:PORT/callback?code=…&state=…`;
this listener reads that one request, answers the browser with a fixed page (nothing of the
request is echoed into it), and hands the parameters to the waiting flow. Requests are bounded
in size and time; anything but `GET /callback` gets a 404 and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

CALLBACK_PATH = "/callback"
MAX_REQUEST_BYTES = 16 * 1024
READ_TIMEOUT_S = 10.0
PAGE = (
    b"<!doctype html><meta charset=utf-8><title>taskscope</title>"
    b"<p>taskscope: the authorization server answered. You can close this tab.</p>"
)


class SignInDenied(Exception):
    """The authorization server redirected back with `error=` instead of a code."""


@dataclass(frozen=True, slots=True)
class Redirect:
    """The parameters the authorization server put on the redirect."""

    code: str | None
    state: str | None
    iss: str | None
    error: str | None
    error_description: str | None


class LoopbackReceiver:
    """Listens on 127.0.0.1 (an ephemeral port unless one is asked for) for the one redirect."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._redirect: asyncio.Future[Redirect] | None = None
        self.port = 0

    @property
    def redirect_uri(self) -> str:
        """Where the authorization server must send the browser back to."""
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def open(self, port: int = 0) -> None:
        """Start listening (again), on `port` when it is free, else on any free port."""
        self._redirect = asyncio.get_running_loop().create_future()
        if self._server is not None:
            return
        try:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", port)
        except OSError:
            if port == 0:
                raise
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def wait(self) -> Redirect:
        """The redirect's parameters, once the browser brought them."""
        if self._redirect is None:
            raise RuntimeError("the loopback listener is not open")
        return await asyncio.shield(self._redirect)

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(READ_TIMEOUT_S):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        if len(head) > MAX_REQUEST_BYTES:
            await _answer(writer, 431, b"")
            return
        request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        method, _, rest = request_line.partition(" ")
        target = rest.rpartition(" ")[0] or rest
        parts = urlsplit(target)
        if method != "GET" or parts.path != CALLBACK_PATH:
            await _answer(writer, 404, b"")
            return
        query = parse_qs(parts.query, keep_blank_values=True)

        def first(name: str) -> str | None:
            values = query.get(name)
            return values[0] if values else None

        redirect = Redirect(
            code=first("code"),
            state=first("state"),
            iss=first("iss"),
            error=first("error"),
            error_description=first("error_description"),
        )
        await _answer(writer, 200, PAGE)
        if self._redirect is not None and not self._redirect.done():
            self._redirect.set_result(redirect)


async def _answer(writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
    reason = {200: "OK", 404: "Not Found", 431: "Request Header Fields Too Large"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    with contextlib.suppress(OSError):
        writer.write(head.encode("ascii") + body)
        await writer.drain()
    writer.close()
