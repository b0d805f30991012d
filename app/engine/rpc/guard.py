"""The one gate every mutating verb goes through: read-only mode and the action journal.

`GuardedAdapter` wraps a wire adapter. Its mutating verbs (create, plain tool call, cancel,
answer, reject) are recorded as user actions, and under `--readonly` they are refused with
`ReadOnlyRefused` before anything is sent. Both faces (CLI and TUI) drive the engine through this
wrapper, so read-only mode is enforced here and nowhere else; the UIs only ask `readonly` to
decide what to show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine.forms.input_text import REJECT_CODE

if TYPE_CHECKING:
    from app.engine.record.recorder import Recorder
    from app.engine.tasks.broker import InputBroker
    from app.engine.tasks.contract import (
        CreateOutcome,
        InputListener,
        ProgressListener,
        StatusListener,
        TasksCapabilities,
    )
    from app.engine.tasks.factory import WireAdapter
    from app.engine.tasks.models import InputRequest, Task
    from app.engine.tasks.normalize import Variants

READONLY = "READONLY"


class ReadOnlyRefused(Exception):
    """A mutating verb was refused because the session is read-only; nothing was sent."""

    def __init__(self, verb: str, task_id: str | None = None) -> None:
        target = f" for task {task_id}" if task_id else ""
        super().__init__(f"read-only mode: {verb}{target} refused; nothing was sent")
        self.verb = verb
        self.task_id = task_id


class GuardedAdapter:
    """A `WireAdapter` whose mutating verbs are journaled, and refused when `readonly`."""

    def __init__(
        self, inner: WireAdapter, *, readonly: bool = False, recorder: Recorder | None = None
    ) -> None:
        self.inner = inner
        self.readonly = readonly
        self.recorder = recorder
        self.capabilities: TasksCapabilities = inner.capabilities
        self.variants: Variants = inner.variants
        self.broker: InputBroker = inner.broker

    # -- pass-through --------------------------------------------------------------------------

    async def get(self, task_id: str, *, reason: str = "poll") -> Task:
        return await self.inner.get(task_id, reason=reason)

    async def list_tasks(self) -> list[Task]:
        return await self.inner.list_tasks()

    async def fetch_result(self, task_id: str) -> dict[str, Any]:
        return await self.inner.fetch_result(task_id)

    def pending_inputs(self) -> list[InputRequest]:
        return self.inner.pending_inputs()

    def on_input(self, listener: InputListener) -> None:
        self.inner.on_input(listener)

    def on_progress(self, listener: ProgressListener) -> None:
        self.inner.on_progress(listener)

    def on_status(self, listener: StatusListener) -> None:
        self.inner.on_status(listener)

    async def start_listening(self, task_ids: list[str]) -> bool:
        return await self.inner.start_listening(task_ids)

    async def close(self) -> None:
        await self.inner.close()

    # -- mutating verbs ------------------------------------------------------------------------

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None = None
    ) -> CreateOutcome:
        """A task-augmented `tools/call`, journaled with its tool, arguments and outcome."""
        self._check("create", None, tool=tool, arguments=arguments, ttlMs=ttl_ms)
        outcome = await self.inner.create(tool, arguments, ttl_ms=ttl_ms)
        task_id = outcome.task.task_id if outcome.task is not None else None
        self._journal(
            "created", task_id, tool=tool, arguments=arguments, synchronous=outcome.task is None
        )
        return outcome

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A plain `tools/call` (it may change things on the server, so it is guarded too)."""
        self._check("call", None, tool=name, arguments=arguments)
        return await self.inner.call_tool(name, arguments)

    async def cancel(self, task_id: str) -> Task | None:
        """`tasks/cancel`, journaled."""
        self._check("cancel", task_id)
        return await self.inner.cancel(task_id)

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        """One answer to a server question, journaled with the question's key and the response."""
        self._check(
            "answer",
            request.task_id,
            key=request.key,
            method=request.method,
            response=response,
        )
        await self.inner.answer(request, response)

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None:
        """Several answers for one task (one `tasks/update` on the extension wire), journaled."""
        for key, response in responses.items():
            self._check("answer", task_id, key=key, response=response)
        await self.inner.answer_many(task_id, responses)

    async def reject(
        self, request: InputRequest, *, code: int = REJECT_CODE, message: str | None = None
    ) -> bool:
        """Decline a server question with a JSON-RPC error, journaled with its key and code."""
        self._check("reject", request.task_id, key=request.key, method=request.method, code=code)
        return await self.inner.reject(request, code=code, message=message)

    def _check(self, verb: str, task_id: str | None, **details: Any) -> None:
        """Journal the action, and refuse it (before anything is sent) when read-only."""
        if self.readonly:
            self._journal("refused", task_id, verb=verb, **details)
            raise ReadOnlyRefused(verb, task_id)
        self._journal(verb, task_id, **details)

    def _journal(self, action: str, task_id: str | None, **details: Any) -> None:
        if self.recorder is not None:
            self.recorder.action(action, task_id, **details)


def is_readonly(adapter: object) -> bool:
    """Whether `adapter` refuses mutating verbs (it is a read-only `GuardedAdapter`)."""
    return isinstance(adapter, GuardedAdapter) and adapter.readonly
