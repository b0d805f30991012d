"""A demo server that breaks exactly one tasks rule: `taskscope check`'s proof that each check
fails where its rule is broken (and nowhere else).

    python -m tests.support.servers.violating --wire legacy --violate ttl-string
    python -m tests.support.servers.violating --wire extension --violate mcp-name-ignored --port N

It runs the clean demo server (`python -m app.demo --wire W`) behind a relay that rewrites the
messages one `--violate` mode names: over stdio it relays lines; with `--port` it serves
Streamable HTTP on 127.0.0.1 and relays each POST to the demo's own HTTP server (extension wire:
stateless JSON). `--violate none` relays everything untouched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.demo_servers import http_demo_command

Message = dict[str, Any]
RELATED = "io.modelcontextprotocol/related-task"
DECLARATION = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"


@dataclass
class Relay:
    """The rewriting state of one run: which request id asked which method, and what was seen."""

    mode: str
    methods: dict[Any, str] = field(default_factory=dict)
    params: dict[Any, dict[str, Any]] = field(default_factory=dict)
    ended: set[str] = field(default_factory=set)
    gets: dict[str, int] = field(default_factory=dict)
    updated: set[str] = field(default_factory=set)
    unlimited: set[str] = field(default_factory=set)
    dropped: set[Any] = field(default_factory=set)

    # -- client → server ------------------------------------------------------------------------

    def to_server(self, message: Message) -> Message | None:
        """The request as the demo gets it (None: the relay answers it itself, see `reply`)."""
        method, params = message.get("method"), message.get("params")
        if "id" in message and isinstance(method, str):
            self.methods[message["id"]] = method
            self.params[message["id"]] = params if isinstance(params, dict) else {}
        if not isinstance(params, dict):
            return message
        unknown = str(params.get("taskId")).startswith("taskscope-")
        if self.mode == "silent-get" and method == "tasks/get" and not unknown:
            self.methods.pop(message.get("id"), None)
            return None
        if self.mode == "get-never-answers" and method == "tasks/get":
            self.methods.pop(message.get("id"), None)
            return None
        declared = CAPABILITIES_META in params.get("_meta", {}) and "extensions" in params[
            "_meta"
        ].get(CAPABILITIES_META, {})
        if self.mode == "undeclared-accepted" and method == "tasks/get" and not declared:
            _declare(params)
        arguments = params.get("arguments")
        one_second = isinstance(arguments, dict) and arguments.get("seconds") == 1
        if self.mode == "slow-sync" and params.get("name") == "slow_compute" and one_second:
            params.get("_meta", {}).pop(CAPABILITIES_META, None)
        if self.mode == "failing-job-refused" and params.get("name") == "failing_job" and declared:
            params["_meta"][CAPABILITIES_META].pop("extensions", None)
        if self.mode == "required-runs-plainly" and params.get("name") == "failing_job":
            _declare(params)
        if method == "tasks/update" and isinstance(params.get("taskId"), str):
            self.updated.add(params["taskId"])
        plain = method == "tools/call" and "task" not in params
        if self.mode == "undeclared-creates" and plain and not declared:
            _declare(params)
        if self.mode == "legacy-param-honoured" and method == "tools/call" and "task" in params:
            _declare(params)
        return message

    def reply(self, message: Message) -> Message | None:
        """An answer the relay gives in the demo's place, if the mode says so."""
        params = message.get("params")
        task_id = str(params.get("taskId")) if isinstance(params, dict) else ""
        ours = not task_id.startswith("taskscope-")
        if self.mode == "listen-no-ack" and message.get("method") == "subscriptions/listen":
            return {"jsonrpc": "2.0", "id": message.get("id"), "result": {"resultType": "complete"}}
        named = params.get("name") if isinstance(params, dict) else None
        if self.mode == "mcp-method-refused" and named == "multi_input":
            error = {"code": -32020, "message": "Mcp-Method does not match"}
            return {"jsonrpc": "2.0", "id": message.get("id"), "error": error}
        if self.mode == "update-ignored" and message.get("method") == "tasks/update" and ours:
            self.methods.pop(message.get("id"), None)
            return {"jsonrpc": "2.0", "id": message.get("id"), "result": {"resultType": "complete"}}
        return None

    def answer_early(self, message: Message) -> Message | None:
        """stdio only: an answer sent at once while the request still goes on to the demo (whose
        own answer is then dropped): `result-early` answers tasks/result of a real task before
        the task ends, with a well-formed result and its related-task meta."""
        params = message.get("params")
        task_id = params.get("taskId") if isinstance(params, dict) else None
        real = isinstance(task_id, str) and not task_id.startswith("taskscope-")
        if self.mode != "result-early" or message.get("method") != "tasks/result" or not real:
            return None
        self.dropped.add(message.get("id"))
        result = {
            "content": [{"type": "text", "text": "done (not really: the task still works)"}],
            "isError": False,
            "_meta": {RELATED: {"taskId": task_id}},
        }
        return {"jsonrpc": "2.0", "id": message.get("id"), "result": result}

    def refuse_routing(self, message: Message, headers: Any) -> Message | None:
        """HTTP only: a -32020 to a tasks/get of an ended task whose Mcp-Name is right."""
        params = message.get("params")
        task_id = params.get("taskId") if isinstance(params, dict) else None
        getting = message.get("method") == "tasks/get"
        right = getting and task_id is not None and headers.get("mcp-name") == task_id
        if self.mode == "ended-name-refused" and right and task_id in self.ended:
            error = {"code": -32020, "message": "Mcp-Name does not match"}
            return {"jsonrpc": "2.0", "id": message.get("id"), "error": error}
        return None

    def headers(self, message: Message, headers: dict[str, str]) -> dict[str, str]:
        """HTTP headers as the demo gets them."""
        params = message.get("params")
        if self.mode == "method-mismatch-accepted" and isinstance(message.get("method"), str):
            headers = {k: v for k, v in headers.items() if k.lower() != "mcp-method"}
            headers["Mcp-Method"] = message["method"]
        if self.mode == "mcp-name-ignored" and isinstance(params, dict) and "taskId" in params:
            headers = {k: v for k, v in headers.items() if k.lower() != "mcp-name"}
            headers["Mcp-Name"] = str(params["taskId"])
        return headers

    # -- server → client ------------------------------------------------------------------------

    def to_client(self, message: Message) -> Message | None:
        """A message from the demo as the client gets it (None: dropped)."""
        if "method" in message:
            return self._server_message(message)
        if message.get("id") in self.dropped:
            self.dropped.discard(message.get("id"))
            self.methods.pop(message.get("id"), None)
            return None
        method = self.methods.pop(message.get("id"), None)
        params = self.params.pop(message.get("id"), {})
        if method is None:
            return message
        rewrite = REWRITES.get(self.mode)
        if rewrite is not None:
            rewrite(self, method, params, message)
        return message

    def _server_message(self, message: Message) -> Message:
        params = message.get("params")
        if not isinstance(params, dict):
            return message
        if self.mode == "question-unstamped" and message["method"] == "elicitation/create":
            params.get("_meta", {}).pop(RELATED, None)
        if self.mode == "status-notification-partial" and message["method"] == (
            "notifications/tasks/status"
        ):
            params.pop("createdAt", None)
        return message


