"""The TUI's model of one watched task, and the reducer that folds a poller `TaskEvent` into it.

`apply_event` replaces a frozen `WatchedTask` per event: display status, counters, the pending
input keys, a bounded timeline with the JSON diff of each material change, and the bounded status
history the time view draws (`app.view.status_history`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from app.engine.record.history import LifeStep
from app.engine.tasks.gone import (
    NOT_VISIBLE_REASON,
    GoneKind,
    gone_detail,
    gone_kind,
    seen_on_legacy,
)
from app.engine.tasks.server_keys import bare_id
from app.view.json_diff import StateDiff, json_diff
from app.view.status_history import EMPTY_HISTORY, StatusChange, StatusHistory, next_history

if TYPE_CHECKING:  # annotations only: the TUI's first frame does not load pydantic
    from app.engine.tasks.events import NextPoll, TaskEvent
    from app.engine.tasks.last_seen import LastSeen
    from app.engine.tasks.models import Task
    from app.view.known_tasks import KnownTask

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
    "not_visible",
    "unknown",
]
"""What the status column shows: the server's status, or what became of a task it lost
(`not_found`: an id the server never knew, e.g. a mistyped one pasted with `a`; `not_visible`: a
legacy task this session cannot see, made by an earlier run's session or the one before a
reconnect)."""


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
    not_visible: bool = False
    """A legacy task the server answers "not found" for because another session made it (an
    earlier run's, or the one before a reconnect): see `NOT_VISIBLE_REASON`."""
    seen_before: LastSeen | None = None
    """What an earlier run last saw of the task (restored from the known-task store)."""
    restored: bool = False
    """The id came from the known-task store (an earlier run watched it)."""
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
        if self.not_visible:
            return "not_visible"
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
            self.status in ("failed", "expired", "forgotten", "not_found", "not_visible")
            or self.input_waiting
            or self.erroring
            or (self.task is not None and self.task.is_tool_error)
        )

    @property
    def gone(self) -> bool:
        """True when the server does not know the task (any more), or not to this session:
        expired, forgotten, an id it never knew, or not visible. `C` clears these rows."""
        return self.expired or self.forgotten or self.not_found or self.not_visible

    @property
    def created_at(self) -> float:
        """When the task was created: the server's `createdAt`, else the one an earlier run saw,
        else when this session first saw the id (ages count from it)."""
        created = self.task.created_at if self.task is not None else None
        if created is not None:
            return created.timestamp()
        seen = self.seen_before
        if seen is not None and seen.created_at is not None:
            return seen.created_at
        return self.first_seen

    @property
    def created_known(self) -> bool:
        """False for a restored task with no `createdAt` (not told by the server here, nor kept
        by the earlier run: a store an older taskscope wrote): its age is unknown, not counted
        from the restore."""
        if not self.restored or (self.task is not None and self.task.created_at is not None):
            return True
        seen = self.seen_before
        return seen is not None and seen.created_at is not None

    @property
    def changed_known(self) -> bool:
        """False for a restored task this session never saw whose `lastUpdatedAt` the earlier
        run did not keep: when it last changed is unknown."""
        if not self.restored or self.task is not None:
            return True
        seen = self.seen_before
        return seen is not None and seen.last_updated_at is not None

    @property
    def ttl_known(self) -> bool:
        """Whether the task's TTL (or that it has none) is known: this session saw the task, or
        the earlier run saw when it was created (with its TTL)."""
        seen = self.seen_before
        return self.task is not None or (seen is not None and seen.created_at is not None)

    @property
    def changed_at(self) -> float:
        """When the task last changed: for a task this session never saw, the `lastUpdatedAt` an
        earlier run saw; else its last material change here."""
        seen = self.seen_before
        if self.task is None and seen is not None and seen.last_updated_at is not None:
            return seen.last_updated_at
        return self.last_change

    @property
    def expires_at(self) -> float | None:
        """`createdAt + ttl` (None: no TTL, or not known): the server's, else an earlier run's."""
        if self.task is not None:
            expires = self.task.expires_at
            return expires.timestamp() if expires is not None else None
        return self.seen_before.expires_at if self.seen_before is not None else None

    @property
    def settled(self) -> bool:
        """True once nothing more will happen: terminal, gone from the server, or unwatched."""
        return (
            self.gone
            or self.stopped is not None
            or (self.task is not None and self.task.is_terminal)
        )


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


