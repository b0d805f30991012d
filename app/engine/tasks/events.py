"""The one stream of events the poller emits; the headless commands and the TUI both consume it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task

EventKind = Literal[
    "created",  # a task was created (or adopted, or listed) and is now watched
    "polled",  # a poll returned; no material change
    "transition",  # the status changed
    "changed",  # same status, but message / progress / result / inputs changed
    "input_needed",  # a new input request arrived (deduplicated by key)
    "input_answered",  # an answer was acknowledged by the server
    "result",  # the final result is known (inline or fetched)
    "error",  # a poll or call failed (transport or JSON-RPC); the task keeps its last good state
    "violation",  # the server broke the protocol; the task keeps its last good state
    "expired",  # the server no longer knows the task (unknown id / TTL purge)
    "stopped",  # the watch ended (terminal, bounds reached, aborted)
]

Source = Literal["create", "poll", "notification", "user", "list", "stream"]
"""What brought the event: a creation, a scheduled poll, a server notification, a user action,
a `tasks/list` import, or a server-to-client request stream."""

PacingTerm = Literal["server", "user", "backoff", "retry-after", "floor", "notification"]
"""Which term set the delay of the next poll."""


@dataclass(frozen=True, slots=True)
class NextPoll:
    """When the next poll of a task is due and which pacing term decided it."""

    due: float  # monotonic seconds
    delay: float  # seconds from the moment it was scheduled
    term: PacingTerm


@dataclass(frozen=True, slots=True)
class TaskEvent:
    """One thing that happened to one task. `task` is the latest good normalized state."""

    kind: EventKind
    task_id: str
    task: Task | None
    at: float  # wall clock, time.time()
    source: Source
    detail: str | None = None
    previous_status: str | None = None
    input_request: InputRequest | None = None
    next_poll: NextPoll | None = None
    frame: object | None = None  # the offending or relevant raw frame, for violations and errors
    server: str | None = None
    """The server's name when the inspector watches several (`task_id` is then its row key)."""
