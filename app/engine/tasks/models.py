"""The one normalized task model both wires are turned into.

Wire adapters build these frozen models from whatever a server sent; everything downstream (poller,
headless commands, TUI) sees only these types, never raw wire shapes. Importing this module loads
pydantic, so the idle path imports the words it needs from `tasks/kinds` and these models only
where a task or a question is built (about 11 MiB and 0.1 s of start-up for a session with none).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from app.engine.tasks.kinds import KNOWN_STATUSES as KNOWN_STATUSES
from app.engine.tasks.kinds import TERMINAL_STATUSES as TERMINAL_STATUSES
from app.engine.tasks.kinds import InputKind as InputKind
from app.engine.tasks.kinds import ProtocolViolation as ProtocolViolation
from app.engine.tasks.kinds import TaskStatus as TaskStatus
from app.engine.tasks.kinds import Wire as Wire
from app.engine.tasks.protocol_keys import RELATED_TASK_META as RELATED_TASK_META
from app.engine.tasks.protocol_keys import TASKS_EXTENSION as TASKS_EXTENSION


class Frozen(BaseModel):
    """Base for immutable engine models."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class InputRequest(Frozen):
    """One question a task (or a plain call) is waiting on, from either wire.

    `key` is the extension's `inputRequests` key, or on the legacy wire the server's JSON-RPC
    request id (as a string); `task_id` is the related task, if the server named one.
    """

    key: str
    kind: InputKind
    method: str
    params: dict[str, Any]
    wire: Wire
    task_id: str | None = None
    message: str = ""

    @property
    def requested_schema(self) -> dict[str, Any] | None:
        schema = self.params.get("requestedSchema")
        return schema if isinstance(schema, dict) else None

    @property
    def url(self) -> str | None:
        url = self.params.get("url")
        return url if isinstance(url, str) else None


class TaskError(Frozen):
    """A JSON-RPC error a task ended with: inline on the extension, `tasks/result` on legacy."""

    code: int | None = None
    message: str = ""
    data: Any = None


class Progress(Frozen):
    """The latest `notifications/progress` attached to a task (legacy wire only)."""

    progress: float
    total: float | None = None
    message: str | None = None


class Task(Frozen):
    """A task as taskscope understands it, whichever wire it came from."""

    task_id: str
    wire: Wire
    status: TaskStatus
    status_message: str | None = None
    created_at: datetime | None = None
    last_updated_at: datetime | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    result_source: Literal["inline", "fetched", "synchronous"] | None = None
    error: TaskError | None = None
    input_requests: tuple[InputRequest, ...] = ()
    progress: Progress | None = None
    tool_name: str | None = None
    raw: dict[str, Any] = {}

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def expires_at(self) -> datetime | None:
        """When the server may purge the task: `createdAt + ttl`, or None when unlimited (or when
        that moment lies past the last date a `datetime` can hold, which is never in practice)."""
        if self.created_at is None or self.ttl_ms is None:
            return None
        try:
            return self.created_at + timedelta(milliseconds=self.ttl_ms)
        except OverflowError:
            return None

    @property
    def is_tool_error(self) -> bool:
        return bool(self.result and self.result.get("isError") is True)

    def material_key(self) -> tuple[Any, ...]:
        """What counts as a real change: never `lastUpdatedAt`, which some servers bump per poll."""
        return (
            self.status,
            self.status_message,
            self.result,
            self.error,
            tuple(request.key for request in self.input_requests),
            self.progress,
        )

    def differs_materially(self, other: Task) -> bool:
        """Whether `other` says something new about the task (the poller's "changed", the
        timeline's diff): the one judgement of it, on `material_key`."""
        return self.material_key() != other.material_key()
