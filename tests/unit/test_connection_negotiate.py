"""The era decision table of negotiate.py, driven by a scripted fake channel (pure logic)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.engine.rpc.advertised import ClientCapabilities
from app.engine.rpc.era import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, stamp_modern
from app.engine.rpc.era_decision import NegotiationError, era_steps
from app.engine.rpc.negotiate import negotiate
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.transports.base import Era, TransportError, TransportKind

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
        self, method: str, params: dict[str, Any], *, timeout: float | None, reason: str
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
        TransportError("http", "HTTP 401", http_status=401),
        TransportError("http", "HTTP 406", http_status=406),
        TransportError("malformed", "HTTP 400 carried no answer", http_status=400),
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
        TransportError("http", "HTTP 429", http_status=429),
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
        params,
        version="2026-07-28",
        client_info={"name": "t", "version": "0"},
        capabilities=ClientCapabilities().modern(declare_tasks=False),
    )
    assert stamped["name"] == "x"
    assert stamped["_meta"]["progressToken"] == 7
    assert stamped["_meta"][META_PROTOCOL_VERSION] == "2026-07-28"
    assert "extensions" not in stamped["_meta"][META_CLIENT_CAPABILITIES]
    assert params["_meta"][META_PROTOCOL_VERSION] == "old"


async def test_the_era_dance_carries_the_advertised_capabilities() -> None:
    capabilities = ClientCapabilities(roots=False, withheld=frozenset({"tasks", "sampling"}))
    channel = ScriptedChannel(discover_result("2025-11-25"), INIT_RESULT)
    await negotiate(
        channel,
        "auto",
        client_info={"name": "t", "version": "0"},
        probe_timeout=0.1,
        request_timeout=1.0,
        advertised=capabilities,
    )
    (_, discover, *_), (_, initialize, *_) = channel.sent
    assert discover["_meta"][META_CLIENT_CAPABILITIES] == {"elicitation": {"form": {}, "url": {}}}
    assert initialize["capabilities"] == {"elicitation": {"form": {}, "url": {}}}


@pytest.mark.parametrize(
    "result",
    [{}, {"resultType": "complete"}, discover_result(), discover_result("banana", "v2")],
)
async def test_a_discover_result_without_modern_versions_is_legacy(result: Any) -> None:
    channel = ScriptedChannel(result, INIT_RESULT)
    agreed = await run(channel)
    assert agreed.era == "legacy" and channel.methods == ["server/discover", "initialize"]
    assert "not modern" in agreed.decision.steps[0].answer


@pytest.mark.parametrize("rpc_id", [None, "server-error", 99])
async def test_an_http_400_error_with_any_id_falls_back(rpc_id: Any) -> None:
    frame = {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32000, "message": "Bad Request"}}
    refusal = RpcError(-32000, "Bad Request: Server not initialized", http_status=400, frame=frame)
    channel = ScriptedChannel(refusal, INIT_RESULT)
    agreed = await run(channel)
    assert agreed.era == "legacy"
    decision = agreed.decision.as_json()
    assert decision["preference"] == "auto" and decision["settled"] == "legacy"
    assert [step["method"] for step in decision["tried"]] == ["server/discover", "initialize"]
    assert decision["tried"][0]["answer"].startswith("HTTP 400, JSON-RPC error -32000")
    assert "not a modern error" in decision["reason"]


async def test_the_decision_names_each_request_and_why() -> None:
    channel = ScriptedChannel(discover_result("2026-07-28"))
    decision = (await run(channel)).decision
    assert decision.era == "modern" and decision.reason == "server/discover answered"
    assert decision.steps[0].answer == "a result listing 2026-07-28"
    assert decision.summary() == "auto → modern: server/discover answered"


class ControlledChannel:
    """Each request waits on a future the test settles, so the race is driven by events."""

    transport_kind: TransportKind = "stdio"

    def __init__(self) -> None:
        self.requests: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.cancelled: list[str] = []
        self.sent: list[str] = []
        self.sent_event = asyncio.Event()
        self.notified: list[str] = []
        self.era: Era | None = None

    def use_era(self, era: Era, protocol_version: str) -> None:
        self.era = era

    async def handshake_request(
        self, method: str, params: dict[str, Any], *, timeout: float | None, reason: str
    ) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        key = method if method not in self.requests else f"{method}#2"
        self.requests[key] = future
        self.sent.append(key)
        self.sent_event.set()
        try:
            return await future
        except asyncio.CancelledError:
            self.cancelled.append(key)
            raise

    async def handshake_notify(self, method: str, params: dict[str, Any] | None) -> None:
        self.notified.append(method)

    def is_rpc_error(self, error: BaseException) -> bool:
        return isinstance(error, RpcError)

    async def wait_for(self, key: str) -> asyncio.Future[dict[str, Any]]:
        while key not in self.requests:
            self.sent_event.clear()
            await self.sent_event.wait()
        return self.requests[key]


def start(channel: ControlledChannel) -> asyncio.Task[Any]:
    return asyncio.create_task(
        negotiate(
            channel,
            "auto",
            client_info={"name": "t", "version": "0"},
            probe_timeout=0.0,
            request_timeout=60.0,
        )
    )


async def test_a_late_discover_answer_wins_over_the_fallback_initialize() -> None:
    channel = ControlledChannel()
    dance = start(channel)
    probe = await channel.wait_for("server/discover")
    await channel.wait_for("initialize")
    probe.set_result(discover_result("2026-07-28"))
    agreed = await dance
    assert agreed.era == "modern" and channel.era == "modern"
    assert channel.cancelled == ["initialize"] and channel.notified == []
    assert agreed.decision.reason == "server/discover answered late (a slow start)"
    answers = [step.answer for step in agreed.decision.steps]
    assert answers[0].startswith("no answer within 0 s; kept listening")
    assert answers[1] == "late: a result listing 2026-07-28"
    assert answers[2].startswith("abandoned")


async def test_initialize_refused_with_a_modern_version_means_modern() -> None:
    channel = ControlledChannel()
    dance = start(channel)
    probe = await channel.wait_for("server/discover")
    init = await channel.wait_for("initialize")
    probe.set_exception(TransportError("timeout", "silent"))
    init.set_exception(RpcError(-32022, "Unsupported", {"supported": ["2026-07-28"]}))
    again = await channel.wait_for("server/discover#2")
    again.set_result(discover_result("2026-07-28"))
    agreed = await dance
    assert agreed.era == "modern" and channel.sent == [
        "server/discover",
        "initialize",
        "server/discover#2",
    ]
    assert "-32022" in agreed.decision.reason


async def test_an_initialize_answer_while_the_probe_is_silent_means_legacy() -> None:
    channel = ControlledChannel()
    dance = start(channel)
    await channel.wait_for("server/discover")
    init = await channel.wait_for("initialize")
    init.set_result(INIT_RESULT)
    agreed = await dance
    assert agreed.era == "legacy" and channel.cancelled == ["server/discover"]
    assert channel.notified == ["notifications/initialized"]


async def test_a_failed_dance_keeps_its_steps() -> None:
    channel = ScriptedChannel(RpcError(-32601, "nope"), TransportError("closed", "gone"))
    with pytest.raises(TransportError) as caught:
        await run(channel)
    steps = era_steps(caught.value)
    assert [step.method for step in steps] == ["server/discover", "initialize"]
    assert steps[1].answer == "gone"


async def test_over_http_a_slow_probe_is_awaited_not_raced() -> None:
    channel = ControlledChannel()
    channel.transport_kind = "http"
    dance = start(channel)
    probe = await channel.wait_for("server/discover")
    for _ in range(20):  # the probe window (0 s) passes many times over
        await asyncio.sleep(0)
    assert channel.sent == ["server/discover"]
    probe.set_result(discover_result("2026-07-28"))
    agreed = await dance
    assert agreed.era == "modern" and channel.sent == ["server/discover"]


async def test_an_initialize_refused_as_the_late_probe_wins_leaves_no_unseen_error() -> None:
    """Both answer in the same moment (many servers starting at once): the probe settles the
    era, and the dropped initialize's -32022 is no "exception never retrieved"."""
    import gc

    loop = asyncio.get_running_loop()
    unseen: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: unseen.append(context))
    try:
        channel = ControlledChannel()
        dance = start(channel)
        probe = await channel.wait_for("server/discover")
        init = await channel.wait_for("initialize")
        probe.set_result(discover_result("2026-07-28"))
        init.set_exception(RpcError(-32022, "Unsupported", {"supported": ["2026-07-28"]}))
        agreed = await dance
        assert agreed.era == "modern"
        del init, probe, dance
        for _ in range(3):
            await asyncio.sleep(0)
            gc.collect()
        assert unseen == []
    finally:
        loop.set_exception_handler(None)
