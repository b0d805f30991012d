"""Task records for the extension-wire demo server (SEP-2663 `io.modelcontextprotocol/tasks`).

A `TaskStore` owns every task the server created: it runs each catalogue job in the background
through a `JobContext` that turns questions into `inputRequests`, answers them from `tasks/update`,
cancels cooperatively and purges tasks whose TTL ran out. It knows nothing about the SDK; the
server module maps its outcomes onto JSON-RPC.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import anyio
from anyio.abc import TaskGroup

from app.demo.tool_contract import Job, ToolFailure, missing_capability, scaled_sleep

logger = logging.getLogger(__name__)

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[TaskStatus] = frozenset({"completed", "failed", "cancelled"})
INTERNAL_ERROR = -32603
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021


class CapabilityMissing(ToolFailure):
    """The job would ask something the client did not declare it can answer."""

    def __init__(self, required: dict[str, Any]) -> None:
        names = ", ".join(required)
        super().__init__(
            MISSING_REQUIRED_CLIENT_CAPABILITY, f"Missing required client capability: {names}"
        )
        self.data = {"requiredCapabilities": required}


class TaskNotFound(Exception):
    """No live task has that id (never created, or purged after its TTL)."""


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class TaskRecord:
    """One task's mutable state, rendered as a SEP-2663 `Task` / `DetailedTask` on demand."""

    task_id: str
    ttl_ms: int | None
    poll_interval_ms: int
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    last_updated_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    expires_at: float | None = None
    """`time.monotonic()` deadline after which the task is purged; None means never."""
    status: TaskStatus = "working"
    status_message: str | None = "The task is running."
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Outstanding input requests by key, exactly as `inputRequests` lists them."""
    answers: dict[str, Any] = field(default_factory=dict)
    all_answered: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)

    @property
    def terminal(self) -> bool:
        """Whether the task reached a final status (which never changes again)."""
        return self.status in TERMINAL

    def set_status(self, status: TaskStatus, message: str | None) -> None:
        """Move to `status` with `message`, unless the task is already final."""
        if self.terminal:
            return
        self.status = status
        self.status_message = message
        self.touch()

    def touch(self) -> None:
        """Record that something observable changed."""
        self.last_updated_at = datetime.now(UTC)

    def take_answers(self, responses: dict[str, Any]) -> None:
        """Take the responses to outstanding keys; ignore unknown or already answered ones."""
        taken = [key for key in responses if key in self.pending]
        for key in taken:
            self.answers[key] = responses[key]
            del self.pending[key]
        if taken and not self.pending:
            self.set_status("working", "Input received; resuming.")
            self.all_answered.set()
        elif taken:
            self.touch()

    def request_cancel(self) -> None:
        """Cancel the task now (the next `tasks/get` shows it) and stop its job at its next
        pause; a task that already finished stays as it is."""
        if not self.terminal:
            self.set_status("cancelled", "Cancelled by request.")
            self.scope.cancel()

    def wire(self) -> dict[str, Any]:
        """The plain `Task` fields (the body of `CreateTaskResult` without `resultType`)."""
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created_at),
            "lastUpdatedAt": _iso(self.last_updated_at),
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_interval_ms,
        }
        if self.status_message is not None:
            task["statusMessage"] = self.status_message
        return task

    def detailed(self) -> dict[str, Any]:
        """The `DetailedTask`: inline `inputRequests`, `result` or `error` as the status demands."""
        task = self.wire()
        if self.status == "input_required":
            task["inputRequests"] = dict(self.pending)
        elif self.status == "completed" and self.result is not None:
            task["result"] = self.result
        elif self.status == "failed" and self.error is not None:
            task["error"] = self.error
        return task


class TaskJobContext:
    """`JobContext` for a job running as a task: questions become `inputRequests`."""

    def __init__(
        self,
        record: TaskRecord,
        speed: float,
        capabilities: dict[str, Any],
        answered: dict[str, Any] | None = None,
    ) -> None:
        self._record = record
        self._speed = speed
        self._capabilities = capabilities
        """What the request that created the task declared the client can answer."""
        self._answered = dict(answered or {})
        """Answers gathered before the task existed (MRTR rounds), by the job's own keys."""

    async def status(self, message: str) -> None:
        """Show `message` as the task's `statusMessage`."""
        if not self._record.terminal:
            self._record.status_message = message
            self._record.touch()

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        """Nothing to do: the extension wire has no task progress."""

    async def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Publish every request under a fresh opaque key and wait until all are answered
        (questions already answered before the task was created are not asked again)."""
        if requests and all(name in self._answered for name in requests):
            return {name: self._answered.pop(name) for name in requests}
        required = missing_capability(requests, self._capabilities)
        if required is not None:
            raise CapabilityMissing(required)
        record = self._record
        keys = {name: f"{record.task_id}:{secrets.token_hex(8)}" for name in requests}
        record.all_answered = anyio.Event()
        record.pending.update({keys[name]: request for name, request in requests.items()})
        record.set_status("input_required", record.status_message)
        await record.all_answered.wait()
        return {name: record.answers.pop(key) for name, key in keys.items()}

    async def sleep(self, seconds: float) -> None:
        """Sleep `seconds` of demo time."""
        await scaled_sleep(seconds, self._speed)


class TaskStore:
    """Every live task of one server, and the task group their jobs run in."""

    def __init__(self, *, ttl_ms: int, poll_interval_ms: int, speed: float) -> None:
        self._ttl_ms = ttl_ms if ttl_ms > 0 else None
        self._poll_interval_ms = max(1, poll_interval_ms)
        self._speed = speed
        self._tasks: dict[str, TaskRecord] = {}
        self._task_group: TaskGroup | None = None

    def attach(self, task_group: TaskGroup | None) -> None:
        """Give the store the task group that outlives requests (None when the server stops)."""
        self._task_group = task_group

    def start(
        self,
        job: Job,
        arguments: dict[str, Any],
        *,
        capabilities: dict[str, Any],
        answered: dict[str, Any] | None = None,
    ) -> TaskRecord:
        """Create a task for `job` (findable at once) and run it in the background.

        `capabilities` are those declared by the creating request (the job asks nothing else);
        `answered` holds answers to questions the job asked before the task was created."""
        if self._task_group is None:
            raise RuntimeError("the task store is not attached to a running server")
        self.purge_expired()
        record = TaskRecord(
            task_id=secrets.token_urlsafe(16),
            ttl_ms=self._ttl_ms,
            poll_interval_ms=self._poll_interval_ms,
        )
        if self._ttl_ms is not None:
            record.expires_at = time.monotonic() + self._ttl_ms / 1000
        self._tasks[record.task_id] = record
        context = TaskJobContext(record, self._speed, capabilities, answered)
        self._task_group.start_soon(self._run, record, job, context, arguments)
        return record

    def find(self, task_id: str) -> TaskRecord:
        """The live task with `task_id`, or `TaskNotFound`."""
        self.purge_expired()
        record = self._tasks.get(task_id)
        if record is None:
            raise TaskNotFound(task_id)
        return record

    def purge_expired(self) -> None:
        """Forget tasks whose TTL ran out, stopping their jobs.

        Every task lives the store's one TTL, so tasks expire in creation order, which is the
        dict's order: the sweep stops at the first live task (a sweep of every task on every
        request made `tasks/get` cost O(tasks), the whole server's CPU at 10,000 tasks)."""
        now = time.monotonic()
        expired: list[str] = []
        for task_id, record in self._tasks.items():
            if record.expires_at is None or now < record.expires_at:
                break
            expired.append(task_id)
        for task_id in expired:
            self._tasks.pop(task_id).scope.cancel()

    async def _run(
        self, record: TaskRecord, job: Job, context: TaskJobContext, arguments: dict[str, Any]
    ) -> None:
        with record.scope:
            try:
                result = await job(context, arguments)
            except CapabilityMissing as missing:
                self._fail(record, missing.code, missing.message, missing.data)
            except ToolFailure as failure:
                self._fail(record, failure.code, failure.message)
            except Exception:
                logger.exception("task %s: the job crashed", record.task_id)
                self._fail(record, INTERNAL_ERROR, "Internal error")
            else:
                if not record.terminal:
                    record.result = result
                tool_error = bool(result.get("isError"))
                record.set_status(
                    "completed", "Completed with a tool error." if tool_error else "Completed."
                )
        record.set_status("cancelled", "Cancelled by request.")

    @staticmethod
    def _fail(
        record: TaskRecord, code: int, message: str, data: dict[str, Any] | None = None
    ) -> None:
        if record.terminal:
            return
        record.error = {"code": code, "message": message}
        if data is not None:
            record.error["data"] = data
        record.set_status("failed", f"Tool execution failed: {message}")
