"""What a message's method means for the POST that carries it: the modern routing headers
(`Mcp-Method`, `Mcp-Name`), and whether it is safe to send twice."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.rpc.transports.header_values import encode_header_value

NAME_PARAMS: Mapping[str, str] = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
}
IDEMPOTENT_METHODS = frozenset(
    {
        "ping",
        "server/discover",
        "tasks/get",
        "tasks/list",
        "tasks/result",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    }
)
"""Requests safe to send twice: resent once when a reused connection was found closed."""


def routing_name(message: Mapping[str, Any]) -> str | None:
    """The value for `Mcp-Name`: the tool/prompt name, resource URI, or the task id of tasks/*."""
    method = message.get("method")
    params = message.get("params")
    if not isinstance(method, str) or not isinstance(params, dict):
        return None
    key = "taskId" if method.startswith("tasks/") else NAME_PARAMS.get(method)
    value = params.get(key) if key else None
    return value if isinstance(value, str) else None


def routing_headers(message: Mapping[str, Any]) -> dict[str, str]:
    """The modern era's `Mcp-Method` and `Mcp-Name` headers of a request or notification."""
    method = message.get("method")
    if not isinstance(method, str):
        return {}
    headers = {"Mcp-Method": encode_header_value(method)}
    name = routing_name(message)
    if name is not None:
        headers["Mcp-Name"] = encode_header_value(name)
    return headers