def _gone(
    watched: WatchedTask, event: TaskEvent, known_before: bool, session_wire: str | None
) -> GoneKind:
    """What an "expired" event (the server does not know the id) makes of the task
    (`session_wire`: the wire this session speaks to the task's server)."""
    return gone_kind(
        event.at,
        watched.expires_at,
        seen_here=watched.task is not None,
        known_before=known_before,
        legacy_before=seen_on_legacy(watched.seen_before, session_wire),
        detail=event.detail,
    )


def _entry_for(
    watched: WatchedTask,
    event: TaskEvent,
    task: Task | None,
    diff: StateDiff | None,
    known_before: bool,
    session_wire: str | None,
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
    elif kind == "expired":
        gone = _gone(watched, event, known_before, session_wire)
        kind, detail = gone, gone_detail(gone, detail)
    return TimelineEntry(event.at, kind, event.source, status, detail, diff=diff or None)


PROGRESS_KEY = "progressNotification"
"""Where the timeline's diff shows the progress a notification brought."""


def _diffed_state(task: Task) -> Any:
    """What the timeline diffs: the task's raw JSON, with the last `notifications/progress`
    beside it (no answer carries it), so a progress notification shows what it changed."""
    if task.progress is None or not isinstance(task.raw, dict):
        return task.raw
    return {**task.raw, PROGRESS_KEY: task.progress.model_dump(exclude_none=True)}


_LOST_WORDS = {
    "not_found": "not found",
    "forgotten": "forgotten",
    "not_visible": NOT_VISIBLE_REASON,
}


def _stopped_why(watched: WatchedTask, event: TaskEvent) -> str:
    """Why the watch ended; when the server lost the task (the poller says "expired" for any
    task it stopped knowing), what became of it, in its status's words."""
    if event.detail == "expired" and watched.gone:
        return _LOST_WORDS.get(watched.status, "expired")
    return event.detail or "watch ended"


def apply_event(
    watched: WatchedTask | None,
    event: TaskEvent,
    *,
    timeline_cap: int = DEFAULT_TIMELINE_CAP,
    known: KnownTask | None = None,
    session_wire: str | None = None,
) -> WatchedTask:
    """The new `WatchedTask` after `event`; `watched` is None for a task seen for the first time.

    `known`: the id was watched in an earlier run (resumed), so a "not found" for it means the
    server forgot it (or, a legacy task, does not show it to this session), not that it never
    knew it; its row names the tool remembered for it and reads its times from what that run
    saw. `session_wire`: the wire this session speaks to the task's server, which a "not found"
    for a remembered task is read by when the earlier run kept no wire.
    """
    known_before = known is not None
    if watched is None:
        watched = WatchedTask(
            task_id=event.task_id,
            task=None,
            tool_name=known.tool if known is not None else None,
            first_seen=event.at,
            last_change=event.at,
            last_event=event.at,
            server=event.server,
            seen_before=known.seen if known is not None else None,
            restored=known_before,
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
        changes["not_visible"] = False
    elif event.kind == "error":
        changes["last_error"] = event.detail or "request failed"
        changes["errors"] = watched.errors + 1
    elif event.kind == "violation":
        changes["violation"] = Violation(
            event.detail or "protocol violation", event.frame, event.at
        )
        changes["errors"] = watched.errors + 1
    elif event.kind == "expired":
        gone = _gone(watched, event, known_before, session_wire)
        changes["expired"] = gone == "expired"
        changes["forgotten"] = gone == "forgotten"
        changes["not_found"] = gone == "not found"
        changes["not_visible"] = gone == "not visible"
        changes["next_poll"] = None
        changes["next_poll_at"] = None
        changes["cancel_requested"] = False
    elif event.kind == "input_answered" and event.input_request is not None:
        changes["answered_inputs"] = watched.answered_inputs | {event.input_request.key}
    if event.kind == "stopped":
        changes["stopped"] = _stopped_why(watched, event)
        changes["next_poll"] = None
        changes["next_poll_at"] = None

    entry = _entry_for(watched, event, task, diff, known_before, session_wire)
    if entry is not None:
        changes["timeline"] = bounded_timeline(watched.timeline, entry, timeline_cap)
    after = replace(watched, **changes)
    history = next_history(
        watched.history, event.kind, _history_time(event), after.status, after.settled
    )
    if after.not_visible and after.task is None:
        # Never seen by this session: out of its sight since it was created, not "unknown".
        history = replace(history, changes=(StatusChange(after.created_at, after.status),))
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
