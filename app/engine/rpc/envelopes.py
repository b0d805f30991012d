"""Building and checking JSON-RPC 2.0 envelopes: requests, notifications, error replies, and
which task a message is about.

Pure functions over dicts, so the connection keeps only correlation and dispatch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.tasks.protocol_keys import RELATED_TASK_KEYS

METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603


def frame_task_id(message: Mapping[str, Any] | None) -> str | None:
    """The task a message is about: params.taskId, result taskId / task.taskId, or related-task."""
    if not message:
        return None
    for key in ("params", "result"):
        body = message.get(key)
        if not isinstance(body, dict):
            continue
        for holder in (body, body.get("task")):
            if isinstance(holder, dict) and isinstance(holder.get("taskId"), str):
                return str(holder["taskId"])
        related = meta_task_id(body.get("_meta"))
        if related is not None:
            return related
    return None


def meta_task_id(meta: Any, keys: tuple[str, ...] = RELATED_TASK_KEYS) -> str | None:
    """The `taskId` under the first of `keys` in a `_meta` object (the related-task keys)."""
    if not isinstance(meta, dict):
        return None
    for key in keys:
        holder = meta.get(key)
        if isinstance(holder, dict) and isinstance(holder.get("taskId"), str):
            return str(holder["taskId"])
    return None


def envelope(
    method: str, params: dict[str, Any] | None, rpc_id: int | None = None
) -> dict[str, Any]:
    """A request (with `rpc_id`) or a notification (without), `params` left out when None."""
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if rpc_id is not None:
        message["id"] = rpc_id
    message["method"] = method
    if params is not None:
        message["params"] = params
    return message


def error_reply(rpc_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """The JSON-RPC error response to request `rpc_id`, `data` left out when None."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": rpc_id, "error": error}


def response_problem(message: dict[str, Any]) -> str | None:
    """What is wrong with a response frame's body, or None when it is well-formed."""
    if "error" in message:
        error = message["error"]
        if not isinstance(error, dict) or not isinstance(error.get("code"), int):
            return "error response without an integer error.code"
        return None
    if not isinstance(message.get("result"), dict):
        return "result is not a JSON object"
    return None
