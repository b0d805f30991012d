"""The SEP-2663 tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28).

The server decides per call whether a `tools/call` becomes a task (flat `CreateTaskResult`) or is
answered at once. Results, errors and `inputRequests` are inline on `tasks/get`; answers go back in
one `tasks/update`; cancel is a cooperative ack; there is no list and no `tasks/result`. MRTR rounds
(`resultType: "input_required"` on `tools/call`) are answered through the input broker and retried.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import RpcError
from app.engine.tasks.base import METHOD_NOT_FOUND, AdapterBase, task_unknown
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.contract import CreateOutcome, TasksCapabilities
from app.engine.tasks.extension_parse import check_ack
from app.engine.tasks.mrtr import call_with_rounds
from app.engine.tasks.normalize import ParsedCreate

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task

log = logging.getLogger(__name__)

LISTEN_ACK_TIMEOUT = 5.0
"""Seconds to wait for `notifications/subscriptions/acknowledged` before giving up on listening."""


class ExtensionAdapter(AdapterBase):
    """Drives SEP-2663 tasks over one modern connection."""

    def __init__(
        self,
        connection: Connection,
        capabilities: TasksCapabilities,
        broker: InputBroker | None = None,
    ) -> None:
        super().__init__(connection, capabilities, broker)
        self._listen: asyncio.Task[Any] | None = None
        self._listen_ack: asyncio.Future[None] | None = None

    # -- verbs ----------------------------------------------------------------------------------

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None = None
    ) -> CreateOutcome:
        """`tools/call` declaring the extension; the server answers with a task or at once.

        `ttl_ms` is ignored: on this wire the server alone owns `ttlMs`.
        """
        if not self.capabilities.tool_calls:
            raise self._unsupported("tools/call as a task")
        token = self._progress_token()
        payload, parsed = await self._call_rounds(tool, arguments, token, declare_tasks=True)
        if parsed.task is None:
            return CreateOutcome(task=None, sync_result=parsed.sync_result, raw=payload)
        task_id = parsed.task.task_id
        self._bind_token(token, task_id)
        self.tools[task_id] = tool
        return CreateOutcome(task=self._decorate(parsed.task), sync_result=None, raw=payload)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A synchronous call (extension not declared); MRTR questions go through the broker."""
        payload, _parsed = await self._call_rounds(
            name, arguments, self._progress_token(), declare_tasks=False
        )
        return payload

    async def get(self, task_id: str, *, reason: str = "poll") -> Task:
        """`tasks/get` with the result, error or input requests inline."""
        payload = await self._task_request("tasks/get", {"taskId": task_id}, reason)
        task = self._memo.task(payload, wire="extension", task_id=task_id, variants=self.variants)
        return self._memo.decorated(task, self._decoration(task))

    async def list_tasks(self) -> list[Task]:
        """The extension has no `tasks/list`."""
        raise self._unsupported("tasks/list")

    async def fetch_result(self, task_id: str) -> dict[str, Any]:
        """The extension has no `tasks/result`: the result is inline on `tasks/get`."""
        raise self._unsupported("tasks/result")

    async def cancel(self, task_id: str) -> Task | None:
        """`tasks/cancel`: an ack only; the task may still end completed or failed."""
        if not self.capabilities.cancel:
            raise self._unsupported("tasks/cancel")
        payload = await self._task_request("tasks/cancel", {"taskId": task_id}, "user")
        check_ack(payload, method="tasks/cancel", variants=self.variants)
        return None

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        """Answer one request: a task's through `tasks/update`, an MRTR round's in the retry."""
        if request.task_id is None:
            self.broker.resolve(request, response)
            return
        await self.answer_many(request.task_id, {request.key: response})

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None:
        """ONE `tasks/update` carrying every answer given; keys answered before are not resent.

        Until the server acknowledges, the typed answers stay on the pending requests
        (`broker.staged_answer`) so a failed update can be retried.
        """
        if not self.capabilities.update:
            raise self._unsupported("tasks/update")
        fresh = {
            key: response
            for key, response in responses.items()
            if not self.broker.is_answered(task_id, key)
        }
        if not fresh:
            return
        pending = {request.key: request for request in self.broker.pending(task_id)}
        for key, response in fresh.items():
            if key in pending:
                self.broker.stage(pending[key], response)
        params = {"taskId": task_id, "inputResponses": fresh}
        payload = await self._task_request("tasks/update", params, "answer")
        check_ack(payload, method="tasks/update", variants=self.variants)
        self.broker.acknowledge(task_id, fresh)

    async def start_listening(self, task_ids: list[str]) -> bool:
        """Open (or replace) one `subscriptions/listen` stream for these tasks.

        True once the server acknowledged it; False when it answers -32601, ends the stream, or
        does not acknowledge in time. Pushed `notifications/tasks` go to the status listeners.
        """
        await self._stop_listening()
        ack: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._listen_ack = ack
        params = {"notifications": {"taskIds": list(task_ids)}}
        call = self._spawn(
            self.connection.request("subscriptions/listen", params, reason="listen", timeout=None),
            name="subscriptions/listen",
        )
        self._listen = call
        await asyncio.wait({call, ack}, timeout=LISTEN_ACK_TIMEOUT, return_when="FIRST_COMPLETED")
        if ack.done():
            return True
        if not call.done():
            log.info("subscriptions/listen was not acknowledged; polling only")
            await self._stop_listening()
            return False
        error = None if call.cancelled() else call.exception()
        if isinstance(error, RpcError) and error.code != METHOD_NOT_FOUND:
            raise error
        if error is not None and not isinstance(error, RpcError):
            raise error
        return False

    async def close(self) -> None:
        await self._stop_listening()
        await super().close()

    # -- internals ------------------------------------------------------------------------------

    def _status_methods(self) -> frozenset[str]:
        return frozenset({"notifications/tasks"})

    def _on_notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/subscriptions/acknowledged":
            ack = self._listen_ack
            if ack is not None and not ack.done():
                ack.set_result(None)
            return
        super()._on_notification(method, params)

    async def _stop_listening(self) -> None:
        call, self._listen, self._listen_ack = self._listen, None, None
        if call is not None and not call.done():
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)

    async def _task_request(
        self, method: str, params: dict[str, Any], reason: str
    ) -> dict[str, Any]:
        try:
            return await self.connection.request(method, params, reason=reason)
        except RpcError as error:
            unknown = task_unknown(error, str(params["taskId"]), method)
            if unknown is not None:
                raise unknown from error
            raise

    async def _call_rounds(
        self, tool: str, arguments: dict[str, Any], token: str, *, declare_tasks: bool
    ) -> tuple[dict[str, Any], ParsedCreate]:
        return await call_with_rounds(
            self.connection,
            self.broker,
            self.variants,
            tool,
            arguments,
            progress_token=token,
            declare_tasks=declare_tasks,
        )

    def _decoration(self, task: Task) -> dict[str, Any]:
        """The fields `_decorate` sets: the task's `inputRequests` snapshot reconciled with the
        broker (syncing it on the way), and the tool name."""
        pending = self.broker.sync(task.task_id, task.input_requests)
        return {**super()._decoration(task), "input_requests": pending}
