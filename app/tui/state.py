"""The TUI's own model of every watched task, fed by the poller's `TaskEvent`s.

`TasksState` is a small mutable registry owned by the App: `apply(event)` replaces one frozen
`WatchedTask` and reports which ids changed, so the App repaints only those rows. Filtering,
sorting and the JSON diff between successive states are pure helpers next to it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from app.engine.events import NextPoll, TaskEvent
from app.engine.models import Task

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
    "unknown",
]
"""What the status column shows: the server's status, or what became of a task it lost."""

SortKey = Literal["age", "status", "tool", "last_change"]
SORT_KEYS: tuple[SortKey, ...] = ("age", "status", "tool", "last_change")

_MATERIAL_KINDS = frozenset({"transition", "changed", "result"})
_GOOD_POLL_KINDS = frozenset({"created", "polled", "transition", "changed", "result"})


# --------------------------------------------------------------------------------------------
# JSON diff


DiffOp = Literal["added", "removed", "changed"]


@dataclass(frozen=True, slots=True)
class DiffEntry:
    """One difference between two JSON states; values are kept as short compact JSON text."""

    op: DiffOp
    path: str
    before: str | None = None
    after: str | None = None

    def describe(self) -> str:
        """A one-line, human-readable form such as `~ status: "working" → "completed"`."""
        if self.op == "added":
            return f"+ {self.path}: {self.after}"
        if self.op == "removed":
            return f"- {self.path}: {self.before}"
        return f"~ {self.path}: {self.before} → {self.after}"


@dataclass(frozen=True, slots=True)
class StateDiff:
    """The differences between two successive raw states, capped; `omitted` counts the rest."""

    entries: tuple[DiffEntry, ...] = ()
    omitted: int = 0

    def __bool__(self) -> bool:
        return bool(self.entries) or self.omitted > 0

    def lines(self) -> list[str]:
        """Each entry on its own line, plus a final "… N more" line when entries were capped."""
        described = [entry.describe() for entry in self.entries]
        if self.omitted:
            described.append(f"… {self.omitted} more")
        return described


