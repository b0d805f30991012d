"""Choosing the HTTP client: the lean pool unless the environment names a proxy, then httpx
(which really goes through the proxy: a fake one in the test answers in the server's place)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.transports.base import Inbound, TransportError
from app.engine.rpc.transports.http import StreamableHttpTransport
from app.engine.rpc.transports.http11 import Http11Client
from app.engine.rpc.transports.http_client import HttpxClient, environment_proxy, make_http_client

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "REQUEST_METHOD")


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def test_without_proxy_variables_the_lean_pool_is_used() -> None:
    assert not environment_proxy("http://127.0.0.1:1/mcp")
    assert isinstance(
        make_http_client("http://x/", connect_timeout=1, write_timeout=1), Http11Client
    )


def test_proxy_variables_by_scheme_and_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert environment_proxy("https://example.com/mcp")
    assert not environment_proxy("http://example.com/mcp")
    monkeypatch.setenv("https_proxy", "")  # the lower-case variable wins, and it is empty
    assert not environment_proxy("https://example.com/mcp")
    monkeypatch.setenv("ALL_PROXY", "socks5://proxy:1080")
    assert environment_proxy("http://example.com/mcp")


def test_cgi_ignores_an_upper_case_http_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQUEST_METHOD", "GET")
    monkeypatch.setenv("HTTP_PROXY", "http://from-a-header:1")
    assert not environment_proxy("http://example.com/mcp")


async def test_a_proxied_target_goes_through_the_proxy_with_httpx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    request_lines: list[str] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            line, *lines = head.decode().split("\r\n")
            request_lines.append(line)
            length = next(
                (int(x.split(":")[1]) for x in lines if x.lower().startswith("content-length")), 0
            )
            message = await reader.readexactly(length)
            rpc_id = message.split(b'"id":')[1].split(b",")[0]
            body = b'{"jsonrpc":"2.0","id":' + rpc_id + b',"result":{}}'
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )
        writer.close()

    listener = await asyncio.start_server(proxy, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    url = "http://mcp.invalid/mcp"  # never resolved: only the proxy is contacted
    sink = RecordingSink()
    transport = StreamableHttpTransport(HttpTarget(url=url))
    await transport.start(sink)
    try:
        assert isinstance(transport._client, HttpxClient)
        await transport.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        for _ in range(100):
            if sink.incoming:
                break
            await asyncio.sleep(0.02)
    finally:
        await transport.close()
        listener.close()
    assert request_lines == [f"POST {url} HTTP/1.1"]
    assert sink.incoming[0].message == {"jsonrpc": "2.0", "id": 1, "result": {}}


class RecordingSink:
    """A transport sink that keeps what arrives."""

    def __init__(self) -> None:
        self.incoming: list[Inbound] = []

    def on_outgoing(self, message: dict[str, Any], headers: Mapping[str, str]) -> None:
        pass

    def on_incoming(self, inbound: Inbound) -> None:
        self.incoming.append(inbound)

    def on_request_failed(self, rpc_id: str | int, error: TransportError) -> None:
        raise AssertionError(error.message)

    def on_closed(self, error: TransportError) -> None:
        pass
