"""The lean HTTP/1.1 pool against tiny asyncio servers written in the test (framing, keep-alive,
stale connections, FIFO waiting, long streams beside short requests, cancellation), and the
transport over it against the real demo server."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.engine.rpc.connection import Connection
from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.transports import http11, http11_pool
from app.engine.rpc.transports.http11 import ConnectError, Http11Client, RemoteProtocolError
from tests.support.demo_servers import free_port, start_http_demo

pytestmark = pytest.mark.timeout(30)

Handler = Callable[["Peer"], Awaitable[None]]


@dataclass
class Peer:
    """One accepted connection, as the test server sees it."""

    number: int
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def request(self) -> tuple[str, dict[str, str], bytes] | None:
        """The next request (line, lower-case headers, body), or None at end of stream."""
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        line, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for entry in filter(None, lines):
            name, _, value = entry.partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        return line, headers, body

    def respond(self, body: bytes, *extra: str, status: str = "200 OK") -> None:
        head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", *extra]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)


@dataclass
class Server:
    """A scripted HTTP server on 127.0.0.1: `handler` runs once per accepted connection."""

    handler: Handler
    peers: list[Peer] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    url: str = ""

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = Peer(len(self.peers) + 1, reader, writer)
        self.peers.append(peer)
        try:
            await self.handler(peer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


async def serve_requests(server: Server, answer: Callable[[Peer, str, bytes], Awaitable[bool]]):  # type: ignore[no-untyped-def]
    """A handler: for each request on a connection call `answer`; False ends the connection."""

    async def handler(peer: Peer) -> None:
        while (request := await peer.request()) is not None:
            line, _headers, body = request
            server.lines.append(line)
            if not await answer(peer, line, body):
                return
            await peer.writer.drain()

    return handler


@pytest.fixture
async def make_server() -> AsyncIterator[Callable[[Handler], Awaitable[Server]]]:
    servers: list[asyncio.Server] = []

    async def start(handler: Handler) -> Server:
        server = Server(handler)
        listener = await asyncio.start_server(server._accept, "127.0.0.1", 0)
        servers.append(listener)
        port = listener.sockets[0].getsockname()[1]
        server.url = f"http://127.0.0.1:{port}/mcp"
        return server

    yield start
    for listener in servers:
        listener.close()


def client(**kwargs: int) -> Http11Client:
    return Http11Client(connect_timeout=5.0, write_timeout=5.0, **kwargs)


async def post(http: Http11Client, url: str, body: bytes = b"{}", retry: bool = False) -> bytes:
    async with http.stream("POST", url, headers={"X-Test": "1"}, body=body, retry=retry) as r:
        assert r.status_code == 200
        return await r.aread()


async def echo(peer: Peer, line: str, body: bytes) -> bool:
    peer.respond(body)
    return True


async def test_keep_alive_reuses_one_connection_for_sequential_requests(make_server) -> None:  # type: ignore[no-untyped-def]
    server = await make_server(None)
    server.handler = await serve_requests(server, echo)
    http = client()
    answers = [await post(http, server.url, f"n{i}".encode()) for i in range(5)]
    await http.aclose()
    assert answers == [b"n0", b"n1", b"n2", b"n3", b"n4"]
    assert len(server.peers) == 1
    assert server.lines[0] == "POST /mcp HTTP/1.1"


async def test_chunked_bodies_are_joined_and_connection_close_is_honoured(make_server) -> None:  # type: ignore[no-untyped-def]
    async def chunked(peer: Peer, line: str, body: bytes) -> bool:
        peer.writer.write(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        )
        for piece in (b"4\r\nab", b"cd\r\n1;ext=1\r\n", b"e\r\n0\r\n", b"\r\n"):
            peer.writer.write(piece)
            await peer.writer.drain()
            await asyncio.sleep(0.01)
        return False  # the server closes, as it said

    server = await make_server(None)
    server.handler = await serve_requests(server, chunked)
    http = client()
    assert await post(http, server.url) == b"abcde"
    assert await post(http, server.url) == b"abcde"
    await http.aclose()
    assert len(server.peers) == 2  # `Connection: close` was not reused


async def test_a_connection_closed_mid_response_is_a_remote_protocol_error(make_server) -> None:  # type: ignore[no-untyped-def]
    async def truncated(peer: Peer, line: str, body: bytes) -> bool:
        peer.writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")
        return False

    server = await make_server(None)
    server.handler = await serve_requests(server, truncated)
    http = client()
    with pytest.raises(RemoteProtocolError):
        await post(http, server.url)
    await http.aclose()


async def test_an_idle_connection_the_server_closed_is_not_used(make_server) -> None:  # type: ignore[no-untyped-def]
    async def once(peer: Peer, line: str, body: bytes) -> bool:
        peer.respond(b"ok")  # keep-alive by default, but the server closes right after
        return False

    server = await make_server(None)
    server.handler = await serve_requests(server, once)
    http = client()
    assert await post(http, server.url) == b"ok"
    await asyncio.sleep(0.1)  # the FIN reaches the idle connection
    assert await post(http, server.url, retry=False) == b"ok"
    await http.aclose()
    assert len(server.peers) == 2


async def stale_after_first(peer: Peer, line: str, body: bytes) -> bool:
    """The first request of a connection is answered; the second is dropped with the connection
    (a keep-alive timeout racing with our request)."""
    if peer.number == 1 and body == b"second":
        return False
    peer.respond(body)
    return True


async def test_a_stale_reused_connection_is_retried_once_when_the_request_allows(
    make_server,  # type: ignore[no-untyped-def]
) -> None:
    server = await make_server(None)
    server.handler = await serve_requests(server, stale_after_first)
    http = client()
    assert await post(http, server.url, b"first") == b"first"
    assert await post(http, server.url, b"second", retry=True) == b"second"
    await http.aclose()
    assert server.lines.count("POST /mcp HTTP/1.1") == 3  # sent twice, answered once
    assert len(server.peers) == 2


async def test_a_stale_reused_connection_is_not_retried_for_unsafe_requests(make_server) -> None:  # type: ignore[no-untyped-def]
    server = await make_server(None)
    server.handler = await serve_requests(server, stale_after_first)
    http = client()
    await post(http, server.url, b"first")
    with pytest.raises(RemoteProtocolError, match="without sending a response"):
        await post(http, server.url, b"second", retry=False)
    assert await post(http, server.url, b"third") == b"third"  # the pool recovers
    await http.aclose()


async def test_waiting_requests_are_served_in_fifo_order(make_server) -> None:  # type: ignore[no-untyped-def]
    release = asyncio.Event()

    async def gated(peer: Peer, line: str, body: bytes) -> bool:
        if body == b"first":
            await release.wait()
        peer.respond(body)
        return True

    server = await make_server(None)
    server.handler = await serve_requests(server, gated)
    http = client(max_connections=1)
    first = asyncio.create_task(post(http, server.url, b"first"))
    await asyncio.sleep(0.05)
    waiting = []
    for name in ("a", "b", "c", "d"):
        waiting.append(asyncio.create_task(post(http, server.url, name.encode())))
        await asyncio.sleep(0.01)
    waiting[1].cancel()  # a cancelled waiter gives its turn away
    release.set()
    await first
    assert [await waiting[i] for i in (0, 2, 3)] == [b"a", b"c", b"d"]
    await http.aclose()
    assert len(server.peers) == 1


async def test_a_long_sse_stream_does_not_starve_short_requests(
    make_server,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(http11_pool, "DETACH_AFTER_S", 0.05)
    proceed = asyncio.Event()

    async def answer(peer: Peer, line: str, body: bytes) -> bool:
        if body != b"stream":
            peer.respond(body)
            return True
        head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked"
        peer.writer.write(f"{head}\r\n\r\n".encode())
        for data in (b"data: one\n\n", b"data: two\n\n"):
            peer.writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            await peer.writer.drain()
            await proceed.wait()
        peer.writer.write(b"0\r\n\r\n")
        return True

    server = await make_server(None)
    server.handler = await serve_requests(server, answer)
    http = client(max_connections=2)
    received: list[bytes] = []

    async def stream() -> None:
        async with http.stream("POST", server.url, headers={}, body=b"stream") as response:
            async for chunk in response.aiter_bytes():
                received.append(chunk)

    streams = [asyncio.create_task(stream()) for _ in range(3)]
    await asyncio.sleep(0.2)
    assert received == [b"data: one\n\n"] * 3  # each first event arrived; the streams stay open
    short = await asyncio.gather(*(post(http, server.url, b"%d" % i) for i in range(20)))
    assert short == [b"%d" % i for i in range(20)]
    proceed.set()
    await asyncio.gather(*streams)
    assert received.count(b"data: two\n\n") == 3
    await http.aclose()


async def test_cancelling_an_exchange_closes_only_its_connection(make_server) -> None:  # type: ignore[no-untyped-def]
    hung = asyncio.Event()

    async def answer(peer: Peer, line: str, body: bytes) -> bool:
        if body == b"hang":
            hung.set()
            await asyncio.sleep(60)
        peer.respond(body)
        return True

    server = await make_server(None)
    server.handler = await serve_requests(server, answer)
    http = client(max_connections=2)
    assert await post(http, server.url, b"warm") == b"warm"
    stuck = asyncio.create_task(post(http, server.url, b"hang"))
    await hung.wait()
    assert await post(http, server.url, b"beside") == b"beside"
    stuck.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stuck
    assert await post(http, server.url, b"after") == b"after"
    assert http.open_connections == 1
    await http.aclose()


async def test_nothing_listening_is_a_connect_error() -> None:
    http = client()
    with pytest.raises(ConnectError):
        await post(http, f"http://127.0.0.1:{free_port()}/mcp")
    await http.aclose()


async def test_the_transport_polls_concurrently_within_the_pool_bound() -> None:
    with start_http_demo("extension") as (url, _):
        async with Connection(HttpTarget(url=url)) as connection:
            results = await asyncio.gather(*(connection.request("tools/list") for _ in range(200)))
            transport = connection._transport
            pool = transport._client  # type: ignore[attr-defined]
            assert isinstance(pool, Http11Client)
            assert 1 <= pool.open_connections <= http11.MAX_CONNECTIONS
    assert all(result["tools"] for result in results)


async def test_bare_lf_heads_informational_responses_and_close_delimited_bodies(
    make_server,  # type: ignore[no-untyped-def]
) -> None:
    async def quirky(peer: Peer, line: str, body: bytes) -> bool:
        peer.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        peer.writer.write(b"HTTP/1.1 200 OK\nX-Style: lf\n\nuntil ")
        await peer.writer.drain()
        await asyncio.sleep(0.02)
        peer.writer.write(b"the end")
        return False  # no length: the body ends when the server closes

    server = await make_server(None)
    server.handler = await serve_requests(server, quirky)
    http = client()
    async with http.stream("POST", server.url, headers={}, body=b"{}") as response:
        assert response.headers["x-style"] == "lf"
        assert await response.aread() == b"until the end"
    assert http.open_connections == 0  # a close-delimited body cannot be followed
    await http.aclose()


async def test_broken_framing_and_illegal_headers_fail_the_exchange(make_server) -> None:  # type: ignore[no-untyped-def]
    async def broken(peer: Peer, line: str, body: bytes) -> bool:
        peer.writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\nxx")
        return True

    server = await make_server(None)
    server.handler = await serve_requests(server, broken)
    http = client()
    with pytest.raises(RemoteProtocolError, match="Content-Length"):
        await post(http, server.url)
    with pytest.raises(http11.LocalProtocolError):
        async with http.stream("GET", server.url, headers={"X-A": "1\r\nX-B: 2"}):
            pass
    await http.aclose()
    assert server.lines == ["POST /mcp HTTP/1.1"]  # the illegal request never left


@pytest.fixture
def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A throw-away certificate for 127.0.0.1 and its key, made by the `openssl` command."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
            ),
            *("-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext"),
            *("subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_https_verifies_the_server_certificate(
    self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = self_signed
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server = Server(lambda peer: asyncio.sleep(0))
    server.handler = await serve_requests(server, echo)
    listener = await asyncio.start_server(server._accept, "127.0.0.1", 0, ssl=context)
    url = f"https://127.0.0.1:{listener.sockets[0].getsockname()[1]}/mcp"
    try:
        monkeypatch.delenv("SSL_CERT_DIR", raising=False)
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        untrusting = client()
        with pytest.raises(ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await post(untrusting, url)
        await untrusting.aclose()
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        trusting = client()
        assert await post(trusting, url, b"secret") == b"secret"
        assert await post(trusting, url, b"again") == b"again"
        await trusting.aclose()
    finally:
        listener.close()
    assert len(server.peers) == 1  # the refused handshake never got this far; one kept-alive
    assert server.lines == ["POST /mcp HTTP/1.1"] * 2
