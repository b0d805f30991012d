"""HTTP/1.1 framing rules of the lean client: request bytes, status and header lines, which body
framing a response has and whether its connection stays open."""

from __future__ import annotations

import pytest

from app.engine.rpc.transports.http_framing import (
    FramingError,
    body_framing,
    chunk_size,
    encode_request,
    parse_header_line,
    parse_status_line,
)


def test_request_bytes() -> None:
    data = encode_request("POST", b"/mcp?x=1", [(b"Host", b"h:1"), (b"X-A", b"v")], b"{}")
    assert data == b"POST /mcp?x=1 HTTP/1.1\r\nHost: h:1\r\nX-A: v\r\n\r\n{}"
    assert encode_request("GET", b"/", [], None) == b"GET / HTTP/1.1\r\n\r\n"


@pytest.mark.parametrize(
    "header",
    [(b"X-A", b"v\r\nInjected: 1"), (b"X-A", b"v\nx"), (b"X-A", b"\x00"), (b"Bad Name", b"v")],
)
def test_header_injection_is_refused(header: tuple[bytes, bytes]) -> None:
    with pytest.raises(FramingError):
        encode_request("GET", b"/", [header], None)


def test_status_lines() -> None:
    assert parse_status_line(b"HTTP/1.1 200 OK\r\n") == (1, 200, "OK")
    assert parse_status_line(b"HTTP/1.0 404 Not Found\n") == (0, 404, "Not Found")
    assert parse_status_line(b"HTTP/1.1 204\r\n") == (1, 204, "")
    for bad in (b"HTTP/2 200 OK\r\n", b"HTTP/1.1 20 OK\r\n", b"garbage\r\n"):
        with pytest.raises(FramingError):
            parse_status_line(bad)


def test_header_lines() -> None:
    assert parse_header_line(b"Content-Type:  application/json \r\n") == (
        "content-type",
        "application/json",
    )
    assert parse_header_line("X-Name: é\r\n".encode()) == ("x-name", "é")
    assert parse_header_line(b"X-Raw: \xe9\r\n") == ("x-raw", "é")  # not UTF-8: Latin-1
    for bad in (b"no colon\r\n", b" folded: x\r\n", b": empty name\r\n"):
        with pytest.raises(FramingError):
            parse_header_line(bad)


@pytest.mark.parametrize(
    ("minor", "status", "method", "headers", "expected"),
    [
        (1, 200, "POST", {"content-length": "12"}, ("length", 12, True)),
        (1, 200, "POST", {"content-length": "0"}, ("none", 0, True)),
        (1, 200, "POST", {"content-length": "5, 5"}, ("length", 5, True)),
        (1, 200, "POST", {"transfer-encoding": "chunked"}, ("chunked", 0, True)),
        (1, 200, "POST", {"transfer-encoding": "gzip, chunked"}, ("chunked", 0, True)),
        (1, 200, "POST", {"transfer-encoding": "gzip"}, ("close", 0, False)),
        (
            1,
            200,
            "POST",
            {"transfer-encoding": "chunked", "content-length": "3"},
            ("chunked", 0, True),
        ),
        (1, 200, "POST", {}, ("close", 0, False)),
        (1, 200, "POST", {"content-length": "3", "connection": "close"}, ("length", 3, False)),
        (
            1,
            200,
            "POST",
            {"content-length": "3", "connection": "Keep-Alive, Close"},
            ("length", 3, False),
        ),
        (0, 200, "POST", {"content-length": "3"}, ("length", 3, False)),
        (1, 204, "POST", {}, ("none", 0, True)),
        (1, 304, "GET", {"content-length": "10"}, ("none", 0, True)),
        (1, 200, "HEAD", {"content-length": "10"}, ("none", 0, True)),
    ],
)
def test_body_framing(
    minor: int, status: int, method: str, headers: dict[str, str], expected: tuple[str, int, bool]
) -> None:
    assert body_framing(minor, status, method, headers) == expected


@pytest.mark.parametrize(
    "length", ["-1", "1, 2", "abc", "", "\uff11"]
)  # the last: a full-width digit
def test_bad_content_length(length: str) -> None:
    with pytest.raises(FramingError):
        body_framing(1, 200, "POST", {"content-length": length})


def test_chunk_sizes() -> None:
    assert chunk_size(b"1a\r\n") == 26
    assert chunk_size(b"0;name=value\r\n") == 0
    assert chunk_size(b"FF \r\n") == 255
    for bad in (b"\r\n", b"-1\r\n", b"0x10\r\n", b"g\r\n"):
        with pytest.raises(FramingError):
            chunk_size(bad)
