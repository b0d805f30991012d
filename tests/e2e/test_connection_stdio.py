"""Connection over stdio against real subprocess servers: era negotiation, framing, failures."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from app.engine.rpc.connection import Connection
from app.engine.rpc.era import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION
from app.engine.rpc.rpc_types import Frame, RpcError
from app.engine.rpc.targets import StdioTarget, demo_target
from app.engine.rpc.transports.base import TransportError
from tests.support.demo_servers import REPO_ROOT

HOSTILE = StdioTarget(
    command=[sys.executable, "-m", "tests.support.servers.hostile_stdio"], cwd=str(REPO_ROOT)
)


def sdk_server(*args: str) -> StdioTarget:
    return StdioTarget(
        command=[sys.executable, "-m", "tests.support.servers.sdk_server", *args],
        cwd=str(REPO_ROOT),
    )


def recorder(connection: Connection) -> list[Frame]:
    frames: list[Frame] = []
    connection.add_frame_listener(frames.append)
    return frames


@pytest.mark.parametrize(
    ("wire", "era", "capability"),
    [("legacy", "legacy", "tasks"), ("extension", "modern", "extensions")],
)
async def test_auto_era_against_the_demo_servers(wire: Any, era: str, capability: str) -> None:
    async with Connection(demo_target(wire)) as connection:
        assert connection.state == "connected"
        assert connection.info.era == era
        assert connection.info.transport == "stdio"
        assert capability in connection.info.capabilities
    assert connection.state == "closed"


async def test_auto_falls_back_on_method_not_found_and_stamps_nothing() -> None:
    async with Connection(sdk_server("--legacy-only")) as connection:
        frames = recorder(connection)
        assert connection.info.era == "legacy"
        assert connection.info.protocol_version == "2025-11-25"
        assert connection.info.name == "conn-test"
        assert connection.info.instructions == "connection test server"
        await connection.request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    sent = [f for f in frames if f.direction == "out" and f.method == "tools/call"]
    assert "_meta" not in sent[0].message["params"]  # type: ignore[index]


async def test_forced_legacy_initializes_a_dual_era_server() -> None:
    connection = Connection(sdk_server(), era="legacy")
    frames = recorder(connection)
    async with connection:
        assert connection.info.era == "legacy"
    methods = [f.method for f in frames if f.direction == "out"]
    assert methods[:2] == ["initialize", "notifications/initialized"]
    assert "server/discover" not in methods
    init = next(f for f in frames if f.method == "initialize" and f.direction == "out")
    assert init.message is not None
    assert init.message["params"]["capabilities"] == {
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {},
    }
    assert all((f.reason or "").startswith("connect") for f in frames if f.method != "tools/call")


async def test_forced_modern_against_a_legacy_server_fails_without_fallback() -> None:
    connection = Connection(sdk_server("--legacy-only"), era="modern")
    with pytest.raises(RpcError) as caught:
        await connection.open()
    assert caught.value.code == -32601
    assert connection.state == "closed"


async def test_modern_requests_are_stamped_and_keep_the_callers_meta() -> None:
    async with Connection(sdk_server()) as connection:
        frames = recorder(connection)
        assert connection.info.era == "modern"
        params = {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": "p-1"}}
        result = await connection.request("tools/call", params)
        await connection.request("tools/list", declare_tasks=False)
    assert result["content"][0]["text"] == "hi"
    assert params["_meta"] == {"progressToken": "p-1"}  # the caller's dict is not mutated
    call, listing = (f for f in frames if f.direction == "out")
    assert call.message is not None and listing.message is not None
    meta = call.message["params"]["_meta"]
    assert meta["progressToken"] == "p-1"
    assert meta[META_PROTOCOL_VERSION] == "2026-07-28"
    assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "taskscope"
    assert meta[META_CLIENT_CAPABILITIES]["extensions"] == {"io.modelcontextprotocol/tasks": {}}
    assert "extensions" not in listing.message["params"]["_meta"][META_CLIENT_CAPABILITIES]


async def test_a_silent_discover_falls_back_after_the_probe_timeout() -> None:
    connection = Connection(HOSTILE, probe_timeout=0.5)
    frames = recorder(connection)
    async with connection:
        assert connection.info.era == "legacy"
        assert connection.info.name == "hostile"
    assert [f.method for f in frames if f.direction == "out"][:3] == [
        "server/discover",
        "initialize",
        "notifications/initialized",
    ]


def slow_start(wire: str, delay_s: float) -> StdioTarget:
    """The demo server behind a shell that sleeps first: our messages wait in its stdin pipe,
    as they do for a server that takes seconds to import."""
    demo = " ".join(demo_target(wire).command)  # type: ignore[arg-type]
    return StdioTarget(command=["sh", "-c", f"sleep {delay_s}; exec {demo}"], cwd=str(REPO_ROOT))


async def test_a_modern_server_that_starts_after_the_probe_window_is_spoken_to_modern() -> None:
    connection = Connection(slow_start("extension", 1.0), probe_timeout=0.2)
    frames = recorder(connection)
    async with connection:
        info = connection.info
        assert info.era == "modern" and info.protocol_version == "2026-07-28"
        await connection.request("tools/list")
    decision = info.era_decision
    assert decision is not None
    assert decision.reason == "server/discover answered late (a slow start)"
    out = [f.method for f in frames if f.direction == "out"]
    assert out[:3] == ["server/discover", "initialize", "tools/list"]
    assert "notifications/initialized" not in out
    late = [f for f in frames if f.direction == "in" and f.error and "late response" in f.error]
    assert all("abandoned" in (f.error or "") for f in late)


async def test_a_legacy_server_that_starts_after_the_probe_window_is_spoken_to_legacy() -> None:
    connection = Connection(slow_start("legacy", 1.0), probe_timeout=0.2)
    async with connection:
        assert connection.info.era == "legacy"
        decision = connection.info.era_decision
    assert decision is not None and [s.method for s in decision.steps][:2] == [
        "server/discover",
        "server/discover",
    ]


async def test_garbage_lines_and_unknown_ids_become_error_frames() -> None:
    async with Connection(HOSTILE, era="legacy") as connection:
        frames = recorder(connection)
        assert await connection.request("test/garbage") == {"ok": True}
    errors = [f for f in frames if f.direction == "in" and f.error]
    assert [f.raw for f in errors[:2]] == ["this is not json", '{"not": "jsonrpc"}']
    assert errors[0].message is None and "malformed JSON" in (errors[0].error or "")
    assert "unknown id 9999" in (errors[2].error or "")
    answered = [f for f in frames if f.direction == "in" and f.method == "test/garbage"]
    assert answered[0].latency_ms is not None and answered[0].reason == "user"


async def test_process_exit_fails_pending_requests_with_the_stderr_tail() -> None:
    async with Connection(HOSTILE, era="legacy") as connection:
        # The hostile server never answers unknown methods: this request stays pending.
        never = asyncio.create_task(connection.request("test/never", timeout=None))
        await asyncio.sleep(0.2)
        with pytest.raises(TransportError) as caught:
            await connection.request("test/exit")
        assert caught.value.kind == "closed"
        assert "code 3" in caught.value.message
        assert "the hostile server gives up" in caught.value.message
        with pytest.raises(TransportError) as pending:
            await never
        assert pending.value.kind == "closed" and "code 3" in pending.value.message
        assert connection.state == "closed"
        with pytest.raises(TransportError):
            await connection.request("test/echo")


async def test_timeout_removes_the_request_and_reports_the_late_answer() -> None:
    async with Connection(HOSTILE, era="legacy") as connection:
        frames = recorder(connection)
        with pytest.raises(TransportError) as caught:
            await connection.request("test/slow", {"delay": 0.6}, timeout=0.1)
        assert caught.value.kind == "timeout"
        assert await connection.request("test/echo", {"n": 1}) == {"params": {"n": 1}}
    late = [f for f in frames if f.direction == "in" and f.error and "late" in f.error]
    assert len(late) == 1 and late[0].rpc_id is not None


@pytest.mark.parametrize(
    ("method", "register", "expected"),
    [
        ("ping", False, {"result": {}}),
        ("roots/list", False, {"error": {"code": -32601}}),
        ("roots/list", True, {"result": {"roots": [], "got": {"q": 1}}}),
        ("sampling/createMessage", True, {"error": {"code": -32000, "message": "no model"}}),
    ],
)
async def test_server_requests_are_answered(
    method: str, register: bool, expected: dict[str, Any]
) -> None:
    async def roots(params: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
        assert frame["id"] == "srv-1"
        return {"roots": [], "got": params}

    async def sampling(params: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
        raise RpcError(-32000, "no model")

    async with Connection(HOSTILE, era="legacy") as connection:
        frames = recorder(connection)
        if register:
            connection.set_request_handler(method, roots if method == "roots/list" else sampling)
        result = await connection.request("test/ask", {"method": method})
    answer = result["answer"]
    for key, value in expected.items():
        if isinstance(value, dict) and value and key == "error":
            assert {k: answer["error"][k] for k in value} == value
        else:
            assert answer[key] == value
    reply = next(f for f in frames if f.direction == "out" and f.reason == "answer")
    assert reply.method == method and reply.rpc_id == "srv-1"


async def test_a_failing_frame_listener_cannot_break_the_connection() -> None:
    def explode(frame: Frame) -> None:
        raise RuntimeError("listener bug")

    async with Connection(HOSTILE, era="legacy") as connection:
        remove = connection.add_frame_listener(explode)
        assert await connection.request("test/echo", {"a": 1}) == {"params": {"a": 1}}
        remove()


async def test_a_command_that_does_not_exist_is_a_closed_transport_error() -> None:
    connection = Connection(StdioTarget(command=["/nonexistent/taskscope-test-server"]))
    with pytest.raises(TransportError) as caught:
        await connection.open()
    assert caught.value.kind == "closed"
    assert connection.state == "closed"
