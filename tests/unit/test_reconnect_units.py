"""Pure reconnect logic: the backoff policy, what counts as a lost connection, the event lines, and
the session adapter's retry-after-reconnect (with fake adapters: no server involved)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.rpc.reconnect import (
    LOST_WITH_OLD_SESSION,
    ConnectionEvent,
    ReconnectPolicy,
    is_connection_lost,
)
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.session_adapter import SessionAdapter
from app.engine.rpc.transports.base import TransportError
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.contract import TaskUnknown
from app.engine.tasks.models import InputKind, InputRequest, Task
from app.engine.tasks.normalize import Variants

LOST = TransportError("closed", "server process exited with code -9")


def test_backoff_doubles_from_one_second_up_to_thirty() -> None:
    policy = ReconnectPolicy(jitter=0.0)
    assert [policy.delay(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]
    assert policy.delay(200) == 30


def test_jitter_stays_within_its_band_and_under_the_cap() -> None:
    policy = ReconnectPolicy()
    assert policy.delay(3, lambda: 0.0) == pytest.approx(4 * 0.8)
    assert policy.delay(3, lambda: 1.0) == pytest.approx(4 * 1.2)
    assert policy.delay(6, lambda: 1.0) == 30  # 32 s is capped before and after the jitter


@pytest.mark.parametrize(
    ("error", "closed", "legacy_http", "lost"),
    [
        (LOST, True, False, True),
        (TransportError("timeout", "tasks/get got no answer within 5 s"), False, False, False),
        (
            TransportError("closed", "HTTP request failed: ConnectError('refused')"),
            False,
            False,
            True,
        ),
        (
            TransportError("closed", "HTTP request failed: RemoteProtocolError('disconnected')"),
            False,
            False,
            False,
        ),
        (TransportError("http", "HTTP 404 Not Found", http_status=404), False, True, True),
        (TransportError("http", "HTTP 404 Not Found", http_status=404), False, False, False),
        (TransportError("http", "HTTP 503", http_status=503), False, True, False),
        (RpcError(-32602, "Task not found"), True, False, False),
    ],
)
def test_what_counts_as_a_lost_connection(
    error: BaseException, closed: bool, legacy_http: bool, lost: bool
) -> None:
    assert is_connection_lost(error, closed=closed, legacy_http=legacy_http) is lost


def test_event_lines() -> None:
    at = 1000.0
    reconnecting = ConnectionEvent("reconnecting", at, attempt=3, delay_s=4.2)
    assert reconnecting.describe() == "reconnecting in 4 s (attempt 3)"
    assert reconnecting.describe(at + 3.0) == "reconnecting in 1 s (attempt 3)"
    assert reconnecting.describe(at + 9.0) == "reconnecting in 0 s (attempt 3)"
    refused = ConnectionEvent("reconnecting", at, 1, 1.0, "connection refused")  # at the start
    assert refused.describe(at) == "reconnecting in 1 s (attempt 1): connection refused"
    assert ConnectionEvent("lost", at, detail="EOF").describe() == "connection lost: EOF"
    assert ConnectionEvent("reconnected", at, attempt=1).describe() == "reconnected after 1 attempt"
    assert ConnectionEvent("gave_up", at, 5, detail="x").describe() == "gave up reconnecting: x"


# -- the session adapter with fakes ----------------------------------------------------------------


def task(task_id: str, wire: Any = "extension") -> Task:
    return Task(task_id=task_id, wire=wire, status="working")


class FakeAdapter:
    """A wire adapter whose verbs succeed or raise what the test says."""

    def __init__(self, wire: str, broker: InputBroker, fail: BaseException | None = None) -> None:
        from app.engine.tasks.contract import TasksCapabilities

        self.capabilities = TasksCapabilities(wire=wire)  # type: ignore[arg-type]
        self.variants = Variants()
        self.broker = broker
        self.tools: dict[str, str] = {}
        self.fail = fail
        self.calls: list[tuple[str, Any]] = []

    async def get(self, task_id: str, *, reason: str = "poll") -> Task:
        self.calls.append(("get", task_id))
        if self.fail is not None:
            raise self.fail
        return task(task_id, self.capabilities.wire)

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None:
        self.calls.append(("answer_many", responses))
        if self.fail is not None:
            raise self.fail
        self.broker.acknowledge(task_id, responses)

    async def create(self, tool: str, arguments: dict[str, Any], **_: Any) -> Any:
        self.calls.append(("create", tool))
        raise LOST

    def on_progress(self, listener: Any) -> None: ...

    def on_status(self, listener: Any) -> None: ...


class FakeSupervisor:
    """Reconnects (to `replacement`) on the first lost connection it is told about."""

    def __init__(self, first: FakeAdapter, replacement: FakeAdapter) -> None:
        self.current = first
        self.replacement = replacement
        self.generation = 0
        self.adapter: SessionAdapter | None = None
        self.healthy: list[int] = []

    async def ready(self) -> tuple[Any, int]:
        return self.current, self.generation

    def succeeded(self, generation: int) -> None:
        self.healthy.append(generation)

    async def recover(self, error: BaseException, generation: int) -> bool:
        if generation < self.generation:
            return True
        if error is not LOST:
            return False
        self.generation += 1
        self.current = self.replacement
        assert self.adapter is not None
        self.adapter.swap(self.replacement, self.generation)  # type: ignore[arg-type]
        return True


def session_adapter(
    wire: str, first_fails: BaseException | None, second_fails: Any = None
) -> tuple[SessionAdapter, FakeAdapter, FakeAdapter]:
    broker = InputBroker()
    first = FakeAdapter(wire, broker, first_fails)
    second = FakeAdapter(wire, broker, second_fails)
    supervisor = FakeSupervisor(first, second)
    adapter = SessionAdapter(supervisor, first)  # type: ignore[arg-type]
    supervisor.adapter = adapter
    return adapter, first, second


async def test_a_poll_lost_with_the_connection_is_sent_again_after_the_reconnect() -> None:
    adapter, first, second = session_adapter("extension", LOST)
    got = await adapter.get("t1")
    assert got.task_id == "t1"
    assert first.calls == [("get", "t1")] and second.calls == [("get", "t1")]


async def test_an_answer_typed_before_the_loss_is_kept_and_sent_after_the_reconnect() -> None:
    adapter, first, second = session_adapter("extension", LOST)
    request = InputRequest(
        key="k",
        kind=InputKind.FORM,
        method="elicitation/create",
        params={},
        wire="extension",
        task_id="t1",
    )
    adapter.broker.offer(request)
    adapter.broker.stage(request, {"action": "accept"})
    await adapter.answer_many("t1", {"k": {"action": "accept"}})
    assert second.calls == [("answer_many", {"k": {"action": "accept"}})]
    assert adapter.broker.is_answered("t1", "k")
    assert second.broker is first.broker  # the one broker outlives the connection


async def test_a_create_is_never_sent_twice() -> None:
    adapter, first, second = session_adapter("extension", None)
    with pytest.raises(TransportError):
        await adapter.create("tool", {})
    assert first.calls == [("create", "tool")] and second.calls == []


async def test_a_failure_that_is_not_a_loss_is_not_retried() -> None:
    other = RpcError(-32603, "boom")
    adapter, first, second = session_adapter("extension", other)
    with pytest.raises(RpcError):
        await adapter.get("t1")
    assert first.calls == [("get", "t1")] and second.calls == []


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_a_task_the_new_session_cannot_see(wire: str) -> None:
    """Legacy: the old session took it along; extension: simply unknown to the server."""
    unknown = TaskUnknown("t1", "tasks/get: Task not found (-32602)")
    adapter, first, _second = session_adapter(wire, None, unknown)
    await adapter.get("t1")  # seen by the first session
    first.fail = LOST
    with pytest.raises(TaskUnknown) as raised:
        await adapter.get("t1")
    if wire == "legacy":
        assert (
            raised.value.detail == f"{LOST_WITH_OLD_SESSION} (tasks/get: Task not found (-32602))"
        )
    else:
        assert raised.value is unknown
