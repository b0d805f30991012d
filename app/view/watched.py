"""The TUI's model of one watched task, and the reducer that folds a poller `TaskEvent` into it.

`apply_event` replaces a frozen `WatchedTask` per event: display status, counters, the pending
input keys, a bounded timeline with the JSON diff of each material change, and the bounded status
history the time view draws (`app.view.status_history`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from app.engine.record.history import LifeStep
from app.engine.tasks.server_keys import bare_id
from app.view.json_diff import StateDiff, json_diff
from app.view.status_history import EMPTY_HISTORY, StatusHistory, next_history

if TYPE_CHECKING:  # annotations only: the TUI's first frame does not load pydantic
    from app.engine.tasks.events import NextPoll, TaskEvent
    from app.engine.tasks.models import Task

DEFAULT_TIMELINE_CAP = 200
"""How many timeline entries each task keeps; older ones are dropped first."""

DisplayStatus = Literal[
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
    "expired",
    "forgotten",
    "not_found",
    "unknown",
]
"""What the status column shows: the server's status, or what became of a task it lost
(`not_found`: an id the server never knew, e.g. a mistyped one pasted with `a`)."""

_MATERIAL_KINDS = frozenset({"transition", "changed", "result"})
_GOOD_POLL_KINDS = frozenset({"created", "polled", "transition", "changed", "result"})


@dataclass(frozen=True, slots=True)
class TimelineEntry(LifeStep):
    """One step in a task's history as the TUI keeps it: a `LifeStep` with how the state
    changed."""

    diff: StateDiff | None = None


@dataclass(frozen=True, slots=True)
class Violation:
    """Why the server's last answer broke the protocol, with the offending frame kept to show."""

    reason: str
    frame: object | None
    at: float


@dataclass(frozen=True, slots=True)
class WatchedTask:
    """Everything the TUI shows about one task; replaced, never mutated, on every event.

    `task` is the latest *good* normalized state (None until the server answered once).
    Times are wall-clock seconds; `next_poll_at` is the wall-clock estimate of `next_poll.due`.
    """

    task_id: str
    task: Task | None
    tool_name: str | None
    first_seen: float
    last_change: float
    last_event: float
    next_poll: NextPoll | None = None
    next_poll_at: float | None = None
    last_error: str | None = None
    violation: Violation | None = None
    cancel_requested: bool = False
    synchronous: bool = False
    expired: bool = False
    forgotten: bool = False
    not_found: bool = False
    """The server answered "not found" for an id never seen alive (not in this run, nor in an
    earlier one): it does not know the id, rather than having forgotten a task."""
    stopped: str | None = None
    pending_inputs: frozenset[str] = frozenset()
    answered_inputs: frozenset[str] = frozenset()
    polls: int = 0
    errors: int = 0
    last_frame: object | None = None
    timeline: tuple[TimelineEntry, ...] = field(default=(), repr=False)
    history: StatusHistory = field(default=EMPTY_HISTORY, repr=False)
    server: str | None = None
    """The server's name when the inspector watches several (`task_id` is then its row key)."""

    @property
    def server_task_id(self) -> str:
        """The id the server gave the task (`task_id` is the row key)."""
        return bare_id(self.task_id, self.server)

    @property
    def status(self) -> DisplayStatus:
        """The status to show: the server's, unless the server no longer knows the task."""
        if self.expired:
            return "expired"
        if self.forgotten:
            return "forgotten"
        if self.not_found:
            return "not_found"
        if self.task is None:
            return "unknown"
        return self.task.status

    @property
    def pending_input_count(self) -> int:
        return len(self.pending_inputs)

    @property
    def input_waiting(self) -> bool:
        """True when the server is waiting on the user, by status or by an unanswered request."""
        return bool(self.pending_inputs) or self.status == "input_required"

    @property
    def erroring(self) -> bool:
        """True while the last poll failed or broke the protocol (the next good poll clears it)."""
        return self.last_error is not None or self.violation is not None

    @property
    def is_fault(self) -> bool:
        """Failed, expired or forgotten, waiting for input, erroring, or a tool error result."""
        return (
            self.status in ("failed", "expired", "forgotten", "not_found")
            or self.input_waiting
            or self.erroring
            or (self.task is not None and self.task.is_tool_error)
        )

    @property
    def gone(self) -> bool:
        """True when the server does not know the task (any more): expired, forgotten or an id
        it never knew. `C` clears these rows."""
        return self.expired or self.forgotten or self.not_found

    @property
    def settled(self) -> bool:
        """True once nothing more will happen: terminal, gone from the server, or unwatched."""
        return (
            self.gone
            or self.stopped is not None
            or (self.task is not None and self.task.is_terminal)
        )


