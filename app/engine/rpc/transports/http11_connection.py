"""One HTTP/1.1 keep-alive connection of the lean client, its response, and the client's errors.

The connection writes a request's bytes and reads the response head and body over asyncio streams,
with the framing rules of `http_framing` and the bounds of `limits`; whether it can carry another
request is decided here. A server that breaks a rule or a limit fails the exchange at once,
saying which.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Literal

from app.engine.rpc.transports.http_framing import (
    BodyKind,
    ContentDecoder,
    FramingError,
    body_framing,
    chunk_size,
    content_decoder,
    parse_header_line,
    parse_status_line,
)
from app.engine.safety.limits import Limits

KEEPALIVE_EXPIRY_S = 4.0
"""Idle connections older than this are closed, not reused: servers commonly close theirs after
5 s (uvicorn), and reusing one just as it closes costs a failed request."""
READ_CHUNK = 65536
"""Bytes read at a time; also the longest status, header, chunk-size or trailer line accepted."""


class HttpError(Exception):
    """An exchange failed below HTTP semantics: connecting, writing, reading or framing."""


class ConnectError(HttpError):
    """No connection could be opened (refused, unreachable, name or TLS failure)."""


class ConnectTimeout(HttpError):
    """Opening a connection took longer than the connect timeout."""


class WriteError(HttpError):
    """The request could not be written."""


class WriteTimeout(HttpError):
    """Writing the request took longer than the write timeout."""


class ReadError(HttpError):
    """The connection failed while the response was read."""


class RemoteProtocolError(HttpError):
    """The server broke HTTP/1.1 framing or closed the connection mid-response."""


class LocalProtocolError(HttpError):
    """The request itself cannot be sent (an illegal header name or value)."""


class PoolClosed(HttpError):
    """The client was closed while the request waited or ran."""


class Http11Response:
    """The head of a response, and its body read once: whole (`aread`) or as it arrives, both
    decoded from gzip or deflate when the server compressed it."""

    __slots__ = ("_connection", "headers", "reason_phrase", "status_code")

    def __init__(
        self, connection: Http11Connection, status_code: int, reason: str, headers: dict[str, str]
    ) -> None:
        self.status_code = status_code
        self.reason_phrase = reason
        self.headers: Mapping[str, str] = headers
        self._connection = connection

    async def aread(self) -> bytes:
        """The whole body, at most `Limits.body_bytes` of it (after decoding); more fails."""
        connection = self._connection
        limit = connection.limits.body_bytes
        if connection.body == "length":
            if connection.remaining > limit:
                raise RemoteProtocolError(
                    f"the response declares a body of {connection.remaining:,} bytes "
                    f"(Content-Length), over the {limit:,}-byte limit"
                )
            if connection.decoder is None:
                return await connection.read_exactly_rest()
        parts = []
        size = 0
        async for piece in self.aiter_bytes():
            size += len(piece)
            if size > limit:
                decoded = " decoded" if connection.decoder is not None else ""
                raise RemoteProtocolError(
                    f"the response body is over the {limit:,}-byte limit "
                    f"({size:,}{decoded} bytes read when it was stopped)"
                )
            parts.append(piece)
        return b"".join(parts)

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """Body bytes as they arrive (chunked, Content-Length or close-delimited framing),
        decoded in bounded pieces when the body is compressed."""
        connection = self._connection
        decoder = connection.decoder
        try:
            while chunk := await connection.body_chunk():
                if decoder is None:
                    yield chunk
                else:
                    for piece in decoder.decode(chunk):
                        yield piece
            if decoder is not None:
                decoder.finish()
        except FramingError as exc:
            raise RemoteProtocolError(str(exc)) from None


class Http11Connection:
    """One keep-alive HTTP/1.1 connection: an asyncio stream pair and where its response is."""

    __slots__ = (
        "body",
        "decoder",
        "detached",
        "idle_since",
        "keep_alive",
        "limits",
        "reader",
        "received",
        "remaining",
        "reused",
        "timer",
        "writer",
    )

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limits: Limits
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.limits = limits
        self.reused = False
        self.received = False
        self.idle_since = 0.0
        self.detached = False
        self.timer: asyncio.TimerHandle | None = None
        self.body: BodyKind | Literal["done"] = "done"
        self.remaining = 0
        self.keep_alive = False
        self.decoder: ContentDecoder | None = None

    def alive(self, now: float) -> bool:
        """Whether an idle connection may carry another request (not expired, not closed)."""
        return (
            now - self.idle_since < KEEPALIVE_EXPIRY_S
            and not self.writer.transport.is_closing()
            and not self.reader.at_eof()
            and self.reader.exception() is None
        )

    async def send(self, request: bytes, write_timeout: float) -> None:
        """Write one request; raises `NotSent` when the connection was closed before a byte."""
        self.received = False
        transport = self.writer.transport
        if transport.is_closing() or self.reader.at_eof():
            raise NotSent
        self.writer.write(request)
        if transport.get_write_buffer_size():
            try:
                async with asyncio.timeout(write_timeout):
                    await self.writer.drain()
            except TimeoutError:
                raise WriteTimeout(f"writing the request took over {write_timeout:g} s") from None
            except OSError as exc:
                raise WriteError(str(exc) or type(exc).__name__) from exc

    async def read_head(self, method: str) -> tuple[int, str, dict[str, str]]:
        """Status, reason and headers (lower-case names, repeats joined once by ", "), within
        `Limits`; interim 1xx heads are skipped, but 101 (an upgrade nobody asked for) fails."""
        reader = self.reader
        limits = self.limits
        head_left, fields_left = limits.head_bytes, limits.header_fields
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    if exc.partial:
                        self.received = True
                        raise RemoteProtocolError(
                            "the server closed the connection mid-head"
                        ) from None
                    raise RemoteProtocolError(
                        "Server disconnected without sending a response."
                    ) from None
                self.received = True
                head_left -= len(line)
                if head_left < 0:  # interim 1xx heads without fields add up here
                    raise FramingError(_head_over_limit(limits, head_left, "response head"))
                minor, status, reason = parse_status_line(line)
                headers: dict[str, str] = {}
                repeated: dict[str, list[str]] | None = None
                while (line := await reader.readuntil(b"\n")) not in (b"\r\n", b"\n"):
                    head_left -= len(line)
                    fields_left -= 1
                    if head_left < 0 or fields_left < 0:
                        raise FramingError(_head_over_limit(limits, head_left, "response head"))
                    name, value = parse_header_line(line)
                    if name not in headers:
                        headers[name] = value
                    elif repeated is None:
                        repeated = {name: [headers[name], value]}
                    elif name in repeated:
                        repeated[name].append(value)
                    else:
                        repeated[name] = [headers[name], value]
                head_left -= len(line)  # the blank line
                if repeated is not None:
                    for name, values in repeated.items():
                        headers[name] = ", ".join(values)
                if status >= 200:
                    break
                if status == 101:
                    raise FramingError(
                        "the server switched protocols (101 Switching Protocols) "
                        "although taskscope asked for no upgrade"
                    )
            self.body, self.remaining, self.keep_alive = body_framing(
                minor, status, method, headers
            )
            encoding = headers.get("content-encoding")  # a reused connection: set anew each time
            self.decoder = (
                content_decoder(encoding) if encoding is not None and self.body != "none" else None
            )
        except asyncio.IncompleteReadError:
            raise RemoteProtocolError("the server closed the connection mid-head") from None
        except asyncio.LimitOverrunError:
            raise RemoteProtocolError(
                f"a line of the response head is longer than {READ_CHUNK:,} bytes"
            ) from None
        except FramingError as exc:
            raise RemoteProtocolError(str(exc)) from None
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc
        if self.body == "none":
            self.body = "done"
        return status, reason, headers

    async def read_exactly_rest(self) -> bytes:
        """The rest of a Content-Length body in one read."""
        try:
            data = await self.reader.readexactly(self.remaining)
        except asyncio.IncompleteReadError:
            raise RemoteProtocolError("the server closed the connection mid-response") from None
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc
        self.remaining = 0
        self.body = "done"
        return data

    async def body_chunk(self) -> bytes:
        """The next piece of the body as it arrives (undecoded); b"" once the body is complete."""
        try:
            return await self._body_chunk()
        except asyncio.IncompleteReadError:
            raise RemoteProtocolError("the server closed the connection mid-response") from None
        except asyncio.LimitOverrunError:
            raise RemoteProtocolError(
                f"a chunk-size or trailer line is longer than {READ_CHUNK:,} bytes"
            ) from None
        except FramingError as exc:
            raise RemoteProtocolError(str(exc)) from None
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc

    async def _body_chunk(self) -> bytes:
        reader = self.reader
        if self.body == "chunked" and self.remaining == 0:
            size = chunk_size(await reader.readuntil(b"\n"))
            if size == 0:
                await self._skip_trailers()
                self.body = "done"
                return b""
            self.remaining = size
        if self.body in ("length", "chunked"):
            data = await reader.read(min(self.remaining, READ_CHUNK))
            if not data:
                raise RemoteProtocolError("the server closed the connection mid-response")
            self.remaining -= len(data)
            if self.remaining == 0:
                if self.body == "length":
                    self.body = "done"
                elif await reader.readuntil(b"\n") not in (b"\r\n", b"\n"):
                    raise FramingError("a chunk is longer than its size")
            return data
        if self.body == "close":
            data = await reader.read(READ_CHUNK)
            if not data:
                self.body = "done"
            return data
        return b""

    async def _skip_trailers(self) -> None:
        """Read past the trailer fields of a chunked body (unused), within the head's limits."""
        limits = self.limits
        head_left, fields_left = limits.head_bytes, limits.header_fields
        while (line := await self.reader.readuntil(b"\n")) not in (b"\r\n", b"\n"):
            head_left -= len(line)
            fields_left -= 1
            if head_left < 0 or fields_left < 0:
                raise FramingError(_head_over_limit(limits, head_left, "trailer section"))

    def reusable(self) -> bool:
        """After the response: whether the connection may carry the next request."""
        return self.body == "done" and self.keep_alive

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.writer.close()


class NotSent(Exception):
    """The connection was found closed before any byte of the request was written."""


def _head_over_limit(limits: Limits, bytes_left: int, what: str) -> str:
    """Which limit a head (or trailer section) went over, for the error."""
    if bytes_left < 0:
        seen = limits.head_bytes - bytes_left
        return f"the {what} is over the {limits.head_bytes:,}-byte limit ({seen:,} bytes read)"
    return f"the {what} has more than {limits.header_fields:,} header fields, the limit"
