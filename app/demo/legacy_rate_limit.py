"""An ASGI wrapper that answers every Nth `tasks/get` POST with HTTP 429 and `Retry-After`.

It lets a demo server punish (and tests check) clients that ignore rate limiting. Other requests
pass through untouched; the body it had to read is replayed to the wrapped app.
"""

from __future__ import annotations

import json
import math
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def _is_tasks_get(body: bytes) -> bool:
    try:
        payload: Any = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return False
    messages = payload if isinstance(payload, list) else [payload]
    return any(isinstance(m, dict) and m.get("method") == "tasks/get" for m in messages)


class TasksGetRateLimit:
    """Wraps an ASGI app; every `every`-th `tasks/get` gets 429 with `Retry-After: retry_after_s`
    (rounded up to whole seconds, as HTTP requires)."""

    def __init__(self, app: ASGIApp, every: int, retry_after_s: float) -> None:
        self._app = app
        self._every = max(1, every)
        self._retry_after = str(max(0, math.ceil(retry_after_s)))
        self._tasks_gets = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Count `tasks/get` POSTs and refuse every Nth; pass everything else through."""
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self._app(scope, receive, send)
            return
        buffered: list[Message] = []
        body = b""
        while True:
            message = await receive()
            buffered.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        if _is_tasks_get(body):
            self._tasks_gets += 1
            if self._tasks_gets % self._every == 0:
                await self._refuse(send)
                return

        async def replay() -> Message:
            return buffered.pop(0) if buffered else await receive()

        await self._app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = b"Too Many Requests: slow down your tasks/get polling.\n"
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", self._retry_after.encode()),
        ]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})
