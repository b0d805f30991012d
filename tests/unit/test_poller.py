"""The poller against an in-test adapter, in virtual time: exact event sequences and poll timing.

Every test runs its scenario on `VirtualTimeLoop`, so minutes of polling take milliseconds and
poll times are exact.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

import pytest

from app.engine.polling.clock import run_in_virtual_time
from app.engine.polling.poller import Poller
from app.engine.rpc.rpc_types import RpcError
from app.engine.tasks.contract import (
    TaskUnknown,
)
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import (
    InputKind,
    InputRequest,
    Progress,
    ProtocolViolation,
    Task,
    TaskError,
)
from tests.support.fake_adapter import FakeAdapter, Recorder, make_task


def virtual(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    run_in_virtual_time(main())


async def at(moment: float, action: Callable[[], object]) -> None:
    """Run `action` at a virtual moment."""
    await asyncio.sleep(moment - asyncio.get_running_loop().time())
    result = action()
    if isinstance(result, Awaitable):
        await result


def now() -> float:
    return asyncio.get_running_loop().time()


# ------------------------------------------------------------------ sequences and pacing


def test_events_from_creation_to_inline_result() -> None:
    adapter = FakeAdapter()
    adapter.script(
        "t",
        make_task(),
        make_task(message="half way"),
        make_task("completed", result={"content": []}),
    )
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        assert poller.watch(make_task())
        assert not poller.watch(make_task())
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "polled", "changed", "transition", "result", "stopped"]
    assert adapter.poll_times() == [2.0, 4.0, 6.0]
    created, polled, changed, transition, result, stopped = rec.events
    assert created.source == "create"
    assert created.next_poll is not None and created.next_poll.due == 2.0
    assert created.next_poll.term == "server" and created.next_poll.delay == 2.0
    assert polled.source == "poll" and changed.task is not None
    assert changed.task.status_message == "half way"
    assert transition.previous_status == "working" and transition.next_poll is None
    assert result.task is not None and result.task.result == {"content": []}
    assert stopped.detail == "completed" and stopped.next_poll is None


def test_last_updated_at_alone_is_not_a_change() -> None:
    adapter = FakeAdapter()
    bumped = make_task().model_copy(update={"last_updated_at": datetime.now(UTC)})
    adapter.script("t", bumped, make_task("completed", result={}))
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task())
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds()[:2] == ["created", "polled"]


def test_no_poll_comes_sooner_than_the_hint_of_the_answer_before_it() -> None:
    hints = [500, 5000, 100, 3000, 250, 1200, 60_000, 700]
    adapter = FakeAdapter()
    adapter.latency["t"] = 0.07
    adapter.script(
        "t", *[make_task(hint=h) for h in hints], make_task("completed", result={}, hint=None)
    )
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(hint=1000))
        await poller.run_until_idle()

    virtual(main)
    times = adapter.poll_times()
    asked = [1000, *hints]
    assert len(times) == len(asked)
    for previous, following, hint in zip(times, times[1:], asked[1:], strict=False):
        assert following - previous >= max(hint, 250) / 1000
    terms = [e.next_poll.term for e in rec.events if e.next_poll is not None]
    assert "floor" in terms and "server" in terms


@pytest.mark.parametrize(
    ("hint", "user_min", "interval", "term"),
    [
        (500, 2000, 2.0, "user"),
        (3000, 2000, 3.0, "server"),
        (None, None, 1.0, "user"),
        (None, 400, 0.4, "user"),
        (100, None, 0.25, "floor"),
    ],
)
def test_user_minimum_and_default(
    hint: int | None, user_min: int | None, interval: float, term: str
) -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task(hint=hint), make_task(hint=hint), make_task("failed", hint=hint))
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec, user_min_ms=user_min)
        poller.watch(make_task(hint=hint))
        await poller.run_until_idle()

    virtual(main)
    assert adapter.poll_times() == pytest.approx([interval, 2 * interval, 3 * interval])
    assert {e.next_poll.term for e in rec.events if e.next_poll} == {term}


def test_backoff_grows_retry_after_is_honoured_and_success_resets() -> None:
    adapter = FakeAdapter()
    adapter.script(
        "t",
        RpcError(-32603, "internal"),
        TimeoutError("slow"),
        RpcError(-32000, "rate limited", retry_after=30.0),
        make_task(hint=None),
        make_task("completed", result={}, hint=None),
    )
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(hint=None))
        await poller.run_until_idle()

    virtual(main)
    assert adapter.poll_times() == [1.0, 2.0, 4.0, 34.0, 35.0]
    assert rec.kinds() == [
        "created",
        "error",
        "error",
        "error",
        "polled",
        "transition",
        "result",
        "stopped",
    ]
    errors = rec.of("error")
    assert [(e.next_poll.delay, e.next_poll.term) for e in errors if e.next_poll] == [
        (1.0, "backoff"),
        (2.0, "backoff"),
        (30.0, "retry-after"),
    ]
    assert errors[0].detail is not None and "internal" in errors[0].detail
    assert all(e.task == make_task(hint=None) for e in errors)  # the last good state is kept
    polled = rec.of("polled")[0]
    assert polled.next_poll is not None and polled.next_poll.term == "user"


def test_errors_still_honour_the_server_hint() -> None:
    adapter = FakeAdapter()
    adapter.script("t", RpcError(-32603, "oops"), make_task("completed", result={}))

    async def main() -> None:
        poller = Poller(adapter, Recorder())
        poller.watch(make_task(hint=10_000))
        await poller.run_until_idle()

    virtual(main)
    assert adapter.poll_times() == [10.0, 20.0]


def test_too_many_consecutive_errors_stop_the_watch() -> None:
    adapter = FakeAdapter()
    adapter.script("t", RpcError(-32603, "down"))
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec, max_consecutive_errors=3)
        poller.watch(make_task(hint=None))
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "error", "error", "error", "stopped"]
    assert rec.events[-1].detail == "3 consecutive errors"
    assert len(adapter.polls) == 3


# ------------------------------------------------------------------ terminal, expiry, violations


def test_legacy_terminal_fetches_the_result_once() -> None:
    adapter = FakeAdapter("legacy")
    adapter.script("t", make_task(wire="legacy"), make_task("completed", wire="legacy"))
    adapter.fetch_answers["t"] = {"content": [{"type": "text", "text": "done"}]}
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(wire="legacy"))
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "polled", "transition", "result", "stopped"]
    assert adapter.fetches == ["t"]
    final = rec.of("result")[0].task
    assert final is not None and final.result_source == "fetched"
    assert final.result == {"content": [{"type": "text", "text": "done"}]}


def test_legacy_json_rpc_error_from_tasks_result_is_the_task_error() -> None:
    adapter = FakeAdapter("legacy")
    adapter.script("t", make_task("failed", wire="legacy"))
    adapter.fetch_answers["t"] = RpcError(-32603, "tool exploded", {"why": "x"})
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(wire="legacy"))
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "transition", "result", "stopped"]
    final = rec.of("result")[0].task
    assert final is not None
    assert final.error == TaskError(code=-32603, message="tool exploded", data={"why": "x"})


def test_a_task_created_terminal_is_reported_without_polling() -> None:
    adapter = FakeAdapter()
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task("completed", result={"isError": True}))
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "result", "stopped"]
    assert adapter.polls == []


def test_unknown_task_expires_and_is_no_longer_polled() -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task(), TaskUnknown("t", "Task not found"))
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task())
        await poller.run_until_idle()
        assert poller.watched() == {}

    virtual(main)
    assert rec.kinds() == ["created", "polled", "expired", "stopped"]
    assert rec.of("expired")[0].detail == "Task not found"
    assert rec.events[-1].detail == "expired"
    assert len(adapter.polls) == 2


def test_violation_keeps_the_last_good_state_and_the_next_good_poll_clears_it() -> None:
    adapter = FakeAdapter()
    bad_frame = {"taskId": "t", "status": "exploding"}
    adapter.script(
        "t",
        ProtocolViolation("unknown task status 'exploding'", bad_frame),
        make_task(),
        make_task(message="better"),
        make_task("completed", result={}),
    )
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task())
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == [
        "created",
        "violation",
        "polled",
        "changed",
        "transition",
        "result",
        "stopped",
    ]
    violation = rec.of("violation")[0]
    assert violation.frame == bad_frame and violation.task == make_task()
    assert violation.next_poll is not None and violation.next_poll.term == "server"
    assert adapter.poll_times() == [2.0, 4.0, 6.0, 8.0]


def test_legacy_status_other_than_cancelled_after_cancel_is_a_violation() -> None:
    adapter = FakeAdapter("legacy")
    adapter.script(
        "t",
        make_task(wire="legacy"),
        make_task("cancelled", wire="legacy"),
    )
    adapter.fetch_answers["t"] = RpcError(-32603, "has no result stored")
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(wire="legacy"))
        poller.mark_cancel_requested("t")
        assert poller.cancel_requested("t")
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "violation", "transition", "result", "stopped"]
    violation = rec.of("violation")[0]
    assert violation.detail is not None and "cancel" in violation.detail
    assert violation.task is not None and violation.task.status == "working"
    assert rec.events[-1].detail == "cancelled"


def test_a_poll_sent_before_the_legacy_cancel_may_still_show_working() -> None:
    adapter = FakeAdapter("legacy")
    adapter.latency["t"] = 2.0
    adapter.script("t", make_task(wire="legacy"), make_task("cancelled", wire="legacy"))
    adapter.fetch_answers["t"] = {"content": []}
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(wire="legacy"))
        await asyncio.gather(
            poller.run_until_idle(), at(3.0, lambda: poller.mark_cancel_requested("t"))
        )

    virtual(main)
    assert adapter.poll_times() == [2.0, 6.0]  # the first was on the wire when cancel was sent
    assert rec.kinds() == ["created", "polled", "transition", "result", "stopped"]


def test_extension_cancel_is_cooperative() -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task(), make_task("completed", result={}))
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task())
        poller.mark_cancel_requested("t")
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "polled", "transition", "result", "stopped"]


def test_legacy_cancel_answer_ends_the_watch_without_a_poll() -> None:
    adapter = FakeAdapter("legacy")
    adapter.fetch_answers["t"] = RpcError(-32603, "has no result stored")
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(wire="legacy"))
        await at(
            0.5, lambda: poller.mark_cancel_requested("t", make_task("cancelled", wire="legacy"))
        )
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "transition", "result", "stopped"]
    assert rec.of("transition")[0].source == "user"
    assert adapter.polls == []


# ------------------------------------------------------------------ notifications and progress


def status_payload(status: str, **extra: Any) -> dict[str, Any]:
    return {"taskId": "t", "status": status, "pollIntervalMs": 5000, **extra}


def test_status_notification_updates_at_once_but_never_pulls_a_poll_earlier() -> None:
    adapter = FakeAdapter()
    adapter.script(
        "t",
        make_task(hint=5000, message="pushed"),
        make_task("completed", result={}, hint=5000),
    )
    rec = Recorder()

    def push(payload: dict[str, Any]) -> None:
        for listener in adapter.status_listeners:
            listener(payload)

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(hint=5000))
        await asyncio.gather(
            poller.run_until_idle(),
            at(1.0, lambda: push(status_payload("working", statusMessage="pushed"))),
            at(1.5, lambda: push(status_payload("working", statusMessage="pushed"))),
            at(2.0, lambda: push({"taskId": "t", "status": "bogus"})),
        )

    virtual(main)
    assert rec.kinds() == [
        "created",
        "changed",
        "violation",
        "polled",
        "transition",
        "result",
        "stopped",
    ]
    changed = rec.of("changed")[0]
    assert changed.source == "notification"
    assert changed.next_poll is not None and changed.next_poll.due == 5.0
    assert rec.of("violation")[0].frame == {"taskId": "t", "status": "bogus"}
    assert adapter.poll_times() == [5.0, 10.0]


def test_a_longer_hint_in_a_notification_moves_the_next_poll_later() -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task("completed", result={}))

    async def main() -> None:
        poller = Poller(adapter, Recorder())
        poller.watch(make_task(hint=1000))
        push = adapter.status_listeners[0]
        await asyncio.gather(
            poller.run_until_idle(),
            at(0.5, lambda: push(status_payload("working", pollIntervalMs=10_000))),
        )

    virtual(main)
    assert adapter.poll_times() == [10.0]


def test_terminal_notification_ends_the_watch_and_drops_the_stale_poll() -> None:
    adapter = FakeAdapter()
    adapter.latency["t"] = 3.0
    adapter.script("t", make_task())
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(hint=1000))
        push = adapter.status_listeners[0]
        done = status_payload("completed", result={"content": []})
        await asyncio.gather(poller.run_until_idle(), at(2.0, lambda: push(done)))

    virtual(main)
    assert rec.kinds() == ["created", "transition", "result", "stopped"]
    assert all(e.source == "notification" for e in rec.events[1:])


def test_a_poll_answer_older_than_a_notification_that_overtook_it_is_not_applied() -> None:
    def stamped(message: str, second: int) -> Task:
        at_time = datetime(2026, 1, 1, 0, 0, second, tzinfo=UTC)
        return make_task(message=message, hint=1000).model_copy(update={"last_updated_at": at_time})

    adapter = FakeAdapter()
    adapter.latency["t"] = 1.0
    adapter.script("t", stamped("Analyzing", 5), make_task("completed", result={}))
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(stamped("Gathering", 1))
        push = adapter.status_listeners[0]
        newer = status_payload(
            "working", statusMessage="Synthesizing", lastUpdatedAt="2026-01-01T00:00:09Z"
        )
        await asyncio.gather(poller.run_until_idle(), at(1.5, lambda: push(newer)))

    virtual(main)
    messages = [e.task.status_message for e in rec.events if e.kind in ("created", "changed")]
    assert messages == ["Gathering", "Synthesizing"]
    assert rec.kinds()[-3:] == ["transition", "result", "stopped"]


def test_progress_attaches_to_the_task_and_survives_polls() -> None:
    adapter = FakeAdapter("legacy")
    adapter.script(
        "t",
        make_task(wire="legacy"),
        make_task("completed", wire="legacy"),
    )
    adapter.fetch_answers["t"] = {"content": []}
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(wire="legacy"))
        progress = adapter.progress_listeners[0]
        await asyncio.gather(
            poller.run_until_idle(),
            at(1.0, lambda: progress("t", {"progressToken": "p", "progress": 3, "total": 10})),
            at(1.5, lambda: progress("t", {"progressToken": "p"})),
        )

    virtual(main)
    assert rec.kinds() == [
        "created",
        "changed",
        "violation",
        "polled",
        "transition",
        "result",
        "stopped",
    ]
    changed = rec.of("changed")[0]
    assert changed.source == "notification" and changed.task is not None
    assert changed.task.progress == Progress(progress=3, total=10)
    final = rec.of("result")[0].task
    assert final is not None and final.progress == Progress(progress=3, total=10)


# ------------------------------------------------------------------ user actions


def test_pause_stops_polls_and_resume_starts_fresh_delays() -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task(hint=1000))

    async def main() -> None:
        poller = Poller(adapter, Recorder())
        poller.watch(make_task(hint=1000))
        runner = asyncio.ensure_future(poller.run_forever())
        await at(2.5, poller.pause)
        assert poller.paused and poller.next_poll("t") is None
        await at(20.0, poller.resume)
        next_poll = poller.next_poll("t")
        assert next_poll is not None and next_poll.due == 21.0
        await at(22.5, lambda: None)
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)

    virtual(main)
    assert adapter.poll_times() == [1.0, 2.0, 21.0, 22.0]


def test_poll_now_may_come_early_and_is_marked_as_the_users() -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task(hint=10_000), make_task("completed", result={}))
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task(hint=10_000))
        assert not poller.poll_now("other")
        await asyncio.gather(poller.run_until_idle(), at(1.0, lambda: poller.poll_now("t")))

    virtual(main)
    assert adapter.polls[0] == ("t", 1.0, "user")
    assert adapter.poll_times() == [1.0, 11.0]
    assert rec.events[1].kind == "polled" and rec.events[1].source == "user"


def test_adopt_polls_the_id_at_once() -> None:
    adapter = FakeAdapter()
    adapter.script("a", make_task(task_id="a"), make_task("completed", task_id="a", result={}))
    adapter.script("gone", TaskUnknown("gone", "Task has expired"))
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        assert poller.adopt("a") and poller.adopt("gone")
        assert not poller.adopt("a")
        assert poller.watched() == {}
        await poller.run_until_idle()

    virtual(main)
    assert ("a", 0.0, "user") in adapter.polls
    assert rec.kinds("a") == ["created", "transition", "result", "stopped"]
    assert rec.events[0].source == "user"
    assert rec.kinds("gone") == ["expired", "stopped"]


def test_forget_stops_the_watch() -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task())
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task())
        await asyncio.gather(poller.run_until_idle(), at(5.0, lambda: poller.forget("t")))
        assert not poller.forget("t")

    virtual(main)
    assert rec.kinds() == ["created", "polled", "polled", "stopped"]
    assert rec.events[-1].detail == "forgotten" and rec.events[-1].source == "user"


def test_answers_are_reported_on_the_stream() -> None:
    adapter = FakeAdapter()
    rec = Recorder()
    question = make_task("input_required", inputs=("k1", "k2")).input_requests

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task("input_required", inputs=("k1", "k2")))
        assert await poller.answer(question[0], {"action": "accept", "content": {}})
        assert await poller.answer_many("t", {"k2": {"action": "decline"}})
        adapter.answer_error = RpcError(-32602, "no such key")
        assert not await poller.answer(question[0], {"action": "cancel"})

    virtual(main)
    answered = rec.of("input_answered")
    assert [e.input_request for e in answered] == [question[0], question[1]]
    assert adapter.answers == [
        ("k1", {"action": "accept", "content": {}}),
        ("k2", {"action": "decline"}),
    ]
    assert rec.kinds()[-1] == "error"


# ------------------------------------------------------------------ inputs and bounds


def test_extension_input_requests_are_announced_once_per_key() -> None:
    adapter = FakeAdapter()
    adapter.script(
        "t",
        make_task("input_required", inputs=("a",)),
        make_task("input_required", inputs=("a",)),
        make_task("input_required", inputs=("a", "b")),
        make_task(),
        make_task("completed", result={}),
    )
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task())
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == [
        "created",
        "transition",
        "input_needed",
        "polled",
        "changed",
        "input_needed",
        "transition",
        "transition",
        "result",
        "stopped",
    ]
    keys = [e.input_request.key for e in rec.of("input_needed") if e.input_request]
    assert keys == ["a", "b"]


def test_legacy_questions_from_the_stream_are_announced_once() -> None:
    adapter = FakeAdapter("legacy")
    rec = Recorder()

    def question(key: str, task_id: str | None) -> InputRequest:
        return InputRequest(
            key=key,
            kind=InputKind.FORM,
            method="elicitation/create",
            params={"message": "name?"},
            wire="legacy",
            task_id=task_id,
        )

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task("input_required", wire="legacy"))
        listener = adapter.input_listeners[0]
        listener(question("7", "t"))
        listener(question("7", "t"))
        listener(question("9", None))
        listener(question("9", None))

    virtual(main)
    needed = rec.of("input_needed")
    assert [(e.task_id, e.source) for e in needed] == [("t", "stream"), ("", "stream")]
    assert needed[1].task is None


def test_extension_questions_of_a_watched_task_follow_its_poll() -> None:
    adapter = FakeAdapter()
    asking = make_task("input_required", inputs=("k",))

    async def get_and_tell(task_id: str, *, reason: str = "poll") -> Task:
        for listener in adapter.input_listeners:  # the adapter's broker sees the key first
            listener(asking.input_requests[0])
        return asking

    adapter.get = get_and_tell  # type: ignore[method-assign]
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec, duration_s=5.0)
        poller.watch(make_task())
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == ["created", "transition", "input_needed", "polled", "stopped"]
    assert rec.of("input_needed")[0].source == "poll"
    assert rec.of("input_needed")[0].task == asking


def test_a_legacy_question_that_came_before_the_watch_is_announced_with_it() -> None:
    adapter = FakeAdapter("legacy")
    early = InputRequest(
        key="3",
        kind=InputKind.FORM,
        method="elicitation/create",
        params={"message": "region?"},
        wire="legacy",
        task_id="t",
    )
    adapter.pending = [early, early.model_copy(update={"task_id": "other"})]
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec)
        poller.watch(make_task("input_required", wire="legacy"))
        adapter.input_listeners[0](early)  # the adapter repeats it: still announced once

    virtual(main)
    assert rec.kinds() == ["created", "input_needed"]
    assert rec.events[1].input_request == early and rec.events[1].source == "stream"


def test_max_input_rounds_stops_the_watch() -> None:
    adapter = FakeAdapter()
    adapter.script(
        "t",
        make_task("input_required", inputs=("a",)),
        make_task(),
        make_task("input_required", inputs=("b",)),
    )
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec, max_input_rounds=1)
        poller.watch(make_task())
        await poller.run_until_idle()

    virtual(main)
    assert rec.kinds() == [
        "created",
        "transition",
        "input_needed",
        "transition",
        "transition",
        "stopped",
    ]
    assert rec.events[-1].detail == "input rounds"


def test_duration_bound_stops_live_tasks() -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task(hint=1000))
    rec = Recorder()
    finished_at: list[float] = []

    async def main() -> None:
        poller = Poller(adapter, rec, duration_s=5.0)
        poller.watch(make_task(hint=1000))
        await poller.run_until_idle()
        finished_at.append(now())

    virtual(main)
    assert finished_at == [5.0]
    assert rec.events[-1].kind == "stopped" and rec.events[-1].detail == "timeout"
    assert adapter.poll_times() == [1.0, 2.0, 3.0, 4.0]  # the bound wins over a poll due at 5.0


def test_a_crashing_consumer_does_not_stop_the_loop() -> None:
    adapter = FakeAdapter()
    adapter.script("t", make_task(), make_task("completed", result={}))
    seen: list[str] = []

    def fragile(event: TaskEvent) -> None:
        seen.append(event.kind)
        raise RuntimeError("consumer bug")

    async def main() -> None:
        poller = Poller(adapter, fragile)
        poller.watch(make_task())
        await poller.run_until_idle()

    virtual(main)
    assert seen == ["created", "polled", "transition", "result", "stopped"]


# ------------------------------------------------------------------ concurrency and listen


def test_a_slow_server_answer_does_not_hold_up_other_tasks() -> None:
    adapter = FakeAdapter()
    adapter.latency["slow"] = 1000.0
    adapter.script("slow", make_task(task_id="slow"))
    adapter.script(
        "fast",
        *[make_task(task_id="fast", hint=1000)] * 4,
        make_task("completed", task_id="fast", result={}),
    )
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec, max_in_flight=2)
        poller.watch(make_task(task_id="slow", hint=1000))
        poller.watch(make_task(task_id="fast", hint=1000))
        await asyncio.gather(poller.run_until_idle(), at(10.0, lambda: poller.forget("slow")))

    virtual(main)
    assert adapter.poll_times("fast") == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert adapter.poll_times("slow") == [1.0]


def test_a_thousand_tasks_at_one_second() -> None:
    adapter = FakeAdapter()
    ids = [f"task-{n}" for n in range(1000)]
    for task_id in ids:
        adapter.script(task_id, make_task(task_id=task_id, hint=1000))
        adapter.latency[task_id] = 0.02
    rec = Recorder()

    async def main() -> None:
        poller = Poller(adapter, rec, duration_s=10.0, max_in_flight=32)
        for task_id in ids:
            poller.watch(make_task(task_id=task_id, hint=1000))
        await poller.run_until_idle()

    virtual(main)
    assert adapter.most_in_flight <= 32
    per_task: dict[str, list[float]] = {}
    for task_id, moment, _ in adapter.polls:
        per_task.setdefault(task_id, []).append(moment)
    assert set(per_task) == set(ids)
    for times in per_task.values():
        assert len(times) >= 8
        assert all(b - a >= 1.0 for a, b in pairwise(times))
    assert rec.kinds().count("stopped") == 1000


def test_one_listen_stream_covers_the_watched_extension_tasks() -> None:
    adapter = FakeAdapter()
    adapter.listen_answer = True
    for task_id in ("a", "b", "c"):
        adapter.script(task_id, make_task("completed", task_id=task_id, result={}))

    async def main() -> None:
        poller = Poller(adapter, Recorder())
        poller.watch(make_task(task_id="a"))
        poller.watch(make_task(task_id="b"))
        await asyncio.sleep(0.1)
        poller.watch(make_task(task_id="c"))
        await poller.run_until_idle()

    virtual(main)
    assert adapter.listen_calls == [["a", "b"], ["a", "b", "c"]]


def test_a_server_without_listen_is_simply_polled() -> None:
    adapter = FakeAdapter()
    adapter.listen_answer = False
    for task_id in ("a", "b"):
        adapter.script(task_id, make_task("completed", task_id=task_id, result={}))

    async def main() -> None:
        poller = Poller(adapter, Recorder())
        poller.watch(make_task(task_id="a"))
        await asyncio.sleep(0.1)
        poller.watch(make_task(task_id="b"))
        await poller.run_until_idle()

    virtual(main)
    assert adapter.listen_calls == [["a"]]
    assert adapter.poll_times("a") == [2.0] and adapter.poll_times("b") == [2.1]


def test_legacy_wire_never_listens() -> None:
    adapter = FakeAdapter("legacy")
    adapter.script("t", make_task("completed", wire="legacy"))
    adapter.fetch_answers["t"] = {}

    async def main() -> None:
        poller = Poller(adapter, Recorder())
        poller.watch(make_task(wire="legacy"))
        await poller.run_until_idle()

    virtual(main)
    assert adapter.listen_calls == []
