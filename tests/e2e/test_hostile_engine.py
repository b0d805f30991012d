"""The engine against the hostile server: the poller's event stream for every misbehaviour mode.

Each test starts `app.demo.hostile` as a real subprocess (stdio, or HTTP on a free port), watches
one task with a real Connection, adapter and Poller, and asserts the exact events: which polls are
violations or errors, that the task keeps its last good state, and how the watch ends.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.demo.hostile_modes import DEEP_LEVELS, HUGE_MESSAGE_CHARS, WRONG_TYPES
from app.demo.hostile_transport_modes import RETRY_AFTER_DATE_S, RETRY_AFTER_S
from app.engine.polling.poller import Poller
from app.engine.rpc.connection import Connection
from app.engine.rpc.targets import HttpTarget, StdioTarget, Target
from app.engine.safety import deep_json
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.factory import make_adapter
from tests.support.demo_servers import REPO_ROOT, hostile_command, start_http_hostile

pytestmark = pytest.mark.timeout(60)

WIRES = ["legacy", "extension"]
APPROVE = {"action": "accept", "content": {"approve": True}}


@dataclass
class Watched:
    """What one watch produced: every event in order, and the frames the client saw."""

    events: list[TaskEvent] = field(default_factory=list)
    frames: list[Any] = field(default_factory=list)
    poll_times: list[float] = field(default_factory=list)

    def kinds(self) -> list[str]:
        return [event.kind for event in self.events]

    def of(self, kind: str) -> list[TaskEvent]:
        return [event for event in self.events if event.kind == kind]

    @property
    def last(self) -> TaskEvent:
        return self.events[-1]


def stdio(wire: str, *modes: str) -> StdioTarget:
    return StdioTarget(command=hostile_command(wire, *modes), cwd=str(REPO_ROOT))  # type: ignore[arg-type]


@pytest.fixture
def http_server(request: pytest.FixtureRequest) -> Iterator[str]:
    wire, *modes = request.param
    with start_http_hostile(wire, *modes) as (url, _process):
        yield url


async def watch(
    target: Target,
    tool: str = "job",
    *,
    request_timeout: float = 10.0,
    max_errors: int = 5,
    duration_s: float = 20.0,
) -> Watched:
    """Create one task on `target`, watch it to its end (answering its question) and record."""
    seen = Watched()
    connection = Connection(target, request_timeout=request_timeout, probe_timeout=2.0)

    def on_frame(frame: Any) -> None:
        seen.frames.append(frame)
        if frame.direction == "out" and frame.method == "tasks/get":
            seen.poll_times.append(time.monotonic())

    connection.add_frame_listener(on_frame)
    await connection.open()
    adapter = make_adapter(connection)
    answering: set[asyncio.Task[bool]] = set()

    def on_event(event: TaskEvent) -> None:
        seen.events.append(event)
        if event.kind == "input_needed" and event.input_request is not None:
            answering.add(asyncio.ensure_future(poller.answer(event.input_request, APPROVE)))

    poller = Poller(adapter, on_event, max_consecutive_errors=max_errors, duration_s=duration_s)
    try:
        outcome = await adapter.create(tool, {})
        assert outcome.task is not None
        poller.watch(outcome.task)
        await poller.run_until_idle()
        await asyncio.gather(*answering, return_exceptions=True)
    finally:
        await adapter.close()
        await connection.close()
    return seen


@pytest.mark.parametrize("wire", WIRES)
async def test_escapes_reach_the_engine_verbatim(wire: str) -> None:
    """The engine keeps server text as data (sanitizing is the renderers' job), intact."""
    seen = await watch(stdio(wire, "escapes"))
    assert seen.last.kind == "stopped" and seen.last.detail == "completed"
    task = seen.last.task
    assert task is not None and task.task_id == "task-1\x1b[7m[b]\u202e"
    assert task.status_message is not None and "\x1b]52;c;" in task.status_message
    assert "[bold red]" in task.result["content"][0]["text"]  # type: ignore[index]


@pytest.mark.parametrize("wire", WIRES)
async def test_huge_status_message_is_kept_whole(wire: str) -> None:
    seen = await watch(stdio(wire, "huge-message"))
    created = seen.of("created")[0].task
    assert created is not None and created.status_message is not None
    assert len(created.status_message) > HUGE_MESSAGE_CHARS
    assert created.status_message.startswith("BEGIN ") and created.status_message.endswith(" END")
    assert seen.last.detail == "completed"


@pytest.mark.parametrize("wire", WIRES)
async def test_deep_result_is_parsed_to_its_full_depth(wire: str) -> None:
    seen = await watch(stdio(wire, "deep-result"))
    result_events = seen.of("result")
    assert len(result_events) == 1 and seen.last.detail == "completed"
    task = result_events[0].task
    assert task is not None and task.result is not None
    assert deep_json.depth(task.result["structuredContent"]) == DEEP_LEVELS
    assert not [frame for frame in seen.frames if frame.error]


@pytest.mark.parametrize("wire", WIRES)
async def test_invalid_utf8_is_replaced_not_fatal(wire: str) -> None:
    seen = await watch(stdio(wire, "invalid-utf8"))
    created = seen.of("created")[0].task
    assert created is not None
    assert (
        created.status_message
        == "bad \ufffd\ufffd bytes \ufffd( café \ufffd\ufffd\ufffd lone \ud800 end"
    )
    assert seen.last.detail == "completed"


@pytest.mark.parametrize("wire", WIRES)
async def test_wrong_types_each_field(wire: str) -> None:
    """Required fields with a wrong type are violations; optional ones are dropped (noted); a
    result that is not an object is a failed poll. The last good state is always kept."""
    seen = await watch(stdio(wire, "wrong-types"))
    ttl_key = "ttl" if wire == "legacy" else "ttlMs"
    violations = [event.detail for event in seen.of("violation")]
    assert violations == [
        "taskId is missing or not a non-empty string",
        "unknown task status 3",
        f"{ttl_key} is not a non-negative integer: 'forever'",
        "inline result is not a JSON object",
        "inline error is not a JSON object",
    ]
    errors = [event.detail for event in seen.of("error")]
    assert errors == ["TransportError: tasks/get: result is not a JSON object"]
    for event in [*seen.of("violation"), *seen.of("error")]:
        assert event.task is not None and event.task.status == "working"
        assert isinstance(event.task.status_message, str) or event.task.status_message is None
    assert seen.last.detail == "completed"
    assert len(seen.poll_times) == len(WRONG_TYPES) + 2


@pytest.mark.parametrize("wire", WIRES)
async def test_unknown_status_is_a_violation_and_the_next_poll_recovers(wire: str) -> None:
    seen = await watch(stdio(wire, "unknown-status"))
    kinds = seen.kinds()
    first = kinds.index("violation")
    assert seen.events[first].detail == "unknown task status 'paused'"
    kept = seen.events[first].task
    assert kept is not None and kept.status == "working" and kept.status_message == "started"
    assert seen.events[first].frame["status"] == "paused"  # type: ignore[index]
    assert kinds[first + 1] == "changed"  # the next good poll: step 2
    assert seen.last.detail == "completed"


@pytest.mark.parametrize("wire", WIRES)
async def test_task_id_mismatch_is_a_violation(wire: str) -> None:
    seen = await watch(stdio(wire, "task-id-mismatch"))
    (violation,) = seen.of("violation")
    assert violation.detail == "tasks/get for 'task-1' answered with task 'task-999'"
    assert violation.task is not None and violation.task.task_id == "task-1"
    assert seen.last.detail == "completed"


async def test_illegal_transition_after_completion_is_flagged_legacy() -> None:
    """Legacy: a status notification saying working after completed is a violation; the task
    stays completed and the result still arrives."""
    seen = await watch(stdio("legacy", "illegal-transition"))
    (violation,) = seen.of("violation")
    assert violation.detail == "status went from terminal 'completed' to 'working'"
    assert violation.task is not None and violation.task.status == "completed"
    assert seen.kinds()[-2:] == ["result", "stopped"] and seen.last.detail == "completed"


async def test_illegal_transition_after_completion_is_never_polled_extension() -> None:
    """Extension: the watch ends at the terminal status, so the later regression is never seen."""
    seen = await watch(stdio("extension", "illegal-transition"))
    assert not seen.of("violation")
    assert seen.last.task is not None and seen.last.task.status == "completed"


@pytest.mark.parametrize("wire", WIRES)
async def test_changing_and_duplicate_input_keys(wire: str) -> None:
    """Each distinct key is announced once; a key repeated in one frame (extension) or a JSON-RPC
    id reused for a second question (legacy) is not announced twice."""
    seen = await watch(stdio(wire, "input-keys"), "ask")
    keys = [event.input_request.key for event in seen.of("input_needed") if event.input_request]
    assert keys == (["q-1", "q-2"] if wire == "extension" else ["q-1"])
    assert len(seen.of("input_answered")) == len(keys)
    assert seen.last.detail == "completed"


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("mode", ["unknown-ids", "garbage"])
async def test_noise_frames_are_dropped_and_logged(wire: str, mode: str) -> None:
    seen = await watch(stdio(wire, mode))
    assert not seen.of("violation") and not seen.of("error")
    assert seen.last.detail == "completed"
    dropped = [frame.error for frame in seen.frames if frame.direction == "in" and frame.error]
    if mode == "unknown-ids":
        assert any("response to unknown id 'never-sent'" in error for error in dropped)
    else:
        assert any(error.startswith("malformed JSON") for error in dropped)
        assert any("not a JSON-RPC 2.0 message" in error for error in dropped)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("mode", ["drop", "killed"])
async def test_stdio_connection_lost_mid_poll(wire: str, mode: str) -> None:
    """The pending poll fails at once (no request timeout wait) and the task keeps its state."""
    seen = await watch(stdio(wire, mode), request_timeout=30.0, max_errors=1)
    (error,) = seen.of("error")
    assert "no answer within" not in (error.detail or "")
    assert error.task is not None and error.task.status_message == "step 1"
    expected = "server process exited with code -9" if mode == "killed" else "server connection"
    assert expected in (error.detail or "")
    assert seen.last.kind == "stopped" and seen.last.detail == "1 consecutive errors"
    assert seen.last.task is not None and seen.last.task.status == "working"


@pytest.mark.parametrize("wire", WIRES)
async def test_silent_server_gets_request_timeouts(wire: str) -> None:
    seen = await watch(stdio(wire, "silent"), request_timeout=0.5, max_errors=2)
    errors = [event.detail for event in seen.of("error")]
    assert errors == ["TransportError: tasks/get got no answer within 0.5 s"] * 2
    assert seen.last.kind == "stopped" and seen.last.detail == "2 consecutive errors"
    assert seen.last.task is not None and seen.last.task.status_message == "step 1"


@pytest.mark.slow
@pytest.mark.parametrize(
    "http_server", [(wire, "rate-limit") for wire in WIRES], indirect=True, ids=WIRES
)
async def test_retry_after_seconds_is_honoured(http_server: str) -> None:
    seen = await watch(HttpTarget(url=http_server))
    (error,) = seen.of("error")
    assert error.next_poll is not None and error.next_poll.term == "retry-after"
    assert error.next_poll.delay == pytest.approx(RETRY_AFTER_S)
    gap = seen.poll_times[2] - seen.poll_times[1]
    assert RETRY_AFTER_S <= gap < RETRY_AFTER_S + 0.4
    assert seen.last.detail == "completed"


@pytest.mark.slow
@pytest.mark.parametrize(
    "http_server", [(wire, "unavailable") for wire in WIRES], indirect=True, ids=WIRES
)
async def test_retry_after_http_date_is_honoured(http_server: str) -> None:
    seen = await watch(HttpTarget(url=http_server))
    (error,) = seen.of("error")
    assert error.next_poll is not None and error.next_poll.term == "retry-after"
    intended = error.next_poll.delay
    assert RETRY_AFTER_DATE_S - 1.2 <= intended <= RETRY_AFTER_DATE_S
    gap = seen.poll_times[2] - seen.poll_times[1]
    assert intended <= gap < intended + 0.4
    assert seen.last.detail == "completed"


@pytest.mark.parametrize(
    "http_server", [(wire, "drop") for wire in WIRES], indirect=True, ids=WIRES
)
async def test_http_connection_dropped_mid_poll_is_one_failed_poll(http_server: str) -> None:
    seen = await watch(HttpTarget(url=http_server))
    (error,) = seen.of("error")
    assert "Server disconnected without sending a response" in (error.detail or "")
    assert error.next_poll is not None and error.next_poll.term == "backoff"
    assert seen.last.detail == "completed"
