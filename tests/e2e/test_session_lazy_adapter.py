"""`EngineSession` builds its wire adapter on first use: the capabilities come from the negotiated
server alone, plain requests need no adapter (and reconnect without one), and the adapter built
later speaks on the live connection. Real demo servers over stdio."""

from __future__ import annotations

import os
import signal

import pytest

from app.engine.rpc.reconnect import ConnectionEvent, ReconnectPolicy
from app.engine.rpc.session import EngineSession, WireMismatch
from app.engine.rpc.targets import StdioTarget
from app.engine.tasks.contract import TaskUnknown
from tests.support.demo_servers import REPO_ROOT, demo_children, stdio_demo_command, until

pytestmark = pytest.mark.timeout(60)

QUICK_POLICY = ReconnectPolicy(attempts=5, first_delay_s=0.1, max_delay_s=0.2)


def demo_target(wire: str) -> StdioTarget:
    return StdioTarget(stdio_demo_command(wire), cwd=str(REPO_ROOT))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("wire", "declared"),
    [
        ("legacy", {"list": True, "update": False, "inlineResult": False}),
        ("extension", {"list": False, "update": True, "inlineResult": True}),
    ],
)
async def test_capabilities_without_an_adapter_match_the_adapters(
    wire: str, declared: dict[str, bool]
) -> None:
    session = EngineSession(demo_target(wire))
    await session.open()
    try:
        capabilities = session.capabilities
        assert session.wire == wire
        assert {key: capabilities.as_json()[key] for key in declared} == declared
        assert session.adapter.capabilities == capabilities
    finally:
        await session.close()


async def test_expected_wire_is_still_asserted_before_any_adapter() -> None:
    session = EngineSession(demo_target("legacy"), expected_wire="extension")
    with pytest.raises(WireMismatch) as mismatch:
        await session.open()
    assert (mismatch.value.expected, mismatch.value.actual) == ("extension", "legacy")
    assert session.state == "failed"


async def test_plain_requests_reconnect_before_the_adapter_exists_and_it_then_works() -> None:
    session = EngineSession(demo_target("extension"), policy=QUICK_POLICY, request_timeout=5.0)
    events: list[ConnectionEvent] = []
    session.add_connection_listener(events.append)
    await session.open()
    try:
        first = session.connection
        assert "tools" in await session.request("tools/list")
        for pid in demo_children():
            os.kill(pid, signal.SIGKILL)
        await until(lambda: session.state == "connected" and session.connection is not first)
        assert "tools" in await session.request("tools/list")
        assert [event.kind for event in events] == ["lost", "reconnecting", "reconnected"]
        with pytest.raises(TaskUnknown):
            await session.adapter.get("no-such-task", reason="user")
    finally:
        await session.close()
