"""Hostile HTTP servers, round two (issue 11): one scripted raw server per case, through the real
client (a `Connection` on an `HttpTarget`, or the lean pool directly where the limits are made
small), asserting what fails, with which reason, and that nothing waits for a timeout: every test
has a pytest timeout well under the 30 s request timeout a silent hang would cost. Then property
runs of random and hostile heads, chunk framing, compressed bodies and SSE bytes through the parser.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.transports.base import TransportError
from app.engine.rpc.transports.header_values import encode_header_value
from app.engine.rpc.transports.http11 import Http11Client, HttpError, Limits, request_target
from app.engine.rpc.transports.http11_connection import Http11Connection, Http11Response
from app.engine.rpc.transports.http_client import environment_proxy, make_http_client
from app.engine.rpc.transports.http_framing import ContentDecoder, FramingError
from app.engine.rpc.transports.sse_decoder import EventTooLarge, SseDecoder
from app.engine.safety.limits import MAX_BODY_BYTES, MAX_EVENT_CHARS
from tests.support.demo_servers import free_port
from tests.support.servers.hostile_http import (
    INITIALIZE_RESULT,
    RawHttpServer,
    RawRequest,
    handshake_answer,
    json_response,
    response,
    result,
)

pytestmark = pytest.mark.timeout(20)

Script = Callable[[RawRequest, asyncio.StreamWriter], Awaitable[bool]]
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "REQUEST_METHOD")


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def after_handshake(answer: Callable[[RawRequest], bytes], *, keep_open: bool = True) -> Script:
    """A legacy MCP server that answers the handshake, and every other request with `answer`."""

    async def script(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        standard = handshake_answer(request)
        if standard is not None:
            writer.write(standard)
            return True
        writer.write(answer(request))
        return keep_open

    return script


def always(data: bytes) -> Script:
    """A server that answers every request with the same bytes, then closes."""

    async def script(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(data)
        return False

    return script


async def open_fails(url: str, **options: Any) -> TransportError:
    """Open a connection that must fail; the error it fails with."""
    connection = Connection(HttpTarget(url=url), **options)
    with pytest.raises(TransportError) as caught:
        await connection.open()
    assert connection.state == "closed"
    return caught.value


async def request_fails(url: str, method: str = "tools/list") -> tuple[TransportError, list[Frame]]:
    """Open a legacy connection, send one request that must fail; the error and the frames."""
    connection = Connection(HttpTarget(url=url), era="legacy")
    frames: list[Frame] = []
    connection.add_frame_listener(frames.append)
    async with connection:
        with pytest.raises(TransportError) as caught:
            await connection.request(method)
    return caught.value, frames


async def fetch(url: str, limits: Limits | None = None) -> tuple[Http11Client, bytes]:
    """One POST through the lean pool; the pool (to close) and the body."""
    client = Http11Client(connect_timeout=5, write_timeout=5, limits=limits)
    async with client.stream("POST", url, headers={}, body=b"{}") as answer:
        return client, await answer.aread()


async def fetch_fails(url: str, limits: Limits | None = None) -> str:
    """One POST through the lean pool that must fail; the failure's message."""
    client = Http11Client(connect_timeout=5, write_timeout=5, limits=limits)
    try:
        with pytest.raises(HttpError) as caught:
            async with client.stream("POST", url, headers={}, body=b"{}") as answer:
                await answer.aread()
    finally:
        await client.aclose()
    return str(caught.value)


# -- 1. repeated headers, head size and header count ---------------------------------------------


async def test_nine_thousand_repeats_of_a_1_kb_header_hit_the_head_size_limit() -> None:
    flood = (b"X-Repeat: " + b"r" * 1014 + b"\r\n") * 9000  # 9,000 lines of 1 KB
    async with RawHttpServer(always(b"HTTP/1.1 200 OK\r\n" + flood + b"\r\n")) as server:
        error = await open_fails(server.url)
    assert "the response head is over the 65,536-byte limit" in error.message
    assert len(server.requests) == 1  # failed at once: no retry, no second probe


async def test_a_flood_of_small_headers_hits_the_header_count_limit() -> None:
    flood = b"X-R: 1\r\n" * 9000
    async with RawHttpServer(always(b"HTTP/1.1 200 OK\r\n" + flood + b"\r\n")) as server:
        error = await open_fails(server.url)
    assert "more than 200 header fields, the limit" in error.message


