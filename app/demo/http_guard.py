"""ASGI guard in front of both demo servers' Streamable HTTP apps.

It answers every Nth `tasks/get` with HTTP 429 and `Retry-After`, so clients can be tested against
a rate-limiting server. On the extension wire it also checks `Mcp-Name` against `params.taskId` on
2026-07-28 `tasks/get|update|cancel` (SEP-2663 makes the task id a routing name; the SDK checks
`Mcp-Name` only for `tools/call`, `prompts/get` and `resources/read`): like the SDK (SEP-2243), a
missing or different value is `-32020`, HTTP 400. Header names are case-insensitive and the value
is compared without surrounding whitespace.
"""

from __future__ import annotations

import json
import math
from typing import Any

from mcp.shared.inbound import decode_header_value
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER_MISMATCH = -32020
RATE_LIMITED = -32000
TASK_ROUTED_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
"""The `tasks/*` requests whose `params.taskId` `Mcp-Name` must carry (SEP-2663)."""


class TasksHttpGuard:
    """Wraps an ASGI app; only `tasks/…` POSTs are inspected, everything else passes through."""

    def __init__(
        self, app: ASGIApp, *, rate_limit_every: int, retry_after_s: float, check_mcp_name: bool
    ) -> None:
        self._app = app
        self._check_mcp_name = check_mcp_name
        self._rate_limit_every = max(0, rate_limit_every)
        self._retry_after = str(math.ceil(max(0.0, retry_after_s)))
        self._gets_seen = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        headers = {
            key.decode("latin-1").lower(): value.decode("latin-1")
            for key, value in scope.get("headers", [])
        }
        body = await read_body(receive)
        method, request_id, task_id = _method_id_and_task_id(body)
        if not method.startswith("tasks/"):
            await self._app(scope, replay(body, receive), send)
            return
        mismatch = self._mcp_name_mismatch(method, task_id, headers)
        if mismatch is not None:
            response = _error(request_id, HEADER_MISMATCH, mismatch, status=400)
            await response(scope, receive, send)
            return
        if method == "tasks/get" and self._rate_limit_every:
            self._gets_seen += 1
            if self._gets_seen % self._rate_limit_every == 0:
                message = f"Too many requests: retry after {self._retry_after} s"
                response = _error(request_id, RATE_LIMITED, message, status=429)
                response.headers["Retry-After"] = self._retry_after
                await response(scope, receive, send)
                return
        await self._app(scope, replay(body, receive), send)

    def _mcp_name_mismatch(
        self, method: str, task_id: str | None, headers: dict[str, str]
    ) -> str | None:
        """Why `Mcp-Name` does not route this request to its task, or None when it does (or when
        it need not: the legacy era, other methods, a body without a string `taskId`)."""
        if not self._check_mcp_name or method not in TASK_ROUTED_METHODS or task_id is None:
            return None
        if headers.get("mcp-protocol-version", "").strip() not in MODERN_PROTOCOL_VERSIONS:
            return None
        raw = headers.get("mcp-name")
        if raw is None:
            return f"Header mismatch: Mcp-Name header is missing; {method} needs the task id"
        name = decode_header_value(raw.strip())
        if name == task_id:
            return None
        shown = raw.strip() if name is None else name
        return (
            f"Header mismatch: Mcp-Name header value {shown!r} "
            f"does not match body value {task_id!r}"
        )


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands out the already-read body once, then defers to the real one."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if delivered:
            return await receive()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def _method_id_and_task_id(body: bytes) -> tuple[str, Any, str | None]:
    try:
        message = json.loads(body)
    except ValueError:
        return "", None, None
    if not isinstance(message, dict):
        return "", None, None
    params = message.get("params")
    task_id = params.get("taskId") if isinstance(params, dict) else None
    request_id = message.get("id")
    method = message.get("method")
    return (
        method if isinstance(method, str) else "",
        request_id if isinstance(request_id, str | int) else None,
        task_id if isinstance(task_id, str) else None,
    )


def _error(request_id: Any, code: int, message: str, *, status: int) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return JSONResponse(body, status_code=status)
