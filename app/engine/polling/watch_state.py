"""The poller's book-keeping for one watched task, shared by the poller and its schedule."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.engine.tasks.events import NextPoll, Source

if TYPE_CHECKING:
    from app.engine.tasks.models import Task


@dataclass(eq=False)
class Watch:
    """What the poller knows about one watched task beyond the task itself."""

    task_id: str
    task: Task | None  # None until an adopted id answers its first poll
    source: Source  # what brought the task in; the "created" event carries it
    next: NextPoll | None = None
    pending_reason: str = "poll"  # why the scheduled poll will be sent: "poll" or a user reason
    heap_seq: int = -1
    in_flight: bool = False
    errors: int = 0
    retry_after: float | None = None
    last_response_at: float | None = None
    input_rounds: int = 0
    announced: set[str] = field(default_factory=set)
    cancel_requested_at: float | None = None
    finishing: bool = False  # terminal; only the legacy result fetch is left
    pushed_at: float | None = None  # when a notification last set `task` (monotonic)
