"""Following one created task with `tasks/get` until it ends, paced as the server asked, every
answer kept so the checks can judge each snapshot and the sequence of statuses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from app.engine.check.model import Evidence
from app.engine.check.probe import Reply, frame_part
from app.engine.check.run_state import RunState
from app.engine.check.shapes import TERMINAL, is_integer

MAX_POLLS = 600
"""A task is followed for at most this many polls (and never past the run's timeout)."""

OnSnapshot = Callable[[dict[str, Any], Reply], Awaitable[None]]


@dataclass(slots=True)
class Followed:
    """What following a task saw: each snapshot with its reply, the first failed `tasks/get`
    (if any), and whether the task reached a terminal status."""

    task_id: str
    snapshots: list[tuple[dict[str, Any], Reply]] = field(default_factory=list)
    refused: Reply | None = None
    timed_out: bool = False

    @property
    def statuses(self) -> list[str]:
        return [str(task.get("status")) for task, _ in self.snapshots]

    @property
    def last(self) -> dict[str, Any] | None:
        return self.snapshots[-1][0] if self.snapshots else None

    @property
    def ended(self) -> bool:
        last = self.last
        return last is not None and last.get("status") in TERMINAL


def poll_hint_ms(task: dict[str, Any] | None) -> int | None:
    """The server's poll hint on `task`, either wire's name."""
    if task is None:
        return None
    for key in ("pollIntervalMs", "pollInterval"):
        value = task.get(key)
        if isinstance(value, int) and is_integer(value) and value > 0:
            return value
    return None


def expiry_of(task: dict[str, Any] | None) -> datetime | None:
    """`createdAt + ttl` (either wire's name), or None when unlimited or unreadable."""
    if task is None:
        return None
    ttl = task.get("ttlMs", task.get("ttl"))
    created = task.get("createdAt")
    if not isinstance(ttl, int) or not is_integer(ttl) or not isinstance(created, str):
        return None
    try:
        expiry: datetime = datetime.fromisoformat(created) + timedelta(milliseconds=ttl)
        return expiry
    except (ValueError, OverflowError):
        return None


async def follow(
    state: RunState,
    task_id: str,
    first: dict[str, Any] | None,
    *,
    on_snapshot: OnSnapshot | None = None,
    until: Callable[[dict[str, Any]], bool] | None = None,
) -> Followed:
    """Poll `task_id` until it ends (or `until` holds, or the run's timeout), `first` being the
    task as created (its poll hint paces the first poll)."""
    probe = state.probe
    followed = Followed(task_id)
    deadline = probe.deadline()
    hint = poll_hint_ms(first)
    if first is not None:
        await probe.paced(task_id, hint)
    for _ in range(MAX_POLLS):
        if probe.past(deadline):
            followed.timed_out = True
            break
        await probe.paced(task_id, hint)
        reply = await probe.call("tasks/get", {"taskId": task_id}, f"follow task {task_id}")
        if reply.result is None:
            followed.refused = reply
            break
        task = reply.result
        followed.snapshots.append((task, reply))
        hint = poll_hint_ms(task) or hint
        if on_snapshot is not None:
            await on_snapshot(task, reply)
        if task.get("status") in TERMINAL or (until is not None and until(task)):
            break
    else:
        followed.timed_out = True
    if followed.ended and task_id in probe.created:
        probe.created[task_id].ended = True
    return followed


ANSWERING_METHODS = frozenset({"tasks/update", "elicitation/create", "sampling/createMessage"})
"""What answers a task's question: `tasks/update` (extension), or our response to the server's
question (legacy; its frame carries the question's method)."""


def stalled_evidence(state: RunState, followed: Followed) -> tuple[Evidence, ...]:
    """The frames behind "the task stayed waiting after its questions were answered": the last
    answer sent (with what the server said to it) and the last `tasks/get`, still waiting."""
    cited: list[Evidence] = []
    frames = list(state.probe.frames)
    answer = next(
        (
            frame
            for frame in reversed(frames)
            if frame.direction == "out"
            and frame.method in ANSWERING_METHODS
            and _concerns(frame.message, followed.task_id)
        ),
        None,
    )
    if answer is not None and answer.exchange is not None:
        cited.extend(
            state.probe.evidence_of(frame, frame_part(frame))
            for frame in frames
            if frame.exchange == answer.exchange
        )
    if followed.snapshots:
        task, reply = followed.snapshots[-1]
        shown = {key: task[key] for key in ("taskId", "status", "inputRequests") if key in task}
        cited.extend(reply.evidence(shown))
    return tuple(cited)


def _concerns(message: dict[str, Any] | None, task_id: str) -> bool:
    """Whether an answer frame is about `task_id` (a `tasks/update` names it; a legacy
    response to a question names no task, so it counts)."""
    params = (message or {}).get("params")
    return not isinstance(params, dict) or params.get("taskId") in (None, task_id)
