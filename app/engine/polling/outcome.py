"""What a poll's answer or failure means: which event it makes, whether its transition is legal,
and what an exception says (detail, Retry-After, frame, a legacy result's error).

Pure functions, so the poller keeps only the loop and the book-keeping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.rpc.rpc_types import RpcError
from app.engine.tasks.events import EventKind

if TYPE_CHECKING:
    from app.engine.tasks.models import Task, TaskError


def event_kind(old: Task | None, new: Task, *, from_poll: bool) -> EventKind | None:
    """The event a new good state makes; None for a repeated notification that says nothing new."""
    if old is None:
        return "created"
    if old is new:  # the adapter handed back the same Task: the answer did not change
        return "polled" if from_poll else None
    if old.status != new.status:
        return "transition"
    if old.differs_materially(new):
        return "changed"
    return "polled" if from_poll else None


def overtaken(old: Task | None, new: Task, *, pushed_at: float | None, sent_at: float) -> bool:
    """Whether a poll answer is older than a notification that arrived while the poll was out:
    both carry `lastUpdatedAt` and the answer's is the earlier (applying it would go back)."""
    if old is None or pushed_at is None or pushed_at < sent_at:
        return False
    before, after = old.last_updated_at, new.last_updated_at
    if before is None or after is None or (before.tzinfo is None) != (after.tzinfo is None):
        return False
    return after < before


def illegal_transition(
    old: Task | None, new: Task, *, cancel_requested_at: float | None, sent_at: float
) -> str | None:
    """Why moving from `old` to `new` breaks the protocol, or None when it is allowed.

    A terminal status is final; after a legacy `tasks/cancel` (sent before this poll) the only
    status allowed is `cancelled`.
    """
    if old is None:
        return None
    if old.is_terminal and new.status != old.status:
        return f"status went from terminal {old.status!r} to {new.status!r}"
    if (
        old.wire == "legacy"
        and cancel_requested_at is not None
        and sent_at >= cancel_requested_at
        and new.status != "cancelled"
    ):
        return f"status {new.status!r} after a legacy tasks/cancel (must be 'cancelled')"
    return None


def carry_progress(old: Task, new: Task) -> Task:
    """Keep the last progress notification across polls (a `tasks/get` answer never carries
    it); the tool name is the adapter's to add (`AdapterBase.tools`)."""
    if new.progress is None and old.progress is not None:
        return new.model_copy(update={"progress": old.progress})
    return new


def describe(exc: BaseException) -> str:
    """An exception as an event detail: its type name, and its text when it has one."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def retry_after(exc: BaseException) -> float | None:
    """The Retry-After (seconds) an RpcError or TransportError carried, if any."""
    value = getattr(exc, "retry_after", None)
    return float(value) if isinstance(value, int | float) and value > 0 else None


def error_frame(exc: BaseException) -> object | None:
    """The (redacted) frame an error came with, for the event's raw view."""
    return getattr(exc, "frame", None)


def task_error(exc: BaseException) -> TaskError | None:
    """A JSON-RPC error answer to `tasks/result` is the task's outcome; anything else is not."""
    from app.engine.tasks.models import TaskError  # pydantic loads with the first task

    if not isinstance(exc, RpcError):
        return None
    return TaskError(code=exc.code, message=exc.message, data=exc.data)