def _expired_by_ttl(task: Task | None, at: float) -> bool:
    expires_at = task.expires_at if task is not None else None
    return expires_at is not None and at >= expires_at.timestamp()


def _pending_after(watched: WatchedTask, event: TaskEvent, task: Task | None) -> frozenset[str]:
    pending = watched.pending_inputs
    request = event.input_request
    if event.kind == "input_needed" and request is not None:
        pending = pending | {request.key}
    elif event.kind == "input_answered" and request is not None:
        pending = pending - {request.key}
    if task is not None and task.wire == "extension" and event.kind in _GOOD_POLL_KINDS:
        # The extension re-sends the full `inputRequests` snapshot: it is authoritative.
        pending = frozenset(r.key for r in task.input_requests) - watched.answered_inputs
    if task is not None and task.is_terminal:
        pending = frozenset()
    return pending


NOT_FOUND_DETAIL = "the server does not know this id"


def _never_known(watched: WatchedTask, event: TaskEvent, known_before: bool) -> bool:
    """A "not found" for an id that never had a good state here nor in an earlier run."""
    return event.kind == "expired" and watched.task is None and not known_before


def _entry_for(
    watched: WatchedTask,
    event: TaskEvent,
    task: Task | None,
    diff: StateDiff | None,
    known_before: bool,
) -> TimelineEntry | None:
    status = task.status if task is not None else None
    kind: str = event.kind
    detail = event.detail
    if kind == "polled":
        if diff:
            kind = "changed"
        elif watched.erroring:
            kind, detail = "recovered", "a good poll cleared the error"
        else:
            return None
    elif kind == "changed" and not diff:
        return None  # nothing the timeline can show (a question asked has its own row)
    elif kind in ("input_needed", "input_answered") and event.input_request is not None:
        request = event.input_request
        detail = detail or f"{request.method} [{request.key}] {request.message}".strip()
    elif _never_known(watched, event, known_before):
        kind = "not found"
        detail = f"{NOT_FOUND_DETAIL} ({detail})" if detail else NOT_FOUND_DETAIL
    elif kind == "expired":
        kind = "expired" if _expired_by_ttl(watched.task, event.at) else "forgotten"
    return TimelineEntry(event.at, kind, event.source, status, detail, diff=diff or None)


PROGRESS_KEY = "progressNotification"
"""Where the timeline's diff shows the progress a notification brought."""


def _diffed_state(task: Task) -> Any:
    """What the timeline diffs: the task's raw JSON, with the last `notifications/progress`
    beside it (no answer carries it), so a progress notification shows what it changed."""
    if task.progress is None or not isinstance(task.raw, dict):
        return task.raw
    return {**task.raw, PROGRESS_KEY: task.progress.model_dump(exclude_none=True)}


