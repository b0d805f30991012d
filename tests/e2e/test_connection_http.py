"""Connection over Streamable HTTP against real servers on 127.0.0.1: eras, headers, HTTP errors."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import Frame, RpcError
from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.tool_headers import ToolUnusable
from app.engine.rpc.transports.base import TransportError
from app.engine.safety.redact import REDACTED
from tests.support.demo_servers import (
    SharedServers,
    free_port,
    start_http_demo,
)


@pytest.fixture(scope="module")
def raw_server(shared_servers: SharedServers) -> str:
    """The misbehaving raw Starlette server (tests/support/servers/raw_http.py)."""
    return shared_servers.module("tests.support.servers.raw_http")


@pytest.fixture(scope="module")
def sdk_legacy_http(shared_servers: SharedServers) -> str:
    """An SDK server that only speaks 2025-11-25 (discover answers -32601 with HTTP 404)."""
    sdk_server = "tests.support.servers.sdk_server"
    return shared_servers.module(sdk_server, "--transport", "http", "--legacy-only") + "/mcp"


def recorder(connection: Connection) -> list[Frame]:
    frames: list[Frame] = []
    connection.add_frame_listener(frames.append)
    return frames


def sent(frames: list[Frame], method: str) -> Frame:
    return next(f for f in frames if f.direction == "out" and f.method == method)


@pytest.mark.parametrize(("wire", "era"), [("legacy", "legacy"), ("extension", "modern")])
async def test_auto_era_against_the_demo_servers(wire: Any, era: str) -> None:
    with start_http_demo(wire) as (url, _):
        async with Connection(HttpTarget(url=url)) as connection:
            assert connection.info.era == era
            assert connection.info.transport == "http"


async def test_modern_headers_name_the_method_tool_and_task() -> None:
    with start_http_demo("extension") as (url, _):
        async with Connection(HttpTarget(url=url)) as connection:
            frames = recorder(connection)
            with pytest.raises(RpcError) as caught:
                await connection.request("tasks/get", {"taskId": "nope-ü"})
            await connection.request("tools/list")
    assert caught.value.code == -32602 and caught.value.http_status is not None
    get = sent(frames, "tasks/get").headers
    assert get["MCP-Protocol-Version"] == "2026-07-28"
    assert get["Mcp-Method"] == "tasks/get"
    assert get["Mcp-Name"] == "=?base64?bm9wZS3DvA==?="
    assert get["Accept"] == "application/json, text/event-stream"
    assert "Mcp-Name" not in sent(frames, "tools/list").headers
    assert "Mcp-Session-Id" not in get


async def test_legacy_session_flow_with_a_server_request_on_the_post_stream(
    sdk_legacy_http: str,
) -> None:
    async def elicit(params: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    connection = Connection(HttpTarget(url=sdk_legacy_http))
    frames = recorder(connection)
    connection.set_request_handler("elicitation/create", elicit)
    async with connection:
        assert connection.info.era == "legacy"
        result = await connection.request("tools/call", {"name": "ask", "arguments": {}})
    assert result["content"][0]["text"] == "Hello, Ada!"
    probe = next(f for f in frames if f.method == "server/discover" and f.direction == "in")
    assert probe.http_status == 404
    call = sent(frames, "tools/call").headers
    assert call["MCP-Protocol-Version"] == "2025-11-25"
    assert call["Mcp-Session-Id"]
    assert "Mcp-Method" not in call
    order = [
        (f.direction, f.method) for f in frames if f.method in ("tools/call", "elicitation/create")
    ]
    assert order == [
        ("out", "tools/call"),
        ("in", "elicitation/create"),
        ("out", "elicitation/create"),
        ("in", "tools/call"),
    ]


async def test_plain_400_on_discover_falls_back_and_the_session_is_deleted(
    raw_server: str,
) -> None:
    connection = Connection(HttpTarget(url=f"{raw_server}/legacy"))
    frames = recorder(connection)
    async with connection:
        assert connection.info.era == "legacy"
        assert connection.info.name == "raw-legacy"
        echoed = await connection.request("test/headers")
    probe = [f for f in frames if f.direction == "in" and f.http_status == 400]
    assert probe[0].raw == "Bad Request: Server not initialized" and probe[0].error
    assert echoed["headers"]["mcp-session-id"] == "sess-42"
    assert echoed["headers"]["mcp-protocol-version"] == "2025-11-25"
    async with httpx.AsyncClient() as client:
        stats = (await client.get(f"{raw_server}/stats")).json()
    assert "sess-42" in stats["deletes"]


@pytest.mark.parametrize(
    ("probe", "answer"),
    [
        (
            "null-id",
            "HTTP 400, JSON-RPC error -32000 'Bad Request: Server not initialized' (id null)",
        ),
        (
            "string-id",
            "HTTP 400, JSON-RPC error -32600 'Bad Request: Missing session ID'"
            ' (id "server-error")',
        ),
        ("empty", "a result with no supportedVersions: not modern"),
    ],
)
async def test_probe_answers_seen_in_the_wild_fall_back_to_initialize(
    raw_server: str, probe: str, answer: str
) -> None:
    connection = Connection(HttpTarget(url=f"{raw_server}/legacy/{probe}"))
    frames = recorder(connection)
    async with connection:
        assert connection.info.era == "legacy" and connection.info.name == "raw-legacy"
        decision = connection.info.era_decision
    assert decision is not None and decision.steps[0].answer == answer
    assert [step.method for step in decision.steps] == ["server/discover", "initialize"]
    reply = next(f for f in frames if f.direction == "in" and f.method == "server/discover")
    assert reply.error is None and reply.message is not None
    if probe != "empty":
        assert "the only request of that HTTP POST" in (reply.reason or "")
    fallback = sent(frames, "initialize")
    assert (fallback.reason or "").startswith("connect: era fallback")


async def test_unsupported_version_retries_discover_at_the_offered_version(
    raw_server: str,
) -> None:
    connection = Connection(HttpTarget(url=f"{raw_server}/modern"))
    frames = recorder(connection)
    async with connection:
        assert connection.info.era == "modern"
        assert connection.info.protocol_version == "2026-09-01"
        assert connection.info.name == "raw-modern"
        echoed = await connection.request("test/headers")
    assert echoed["headers"]["mcp-protocol-version"] == "2026-09-01"
    assert echoed["headers"]["mcp-method"] == "test/headers"
    assert [f.method for f in frames if f.direction == "out"].count("initialize") == 0


@pytest.mark.parametrize(
    ("method", "status", "low", "high"),
    [("test/rate-seconds", 429, 7, 7), ("test/rate-date", 503, 100, 121)],
)
async def test_retry_after_on_http_errors(
    raw_server: str, method: str, status: int, low: float, high: float
) -> None:
    async with Connection(HttpTarget(url=f"{raw_server}/legacy")) as connection:
        with pytest.raises(TransportError) as caught:
            await connection.request(method)
    error = caught.value
    assert error.kind == "http" and error.http_status == status
    assert error.retry_after is not None and low <= error.retry_after <= high
    assert error.body in ("slow down", "busy")


async def test_json_rpc_errors_in_http_400_bodies_are_rpc_errors(raw_server: str) -> None:
    async with Connection(HttpTarget(url=f"{raw_server}/legacy")) as connection:
        with pytest.raises(RpcError) as caught:
            await connection.request("test/rpc-400")
    assert caught.value.code == -32602
    assert caught.value.http_status == 400 and caught.value.retry_after == 3
    assert caught.value.frame is not None and caught.value.frame["error"]["code"] == -32602


async def test_a_server_request_on_an_sse_answer_is_answered_while_it_is_open(
    raw_server: str,
) -> None:
    async def elicit(params: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
        return {"action": "decline"}

    async with Connection(HttpTarget(url=f"{raw_server}/legacy")) as connection:
        connection.set_request_handler("elicitation/create", elicit)
        result = await connection.request("test/ask")
    assert result["answer"] == {"jsonrpc": "2.0", "id": "srv-7", "result": {"action": "decline"}}


async def test_the_bearer_and_redacted_headers_never_reach_frames(raw_server: str) -> None:
    target = HttpTarget(
        url=f"{raw_server}/legacy", headers={"X-Api-Key": "key-123"}, bearer="tok-secret-9"
    )
    connection = Connection(target, redact=["x-api-key"])
    frames = recorder(connection)
    async with connection:
        echoed = await connection.request("test/secret")
    assert echoed["seen"] == "you sent Bearer tok-secret-9"  # the server did get it
    text = repr(frames)
    assert "tok-secret-9" not in text and "key-123" not in text
    headers = sent(frames, "test/secret").headers
    assert headers["Authorization"] == REDACTED and headers["X-Api-Key"] == REDACTED
    answer = next(f for f in frames if f.direction == "in" and f.method == "test/secret")
    assert answer.message is not None
    assert answer.message["result"]["seen"] == f"you sent Bearer {REDACTED}"


async def test_nothing_listening_is_a_closed_transport_error() -> None:
    connection = Connection(HttpTarget(url=f"http://127.0.0.1:{free_port()}/mcp"))
    with pytest.raises(TransportError) as caught:
        await connection.open()
    assert caught.value.kind == "closed"
    assert connection.state == "closed"


async def test_legacy_server_requests_on_the_standalone_get_stream_are_answered() -> None:
    asked: list[str] = []

    async def elicit(params: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"approve": True, "window": "now"}}

    demo = ("--elicit-channel", "standalone", "--speed", "20", "--poll-interval-ms", "100")
    with start_http_demo("legacy", *demo) as (url, _):
        connection = Connection(HttpTarget(url=url))
        connection.set_request_handler("elicitation/create", elicit)
        async with connection:
            created = await connection.request(
                "tools/call", {"name": "deploy_release", "arguments": {}, "task": {}}
            )
            task_id = created["task"]["taskId"]
            status = created["task"]["status"]
            for _ in range(100):
                if status in ("completed", "failed", "cancelled"):
                    break
                await asyncio.sleep(0.1)  # the server's pollInterval
                task = await connection.request("tasks/get", {"taskId": task_id}, reason="poll")
                status = task["status"]
    assert status == "completed"
    assert len(asked) == 2


async def test_a_cut_sse_stream_is_resumed_with_last_event_id_after_the_retry_interval(
    raw_server: str,
) -> None:
    connection = Connection(HttpTarget(url=f"{raw_server}/legacy"))
    frames = recorder(connection)
    notes: list[str] = []
    connection.add_notification_handler(lambda method, params: notes.append(method))
    async with connection:
        assert await connection.request("test/cut") == {"resumed": True}
    async with httpx.AsyncClient() as client:
        stats = (await client.get(f"{raw_server}/stats")).json()
    resumed = [r for r in stats["resumes"] if r["lastEventId"].startswith("cut-")]
    assert len(resumed) == 1
    assert resumed[0]["waitedS"] >= 0.3  # the server's retry: 300 ms, never sooner
    assert notes == ["notifications/message"]
    answer = next(f for f in frames if f.direction == "in" and f.method == "test/cut")
    assert answer.error is None and answer.headers.get("content-type", "").startswith(
        "text/event-stream"
    )


async def test_x_mcp_header_parameters_travel_as_mcp_param_headers(raw_server: str) -> None:
    connection = Connection(HttpTarget(url=f"{raw_server}/modern"))
    frames = recorder(connection)
    async with connection:
        arguments = {
            "region": "us west 1",
            "priority": 42,
            "verbose": None,
            "note": " é",
            "body": "x",
        }
        result = await connection.request(
            "tools/call", {"name": "regional", "arguments": arguments}
        )
    seen = json.loads(result["content"][0]["text"])
    assert seen == {
        "mcp-param-region": "us west 1",
        "mcp-param-priority": "42",
        "mcp-param-note": "=?base64?IMOp?=",
    }
    lookup = sent(frames, "tools/list")
    assert lookup.reason == "x-mcp-header: learn the tool's header parameters"
    assert sent(frames, "tools/call").headers["Mcp-Param-Region"] == "us west 1"


async def test_a_tool_with_invalid_header_annotations_is_refused_unsent(raw_server: str) -> None:
    async with Connection(HttpTarget(url=f"{raw_server}/modern")) as connection:
        frames = recorder(connection)
        await connection.list_tools()
        assert connection.tool_problem("regional") is None
        problem = connection.tool_problem("broken")
        assert problem is not None and "only string, integer and boolean" in problem
        with pytest.raises(ToolUnusable):
            await connection.request("tools/call", {"name": "broken", "arguments": {"score": 1}})
    assert not [f for f in frames if f.method == "tools/call"]
