"""The hostile server's well-behaved core: a tiny tasks flow on either wire, driven by polls.

Two tools: `job` (working for a few polls, then completed with a result) and `ask` (asks one
question, then finishes). Every frame the core would send passes through the active modes
(`hostile_modes`) as an `Exchange` they may perturb, and then to the transport as `Outgoing`.
Task state advances on `tasks/get` only, so a test knows exactly what each poll answers.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from app.demo.hostile_bodies import (
    LEGACY_VERSION,
    MODERN_VERSION,
    RELATED_TASK,
    SERVER_INFO_META,
    TASKS_EXTENSION,
    TERMINAL,
    TaskRecord,
    Wire,
    declares_tasks,
    now_iso,
    question,
    task_body,
    tool_result,
    tools_listing,
)
from app.demo.hostile_frames import Exchange, Perturb, Sink


class HostileServer:
    """The tasks flow of one wire; `handle` takes a client message, frames go to `sink`."""

    def __init__(
        self,
        wire: Wire,
        sink: Sink,
        *,
        perturbs: Sequence[Perturb] = (),
        work_polls: int = 3,
        poll_interval_ms: int = 300,
    ) -> None:
        self.wire = wire
        self.sink = sink
        self.perturbs = list(perturbs)
        self.work_polls = work_polls
        self.poll_interval_ms = poll_interval_ms
        self.tasks: dict[str, TaskRecord] = {}
        self.id_decoration = ""
        """Appended to every task id (the escapes mode makes ids hostile too)."""
        self._task_numbers = itertools.count(1)
        self._request_numbers = itertools.count(1)
        self._questions: dict[str, TaskRecord] = {}
        self._waiting_results: dict[str, list[dict[str, Any]]] = {}

    # -- entry point ----------------------------------------------------------------------------

    def handle(self, message: Any) -> None:
        """React to one client message (request, notification or answer)."""
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if not isinstance(method, str):
            self._on_answer(message)
            return
        if "id" not in message:
            return
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        handler = {
            "initialize": self._initialize,
            "server/discover": self._discover,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "tasks/get": self._tasks_get,
            "tasks/result": self._tasks_result,
            "tasks/list": self._tasks_list,
            "tasks/cancel": self._tasks_cancel,
            "tasks/update": self._tasks_update,
            "ping": self._ping,
        }.get(method)
        if handler is None:
            self.error(message, -32601, f"Method not found: {method}")
            return
        handler(message, params)

    # -- sending --------------------------------------------------------------------------------

    def reply(
        self,
        request: dict[str, Any],
        result: dict[str, Any],
        *,
        task: TaskRecord | None = None,
        poll: int = 0,
    ) -> None:
        message = {"jsonrpc": "2.0", "id": request.get("id"), "result": result}
        self._emit(Exchange(self, "reply", str(request["method"]), request, message, task, poll))

    def error(self, request: dict[str, Any], code: int, text: str) -> None:
        message = {
            "jsonrpc": "2.0",
            "id": request.get("id"),
            "error": {"code": code, "message": text},
        }
        status = 200 if self.wire == "legacy" else 400
        exchange = Exchange(self, "reply", str(request.get("method")), request, message)
        exchange.http_status = status
        self._emit(exchange)

    def push(
        self,
        method: str,
        params: dict[str, Any],
        *,
        route: dict[str, Any] | None = None,
        rpc_id: str | None = None,
        task: TaskRecord | None = None,
    ) -> None:
        """A server-initiated request (with `rpc_id`) or notification, on `route`'s stream."""
        message: dict[str, Any] = {"jsonrpc": "2.0"}
        if rpc_id is not None:
            message["id"] = rpc_id
        message.update(method=method, params=params)
        self._emit(Exchange(self, "push", method, route, message, task))

    def _emit(self, exchange: Exchange) -> None:
        for perturb in self.perturbs:
            perturb(exchange)
        for item in exchange.outgoing():
            if exchange.kind == "push":
                item.final = False
            self.sink(item)

    def _ping(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        self.reply(request, {})

    # -- handshake and tools --------------------------------------------------------------------

    def _initialize(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        if self.wire != "legacy":
            self.error(request, -32601, "this server speaks 2026-07-28 only")
            return
        capabilities: dict[str, Any] = {
            "tools": {},
            "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
        }
        self.reply(
            request,
            {
                "protocolVersion": LEGACY_VERSION,
                "capabilities": capabilities,
                "serverInfo": {"name": "hostile", "version": "1.0"},
                "instructions": "A server that misbehaves on purpose.",
            },
        )

    def _discover(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        if self.wire != "extension":
            self.error(request, -32601, "Method not found: server/discover")
            return
        self.reply(
            request,
            {
                "resultType": "complete",
                "supportedVersions": [MODERN_VERSION],
                "capabilities": {"tools": {}, "extensions": {TASKS_EXTENSION: {}}},
                "instructions": "A server that misbehaves on purpose.",
                "ttlMs": 60_000,
                "cacheScope": "public",
                "_meta": {SERVER_INFO_META: {"name": "hostile", "version": "1.0"}},
            },
        )

    def _tools_list(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        self.reply(request, {"tools": tools_listing(self.wire)})

    def _tool_for(self, name: Any) -> str | None:
        """The tool a (maybe decorated) name means: tools are matched by their plain prefix."""
        if not isinstance(name, str):
            return None
        return next((tool for tool in ("job", "ask") if name.startswith(tool)), None)

    def _tools_call(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        tool = self._tool_for(params.get("name"))
        if tool is None:
            self.error(request, -32602, f"Unknown tool: {params.get('name')}")
            return
        wants_task = (
            isinstance(params.get("task"), dict)
            if self.wire == "legacy"
            else declares_tasks(params)
        )
        if not wants_task:
            self.reply(request, self._tool_result(tool, synchronous=True))
            return
        number = next(self._task_numbers)
        record = TaskRecord(f"task-{number}{self.id_decoration}", tool, now_iso())
        self.tasks[record.task_id] = record
        body = self._task_body(record)
        if self.wire == "legacy":
            self.reply(request, {"task": body}, task=record)
        else:
            self.reply(request, {"resultType": "task", **body}, task=record)

    def _tool_result(self, tool: str, *, synchronous: bool = False) -> dict[str, Any]:
        return tool_result(self.wire, tool, synchronous=synchronous)

    # -- the task flow --------------------------------------------------------------------------

    def _advance(self, record: TaskRecord) -> None:
        """One poll's worth of progress."""
        record.polls += 1
        if record.status in TERMINAL:
            return
        if record.tool == "ask":
            if not record.answered:
                record.status, record.message = "input_required", "waiting for an answer"
                if self.wire == "extension" and not record.question_keys:
                    record.question_keys.append(f"q-{next(self._request_numbers)}")
                return
            if record.polls - record.answered_at_poll >= 2:
                self._complete(record)
            else:
                record.status, record.message = "working", "answer received"
            return
        if record.polls >= self.work_polls:
            self._complete(record)
        else:
            record.status, record.message = "working", f"step {record.polls}"

    def _complete(self, record: TaskRecord) -> None:
        record.status, record.message = "completed", "done"
        record.result = self._tool_result(record.tool)
        if self.wire == "extension":
            record.result.pop("resultType", None)
        for waiting in self._waiting_results.pop(record.task_id, []):
            self._answer_result(waiting, record)

    def _task_body(self, record: TaskRecord) -> dict[str, Any]:
        return task_body(self.wire, record, self.poll_interval_ms)

    def detailed(self, record: TaskRecord) -> dict[str, Any]:
        """The task as `tasks/get` shows it (extension: with result or input requests inline)."""
        body = self._task_body(record)
        if self.wire == "legacy":
            return body
        body["resultType"] = "complete"
        if record.status == "completed" and record.result is not None:
            body["result"] = record.result
        if record.status == "input_required":
            body["inputRequests"] = {key: question() for key in record.question_keys}
        return body

    def _known(self, request: dict[str, Any], params: dict[str, Any]) -> TaskRecord | None:
        record = self.tasks.get(str(params.get("taskId")))
        if record is None:
            self.error(request, -32602, f"Task not found: {params.get('taskId')}")
        return record

    def _tasks_get(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        record = self._known(request, params)
        if record is None:
            return
        self._advance(record)
        self.reply(request, self.detailed(record), task=record, poll=record.polls)

    def _tasks_list(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        if self.wire != "legacy":
            self.error(request, -32601, "Method not found: tasks/list")
            return
        self.reply(request, {"tasks": [self._task_body(r) for r in self.tasks.values()]})

    def _tasks_cancel(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        record = self._known(request, params)
        if record is None:
            return
        if record.status in TERMINAL and self.wire == "legacy":
            self.error(request, -32602, f"Cannot cancel task: already {record.status}")
            return
        if record.status not in TERMINAL:
            record.status, record.message = "cancelled", "cancelled by request"
        if self.wire == "legacy":
            self.reply(request, self._task_body(record), task=record)
        else:
            self.reply(request, {"resultType": "complete"}, task=record)

    def _tasks_update(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        if self.wire != "extension":
            self.error(request, -32601, "Method not found: tasks/update")
            return
        record = self._known(request, params)
        if record is None:
            return
        responses = params.get("inputResponses")
        if isinstance(responses, dict) and set(responses) & set(record.question_keys):
            self._mark_answered(record)
        self.reply(request, {"resultType": "complete"}, task=record)

    def _mark_answered(self, record: TaskRecord) -> None:
        if record.status == "input_required":
            record.answered, record.answered_at_poll = True, record.polls
            record.status, record.message = "working", "answer received"

    def _tasks_result(self, request: dict[str, Any], params: dict[str, Any]) -> None:
        if self.wire != "legacy":
            self.error(request, -32601, "Method not found: tasks/result")
            return
        record = self._known(request, params)
        if record is None:
            return
        if record.status in TERMINAL:
            self._answer_result(request, record)
            return
        self._waiting_results.setdefault(record.task_id, []).append(request)
        if record.status == "input_required" and not record.answered:
            self.ask(record, request)

    def ask(self, record: TaskRecord, route: dict[str, Any]) -> None:
        """Legacy: send the task's question as `elicitation/create` on `route`'s stream."""
        key = f"q-{next(self._request_numbers)}"
        record.question_keys.append(key)
        self._questions[key] = record
        params = dict(question()["params"])
        params["_meta"] = {RELATED_TASK: {"taskId": record.task_id}}
        self.push("elicitation/create", params, route=route, rpc_id=key, task=record)

    def _answer_result(self, request: dict[str, Any], record: TaskRecord) -> None:
        result = dict(record.result or self._tool_result(record.tool))
        result["_meta"] = {RELATED_TASK: {"taskId": record.task_id}}
        self.reply(request, result, task=record)

    def _on_answer(self, message: dict[str, Any]) -> None:
        """The client answered one of our questions (legacy)."""
        record = self._questions.pop(str(message.get("id")), None)
        if record is not None and "result" in message:
            self._mark_answered(record)
