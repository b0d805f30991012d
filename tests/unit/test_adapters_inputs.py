"""The input broker: deduplication by (task, key), answered keys, staged answers and waiters."""

from __future__ import annotations

import asyncio

import pytest

from app.engine.rpc.rpc_types import RpcError
from app.engine.tasks.broker import InputBroker, InputNotPending
from app.engine.tasks.models import InputKind, InputRequest


def ask(key: str, task_id: str | None = "t1", wire: str = "extension") -> InputRequest:
    return InputRequest(
        key=key,
        kind=InputKind.FORM,
        method="elicitation/create",
        params={"message": key},
        wire=wire,  # type: ignore[arg-type]
        task_id=task_id,
    )


def test_each_request_is_announced_once() -> None:
    broker = InputBroker()
    seen: list[str] = []
    broker.add_listener(lambda request: seen.append(request.key))
    assert broker.offer(ask("a")) is True
    assert broker.offer(ask("a")) is False
    assert broker.offer(ask("a", task_id="t2")) is True  # same key, other task
    assert seen == ["a", "a"]
    assert [r.task_id for r in broker.pending()] == ["t1", "t2"]
    assert [r.key for r in broker.pending("t2")] == ["a"]


def test_snapshot_repeats_are_not_reannounced_and_answered_keys_stay_silent() -> None:
    broker = InputBroker()
    seen: list[str] = []
    broker.add_listener(lambda request: seen.append(request.key))
    assert broker.sync("t1", [ask("a"), ask("b")]) == (ask("a"), ask("b"))
    assert broker.sync("t1", [ask("a"), ask("b")]) == (ask("a"), ask("b"))
    broker.acknowledge("t1", ["a"])
    # the server still lists "a" for a while (eventual consistency): not shown, not announced
    assert broker.sync("t1", [ask("a"), ask("b")]) == (ask("b"),)
    assert broker.is_answered("t1", "a") and not broker.is_answered("t1", "b")
    assert seen == ["a", "b"]


def test_keys_the_server_drops_leave_the_pending_list() -> None:
    broker = InputBroker()
    broker.sync("t1", [ask("a"), ask("b")])
    broker.stage(ask("b"), {"action": "accept"})
    assert broker.sync("t1", []) == ()
    assert broker.pending() == []
    assert broker.is_answered("t1", "b")  # a staged answer the server dropped counts as taken
    assert not broker.is_answered("t1", "a")  # superseded, never answered


def test_failed_update_keeps_the_typed_answer() -> None:
    broker = InputBroker()
    broker.sync("t1", [ask("a")])
    broker.stage(ask("a"), {"action": "accept", "content": {"x": 1}})
    assert broker.sync("t1", [ask("a")]) == (ask("a"),)
    assert broker.staged_answer(ask("a")) == {"action": "accept", "content": {"x": 1}}
    broker.acknowledge("t1", ["a"])
    assert broker.staged_answer(ask("a")) is None


def test_listener_failure_does_not_stop_others() -> None:
    broker = InputBroker()
    seen: list[str] = []

    def broken(request: InputRequest) -> None:
        raise RuntimeError("boom")

    broker.add_listener(broken)
    broker.add_listener(lambda request: seen.append(request.key))
    broker.offer(ask("a"))
    assert seen == ["a"]


async def test_waiter_gets_the_answer_and_the_key_is_remembered() -> None:
    broker = InputBroker()
    request = ask("7", wire="legacy")
    broker.offer(request)
    waiter = asyncio.create_task(broker.wait(request))
    await asyncio.sleep(0)
    broker.resolve(request, {"action": "decline"})
    assert await waiter == {"action": "decline"}
    assert broker.pending() == [] and broker.is_answered("t1", "7")
    with pytest.raises(InputNotPending):
        broker.resolve(request, {"action": "accept"})  # never answered twice
    assert broker.offer(request) is False


async def test_cancelled_wait_withdraws_the_request() -> None:
    broker = InputBroker()
    request = ask("9", wire="legacy")
    broker.offer(request)
    waiter = asyncio.create_task(broker.wait(request))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert broker.pending() == []
    with pytest.raises(InputNotPending):
        await broker.wait(request)


async def test_task_less_request_can_be_attached_to_its_task() -> None:
    broker = InputBroker()
    untied = ask("5", task_id=None, wire="legacy")
    broker.offer(untied)
    waiter = asyncio.create_task(broker.wait(untied))
    await asyncio.sleep(0)
    broker.attach("5", "t9")
    (attached,) = broker.pending("t9")
    assert attached.task_id == "t9" and broker.pending(None) == [attached]
    broker.resolve(untied, {"action": "accept"})  # the original object still answers it
    assert await waiter == {"action": "accept"}


async def test_task_less_keys_may_come_back_in_a_later_round() -> None:
    """MRTR keys are per round: an answered task-less key is not remembered."""
    broker = InputBroker()
    first = ask("name", task_id=None)
    broker.offer(first)
    broker.resolve(first, {"action": "accept"})
    assert broker.offer(ask("name", task_id=None)) is True


def test_unknown_requests_are_not_pending() -> None:
    broker = InputBroker()
    with pytest.raises(InputNotPending, match="'x' of task t1"):
        broker.stage(ask("x"), {})
    assert broker.staged_answer(ask("x")) is None
    broker.withdraw(ask("x"))  # harmless
    broker.attach("nope", "t1")  # harmless


async def test_an_answer_given_before_the_wait_is_not_lost() -> None:
    broker = InputBroker()
    request = ask("round", task_id=None)
    broker.offer(request)
    broker.resolve(request, {"action": "accept"})
    assert await broker.wait(request) == {"action": "accept"}
    with pytest.raises(InputNotPending):
        await broker.wait(request)


async def test_a_rejection_makes_the_waiter_raise_and_counts_as_answered() -> None:
    broker = InputBroker()
    request = ask("7", wire="legacy")
    broker.offer(request)
    waiter = asyncio.ensure_future(broker.wait(request))
    await asyncio.sleep(0)
    broker.reject(request, RpcError(-1, "User rejected sampling request"))
    with pytest.raises(RpcError, match="User rejected sampling request"):
        await waiter
    assert broker.pending() == [] and broker.is_answered("t1", "7")
    with pytest.raises(InputNotPending):
        broker.reject(request, RpcError(-1, "again"))


async def test_a_rejection_given_before_the_wait_is_not_lost() -> None:
    broker = InputBroker()
    request = ask("8", task_id=None, wire="legacy")
    broker.offer(request)
    broker.reject(request, RpcError(-1, "no"))
    with pytest.raises(RpcError, match="no"):
        await broker.wait(request)