async def test_repeated_headers_within_the_limits_are_joined_in_order() -> None:
    values = [f"v{i}" for i in range(150)]
    repeats = [f"X-Repeat: {value}" for value in values]
    async with RawHttpServer(always(response(b"ok", headers=repeats))) as server:
        client = Http11Client(connect_timeout=5, write_timeout=5)
        try:
            async with client.stream("POST", server.url, headers={}, body=b"{}") as answer:
                assert answer.headers["x-repeat"] == ", ".join(values)
                assert await answer.aread() == b"ok"
        finally:
            await client.aclose()


# -- 2. bodies and SSE events are bounded ---------------------------------------------------------


async def test_a_declared_terabyte_body_fails_before_any_of_it_is_read() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (
        10**12
    )

    async def script(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(head + b'{"jsonrpc":')  # and never the rest
        await asyncio.sleep(30)
        return False

    async with RawHttpServer(script) as server:
        error = await open_fails(server.url)
    assert "declares a body of 1,000,000,000,000 bytes" in error.message
    assert f"over the {MAX_BODY_BYTES:,}-byte limit" in error.message


async def test_an_endless_chunked_body_stops_at_the_body_limit() -> None:
    async def script(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in range(1000):  # 1 MB at most, far past the limit
            writer.write(b"400\r\n" + b"x" * 1024 + b"\r\n")
            await writer.drain()
        return False

    async with RawHttpServer(script) as server:
        message = await fetch_fails(server.url, Limits(body_bytes=100_000))
    assert "the response body is over the 100,000-byte limit" in message
    assert "(100,352 bytes read" in message  # the piece that crossed it, never the whole


async def test_an_sse_line_over_the_event_limit_fails_the_request() -> None:
    def answer(request: RawRequest) -> bytes:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
        return head + b"data: " + b"x" * (MAX_EVENT_CHARS + 1024)  # no end of line, ever

    async with RawHttpServer(after_handshake(answer, keep_open=False)) as server:
        error, frames = await request_fails(server.url)
    assert error.kind == "malformed"
    assert f"an SSE event is over the {MAX_EVENT_CHARS:,}-character limit" in error.message
    assert any(frame.error and "SSE event is over" in frame.error for frame in frames)


async def test_an_answer_before_an_oversized_event_still_counts() -> None:
    def answer(request: RawRequest) -> bytes:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
        first = f"data: {json.dumps(result(request, {'tools': []}))}\n\n".encode()
        return head + first + b"data: " + b"x" * (MAX_EVENT_CHARS + 1)

    async with (
        RawHttpServer(after_handshake(answer, keep_open=False)) as server,
        Connection(HttpTarget(url=server.url), era="legacy") as connection,
    ):
        assert await connection.request("tools/list") == {"tools": []}


async def test_an_oversized_event_on_the_get_stream_fails_the_pending_requests_at_once() -> None:
    asked = asyncio.Event()

    async def script(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        if request.line.startswith("GET "):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            await writer.drain()
            await asyncio.wait_for(asked.wait(), 10)
            writer.write(b"data: " + b"x" * (MAX_EVENT_CHARS + 1))  # where the answer would be
            await writer.drain()
            await asyncio.sleep(30)
            return False
        standard = handshake_answer(request)
        if standard is None:
            asked.set()  # the answer is owed on the GET stream
            standard = response(b"", status="202 Accepted")
        writer.write(standard)
        return True

    async with RawHttpServer(script) as server:
        error, _ = await request_fails(server.url)
    assert "the GET stream was refused: an SSE event is over the" in error.message


# -- 3. Content-Length and chunk sizes are validated ----------------------------------------------


async def test_a_content_length_of_5000_digits_fails_at_once() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n{}"
    async with RawHttpServer(always(head)) as server:
        error = await open_fails(server.url)
    assert "of 5,000 digits (at most 18 are accepted)" in error.message


async def test_conflicting_content_lengths_fail_and_identical_repeats_are_one() -> None:
    conflicting = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc"
    async with RawHttpServer(always(conflicting)) as server:
        message = await fetch_fails(server.url)
    assert "conflicting Content-Length values '2, 3'" in message
    same = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"
    async with RawHttpServer(always(same)) as server:
        client, body = await fetch(server.url)
        await client.aclose()
    assert body == b"abc"


@pytest.mark.parametrize(
    ("size_line", "reason"),
    [(b"zz", "bad chunk size line b'zz\\r\\n'"), (b"1" + b"0" * 16, "bad chunk size line")],
)
async def test_a_bad_chunk_size_fails_at_once(size_line: bytes, reason: str) -> None:
    data = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + size_line + b"\r\nabc"

    async def script(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(data)
        await asyncio.sleep(30)  # the framing is broken: the client must not wait for more
        return False

    async with RawHttpServer(script) as server:
        message = await fetch_fails(server.url)
    assert reason in message


# -- 4. 101 and other statuses that are not an answer ---------------------------------------------


async def test_101_switching_protocols_fails_at_once() -> None:
    upgrade = (
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    )

    async def script(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(upgrade)
        await asyncio.sleep(30)  # now speaking "websocket": nothing HTTP ever comes
        return False

    async with RawHttpServer(script) as server:
        error = await open_fails(server.url)
    assert "the server switched protocols (101 Switching Protocols)" in error.message


async def test_a_status_outside_100_to_599_fails_and_interim_heads_are_bounded() -> None:
    async with RawHttpServer(always(b"HTTP/1.1 600 Beyond\r\nContent-Length: 0\r\n\r\n")) as server:
        error = await open_fails(server.url)
    assert "status 600" in error.message and "is not an HTTP status" in error.message
    endless_interim = b"HTTP/1.1 100 Continue\r\n\r\n" * 5000
    async with RawHttpServer(always(endless_interim)) as server:
        error = await open_fails(server.url)
    assert "the response head is over the 65,536-byte limit" in error.message


async def test_an_early_hints_head_before_the_answer_is_skipped() -> None:
    hints = b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
    async with RawHttpServer(always(hints + response(b"done"))) as server:
        client, body = await fetch(server.url)
        await client.aclose()
    assert body == b"done"


# -- 5. the request target is percent-encoded -----------------------------------------------------


async def test_a_non_ascii_and_spaced_query_is_percent_encoded() -> None:
    async with RawHttpServer(after_handshake(lambda r: json_response(result(r, {})))) as server:
        url = server.url.replace("/mcp", "/mcp/é?q=café au lait&kept=%41%2f&lone=5%")
        async with Connection(HttpTarget(url=url), era="legacy") as connection:
            assert await connection.request("ping") == {}
    expected = "POST /mcp/%C3%A9?q=caf%C3%A9%20au%20lait&kept=%41%2f&lone=5%25 HTTP/1.1"
    assert server.requests[0].line == expected


def test_the_request_target_keeps_escapes_and_encodes_the_rest() -> None:
    assert request_target("", "") == "/"
    assert request_target("/a b/%7e/%zz", "x=<\"'>&y=|") == "/a%20b/%7e/%25zz?x=%3C%22'%3E&y=%7C"


def test_a_header_value_with_a_lone_surrogate_is_encoded_not_raised() -> None:
    assert encode_header_value("task-\ud800") == "=?base64?dGFzay3toIA=?="


# -- 6. gzip and deflate, bounded after decompression ---------------------------------------------


def gzipped(message: dict[str, Any]) -> bytes:
    body = gzip.compress(json.dumps(message).encode())
    return response(body, headers=["Content-Type: application/json", "Content-Encoding: gzip"])


async def test_a_gzip_speaking_server_is_understood() -> None:
    async def script(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        if request.rpc_method == "initialize":
            writer.write(gzipped(result(request, INITIALIZE_RESULT)))
        elif (standard := handshake_answer(request)) is not None:
            writer.write(standard)
        else:
            writer.write(gzipped(result(request, {"tools": [{"name": "zipped"}]})))
        return True

    async with (
        RawHttpServer(script) as server,
        Connection(HttpTarget(url=server.url), era="legacy") as connection,
    ):
        tools = await connection.request("tools/list")
    assert tools == {"tools": [{"name": "zipped"}]}
    assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


@pytest.mark.parametrize("wrapped", [True, False])
async def test_deflate_with_and_without_its_zlib_wrapper(wrapped: bool) -> None:
    packer = zlib.compressobj(wbits=15 if wrapped else -15)
    body = packer.compress(b"deflated " * 1000) + packer.flush()
    framing = ["Transfer-Encoding: chunked", "Content-Encoding: deflate"]
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7]) for i in range(0, len(body), 7)
    )
    data = response(chunks + b"0\r\n\r\n", headers=framing, length=False)
    async with RawHttpServer(always(data)) as server:
        client, answer = await fetch(server.url)
        await client.aclose()
    assert answer == b"deflated " * 1000


async def test_a_gzip_bomb_hits_the_body_limit_after_decompression() -> None:
    bomb = gzip.compress(b"\0" * (MAX_BODY_BYTES + 1024 * 1024))
    assert len(bomb) < 200_000
    answer = response(bomb, headers=["Content-Type: application/json", "Content-Encoding: gzip"])
    async with RawHttpServer(after_handshake(lambda r: answer)) as server:
        error, _ = await request_fails(server.url)
    assert f"the response body is over the {MAX_BODY_BYTES:,}-byte limit" in error.message
    assert "decoded bytes read" in error.message


async def test_an_encoding_never_asked_for_and_a_truncated_gzip_are_said_plainly() -> None:
    brotli = response(b"\x0b\x02\x80", headers=["Content-Encoding: br"])
    async with RawHttpServer(always(brotli)) as server:
        message = await fetch_fails(server.url)
    assert "the body is encoded 'br'; taskscope asks only for gzip or deflate" in message
    cut = gzip.compress(b"x" * 1000)[:-8]
    async with RawHttpServer(always(response(cut, headers=["Content-Encoding: gzip"]))) as server:
        message = await fetch_fails(server.url)
    assert "the gzip body ends before its compressed stream does" in message


# -- 7. a byte order mark before JSON or an SSE event ---------------------------------------------


async def test_a_bom_before_a_json_body_and_before_sse_events_is_tolerated() -> None:
    def answer(request: RawRequest) -> bytes:
        message = json.dumps(result(request, {"tools": []})).encode()
        if request.rpc_method == "tools/list":
            return response(b"\xef\xbb\xbf" + message, headers=["Content-Type: application/json"])
        events = b"\xef\xbb\xbfdata: \xef\xbb\xbf" + message + b"\n\n"
        head = "Content-Type: text/event-stream"
        return response(events, headers=[head])

    async with (
        RawHttpServer(after_handshake(answer)) as server,
        Connection(HttpTarget(url=server.url), era="legacy") as connection,
    ):
        assert await connection.request("tools/list") == {"tools": []}
        assert await connection.request("ping") == {"tools": []}


# -- 8. redirects are reported, never followed ----------------------------------------------------


async def test_a_redirect_is_reported_with_its_location_and_not_followed() -> None:
    moved = response(
        b"", status="307 Temporary Redirect", headers=["Location: https://elsewhere.example/mcp"]
    )
    async with RawHttpServer(always(moved)) as server:
        connection = Connection(HttpTarget(url=server.url, bearer="TOKEN-1"), era="legacy")
        with pytest.raises(TransportError) as caught:
            await connection.open()
    assert caught.value.http_status == 307
    assert "HTTP 307 Temporary Redirect: the server redirects to https://elsewhere.example/mcp" in (
        caught.value.message
    )
    assert "does not follow redirects" in caught.value.message
    assert [request.rpc_method for request in server.requests] == ["initialize"]


# -- 9. NO_PROXY ----------------------------------------------------------------------------------

NO_PROXY_CASES = [
    ("example.com", "http://example.com/mcp", False),
    ("example.com", "http://api.example.com/mcp", False),
    ("example.com", "http://badexample.com/mcp", True),
    (".example.com", "http://example.com/mcp", True),
    (".example.com", "http://api.example.com/mcp", False),
    ("127.0.0.1", "http://127.0.0.1:8000/mcp", False),
    ("127.0.0.1", "http://127.0.0.10:8000/mcp", True),
    ("::1", "http://[::1]:8000/mcp", False),
    ("localhost", "http://localhost:1/mcp", False),
    ("localhost", "http://sub.localhost:1/mcp", True),
    ("example.com:8080", "http://example.com:8080/mcp", False),
    ("example.com:8080", "http://example.com:9090/mcp", True),
    ("https://example.com", "http://example.com/mcp", True),
    ("http://example.com", "http://example.com/mcp", False),
    ("other.org, EXAMPLE.com", "http://example.com/mcp", False),
    ("*", "http://anything.test/mcp", False),
    ("", "http://example.com/mcp", True),
]


@pytest.mark.parametrize(("no_proxy", "url", "proxied"), NO_PROXY_CASES)
def test_no_proxy_is_read_as_httpx_reads_it(
    monkeypatch: pytest.MonkeyPatch, no_proxy: str, url: str, proxied: bool
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", no_proxy)
    assert environment_proxy(url) is proxied
    client = httpx.Client(verify=False)  # httpx's own decision, in the same environment
    try:
        direct = client._transport_for_url(httpx.URL(url)) is client._transport
    finally:
        client.close()
    assert direct is not proxied


async def test_a_host_in_no_proxy_is_reached_directly_by_the_lean_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")  # nobody listens there
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    async with RawHttpServer(after_handshake(lambda r: json_response(result(r, {})))) as server:
        assert isinstance(
            make_http_client(server.url, connect_timeout=1, write_timeout=1), Http11Client
        )
        async with Connection(HttpTarget(url=server.url), era="legacy") as connection:
            assert await connection.request("ping") == {}


# -- 10. the legacy HTTP+SSE endpoint must stay on the stream's origin ----------------------------


async def test_an_sse_endpoint_on_another_origin_is_refused_before_anything_is_sent() -> None:
    async def collect(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(response(b"", status="202 Accepted"))
        return True

    async with RawHttpServer(collect) as elsewhere:

        async def stream(request: RawRequest, writer: asyncio.StreamWriter) -> bool:
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
            event = f"event: endpoint\ndata: {elsewhere.url}?session=1\n\n".encode()
            writer.write(head + event)
            await writer.drain()
            await asyncio.sleep(30)  # a stream stays open
            return False

        async with RawHttpServer(stream) as server:
            target = HttpTarget(
                url=server.url, transport="sse", bearer="TOKEN-2", headers={"X-Api-Key": "k"}
            )
            connection = Connection(target)
            with pytest.raises(TransportError) as caught:
                await connection.open()
    assert "another origin than http://127.0.0.1:" in caught.value.message
    assert f":{elsewhere.port}/mcp?session=1" in caught.value.message
    assert elsewhere.requests == []  # neither the token nor the header went there
    assert [request.line.split()[0] for request in server.requests] == ["GET"]


# -- 11. property runs: the parser parses or says why, nothing else -------------------------------


class _Writer:
    """The writer half a parse-only connection needs: never written to, never closing."""

    class transport:
        @staticmethod
        def is_closing() -> bool:
            return False

    def close(self) -> None:
        pass


async def parse(data: bytes, limits: Limits) -> tuple[int, dict[str, str], bytes]:
    """Read a whole response from `data` (then end of stream) as the pool reads it."""
    reader = asyncio.StreamReader(limit=65536)
    reader.feed_data(data)
    reader.feed_eof()
    connection = Http11Connection(reader, _Writer(), limits)  # type: ignore[arg-type]
    status, reason, headers = await connection.read_head("POST")
    body = await Http11Response(connection, status, reason, headers).aread()
    return status, headers, body


GOOD_STATUS = b"HTTP/1.1 200 OK\r\n"
status_lines = st.one_of(
    st.just(GOOD_STATUS),
    st.sampled_from(
        [
            b"HTTP/1.0 204\n",
            b"HTTP/1.1 101 Up\r\n",
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n",
            b"HTTP/1.1 999 x\r\n",
            b"HTTP/2 200\r\n",
        ]
    ),
    st.binary(max_size=20),
)
header_names = st.one_of(
    st.sampled_from([b"Content-Length", b"Transfer-Encoding", b"Content-Encoding", b"X-A"]),
    st.sampled_from([b"Connection", b"Bad Name", b"", b" X", b"X\x00"]),
)
header_values = st.one_of(
    st.sampled_from([b"chunked", b"gzip", b"deflate", b"identity", b"br", b"close", b"gzip, br"]),
    st.sampled_from([b"0", b"5", b"40", b"5, 5", b"5, 6", b"-1", b"9" * 40, b"\xef\xbc\x91"]),
    st.binary(max_size=30),
)
header_lines = st.builds(
    lambda name, value, end: name + b": " + value + end,
    header_names,
    header_values,
    st.sampled_from([b"\r\n", b"\r\n", b"\n"]),
)
chunk_pieces = st.one_of(
    st.builds(lambda data: b"%x\r\n%s\r\n" % (len(data), data), st.binary(max_size=40)),
    st.sampled_from([b"0\r\n\r\n", b"0\r\nTrailer: x\r\n\r\n", b"0\r\n" + b"T: x\r\n" * 300]),
    st.sampled_from([b"fffffffffffffffff\r\n", b"zz\r\n", b"\r\n", b"5;ext\r\nab", b"3\r\nabcd"]),
    st.binary(max_size=20),
)
compressed = st.sampled_from(
    [gzip.compress(b"\0" * 50_000), zlib.compress(b"{}"), gzip.compress(b"{}")[:-3]]
)
bodies = st.one_of(
    st.lists(chunk_pieces, max_size=6).map(b"".join),
    compressed.map(lambda data: b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data)),
    compressed,
    st.binary(max_size=100),
)
FRAMINGS = [
    (b"Transfer-Encoding: chunked",),
    (b"Transfer-Encoding: chunked", b"Content-Encoding: gzip"),
    (b"Transfer-Encoding: chunked", b"Content-Encoding: deflate"),
    (b"Content-Length: {length}",),
    (b"Content-Length: {length}", b"Content-Encoding: gzip"),
    (b"Content-Length: {length}", b"Content-Length: {length}"),
    (b"Content-Encoding: gzip",),
    (),
]


@st.composite
def responses(draw: st.DrawFn) -> bytes:
    """A response that is mostly well framed (chunked, Content-Length or until close, maybe
    compressed) with hostile lines and bodies mixed in, or random framing altogether."""
    body = draw(bodies)
    framing = draw(st.sampled_from(FRAMINGS))
    length = str(len(body) + draw(st.sampled_from([0, 0, 0, 3, -1]))).encode()
    lines = [line.replace(b"{length}", length) + b"\r\n" for line in framing]
    lines += draw(st.lists(header_lines, max_size=4))
    order = draw(st.permutations(lines))
    return draw(status_lines) + b"".join(order) + b"\r\n" + body


small_limits = st.builds(
    Limits,
    head_bytes=st.integers(min_value=20, max_value=2000),
    header_fields=st.integers(min_value=0, max_value=10),
    body_bytes=st.integers(min_value=0, max_value=100_000),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=responses(), limits=st.one_of(st.just(Limits()), small_limits))
def test_any_response_bytes_parse_or_fail_with_the_transports_error(
    data: bytes, limits: Limits
) -> None:
    async def run() -> None:
        try:
            async with asyncio.timeout(10):  # a hang fails here instead of stalling the run
                status, headers, body = await parse(data, limits)
        except HttpError:
            return
        assert 200 <= status <= 599
        assert len(headers) <= limits.header_fields
        assert len(body) <= limits.body_bytes

    asyncio.run(run())


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=300), coding=st.sampled_from(["gzip", "deflate"]))
def test_any_compressed_bytes_decode_in_bounded_pieces_or_fail_plainly(
    data: bytes, coding: str
) -> None:
    decoder = ContentDecoder(coding)
    try:
        for piece in decoder.decode(data):
            assert len(piece) <= 64 * 1024
        decoder.finish()
    except FramingError:
        pass


@settings(max_examples=300, deadline=None)
@given(
    chunks=st.lists(
        st.binary(max_size=80) | st.sampled_from([b"\n", b"\r", b"\xef\xbb\xbf", b"data: ", b":"]),
        max_size=12,
    ),
    limit=st.integers(min_value=1, max_value=60),
)
def test_any_sse_bytes_give_events_or_the_event_limit(chunks: list[bytes], limit: int) -> None:
    decoder = SseDecoder(max_event_chars=limit)
    try:
        events = [event for chunk in chunks for event in decoder.feed(chunk)] + decoder.close()
    except EventTooLarge as exc:
        assert f"{limit:,}-character limit" in str(exc)
        return
    assert all(len(event.data) <= limit for event in events)
