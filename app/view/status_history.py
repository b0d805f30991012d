"""Each watched task's bounded history for the time view: when its status changed, and the
moments worth a mark (a question asked or answered, a failed poll).

The task timeline keeps every material change (progress, messages, diffs) and so drops its oldest
entries on a busy task; this record keeps only status changes and marks, each bounded by
`HISTORY_CAP`, so a bar can be drawn from a task's first status to its last. It is part of the
App's state (`WatchedTask.history`), folded from the same `TaskEvent`s by `next_history`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from app.engine.tasks.events import EventKind

HISTORY_CAP = 64
"""How many status changes, and how many marked moments, each task keeps (the oldest go first)."""

MomentKind = Literal["asked", "answered", "poll_failed"]
"""A moment the time view marks on a bar."""

_MOMENT_OF_EVENT: dict[str, MomentKind] = {
    "input_needed": "asked",
    "input_answered": "answered",
    "error": "poll_failed",
    "violation": "poll_failed",
}


@dataclass(frozen=True, slots=True)
class StatusChange:
    """From `at` (wall-clock seconds) on, the task showed `status` (a display status)."""

    at: float
    status: str


@dataclass(frozen=True, slots=True)
class Moment:
    """Something that happened to the task at `at`, drawn as a mark on its bar."""

    at: float
    kind: MomentKind


@dataclass(frozen=True, slots=True)
class StatusHistory:
    """A task's status changes and marked moments, oldest first, and when it settled.

    `settled_at` is when the task last became settled (None while it is not); `dropped` says
    older status changes fell off the cap, so the start of the bar is not known any more.
    """

    changes: tuple[StatusChange, ...] = ()
    moments: tuple[Moment, ...] = ()
    settled_at: float | None = None
    dropped: bool = False


EMPTY_HISTORY = StatusHistory()


def next_history(
    history: StatusHistory,
    kind: EventKind,
    at: float,
    status: str,
    settled: bool,
    cap: int = HISTORY_CAP,
) -> StatusHistory:
    """The history after an event of `kind` at `at` left the task showing `status` (settled or
    not); the same object when nothing the time view draws changed."""
    changes = history.changes
    dropped = history.dropped
    if not changes or changes[-1].status != status:
        kept = (*changes, StatusChange(at, status))
        dropped = dropped or len(kept) > cap
        changes = kept[-cap:]
    moments = history.moments
    moment = _MOMENT_OF_EVENT.get(kind)
    if moment is not None:
        moments = (*moments, Moment(at, moment))[-cap:]
    settled_at = history.settled_at
    if not settled:
        settled_at = None
    elif settled_at is None:
        settled_at = at
    if (
        changes is history.changes
        and moments is history.moments
        and settled_at == history.settled_at
    ):
        return history
    return replace(
        history, changes=changes, moments=moments, settled_at=settled_at, dropped=dropped
    )
