"""Connection over the deprecated HTTP+SSE transport against a real SDK server."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.transports.base import TransportError
from tests.support.demo_servers import SharedServers, free_port


@pytest.fixture(scope="module")
def sse_url(shared_servers: SharedServers) -> str:
    return shared_servers.module("tests.support.servers.sdk_server", "--transport", "sse") + "/sse"


@pytest.mark.parametrize("era", ["auto", "legacy"])
async def test_sse_connects_and_calls(sse_url: str, era: Any) -> None:
    connection = Connection(HttpTarget(url=sse_url, transport="sse"), era=era)
    frames: list[Frame] = []
    connection.add_frame_listener(frames.append)
    async with connection:
        assert connection.info.transport == "sse"
        assert connection.info.era == ("modern" if era == "auto" else "legacy")
        result = await connection.request(
            "tools/call", {"name": "echo", "arguments": {"text": "s"}}
        )
    assert result["content"][0]["text"] == "s"
    answer = next(f for f in frames if f.direction == "in" and f.method == "tools/call")
    assert answer.latency_ms is not None and answer.http_status == 200


async def test_sse_answers_server_requests_on_the_stream(sse_url: str) -> None:
    async def elicit(params: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Lin"}}

    connection = Connection(HttpTarget(url=sse_url, transport="sse"), era="legacy")
    connection.set_request_handler("elicitation/create", elicit)
    async with connection:
        result = await connection.request("tools/call", {"name": "ask", "arguments": {}})
    assert result["content"][0]["text"] == "Hello, Lin!"


async def test_sse_without_a_server_fails_to_open() -> None:
    target = HttpTarget(url=f"http://127.0.0.1:{free_port()}/sse", transport="sse")
    connection = Connection(target)
    with pytest.raises(TransportError):
        await connection.open()
    assert connection.state == "closed"
