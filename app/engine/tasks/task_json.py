"""A normalized task or input request as a JSON document with the protocol's field names.

Both faces print, copy and export the same documents: the CLI's result envelopes and the TUI's
copy/save/export. Server values stay data; escaping for a terminal is the printer's job.
"""

from __future__ import annotations

from typing import Any

from app.engine.tasks.models import InputRequest, Task


def task_json(task: Task) -> dict[str, Any]:
    """A normalized task as JSON with the protocol's field names (absent values left out)."""
    document: dict[str, Any] = {
        "taskId": task.task_id,
        "status": task.status,
        "statusMessage": task.status_message,
        "createdAt": task.created_at.isoformat() if task.created_at else None,
        "lastUpdatedAt": task.last_updated_at.isoformat() if task.last_updated_at else None,
        "ttlMs": task.ttl_ms,
        "pollIntervalMs": task.poll_interval_ms,
        "toolName": task.tool_name,
        "result": task.result,
        "resultSource": task.result_source,
        "error": task.error.model_dump() if task.error else None,
        "inputRequests": [input_json(request) for request in task.input_requests] or None,
        "progress": task.progress.model_dump(exclude_none=True) if task.progress else None,
    }
    return {key: value for key, value in document.items() if value is not None}


def input_json(request: InputRequest) -> dict[str, Any]:
    """An input request as JSON: its key, kind, method, message and the server's params."""
    document: dict[str, Any] = {
        "key": request.key,
        "kind": request.kind.value,
        "method": request.method,
        "message": request.message or None,
        "taskId": request.task_id,
        "params": request.params,
    }
    return {key: value for key, value in document.items() if value is not None}
