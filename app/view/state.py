"""The App's registry of every watched task, fed by the poller's `TaskEvent`s.

`TasksState` is a small mutable registry owned by the App: `apply(event)` replaces one frozen
`WatchedTask` (the reducer in `app.view.watched`) and reports which ids changed, so the App repaints
only those rows. Filtering and sorting live in `app.view.task_filter`, the JSON diff between
successive states in `app.view.json_diff`; the names the App and widgets use are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app.view.json_diff import DiffEntry, StateDiff, compact_json, json_diff
from app.view.task_filter import (
    SORT_KEYS,
    FilterTerm,
    SortKey,
    TaskFilter,
    ordered_ids,
    parse_filter,
    sort_key,
)
from app.view.watched import (
    DEFAULT_TIMELINE_CAP,
    DisplayStatus,
    TimelineEntry,
    Violation,
    WatchedTask,
    apply_event,
    bounded_timeline,
)

if TYPE_CHECKING:  # annotations only: the TUI's first frame does not load pydantic
    from app.engine.tasks.events import TaskEvent
    from app.view.known_tasks import KnownTask


@dataclass(frozen=True, slots=True)
class TasksSummary:
    """Counts for the header: how many tasks per status, and how many need attention."""

    total: int
    by_status: Mapping[str, int]
    input_waiting: int
    """Questions waiting for an answer (a task may ask several), as the inbox counts them."""
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
        self._forgotten: set[str] = set()
        self._known_before: dict[str, KnownTask] = {}
        """Ids watched in an earlier run (resumed from the known-task store), with the tool that
        created each and what that run last saw of it."""
        self._totals = _Totals()

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

    def apply(self, event: TaskEvent, *, session_wire: str | None = None) -> bool:
        """Fold one event into the state; True when the task's `WatchedTask` changed
        (`session_wire`: the wire this session speaks to the task's server, see `apply_event`).

        A task the user forgot stays forgotten: late events of its old watch are dropped, and only
        a new watch (`created`, e.g. a `tasks/list` import) brings it back.
        """
        if event.task_id in self._forgotten:
            if event.kind != "created":
                return False
            self._forgotten.discard(event.task_id)
        before = self._tasks.get(event.task_id)
        after = apply_event(
            before,
            event,
            timeline_cap=self.timeline_cap,
            known=self._known_before.get(event.task_id),
            session_wire=session_wire,
        )
        self._put(event.task_id, before, after)
        return after != before

    def known_before(self, known: Iterable[KnownTask]) -> None:
        """Note ids watched in an earlier run, each with its tool and what that run saw: if the
        server no longer knows one (or, a legacy task, not in this session) it is shown as such
        under that tool and with its own times, not as an id it never knew."""
        self._known_before.update((entry.task_id, entry) for entry in known)

    def apply_all(self, events: Iterable[TaskEvent]) -> set[str]:
        """Fold a batch of events in order; the ids whose rows need repainting."""
        return {event.task_id for event in events if self.apply(event)}

    def request_cancel(self, task_id: str, at: float) -> bool:
        """Note that the user asked to cancel; shown beside the server's status until it settles."""
        watched = self._tasks.get(task_id)
        if watched is None or watched.settled:
            return False
        entry = TimelineEntry(at, "cancel_requested", "user", watched.status, "cancel requested")
        after = replace(
            watched,
            cancel_requested=True,
            last_event=at,
            timeline=bounded_timeline(watched.timeline, entry, self.timeline_cap),
        )
        self._put(task_id, watched, after)
        return True

    def forget(self, task_id: str) -> bool:
        """Stop showing a task (the user dismissed it); True when it was there."""
        self._forgotten.add(task_id)
        before = self._tasks.pop(task_id, None)
        if before is None:
            return False
        self._totals.remove(before)
        return True

    def _put(self, task_id: str, before: WatchedTask | None, after: WatchedTask) -> None:
        """Store a task's new state and keep the header totals in step."""
        self._tasks[task_id] = after
        if before is not None:
            self._totals.remove(before)
        self._totals.add(after)

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
        """Header counts over `ids` (all tasks when None, kept up to date as events apply)."""
        if ids is None:
            totals = self._totals
            if totals.latest_stale:
                totals.latest = _latest_error(self._tasks.values())
                totals.latest_stale = False
            by_status = {status: n for status, n in totals.by_status.items() if n}
            latest = totals.latest
            return TasksSummary(
                len(self._tasks),
                by_status,
                totals.waiting,
                totals.erroring,
                totals.violations,
                latest[1] if latest else None,
            )
        chosen = [self._tasks[i] for i in ids]
        counted = _Totals()
        for watched in chosen:
            counted.add(watched)
        latest = _latest_error(chosen)
        return TasksSummary(
            len(chosen),
            dict(counted.by_status),
            counted.waiting,
            counted.erroring,
            counted.violations,
            latest[1] if latest else None,
        )


class _Totals:
    """Running header counts over a set of tasks: add a task's state, remove its old one.

    The latest error is tracked as it grows; removing the state that held it marks it stale, to be
    found again by one walk when the summary is next read (rare: only when an error changes).
    """

    __slots__ = ("by_status", "erroring", "latest", "latest_stale", "violations", "waiting")

    def __init__(self) -> None:
        self.by_status: dict[str, int] = {}
        self.waiting = 0
        self.erroring = 0
        self.violations = 0
        self.latest: tuple[float, str] | None = None
        self.latest_stale = False

    def add(self, watched: WatchedTask) -> None:
        self._count(watched, 1)
        if watched.last_error is None or self.latest_stale:
            return
        if self.latest is None or watched.last_event > self.latest[0]:
            self.latest = (watched.last_event, watched.last_error)
        elif watched.last_event == self.latest[0]:
            self.latest_stale = True  # a tie goes to the first task in order: walk to find it

    def remove(self, watched: WatchedTask) -> None:
        self._count(watched, -1)
        if (
            watched.last_error is not None
            and self.latest is not None
            and watched.last_event >= self.latest[0]
        ):
            self.latest_stale = True

    def _count(self, watched: WatchedTask, sign: int) -> None:
        self.by_status[watched.status] = self.by_status.get(watched.status, 0) + sign
        self.waiting += sign * len(watched.pending_inputs)
        self.erroring += sign * watched.erroring
        self.violations += sign * (watched.violation is not None)


def _latest_error(tasks: Iterable[WatchedTask]) -> tuple[float, str] | None:
    """The error of the task whose last event is the latest (the first such task on a tie)."""
    latest: tuple[float, str] | None = None
    for watched in tasks:
        if watched.last_error is not None and (latest is None or watched.last_event > latest[0]):
            latest = (watched.last_event, watched.last_error)
    return latest


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
