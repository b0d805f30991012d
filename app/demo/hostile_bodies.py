"""The hostile server's well-formed wire content on each wire: its two tools, a task's state, the
one question an `ask` task asks, and a tool's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

Wire = Literal["legacy", "extension"]

LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
TERMINAL = frozenset({"completed", "failed", "cancelled"})


@dataclass
class TaskRecord:
    """One task as the server keeps it."""

    task_id: str
    tool: str
    created_at: str
    status: str = "working"
    message: str = "started"
    polls: int = 0
    answered: bool = False
    answered_at_poll: int = 0
    question_keys: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None


def now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def tools_listing(wire: Wire) -> list[dict[str, Any]]:
    """The `tools/list` entries: `job` and `ask` (with task support declared on the legacy wire)."""
    tools = [
        {
            "name": "job",
            "title": "A job",
            "description": "Works for a few polls, then completes with a result.",
            "inputSchema": {"type": "object", "properties": {}},
        },
        {
            "name": "ask",
            "title": "A question",
            "description": "Asks one question, then completes.",
            "inputSchema": {"type": "object", "properties": {}},
        },
    ]
    if wire == "legacy":
        for tool in tools:
            tool["execution"] = {"taskSupport": "optional"}
    return tools


def tool_result(wire: Wire, tool: str, *, synchronous: bool = False) -> dict[str, Any]:
    """What `tool` answers when it finishes (at once when `synchronous`)."""
    text = f"{tool} finished" + (" (synchronously)" if synchronous else "")
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"summary": text},
        "isError": False,
    }
    if wire == "extension":
        result["resultType"] = "complete"
    return result


def task_body(wire: Wire, record: TaskRecord, poll_interval_ms: int) -> dict[str, Any]:
    """The task's state as that wire's task object shows it."""
    body: dict[str, Any] = {
        "taskId": record.task_id,
        "status": record.status,
        "statusMessage": record.message,
        "createdAt": record.created_at,
        "lastUpdatedAt": now_iso(),
    }
    if wire == "legacy":
        body.update(ttl=600_000, pollInterval=poll_interval_ms)
        return body
    body.update(ttlMs=600_000, pollIntervalMs=poll_interval_ms)
    return body


def question() -> dict[str, Any]:
    """The one question of an `ask` task, as `{method, params}`."""
    params: dict[str, Any] = {
        "mode": "form",
        "message": "Approve the job?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "approve": {"type": "boolean", "title": "Approve", "description": "Say yes"}
            },
            "required": ["approve"],
        },
    }
    return {"method": "elicitation/create", "params": params}


def declares_tasks(params: dict[str, Any]) -> bool:
    """Whether a `tools/call` declares the tasks extension in its client capabilities."""
    meta = params.get("_meta")
    capabilities = (
        meta.get("io.modelcontextprotocol/clientCapabilities") if isinstance(meta, dict) else None
    )
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and TASKS_EXTENSION in extensions
