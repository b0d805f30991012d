"""The legacy tasks wire (experimental 2025-11-25): `params.task`, tasks/get|list|result|cancel.

Questions arrive as real server-to-client requests (`elicitation/create`, `sampling/createMessage`,
`roots/list`) on any stream; they wait in the input broker until answered. Servers often deliver
them only on the stream of a pending `tasks/result`, so as soon as a task shows `input_required`
the adapter opens exactly one background `tasks/result` call for it; its answer is the result.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from app.engine.rpc.connection import Connection
from app.engine.rpc.paging import pages
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.transports.base import TransportError
from app.engine.tasks.base import AdapterBase, task_unknown
from app.engine.tasks.broker import InputBroker, InputNotPending
from app.engine.tasks.contract import CreateOutcome, TasksCapabilities
from app.engine.tasks.legacy_parse import LEGACY_RULES, legacy_create, tasks_from_list
from app.engine.tasks.normalize import parse_answer, task_error_from
from app.engine.tasks.questions import Arrivals, ServerQuestions
from app.engine.tasks.wire import assumed_note

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task


class LegacyAdapter(AdapterBase):
    """Drives 2025-11-25 tasks over one connection."""

    def __init__(
        self,
        connection: Connection,
        capabilities: TasksCapabilities,
        broker: InputBroker | None = None,
    ) -> None:
        super().__init__(connection, capabilities, broker)
        self._results: dict[str, asyncio.Task[dict[str, Any]]] = {}
        self._questions = ServerQuestions(connection, self.broker)

    # -- verbs ----------------------------------------------------------------------------------

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None = None
    ) -> CreateOutcome:
        """`tools/call` with `params.task`; a plain CallToolResult answer is a synchronous one.

        While the user withholds tasks (`ClientCapabilities.declares_tasks`) no `params.task` is
        sent: the server answers as it answers a client that never asks for one.
        """
        if not self.capabilities.tool_calls:
            raise self._unsupported("tools/call as a task")
        for missing in self.capabilities.assumed:
            self.variants.note(assumed_note(missing))
        token = self._progress_token()
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if self.connection.advertised.declares_tasks:
            params["task"] = {} if ttl_ms is None else {"ttl": ttl_ms}
        params["_meta"] = {"progressToken": token}
        arrivals: Arrivals = []
        payload = await self._questions.call_tool(params, arrivals)
        parsed = legacy_create(payload, tool, self.variants)
        if parsed.task is None:
            return CreateOutcome(task=None, sync_result=parsed.sync_result, raw=payload)
        task_id = parsed.task.task_id
        self._bind_token(token, task_id)
        self.tools[task_id] = tool
        for key, alone in arrivals:
            if alone:
                self.broker.attach(key, task_id)
        if parsed.task.status == "input_required":
            self._result_stream(task_id)
        return CreateOutcome(task=self._decorate(parsed.task), sync_result=None, raw=payload)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A plain `tools/call` (no task); it may wait on the server's questions like `create`."""
        return await self._questions.call_tool({"name": name, "arguments": arguments}, [])

    async def get(self, task_id: str, *, reason: str = "poll") -> Task:
        """`tasks/get`; an `input_required` task gets its `tasks/result` stream opened at once."""
        payload = await self._task_request("tasks/get", task_id, reason)
        task = self._memo.task(payload, wire="legacy", task_id=task_id, variants=self.variants)
        if task.status == "input_required":
            self._result_stream(task_id)
        return self._memo.decorated(task, self._decoration(task))

    async def list_tasks(self) -> list[Task]:
        """Every page of `tasks/list` (only when the server declared `tasks.list`)."""
        if not self.capabilities.list:
            raise self._unsupported("tasks/list")
        tasks: list[Task] = []
        async for payload in pages(self.connection, "tasks/list", reason="list"):
            page, _cursor = tasks_from_list(payload, variants=self.variants)
            tasks.extend(self._decorate(task) for task in page)
        return tasks

    async def fetch_result(self, task_id: str) -> dict[str, Any]:
        """The task's result via the (shared, blocking) `tasks/result`; a JSON-RPC error raises
        RpcError (the task's outcome), an unknown id TaskUnknown."""
        return await asyncio.shield(self._result_stream(task_id))

    async def cancel(self, task_id: str) -> Task | None:
        """`tasks/cancel` (only when declared); returns the task as the server cancelled it."""
        if not self.capabilities.cancel:
            raise self._unsupported("tasks/cancel")
        payload = await self._task_request("tasks/cancel", task_id, "user")
        task = parse_answer(
            payload, LEGACY_RULES, task_id=task_id, method="tasks/cancel", variants=self.variants
        )
        return self._decorate(task)

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        """Hand the answer to the waiting server request; the connection sends it back."""
        self.broker.resolve(request, response)

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None:
        """Answer several pending requests of one task (each is its own JSON-RPC response)."""
        pending = {request.key: request for request in self.broker.pending(task_id)}
        for key in responses:
            if key not in pending:
                raise InputNotPending(task_id, key)
        for key, response in responses.items():
            self.broker.resolve(pending[key], response)

    async def start_listening(self, task_ids: list[str]) -> bool:
        """The legacy wire has no listen stream; `notifications/tasks/status` come unasked."""
        return False

    # -- internals ------------------------------------------------------------------------------

    def _status_methods(self) -> frozenset[str]:
        return frozenset({"notifications/tasks/status"})

    async def _task_request(self, method: str, task_id: str, reason: str) -> dict[str, Any]:
        try:
            return await self.connection.request(method, {"taskId": task_id}, reason=reason)
        except RpcError as error:
            unknown = task_unknown(error, task_id, method)
            if unknown is not None:
                raise unknown from error
            raise

    def _result_stream(self, task_id: str) -> asyncio.Task[dict[str, Any]]:
        """The one `tasks/result` call of a task; restarted only after a transport failure."""
        call = self._results.get(task_id)
        if call is None or (call.done() and _should_retry(call)):
            call = self._spawn(self._fetch(task_id), name=f"tasks/result {task_id}")
            self._results[task_id] = call
        return call

    async def _fetch(self, task_id: str) -> dict[str, Any]:
        try:
            return await self.connection.request(
                "tasks/result", {"taskId": task_id}, reason="stream", timeout=None
            )
        except RpcError as error:
            unknown = task_unknown(error, task_id, "tasks/result")
            if unknown is not None:
                raise unknown from error
            raise

    def _decoration(self, task: Task) -> dict[str, Any]:
        """The fields `_decorate` sets: tool, progress, questions, and the fetched outcome."""
        update: dict[str, Any] = {
            **super()._decoration(task),
            "progress": self._latest_progress(task.task_id),
            "input_requests": tuple(self.broker.pending(task.task_id)),
        }
        call = self._results.get(task.task_id)
        if task.is_terminal and call is not None and call.done() and not call.cancelled():
            error = call.exception()
            if error is None:
                update.update(result=call.result(), result_source="fetched")
            elif isinstance(error, RpcError):
                update["error"] = task_error_from(
                    {"code": error.code, "message": error.message, "data": error.data}
                )
        return update


def _should_retry(call: asyncio.Task[dict[str, Any]]) -> bool:
    """A finished `tasks/result` is kept unless it died of a transport failure or was cancelled."""
    return call.cancelled() or isinstance(call.exception(), TransportError)