def apply_event(
    watched: WatchedTask | None,
    event: TaskEvent,
    *,
    timeline_cap: int = DEFAULT_TIMELINE_CAP,
    known_before: bool = False,
    known_tool: str | None = None,
) -> WatchedTask:
    """The new `WatchedTask` after `event`; `watched` is None for a task seen for the first time.

    `known_before`: the id was watched in an earlier run (resumed), so a "not found" for it
    means the server forgot it, not that it never knew it; `known_tool` is the tool remembered
    for it (a forgotten task's row still names it).
    """
    if watched is None:
        watched = WatchedTask(
            task_id=event.task_id,
            task=None,
            tool_name=known_tool,
            first_seen=event.at,
            last_change=event.at,
            last_event=event.at,
            server=event.server,
        )
    previous = watched.task
    task = event.task if event.task is not None else previous
    good = event.kind in _GOOD_POLL_KINDS
    material = event.kind in _MATERIAL_KINDS or (
        previous is not None
        and task is not None
        and task is not previous
        and previous.differs_materially(task)
    )
    diff = None
    if material and previous is not None and task is not None and task is not previous:
        diff = json_diff(_diffed_state(previous), _diffed_state(task))

    changes: dict[str, Any] = {
        "task": task,
        "last_event": event.at,
        "pending_inputs": _pending_after(watched, event, task),
    }
    if task is not None:
        changes["tool_name"] = task.tool_name or watched.tool_name
        changes["synchronous"] = watched.synchronous or task.result_source == "synchronous"
        if task.is_terminal:
            changes["cancel_requested"] = False
    if material or event.kind == "created":
        changes["last_change"] = event.at
    if event.next_poll is not None:
        changes["next_poll"] = event.next_poll
        changes["next_poll_at"] = event.at + event.next_poll.delay
    if event.frame is not None:
        changes["last_frame"] = event.frame
    if event.source == "poll" and event.kind in _GOOD_POLL_KINDS | {"error", "violation"}:
        changes["polls"] = watched.polls + 1
    if good:
        changes["last_error"] = None
        changes["violation"] = None
        changes["expired"] = False
        changes["forgotten"] = False
        changes["not_found"] = False
    elif event.kind == "error":
        changes["last_error"] = event.detail or "request failed"
        changes["errors"] = watched.errors + 1
    elif event.kind == "violation":
        changes["violation"] = Violation(
            event.detail or "protocol violation", event.frame, event.at
        )
        changes["errors"] = watched.errors + 1
    elif event.kind == "expired":
        by_ttl = _expired_by_ttl(watched.task, event.at)
        unknown = _never_known(watched, event, known_before)
        changes["expired"] = by_ttl and not unknown
        changes["forgotten"] = not by_ttl and not unknown
        changes["not_found"] = unknown
        changes["next_poll"] = None
        changes["next_poll_at"] = None
        changes["cancel_requested"] = False
    elif event.kind == "input_answered" and event.input_request is not None:
        changes["answered_inputs"] = watched.answered_inputs | {event.input_request.key}
    if event.kind == "stopped":
        lost = watched.not_found and event.detail == "expired"
        changes["stopped"] = "not found" if lost else event.detail or "watch ended"
        changes["next_poll"] = None
        changes["next_poll_at"] = None

    entry = _entry_for(watched, event, task, diff, known_before)
    if entry is not None:
        changes["timeline"] = bounded_timeline(watched.timeline, entry, timeline_cap)
    after = replace(watched, **changes)
    history = next_history(
        watched.history, event.kind, _history_time(event), after.status, after.settled
    )
    return after if history is watched.history else replace(after, history=history)


def _history_time(event: TaskEvent) -> float:
    """When the event's status began: a task we created had its first status since the
    server's `createdAt` (a moment before our clock saw the answer); else the event's time."""
    task = event.task
    if event.kind == "created" and event.source == "create" and task is not None:
        created = task.created_at
        if created is not None:
            return min(event.at, created.timestamp())
    return event.at


def bounded_timeline(
    timeline: tuple[TimelineEntry, ...], entry: TimelineEntry, cap: int
) -> tuple[TimelineEntry, ...]:
    """The timeline with `entry` appended, keeping only the newest `cap` entries."""
    kept = (*timeline, entry)
    return kept[-cap:] if cap > 0 else ()
