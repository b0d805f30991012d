"""The era decision table of negotiate.py, driven by a scripted fake channel (pure logic)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.negotiate import (
    META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION,
    NegotiationError,
    negotiate,
    stamp_modern,
)
from app.engine.rpc_types import RpcError
from app.engine.transports.base import Era, TransportError, TransportKind

INIT_RESULT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tasks": {}},
    "serverInfo": {"name": "old", "version": "1"},
}


def discover_result(*versions: str) -> dict[str, Any]:
    return {
        "resultType": "complete",
        "supportedVersions": list(versions),
        "capabilities": {"tools": {}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "new", "version": "2"}},
    }


class ScriptedChannel:
    """Answers each request with the next scripted outcome and records what was sent."""

    transport_kind: TransportKind = "http"

    def __init__(self, *outcomes: dict[str, Any] | BaseException) -> None:
        self.outcomes = list(outcomes)
        self.sent: list[tuple[str, dict[str, Any], Era | None, str | None]] = []
        self.notified: list[str] = []
        self.era: Era | None = None
        self.version: str | None = None

    def use_era(self, era: Era, protocol_version: str) -> None:
        self.era, self.version = era, protocol_version

    async def handshake_request(
        self, method: str, params: dict[str, Any], *, timeout: float | None
    ) -> dict[str, Any]:
        self.sent.append((method, params, self.era, self.version))
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    async def handshake_notify(self, method: str, params: dict[str, Any] | None) -> None:
        self.notified.append(method)

    def is_rpc_error(self, error: BaseException) -> bool:
        return isinstance(error, RpcError)

    @property
    def methods(self) -> list[str]:
        return [method for method, *_ in self.sent]


async def run(channel: ScriptedChannel, preference: Any = "auto") -> Any:
    return await negotiate(
        channel,
        preference,
        client_info={"name": "t", "version": "0"},
        probe_timeout=0.1,
        request_timeout=1.0,
    )


async def test_a_discover_result_means_modern() -> None:
    channel = ScriptedChannel(discover_result("2026-07-28"))
    agreed = await run(channel)
    assert (agreed.era, agreed.protocol_version, agreed.name) == ("modern", "2026-07-28", "new")
    assert channel.methods == ["server/discover"] and channel.era == "modern"
    meta = channel.sent[0][1]["_meta"]
    assert meta[META_PROTOCOL_VERSION] == "2026-07-28"
    assert META_CLIENT_CAPABILITIES in meta


async def test_a_discover_result_without_a_modern_version_falls_back() -> None:
    channel = ScriptedChannel(discover_result("2025-11-25"), INIT_RESULT)
    agreed = await run(channel)
    assert agreed.era == "legacy" and channel.methods == ["server/discover", "initialize"]
    assert channel.notified == ["notifications/initialized"]


@pytest.mark.parametrize("code", [-32022, -32004])
async def test_unsupported_version_retries_at_the_named_version(code: int) -> None:
    refusal = RpcError(code, "unsupported", {"supported": ["2027-01-01"], "requested": "x"})
    channel = ScriptedChannel(refusal, discover_result("2027-01-01"))
    agreed = await run(channel)
    assert agreed.era == "modern" and agreed.protocol_version == "2027-01-01"
    assert channel.methods == ["server/discover", "server/discover"]
    assert channel.sent[1][1]["_meta"][META_PROTOCOL_VERSION] == "2027-01-01"


async def test_unsupported_version_naming_only_handshake_versions_initializes() -> None:
    refusal = RpcError(-32022, "unsupported", {"supported": ["2025-11-25"]})
    channel = ScriptedChannel(refusal, INIT_RESULT)
    assert (await run(channel)).era == "legacy"


async def test_unsupported_version_naming_nothing_usable_is_an_error() -> None:
    channel = ScriptedChannel(RpcError(-32022, "unsupported", {"supported": []}))
    with pytest.raises(NegotiationError):
        await run(channel)


@pytest.mark.parametrize("code", [-32021, -32020, -32003, -32001])
async def test_other_modern_errors_never_fall_back(code: int) -> None:
    channel = ScriptedChannel(RpcError(code, "modern refusal"))
    with pytest.raises(RpcError):
        await run(channel)
    assert channel.methods == ["server/discover"]


@pytest.mark.parametrize(
    "failure",
    [
        RpcError(-32601, "Method not found"),
        RpcError(-32600, "Server not initialized"),
        TransportError("http", "HTTP 400", http_status=400),
        TransportError("http", "HTTP 404", http_status=404),
        TransportError("http", "HTTP 405", http_status=405),
        TransportError("timeout", "silent"),
    ],
)
async def test_legacy_signals_fall_back_to_initialize(failure: BaseException) -> None:
    channel = ScriptedChannel(failure, INIT_RESULT)
    agreed = await run(channel)
    assert agreed.era == "legacy" and agreed.name == "old"
    assert channel.methods == ["server/discover", "initialize"]
    assert channel.sent[1][2:] == ("legacy", "2025-11-25")


@pytest.mark.parametrize(
    "failure",
    [
        TransportError("http", "HTTP 401", http_status=401),
        TransportError("http", "HTTP 503", http_status=503),
        TransportError("closed", "gone"),
    ],
)
async def test_transport_failures_are_not_an_era_verdict(failure: BaseException) -> None:
    channel = ScriptedChannel(failure)
    with pytest.raises(TransportError):
        await run(channel)


async def test_forced_eras() -> None:
    legacy = ScriptedChannel(INIT_RESULT)
    assert (await run(legacy, "legacy")).era == "legacy"
    assert legacy.methods == ["initialize"]
    modern = ScriptedChannel(RpcError(-32601, "Method not found"))
    with pytest.raises(RpcError):
        await run(modern, "modern")


def test_stamping_merges_with_the_callers_meta() -> None:
    params = {"name": "x", "_meta": {"progressToken": 7, META_PROTOCOL_VERSION: "old"}}
    stamped = stamp_modern(
        params, version="2026-07-28", client_info={"name": "t", "version": "0"}, declare_tasks=False
    )
    assert stamped["name"] == "x"
    assert stamped["_meta"]["progressToken"] == 7
    assert stamped["_meta"][META_PROTOCOL_VERSION] == "2026-07-28"
    assert "extensions" not in stamped["_meta"][META_CLIENT_CAPABILITIES]
    assert params["_meta"][META_PROTOCOL_VERSION] == "old"
