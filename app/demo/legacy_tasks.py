"""Task records and the per-connection task store of the legacy-wire demo server.

Pure bookkeeping (no `mcp` import): the legacy `Task` shape, its state machine (terminal states
never change), the session binding, cursor pagination for `tasks/list` and TTL expiry.
"""

from __future__ import annotations

import base64
import binascii
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import anyio

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task"


def iso_timestamp(epoch_seconds: float) -> str:
    """ISO 8601 in UTC with milliseconds and a `Z`, as the legacy wire shows timestamps."""
    moment = datetime.fromtimestamp(epoch_seconds, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def related_task_meta(task_id: str) -> dict[str, Any]:
    """The `_meta` entry that ties a message to a task."""
    return {RELATED_TASK_META_KEY: {"taskId": task_id}}


@dataclass
class TaskRecord:
    """One task as the server keeps it: its wire fields, its outcome and who may see it."""

    task_id: str
    owner: str
    """The connection the task is bound to (an `Mcp-Session-Id`, or `stdio`)."""
    sequence: int
    """Creation order, used for stable `tasks/list` cursors."""
    ttl_ms: int
    poll_interval_ms: int
    created_at: float = field(default_factory=time.time)
    last_updated_at: float = 0.0
    status: TaskStatus = "working"
    status_message: str | None = None
    result: dict[str, Any] | None = None
    """The `CallToolResult` for `completed` (and for `failed` with `isError`)."""
    error: tuple[int, str] | None = None
    """The JSON-RPC error (`code`, `message`) for a `failed` task that raised one."""
    expired: bool = False
    _changed: anyio.Event = field(default_factory=anyio.Event, repr=False)

    def __post_init__(self) -> None:
        if not self.last_updated_at:
            self.last_updated_at = self.created_at

    @property
    def is_terminal(self) -> bool:
        """Whether the task reached `completed`, `failed` or `cancelled`."""
        return self.status in TERMINAL_STATUSES

    @property
    def expires_at(self) -> float:
        """The wall-clock second after which the task may be purged."""
        return self.created_at + self.ttl_ms / 1000

    def wire(self) -> dict[str, Any]:
        """The legacy `Task` object (used flat by `tasks/get`, nested in `CreateTaskResult`)."""
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": iso_timestamp(self.created_at),
            "lastUpdatedAt": iso_timestamp(self.last_updated_at),
            "ttl": self.ttl_ms,
            "pollInterval": self.poll_interval_ms,
        }
        if self.status_message is not None:
            task["statusMessage"] = self.status_message
        return task

    def set_message(self, message: str) -> None:
        """Change the status message (not the status); terminal tasks keep theirs."""
        if not self.is_terminal:
            self.status_message = message
            self._touch()

    def transition(self, status: TaskStatus, message: str | None) -> bool:
        """Move to `status` unless the task is terminal; True when the status really changed."""
        if self.is_terminal or status == self.status:
            return False
        self.status = status
        self.status_message = message
        self._touch()
        return True

    def expire(self) -> None:
        """Mark the task purged so anything waiting on it gives up."""
        self.expired = True
        self._touch()

    def notify_change(self) -> None:
        """Wake everything waiting on this task without changing its fields."""
        self._touch(timestamp=False)

    async def wait_for_change(self) -> None:
        """Return at the next change of the task (status, message, questions or expiry)."""
        await self._changed.wait()

    def _touch(self, *, timestamp: bool = True) -> None:
        if timestamp:
            self.last_updated_at = max(time.time(), self.created_at)
        changed, self._changed = self._changed, anyio.Event()
        changed.set()


class InvalidCursor(ValueError):
    """A `tasks/list` cursor this server did not hand out."""


def encode_cursor(sequence: int) -> str:
    """An opaque cursor meaning "after the task created as number `sequence`"."""
    return base64.urlsafe_b64encode(f"after:{sequence}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    """The creation number a cursor points after; raises `InvalidCursor` for foreign cursors."""
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
    except (binascii.Error, UnicodeError, ValueError) as error:
        raise InvalidCursor(cursor) from error
    prefix, _, number = text.partition(":")
    if prefix != "after" or not number.isdigit():
        raise InvalidCursor(cursor)
    return int(number)


class TaskStore:
    """Every live task of the server, each visible only to the connection that created it."""

    def __init__(self) -> None:
        self._tasks: dict[str, TaskRecord] = {}
        self._sequence = 0

    def new_record(self, owner: str, ttl_ms: int, poll_interval_ms: int) -> TaskRecord:
        """A fresh `working` task with an unguessable id (not stored until `add`)."""
        self._sequence += 1
        return TaskRecord(
            task_id=str(uuid.uuid4()),
            owner=owner,
            sequence=self._sequence,
            ttl_ms=ttl_ms,
            poll_interval_ms=poll_interval_ms,
        )

    def add(self, record: TaskRecord) -> None:
        """Make the task visible to its owner."""
        self._tasks[record.task_id] = record

    def get(self, owner: str, task_id: str) -> TaskRecord | None:
        """The task, or None when it does not exist, expired, or belongs to another connection."""
        record = self._tasks.get(task_id)
        if record is None or record.owner != owner:
            return None
        return record

    def page(
        self, owner: str, cursor: str | None, size: int
    ) -> tuple[list[TaskRecord], str | None]:
        """One `tasks/list` page in creation order, and the cursor of the next page (or None)."""
        after = decode_cursor(cursor) if cursor is not None else 0
        mine = sorted(
            (r for r in self._tasks.values() if r.owner == owner and r.sequence > after),
            key=lambda record: record.sequence,
        )
        page = mine[: max(1, size)]
        more = len(mine) > len(page)
        return page, encode_cursor(page[-1].sequence) if more else None

    def purge_expired(self, now: float) -> list[TaskRecord]:
        """Remove and return the tasks whose TTL ran out (whatever their status)."""
        expired = [r for r in self._tasks.values() if r.expires_at <= now]
        for record in expired:
            del self._tasks[record.task_id]
            record.expire()
        return expired
