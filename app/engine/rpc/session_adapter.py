"""The one adapter both faces drive: every verb runs on the session's current wire adapter, and the
mutating verbs go through the one gate for read-only mode and the action journal.

The mutating verbs (create, plain tool call, cancel, answer, reject) are recorded as user actions,
and under `--readonly` they are refused with `ReadOnlyRefused` before anything is sent; the UIs only
ask `readonly` to decide what to show. When a verb fails because the connection is lost, it waits
for the session's reconnect and (for the verbs that are safe to repeat) runs once more on the new
adapter; while a reconnect runs, new calls wait for it. Listeners, the input broker and the
wire-variant notes carry over to each new adapter. On the legacy wire a task the old session knew
and the new one does not is "lost with the old session" rather than merely unknown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from app.engine.forms.defaults import with_defaults
from app.engine.forms.input_text import REJECT_CODE
from app.engine.rpc.guard import ReadOnlyRefused
from app.engine.rpc.reconnect import LOST_WITH_OLD_SESSION
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.contract import (
    CreateOutcome,
    InputListener,
    ProgressListener,
    StatusListener,
    TasksCapabilities,
    TaskUnknown,
)
from app.engine.tasks.factory import WireAdapter
from app.engine.tasks.normalize import Variants

if TYPE_CHECKING:
    from app.engine.record.recorder import Recorder
    from app.engine.tasks.models import InputRequest, Task

T = TypeVar("T")


class Supervisor(Protocol):
    """What the adapter needs from its session: the live adapter, and recovery from a loss."""

    async def ready(self) -> tuple[WireAdapter, int]:
        """The current wire adapter and its generation, once no reconnect is running."""
        ...

    async def recover(self, error: BaseException, generation: int) -> bool:
        """Whether the adapter of `generation` failed with a lost connection that a reconnect
        has now replaced (False: not a loss, reconnecting is off, or it gave up)."""
        ...

    def succeeded(self, generation: int) -> None:
        """A verb on the adapter of `generation` was answered (the connection works)."""
        ...


class SessionAdapter:
    """A `WireAdapter` on the session's current wire adapter, with gated mutating verbs (see
    module doc)."""

    def __init__(
        self,
        supervisor: Supervisor,
        first: WireAdapter,
        *,
        readonly: bool = False,
        recorder: Recorder | None = None,
    ) -> None:
        self._supervisor = supervisor
        self.readonly = readonly
        self.recorder = recorder
        self.capabilities: TasksCapabilities = first.capabilities
        self.variants: Variants = first.variants
        self.broker: InputBroker = first.broker
        self.tools: dict[str, str] = first.tools
        self._current = first
        self._generation = 0
        self._seen: dict[str, int] = {}
        """Task id -> the newest generation whose session answered for it."""
        self._progress: list[ProgressListener] = []
        self._status: list[StatusListener] = []
        self._listening: list[str] | None = None

    def swap(self, adapter: WireAdapter, generation: int) -> None:
        """Make `adapter` (on a new connection, sharing the broker, the variants seen and the
        tasks' tools) the one every verb uses."""
        adapter.variants = self.variants
        adapter.tools = self.tools
        for progress in self._progress:
            adapter.on_progress(progress)
        for status in self._status:
            adapter.on_status(status)
        self._current = adapter
        self._generation = generation

    @property
    def listening(self) -> list[str] | None:
        """The task ids of the last `subscriptions/listen` asked for, to ask again after a swap."""
        return self._listening

    # -- mutating verbs (gated) -----------------------------------------------------------------

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None = None
    ) -> CreateOutcome:
        """A task-augmented `tools/call`, journaled with its tool, arguments and outcome."""
        self._check("create", None, tool=tool, arguments=arguments, ttlMs=ttl_ms)
        outcome = await self._run(lambda a: a.create(tool, arguments, ttl_ms=ttl_ms), retry=False)
        task_id = outcome.task.task_id if outcome.task is not None else None
        if task_id is not None:
            self._seen[task_id] = self._generation
        self._journal(
            "created", task_id, tool=tool, arguments=arguments, synchronous=outcome.task is None
        )
        return outcome

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A plain `tools/call` (it may change things on the server, so it is gated too)."""
        self._check("call", None, tool=name, arguments=arguments)
        return await self._run(lambda a: a.call_tool(name, arguments), retry=False)

    async def cancel(self, task_id: str) -> Task | None:
        """`tasks/cancel`, journaled."""
        self._check("cancel", task_id)
        return await self._on_task(task_id, lambda a: a.cancel(task_id))

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        """One answer to a server question, journaled (as given) with the question's key, then
        sent with the form's defaults filled in."""
        self._check(
            "answer", request.task_id, key=request.key, method=request.method, response=response
        )
        response = with_defaults(request, response)
        if request.task_id is None:
            await self._run(lambda a: a.answer(request, response), retry=True)
            return
        await self._on_task(request.task_id, lambda a: a.answer(request, response))

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None:
        """Several answers for one task (one `tasks/update` on the extension wire), journaled."""
        for key, response in responses.items():
            self._check("answer", task_id, key=key, response=response)
        pending = {request.key: request for request in self.broker.pending(task_id)}
        filled = {
            key: with_defaults(pending[key], response) if key in pending else response
            for key, response in responses.items()
        }
        await self._on_task(task_id, lambda a: a.answer_many(task_id, filled))

    async def reject(
        self, request: InputRequest, *, code: int = REJECT_CODE, message: str | None = None
    ) -> bool:
        """Decline a server question with a JSON-RPC error, journaled with its key and code."""
        self._check("reject", request.task_id, key=request.key, method=request.method, code=code)
        return await self._run(lambda a: a.reject(request, code=code, message=message), retry=False)

    # -- reading verbs and listeners --------------------------------------------------------------

    async def get(self, task_id: str, *, reason: str = "poll") -> Task:
        task = await self._on_task(task_id, lambda a: a.get(task_id, reason=reason))
        self._seen[task_id] = self._generation
        return task

    async def list_tasks(self) -> list[Task]:
        tasks = await self._run(lambda a: a.list_tasks(), retry=True)
        for task in tasks:
            self._seen[task.task_id] = self._generation
        return tasks

    async def fetch_result(self, task_id: str) -> dict[str, Any]:
        return await self._on_task(task_id, lambda a: a.fetch_result(task_id))

    def pending_inputs(self) -> list[InputRequest]:
        return self.broker.pending()

    def on_input(self, listener: InputListener) -> None:
        self.broker.add_listener(listener)

    def on_progress(self, listener: ProgressListener) -> None:
        self._progress.append(listener)
        self._current.on_progress(listener)

    def on_status(self, listener: StatusListener) -> None:
        self._status.append(listener)
        self._current.on_status(listener)

    async def start_listening(self, task_ids: list[str]) -> bool:
        self._listening = list(task_ids)
        return await self._run(lambda a: a.start_listening(task_ids), retry=False)

    async def close(self) -> None:
        await self._current.close()

    # -- internals ------------------------------------------------------------------------------

    def _check(self, verb: str, task_id: str | None, **details: Any) -> None:
        """Journal the action, and refuse it (before anything is sent) when read-only."""
        if self.readonly:
            self._journal("refused", task_id, verb=verb, **details)
            raise ReadOnlyRefused(verb, task_id)
        self._journal(verb, task_id, **details)

    def _journal(self, action: str, task_id: str | None, **details: Any) -> None:
        if self.recorder is not None:
            self.recorder.action(action, task_id, **details)

    async def _run(self, call: Callable[[WireAdapter], Awaitable[T]], *, retry: bool) -> T:
        """Run `call` on the current adapter; after a lost connection, once more if `retry`."""
        adapter, generation = await self._supervisor.ready()
        try:
            result = await call(adapter)
        except Exception as error:
            if not await self._supervisor.recover(error, generation) or not retry:
                raise
            adapter, generation = await self._supervisor.ready()
            result = await call(adapter)
        self._supervisor.succeeded(generation)
        return result

    async def _on_task(self, task_id: str, call: Callable[[WireAdapter], Awaitable[T]]) -> T:
        """`_run` for a verb about one task (repeatable); names a legacy task the old session
        took with it."""
        try:
            return await self._run(call, retry=True)
        except TaskUnknown as unknown:
            seen = self._seen.get(task_id)
            old = seen is not None and seen < self._generation
            if self.capabilities.wire != "legacy" or not old:
                raise
            raise TaskUnknown(task_id, f"{LOST_WITH_OLD_SESSION} ({unknown.detail})") from unknown