def _declare(params: dict[str, Any]) -> None:
    meta = params.setdefault("_meta", {})
    capabilities = meta.setdefault(CAPABILITIES_META, {})
    capabilities.setdefault("extensions", {}).update(DECLARATION["extensions"])


def _tasks_in(method: str, message: Message) -> list[dict[str, Any]]:
    """Every task object in an answer: a legacy create's `task`, a get or cancel result, a
    flat extension create, a list's tasks."""
    result = message.get("result")
    if not isinstance(result, dict):
        return []
    if isinstance(result.get("task"), dict):
        return [result["task"]]
    if method == "tasks/list":
        return [t for t in result.get("tasks", []) if isinstance(t, dict)]
    if "taskId" in result:
        return [result]
    return []


def _error(message: Message, code: int, text: str) -> None:
    message.pop("result", None)
    message["error"] = {"code": code, "message": text}


def _not_found(message: Message) -> bool:
    error = message.get("error")
    return isinstance(error, dict) and error.get("code") == -32602


def create_not_working(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    if method == "tools/call":
        for task in _tasks_in(method, message):
            task["status"] = "input_required"


def task_in_meta(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    """FastMCP 2.14's shape: the created task as `_meta` of a tool result, taskId and status."""
    result = message.get("result")
    if method == "tools/call" and isinstance(result, dict) and isinstance(result.get("task"), dict):
        stub = {key: result["task"].get(key) for key in ("taskId", "status")}
        message["result"] = {
            "content": [],
            "isError": False,
            "_meta": {"modelcontextprotocol.io/task": stub},
        }


def ttl_string(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        if isinstance(task.get("ttl"), int):
            task["ttl"] = str(task["ttl"])


def ttl_null(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        if "ttl" in task:
            task["ttl"] = None


def ttl_null_unrequested(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    """The TypeScript SDK examples' way: a task created without a requested ttl keeps ttl null."""
    asked = params.get("task")
    for task in _tasks_in(method, message):
        if method == "tools/call" and isinstance(asked, dict) and "ttl" not in asked:
            relay.unlimited.add(str(task.get("taskId")))
        if str(task.get("taskId")) in relay.unlimited:
            task["ttl"] = None


def terminal_not_final(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        task_id = str(task.get("taskId"))
        if method == "tasks/get" and task_id in relay.ended:
            task["status"] = "working"
        elif task.get("status") in ("completed", "failed"):
            relay.ended.add(task_id)


def unknown_id_internal(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    if method == "tasks/get" and _not_found(message):
        _error(message, -32603, "Task not found")


def result_no_related_meta(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    result = message.get("result")
    if method == "tasks/result" and isinstance(result, dict):
        result.get("_meta", {}).pop(RELATED, None)


def result_old_related_key(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    """FastMCP 2.14's related-task key, the pre-release `modelcontextprotocol.io/related-task`."""
    result = message.get("result")
    if method == "tasks/result" and isinstance(result, dict) and RELATED in result.get("_meta", {}):
        result["_meta"]["modelcontextprotocol.io/related-task"] = result["_meta"].pop(RELATED)


def cancel_not_cancelled(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    if method == "tasks/cancel":
        for task in _tasks_in(method, message):
            task["status"] = "working"


def cancel_terminal_accepted(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    if (
        method == "tasks/cancel"
        and _not_found(message)
        and not str(params.get("taskId")).startswith("taskscope-")
    ):
        message.pop("error")
        message["result"] = {
            "taskId": params["taskId"],
            "status": "cancelled",
            "createdAt": "2026-07-28T10:00:00Z",
            "lastUpdatedAt": "2026-07-28T10:00:00Z",
            "ttl": None,
        }


def list_misses_task(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    result = message.get("result")
    if method == "tasks/list" and isinstance(result, dict):
        result["tasks"] = []


def mixed_era(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    result = message.get("result")
    if method in ("initialize", "server/discover") and isinstance(result, dict):
        capabilities = result.setdefault("capabilities", {})
        if method == "initialize":
            capabilities["extensions"] = dict(DECLARATION["extensions"])
        else:
            capabilities["tasks"] = {"requests": {"tools": {"call": {}}}}


def tools_call_undeclared(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    """The Python SDK 1.23-1.26 way: `tasks.requests.tools` declared as {}, without `call`."""
    result = message.get("result")
    if method == "initialize" and isinstance(result, dict):
        tasks = result.get("capabilities", {}).get("tasks")
        if isinstance(tasks, dict):
            tasks["requests"] = {"tools": {}}


def early_expiry(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    task_id = str(params.get("taskId"))
    if method == "tasks/get" and "result" in message:
        relay.gets[task_id] = relay.gets.get(task_id, 0) + 1
        if relay.gets[task_id] > 1:
            _error(message, -32602, "Task has expired")


def get_result_type_task(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    result = message.get("result")
    if method == "tasks/get" and isinstance(result, dict):
        result["resultType"] = "task"


def legacy_field_names(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        task["ttl"] = task.get("ttlMs")
        task["pollInterval"] = task.get("pollIntervalMs", 1000)


def ttl_float(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        if isinstance(task.get("ttlMs"), int):
            task["ttlMs"] = task["ttlMs"] + 0.5


def request_state_create(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    if method == "tools/call":
        for task in _tasks_in(method, message):
            task["requestState"] = "opaque"


def request_state_get(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    if method == "tasks/get":
        for task in _tasks_in(method, message):
            task["requestState"] = "opaque"


def completed_no_result(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    for task in _tasks_in(method, message):
        if task.get("status") == "completed":
            task.pop("result", None)


def related_meta_inline(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    for task in _tasks_in(method, message):
        if isinstance(task.get("result"), dict):
            task["result"].setdefault("_meta", {})[RELATED] = {"taskId": task.get("taskId")}


def cancel_ack_task(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    if method == "tasks/cancel" and "result" in message:
        message["result"] = {
            "resultType": "complete",
            "taskId": params.get("taskId"),
            "status": "cancelled",
        }


def cancel_terminal_refused(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    task_id = str(params.get("taskId"))
    for task in _tasks_in(method, message):
        if task.get("status") in ("completed", "failed", "cancelled"):
            relay.ended.add(str(task.get("taskId")))
    if method == "tasks/cancel" and task_id in relay.ended:
        _error(message, -32602, "Task already ended")


def removed_verbs_exist(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    if method in ("tasks/result", "tasks/list"):
        _error(message, -32602, "Task not found")


def undeclared_no_data(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    error = message.get("error")
    if isinstance(error, dict) and error.get("code") == -32021:
        error.pop("data", None)


def not_durable(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    task_id = str(params.get("taskId"))
    if method == "tasks/get" and not relay.gets and not task_id.startswith("taskscope-"):
        relay.gets[task_id] = 1
        _error(message, -32602, "Task not found")


def cancel_unknown_missing(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    unknown = str(params.get("taskId")).startswith("taskscope-")
    if method == "tasks/cancel" and unknown and _not_found(message):
        _error(message, -32601, "Method not found")


def required_plain_ok(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    result = message.get("result")
    if method == "tools/list" and isinstance(result, dict):
        for tool in result.get("tools", []):
            if tool.get("name") == "build_report":
                tool["execution"] = {"taskSupport": "required"}


def input_no_method(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        for entry in (task.get("inputRequests") or {}).values():
            if isinstance(entry, dict):
                entry.pop("method", None)


def partial_moves_on(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    task_id = str(params.get("taskId"))
    for task in _tasks_in(method, message):
        if task_id in relay.updated and task.get("status") == "input_required":
            relay.updated.discard(task_id)
            task["status"] = "working"
            task.pop("inputRequests", None)


def content_empty(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        if task.get("status") == "completed" and isinstance(task.get("result"), dict):
            task["result"]["content"] = []


def tool_error_failed(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        result = task.get("result")
        if isinstance(result, dict) and result.get("isError") is True:
            task["status"] = "failed"
            task.pop("result")
            task["error"] = {"code": -32603, "message": "the tool failed"}


def failed_with_result(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        if task.get("status") == "failed":
            task["result"] = {"content": []}


def greet_no_result_type(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    result = message.get("result")
    if method == "tools/call" and params.get("name") == "greet" and isinstance(result, dict):
        result.pop("resultType", None)


def mrtr_task_with_state(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    result = message.get("result")
    answered = method == "tools/call" and "inputResponses" in params
    if answered and isinstance(result, dict) and result.get("resultType") == "task":
        result["requestState"] = "opaque"


def ack_no_result_type(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    result = message.get("result")
    if method == "tasks/cancel" and isinstance(result, dict):
        result.pop("resultType", None)


def create_carries_result(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    result = message.get("result")
    if method == "tools/call" and isinstance(result, dict) and result.get("resultType") == "task":
        result["result"] = {"content": []}


def instant_no_content(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    result = message.get("result")
    instant = (params.get("arguments") or {}).get("seconds") == 0
    if method == "tools/call" and instant and isinstance(result, dict):
        result.pop("taskId" if result.get("resultType") == "task" else "content", None)


def required_wrong_data(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    error = message.get("error")
    if method == "tools/call" and isinstance(error, dict) and error.get("code") == -32021:
        error["data"] = {"requiredCapabilities": {"extensions": {}}}


def ended_seen(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        if task.get("status") in ("completed", "failed", "cancelled"):
            relay.ended.add(str(task.get("taskId")))


def tasks_no_verbs(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    """capabilities.tasks declared with none of requests.tools.call, list or cancel."""
    result = message.get("result")
    if method == "initialize" and isinstance(result, dict):
        result.setdefault("capabilities", {})["tasks"] = {"requests": {}}


def tasks_wrong_era(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    """server/discover offers tasks the 2025-11-25 way only: capabilities.tasks, no extension."""
    result = message.get("result")
    if method == "server/discover" and isinstance(result, dict):
        capabilities = result.setdefault("capabilities", {})
        (capabilities.get("extensions") or {}).pop("io.modelcontextprotocol/tasks", None)
        capabilities["tasks"] = {"requests": {"tools": {"call": {}}}, "cancel": {}}


def terminal_not_final_no_cancel(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    """terminal-not-final on a server that declares no tasks.cancel."""
    result = message.get("result")
    if method == "initialize" and isinstance(result, dict):
        tasks = result.get("capabilities", {}).get("tasks")
        if isinstance(tasks, dict):
            tasks.pop("cancel", None)
    terminal_not_final(relay, method, params, message)


def get_internal_error(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    """Every tasks/get of a task after its first answers -32603: a refusal, not an expiry."""
    task_id = str(params.get("taskId"))
    if method == "tasks/get" and "result" in message:
        relay.gets[task_id] = relay.gets.get(task_id, 0) + 1
        if relay.gets[task_id] > 1:
            _error(message, -32603, "Internal error")


def ttl_missing(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    for task in _tasks_in(method, message):
        task.pop("ttl", None)
        task.pop("ttlMs", None)


def unfinished_carries_result(
    relay: Relay, method: str, params: dict[str, Any], message: Message
) -> None:
    """A tasks/get of a task still working (or input_required) already carries a result."""
    if method == "tasks/get":
        for task in _tasks_in(method, message):
            if task.get("status") in ("working", "input_required"):
                task["result"] = {"content": [{"type": "text", "text": "not yet"}]}


def first_get_other_id(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    """The first tasks/get of each task answers another task's id."""
    task_id = str(params.get("taskId"))
    if method == "tasks/get" and isinstance(message.get("result"), dict):
        relay.gets[task_id] = relay.gets.get(task_id, 0) + 1
        if relay.gets[task_id] == 1 and not task_id.startswith("taskscope-"):
            message["result"]["taskId"] = f"{task_id}-other"


def tasks_list_answers(relay: Relay, method: str, params: dict[str, Any], message: Message) -> None:
    """tasks/list, removed from the extension wire, answers a page (tasks/result stays -32601)."""
    if method == "tasks/list":
        message.pop("error", None)
        message["result"] = {"resultType": "complete", "tasks": []}


Rewrite = Callable[[Relay, str, dict[str, Any], Message], None]
REWRITES: dict[str, Rewrite] = {
    "create-not-working": create_not_working,
    "task-in-meta": task_in_meta,
    "ttl-string": ttl_string,
    "ttl-null": ttl_null,
    "ttl-null-unrequested": ttl_null_unrequested,
    "terminal-not-final": terminal_not_final,
    "unknown-id-internal": unknown_id_internal,
    "result-no-related-meta": result_no_related_meta,
    "result-old-related-key": result_old_related_key,
    "cancel-not-cancelled": cancel_not_cancelled,
    "cancel-terminal-accepted": cancel_terminal_accepted,
    "list-misses-task": list_misses_task,
    "mixed-era": mixed_era,
    "tools-call-undeclared": tools_call_undeclared,
    "early-expiry": early_expiry,
    "get-result-type-task": get_result_type_task,
    "legacy-field-names": legacy_field_names,
    "ttl-float": ttl_float,
    "request-state-create": request_state_create,
    "request-state-get": request_state_get,
    "completed-no-result": completed_no_result,
    "related-meta-inline": related_meta_inline,
    "cancel-ack-task": cancel_ack_task,
    "cancel-terminal-refused": cancel_terminal_refused,
    "removed-verbs-exist": removed_verbs_exist,
    "undeclared-no-data": undeclared_no_data,
    "not-durable": not_durable,
    "cancel-unknown-missing": cancel_unknown_missing,
    "required-plain-ok": required_plain_ok,
    "input-no-method": input_no_method,
    "partial-moves-on": partial_moves_on,
    "content-empty": content_empty,
    "tool-error-failed": tool_error_failed,
    "failed-with-result": failed_with_result,
    "greet-no-result-type": greet_no_result_type,
    "mrtr-task-with-state": mrtr_task_with_state,
    "ack-no-result-type": ack_no_result_type,
    "create-carries-result": create_carries_result,
    "instant-no-content": instant_no_content,
    "required-wrong-data": required_wrong_data,
    "ended-name-refused": ended_seen,
    "tasks-no-verbs": tasks_no_verbs,
    "tasks-wrong-era": tasks_wrong_era,
    "terminal-not-final-no-cancel": terminal_not_final_no_cancel,
    "get-internal-error": get_internal_error,
    "ttl-missing": ttl_missing,
    "unfinished-carries-result": unfinished_carries_result,
    "first-get-other-id": first_get_other_id,
    "tasks-list-answers": tasks_list_answers,
}
RELAY_MODES = frozenset(
    {
        "none",
        "question-unstamped",
        "status-notification-partial",
        "undeclared-accepted",
        "undeclared-creates",
        "legacy-param-honoured",
        "update-ignored",
        "mcp-name-ignored",
        "silent-get",
        "required-runs-plainly",
        "method-mismatch-accepted",
        "listen-no-ack",
        "mcp-method-refused",
        "slow-sync",
        "failing-job-refused",
        "get-never-answers",
        "result-early",
    }
)
MODES = frozenset(REWRITES) | RELAY_MODES


# -- stdio -------------------------------------------------------------------------------------


async def relay_stdio(wire: str, relay: Relay, demo_args: list[str]) -> None:
    """Run the demo over stdio and relay lines both ways through `relay`."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.demo",
        "--wire",
        wire,
        *demo_args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=64 * 1024 * 1024,
    )
    assert child.stdin is not None and child.stdout is not None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = sys.stdout.buffer
    demo_in, demo_out = child.stdin, child.stdout

    def emit(message: Message) -> None:
        out.write(json.dumps(message).encode() + b"\n")
        out.flush()

    async def upstream() -> None:
        while line := await reader.readline():
            message = json.loads(line)
            own = relay.reply(message)
            if own is not None:
                emit(own)
                continue
            early = relay.answer_early(message)
            if early is not None:
                emit(early)
            forwarded = relay.to_server(message)
            if forwarded is not None:
                demo_in.write(json.dumps(forwarded).encode() + b"\n")
                await demo_in.drain()
        demo_in.close()

    async def downstream() -> None:
        while line := await demo_out.readline():
            relayed = relay.to_client(json.loads(line))
            if relayed is not None:
                emit(relayed)

    try:
        await asyncio.gather(upstream(), downstream())
    finally:
        if child.returncode is None:
            child.terminate()
        await child.wait()


# -- Streamable HTTP (extension wire: stateless JSON answers) ---------------------------------


def serve_http(wire: str, relay: Relay, port: int, demo_args: list[str]) -> None:
    """Serve Streamable HTTP on 127.0.0.1:`port`, relaying each POST to a demo HTTP server."""
    import httpx
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        demo_port = probe.getsockname()[1]
    demo = subprocess.Popen(
        http_demo_command("extension" if wire == "extension" else "legacy", demo_port, *demo_args),
        stdin=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
    )
    upstream = f"http://127.0.0.1:{demo_port}/mcp"
    client = httpx.AsyncClient(timeout=60)

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        message = json.loads(body)
        own = relay.reply(message) or relay.refuse_routing(message, request.headers)
        if own is not None:
            return JSONResponse(own)
        forwarded = relay.to_server(message)
        passed = {
            k: v
            for k, v in request.headers.items()
            if k.lower() not in ("host", "content-length", "connection")
        }
        answer = await client.post(
            upstream, content=json.dumps(forwarded), headers=relay.headers(message, passed)
        )
        text = answer.text
        if "text/event-stream" in answer.headers.get("content-type", ""):
            events = [
                json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")
            ]
            text = json.dumps(relay.to_client(events[-1]) or {}) if events else "{}"
        elif text.strip():
            text = json.dumps(relay.to_client(json.loads(text)) or {})
        return Response(text, status_code=answer.status_code, media_type="application/json")

    app = Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])])
    try:
        _wait_listening(demo_port)
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    finally:
        demo.terminate()
        demo.wait(timeout=10)


def _die_with_parent() -> None:
    """In the demo child: be killed when the relay dies, however it dies (a SIGKILL after a
    slow graceful stop skips the relay's own clean-up)."""
    import ctypes
    import signal

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _wait_listening(port: int) -> None:
    import time

    for _ in range(400):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"the demo server never listened on {port}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wire", choices=["legacy", "extension"], required=True)
    parser.add_argument("--violate", choices=sorted(MODES), required=True)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("demo_args", nargs="*", help="passed to python -m app.demo")
    options = parser.parse_args()
    relay = Relay(options.violate)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    if options.port is None:
        asyncio.run(relay_stdio(options.wire, relay, options.demo_args))
    else:
        serve_http(options.wire, relay, options.port, options.demo_args)


if __name__ == "__main__":
    main()
