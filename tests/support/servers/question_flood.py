"""A legacy-wire stdio MCP server whose one tool floods the client with questions (plain Python).

`python question_flood.py COUNT`: the `flood` tool, called as a task, answers with the task and
then at once sends COUNT out-of-band `elicitation/create` requests, each carrying the task in its
related-task meta; the task stays `input_required` until every question is answered, then
completes. Called plainly, it asks the COUNT questions on the call instead (no related task) and
answers the call once every one is answered. It exits when stdin ends.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import Any

LEGACY_VERSION = "2025-11-25"
RELATED_TASK = "io.modelcontextprotocol/related-task"
TASK_ID = "flood-1"
QUESTION_SCHEMA = {
    "type": "object",
    "properties": {"approve": {"type": "boolean", "title": "Approve"}},
    "required": ["approve"],
}


class Flood:
    """The one task and the questions still unanswered."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.created = False
        self.unanswered: set[str] = set()
        self.waiting_results: list[Any] = []
        self.waiting_call: Any = None

    def status(self) -> str:
        if not self.created or self.unanswered:
            return "input_required"
        return "completed"

    def task(self) -> dict[str, Any]:
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        return {
            "taskId": TASK_ID,
            "status": self.status(),
            "statusMessage": f"{len(self.unanswered)} questions open",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttl": 600_000,
            "pollInterval": 1000,
        }

    def handle(self, message: dict[str, Any]) -> None:
        method, rpc_id = message.get("method"), message.get("id")
        if method is None:
            self._answered(str(rpc_id))
            return
        if rpc_id is None:
            return
        if method == "initialize":
            reply(rpc_id, _initialize_result())
        elif method == "tools/list":
            reply(rpc_id, {"tools": [_flood_tool()]})
        elif method == "tools/call":
            self._call(rpc_id, message.get("params") or {})
        elif method == "tasks/get":
            reply(rpc_id, self.task())
        elif method == "tasks/list":
            reply(rpc_id, {"tasks": [self.task()] if self.created else []})
        elif method == "tasks/result":
            self.waiting_results.append(rpc_id)
            self._finish_if_done()
        elif method == "ping":
            reply(rpc_id, {})
        else:
            send({"jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32601, "message": method}})

    def _call(self, rpc_id: Any, params: dict[str, Any]) -> None:
        """As a task: the task, then the questions about it. A plain call: the questions on the
        call (no related task), and its answer once every one is answered."""
        if self.created:
            reply(rpc_id, {"task": self.task()})
            return
        self.created = True
        self.unanswered = {f"q-{number}" for number in range(1, self.count + 1)}
        as_task = isinstance(params.get("task"), dict)
        if as_task:
            reply(rpc_id, {"task": self.task()})
        else:
            self.waiting_call = rpc_id
        for number in range(1, self.count + 1):
            question: dict[str, Any] = {
                "mode": "form",
                "message": f"Question {number} of {self.count}: approve?",
                "requestedSchema": QUESTION_SCHEMA,
            }
            if as_task:
                question["_meta"] = {RELATED_TASK: {"taskId": TASK_ID}}
            request_id = f"q-{number}"
            send(_request(request_id, "elicitation/create", question), flush=False)
        sys.stdout.flush()

    def _answered(self, key: str) -> None:
        self.unanswered.discard(key)
        self._finish_if_done()

    def _finish_if_done(self) -> None:
        if self.status() != "completed":
            return
        result = {
            "content": [{"type": "text", "text": f"{self.count} answers"}],
            "isError": False,
            "_meta": {RELATED_TASK: {"taskId": TASK_ID}},
        }
        for rpc_id in self.waiting_results:
            reply(rpc_id, result)
        self.waiting_results.clear()
        if self.waiting_call is not None:
            reply(self.waiting_call, {"content": result["content"], "isError": False})
            self.waiting_call = None


def _initialize_result() -> dict[str, Any]:
    return {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": {
            "tools": {},
            "tasks": {"list": {}, "requests": {"tools": {"call": {}}}},
        },
        "serverInfo": {"name": "question-flood", "version": "1"},
    }


def _flood_tool() -> dict[str, Any]:
    return {
        "name": "flood",
        "description": "Asks a great many questions at once.",
        "inputSchema": {"type": "object", "properties": {}},
        "execution": {"taskSupport": "optional"},
    }


def send(message: dict[str, Any], *, flush: bool = True) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    if flush:
        sys.stdout.flush()


def _request(rpc_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}


def reply(rpc_id: Any, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": rpc_id, "result": result})


def main() -> None:
    flood = Flood(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            flood.handle(message)


if __name__ == "__main__":
    main()