def compact_json(value: Any, width: int = 80) -> str:
    """`value` as one line of JSON, cut to `width` characters with an ellipsis."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _child_path(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    simple = key.isidentifier()
    if not path:
        return key if simple else f"[{compact_json(key)}]"
    return f"{path}.{key}" if simple else f"{path}[{compact_json(key)}]"


def _same_scalar(left: Any, right: Any) -> bool:
    """Equal as JSON scalars: `true` is not `1`, and containers are never compared here."""
    if left is right:
        return True
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    return type(left) is type(right) and bool(left == right)


def json_diff(
    before: Any, after: Any, *, max_entries: int = 40, value_width: int = 80
) -> StateDiff:
    """Added, removed and changed paths between two JSON values, walked without recursion.

    Values are stored as compact JSON cut to `value_width`, so a timeline of diffs stays small
    even when results are megabytes long.
    """
    entries: list[DiffEntry] = []
    omitted = 0

    def record(entry: DiffEntry) -> None:
        nonlocal omitted
        if len(entries) < max_entries:
            entries.append(entry)
        else:
            omitted += 1

    stack: list[tuple[str, Any, Any]] = [("", before, after)]
    while stack:
        path, left, right = stack.pop()
        if _same_scalar(left, right):
            continue
        if isinstance(left, dict) and isinstance(right, dict):
            children: list[tuple[str, Any, Any]] = []
            for key in right:
                child = _child_path(path, str(key))
                if key not in left:
                    record(DiffEntry("added", child, after=compact_json(right[key], value_width)))
                else:
                    children.append((child, left[key], right[key]))
            for key in left:
                if key not in right:
                    child = _child_path(path, str(key))
                    record(DiffEntry("removed", child, before=compact_json(left[key], value_width)))
            stack.extend(reversed(children))
        elif isinstance(left, list) and isinstance(right, list):
            shared = min(len(left), len(right))
            for index in range(len(right) - 1, shared - 1, -1):
                record(
                    DiffEntry(
                        "added",
                        _child_path(path, index),
                        after=compact_json(right[index], value_width),
                    )
                )
            for index in range(len(left) - 1, shared - 1, -1):
                record(
                    DiffEntry(
                        "removed",
                        _child_path(path, index),
                        before=compact_json(left[index], value_width),
                    )
                )
            stack.extend(
                (_child_path(path, index), left[index], right[index])
                for index in range(shared - 1, -1, -1)
            )
        else:
            record(
                DiffEntry(
                    "changed",
                    path or "(root)",
                    before=compact_json(left, value_width),
                    after=compact_json(right, value_width),
                )
            )
    return StateDiff(tuple(entries), omitted)


# --------------------------------------------------------------------------------------------
# Watched tasks


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One step in a task's history: when, what, what brought it, and how the state changed."""

    at: float
    kind: str
    source: str
    status: str | None = None
    detail: str | None = None
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
    stopped: str | None = None
    pending_inputs: frozenset[str] = frozenset()
    answered_inputs: frozenset[str] = frozenset()
    polls: int = 0
    errors: int = 0
    last_frame: object | None = None
    timeline: tuple[TimelineEntry, ...] = field(default=(), repr=False)

    @property
    def status(self) -> DisplayStatus:
        """The status to show: the server's, unless the server no longer knows the task."""
        if self.expired:
            return "expired"
        if self.forgotten:
            return "forgotten"
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
            self.status in ("failed", "expired", "forgotten")
            or self.input_waiting
            or self.erroring
            or (self.task is not None and self.task.is_tool_error)
        )

    @property
    def settled(self) -> bool:
        """True once nothing more will happen: terminal, gone from the server, or unwatched."""
        return (
            self.expired
            or self.forgotten
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


def _entry_for(
    watched: WatchedTask, event: TaskEvent, task: Task | None, diff: StateDiff | None
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
    elif kind in ("input_needed", "input_answered") and event.input_request is not None:
        request = event.input_request
        detail = detail or f"{request.method} [{request.key}] {request.message}".strip()
    elif kind == "expired":
        kind = "expired" if _expired_by_ttl(watched.task, event.at) else "forgotten"
    return TimelineEntry(event.at, kind, event.source, status, detail, diff or None)


def apply_event(
    watched: WatchedTask | None, event: TaskEvent, *, timeline_cap: int = DEFAULT_TIMELINE_CAP
) -> WatchedTask:
    """The new `WatchedTask` after `event`; `watched` is None for a task seen for the first time."""
    if watched is None:
        watched = WatchedTask(
            task_id=event.task_id,
            task=None,
            tool_name=None,
            first_seen=event.at,
            last_change=event.at,
            last_event=event.at,
        )
    previous = watched.task
    task = event.task if event.task is not None else previous
    good = event.kind in _GOOD_POLL_KINDS
    material = event.kind in _MATERIAL_KINDS or (
        previous is not None and task is not None and previous.material_key() != task.material_key()
    )
    diff = None
    if material and previous is not None and task is not None and task is not previous:
        diff = json_diff(previous.raw, task.raw)

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
        changes["expired"] = by_ttl
        changes["forgotten"] = not by_ttl
        changes["next_poll"] = None
        changes["next_poll_at"] = None
        changes["cancel_requested"] = False
    elif event.kind == "input_answered" and event.input_request is not None:
        changes["answered_inputs"] = watched.answered_inputs | {event.input_request.key}
    if event.kind == "stopped":
        changes["stopped"] = event.detail or "watch ended"
        changes["next_poll"] = None
        changes["next_poll_at"] = None

    entry = _entry_for(watched, event, task, diff)
    if entry is not None:
        changes["timeline"] = _bounded(watched.timeline, entry, timeline_cap)
    return replace(watched, **changes)


def _bounded(
    timeline: tuple[TimelineEntry, ...], entry: TimelineEntry, cap: int
) -> tuple[TimelineEntry, ...]:
    kept = (*timeline, entry)
    return kept[-cap:] if cap > 0 else ()


# --------------------------------------------------------------------------------------------
# Filtering and sorting


FilterField = Literal["status", "tool", "id", "text"]


@dataclass(frozen=True, slots=True)
class FilterTerm:
    """One `/` token: `status:`, `tool:`, `id:` or free text, optionally negated with `!`."""

    field: FilterField
    value: str
    negated: bool = False

    def matches(self, watched: WatchedTask) -> bool:
        return self._hit(watched) != self.negated

    def _hit(self, watched: WatchedTask) -> bool:
        needle = self.value.casefold()
        if self.field == "status":
            names = {watched.status, watched.task.status if watched.task else "unknown"}
            wanted = needle.split(",")
            return any(name.startswith(want) for name in names for want in wanted if want)
        if self.field == "tool":
            return needle in (watched.tool_name or "").casefold()
        if self.field == "id":
            return needle in watched.task_id.casefold()
        message = watched.task.status_message if watched.task else None
        haystack = " ".join(
            part for part in (watched.task_id, watched.tool_name, watched.status, message) if part
        )
        return needle in haystack.casefold()


@dataclass(frozen=True, slots=True)
class TaskFilter:
    """All `/` tokens (every one must match) plus the faults-only toggle."""

    terms: tuple[FilterTerm, ...] = ()
    faults_only: bool = False

    @property
    def is_empty(self) -> bool:
        return not self.terms and not self.faults_only

    def matches(self, watched: WatchedTask) -> bool:
        if self.faults_only and not watched.is_fault:
            return False
        return all(term.matches(watched) for term in self.terms)


_FIELD_PREFIXES: dict[str, FilterField] = {
    "status": "status",
    "s": "status",
    "tool": "tool",
    "t": "tool",
    "id": "id",
    "task": "id",
}


def parse_filter(query: str, *, faults_only: bool = False) -> TaskFilter:
    """Parse a `/` query such as `status:working tool:"long job" !id:abc deploy` into a filter."""
    try:
        tokens = shlex.split(query)
    except ValueError:  # an unbalanced quote: fall back to plain words
        tokens = query.split()
    terms: list[FilterTerm] = []
    for token in tokens:
        negated = token.startswith("!")
        body = token[1:] if negated else token
        prefix, colon, value = body.partition(":")
        field_name = _FIELD_PREFIXES.get(prefix.casefold()) if colon else None
        if field_name is not None:
            if value:
                terms.append(FilterTerm(field_name, value, negated))
        elif body:
            terms.append(FilterTerm("text", body, negated))
    return TaskFilter(tuple(terms), faults_only)


_STATUS_RANK: dict[str, int] = {
    "input_required": 0,
    "failed": 1,
    "forgotten": 2,
    "expired": 3,
    "unknown": 4,
    "working": 5,
    "cancelled": 6,
    "completed": 7,
}


def _started(watched: WatchedTask) -> float:
    created = watched.task.created_at if watched.task else None
    return created.timestamp() if created is not None else watched.first_seen


def sort_key(watched: WatchedTask, key: SortKey) -> tuple[Any, ...]:
    """A comparable key for one order; ties fall back to first-seen then id, so rows stay put."""
    stable = (watched.first_seen, watched.task_id)
    if key == "age":
        return (_started(watched), *stable)
    if key == "status":
        return (_STATUS_RANK.get(watched.status, 9), not watched.erroring, *stable)
    if key == "tool":
        return ((watched.tool_name or "\uffff").casefold(), *stable)
    return (watched.last_change, *stable)


def ordered_ids(
    tasks: Mapping[str, WatchedTask],
    *,
    task_filter: TaskFilter | None = None,
    sort: SortKey | None = None,
    descending: bool = False,
) -> list[str]:
    """The ids to show, filtered, in sort order (first-seen order when `sort` is None)."""
    shown: Iterable[WatchedTask] = tasks.values()
    if task_filter is not None and not task_filter.is_empty:
        shown = [watched for watched in shown if task_filter.matches(watched)]
    if sort is None:
        ids = [watched.task_id for watched in shown]
        return ids[::-1] if descending else ids
    ranked = sorted(shown, key=lambda watched: sort_key(watched, sort), reverse=descending)
    return [watched.task_id for watched in ranked]


# --------------------------------------------------------------------------------------------
# The App-owned registry


@dataclass(frozen=True, slots=True)
class TasksSummary:
    """Counts for the header: how many tasks per status, and how many need attention."""

    total: int
    by_status: Mapping[str, int]
    input_waiting: int
    erroring: int
    violations: int
    latest_error: str | None


class TasksState:
    """Every watched task by id, in first-seen order; the App's single owner of task state.

    `apply` replaces one `WatchedTask` per event and returns whether it changed, so the App
    can collect changed ids between repaints and patch only those rows.
    """

    def __init__(self, *, timeline_cap: int = DEFAULT_TIMELINE_CAP) -> None:
        self.timeline_cap = timeline_cap
        self._tasks: dict[str, WatchedTask] = {}

    @property
    def tasks(self) -> Mapping[str, WatchedTask]:
        """A read-only view of the watched tasks by id."""
        return self._tasks

    def __len__(self) -> int:
        return len(self._tasks)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._tasks

    def get(self, task_id: str) -> WatchedTask | None:
        return self._tasks.get(task_id)

    def apply(self, event: TaskEvent) -> bool:
        """Fold one event into the state; True when the task's `WatchedTask` changed."""
        before = self._tasks.get(event.task_id)
        after = apply_event(before, event, timeline_cap=self.timeline_cap)
        self._tasks[event.task_id] = after
        return after != before

    def apply_all(self, events: Iterable[TaskEvent]) -> set[str]:
        """Fold a batch of events in order; the ids whose rows need repainting."""
        return {event.task_id for event in events if self.apply(event)}

    def request_cancel(self, task_id: str, at: float) -> bool:
        """Note that the user asked to cancel; shown beside the server's status until it settles."""
        watched = self._tasks.get(task_id)
        if watched is None or watched.settled:
            return False
        entry = TimelineEntry(at, "cancel_requested", "user", watched.status, "cancel requested")
        self._tasks[task_id] = replace(
            watched,
            cancel_requested=True,
            last_event=at,
            timeline=_bounded(watched.timeline, entry, self.timeline_cap),
        )
        return True

    def forget(self, task_id: str) -> bool:
        """Stop showing a task (the user dismissed it); True when it was there."""
        return self._tasks.pop(task_id, None) is not None

    def view(
        self,
        task_filter: TaskFilter | None = None,
        sort: SortKey | None = None,
        *,
        descending: bool = False,
    ) -> list[str]:
        """The ids to show for a filter and sort order; see `ordered_ids`."""
        return ordered_ids(self._tasks, task_filter=task_filter, sort=sort, descending=descending)

    def summary(self, ids: Sequence[str] | None = None) -> TasksSummary:
        """Header counts over `ids` (all tasks when None)."""
        chosen = self._tasks.values() if ids is None else (self._tasks[i] for i in ids)
        by_status: dict[str, int] = {}
        waiting = erroring = violations = 0
        latest: tuple[float, str] | None = None
        total = 0
        for watched in chosen:
            total += 1
            by_status[watched.status] = by_status.get(watched.status, 0) + 1
            waiting += watched.input_waiting
            erroring += watched.erroring
            violations += watched.violation is not None
            if watched.last_error is not None and (
                latest is None or watched.last_event > latest[0]
            ):
                latest = (watched.last_event, watched.last_error)
        return TasksSummary(
            total, by_status, waiting, erroring, violations, latest[1] if latest else None
        )


__all__ = [
    "DEFAULT_TIMELINE_CAP",
    "SORT_KEYS",
    "DiffEntry",
    "DisplayStatus",
    "FilterTerm",
    "SortKey",
    "StateDiff",
    "TaskFilter",
    "TasksState",
    "TasksSummary",
    "TimelineEntry",
    "Violation",
    "WatchedTask",
    "apply_event",
    "compact_json",
    "json_diff",
    "ordered_ids",
    "parse_filter",
    "sort_key",
]
