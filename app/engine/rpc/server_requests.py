"""Answers server→client requests, each in its own task, and hands server notifications to their
handlers (a `notifications/cancelled` stops the answer it names)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.engine.rpc.correlation import next_exchange
from app.engine.rpc.envelopes import INTERNAL_ERROR, METHOD_NOT_FOUND, error_reply
from app.engine.rpc.rpc_types import NotificationHandler, RpcError, ServerRequestHandler
from app.engine.rpc.transports.base import TransportError

log = logging.getLogger(__name__)

SendAnswer = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class ServerRequest:
    """A server→client request being answered: what our answer's frame is reported with."""

    method: str
    exchange: int
    received_at: float
    task_id: str | None


class ServerRequests:
    """The handlers of one connection's server requests and notifications, and the answers
    running; `send` puts an answer on the wire, `closed` says when not to any more."""

    def __init__(self, send: SendAnswer, closed: Callable[[], bool]) -> None:
        self._send = send
        self._closed = closed
        self.handlers: dict[str, ServerRequestHandler] = {}
        self.notification_handlers: list[NotificationHandler] = []
        self._running: dict[str | int, asyncio.Task[None]] = {}
        self._asked: dict[str | int, ServerRequest] = {}

    def asked(self, rpc_id: Any) -> ServerRequest | None:
        """The server request that `rpc_id` (the id of an answer of ours) answers, if any."""
        return self._asked.get(rpc_id) if isinstance(rpc_id, str | int) else None

    def start(
        self, method: str, message: dict[str, Any], task_id: str | None
    ) -> ServerRequest | None:
        """Answer a server request in its own task; None when its id cannot be answered."""
        rpc_id = message["id"]
        if not isinstance(rpc_id, str | int):
            return None
        asked = ServerRequest(method, next_exchange(), time.monotonic(), task_id)
        task = asyncio.create_task(self._answer(method, message), name=f"answer {method}")
        self._running[rpc_id] = task
        self._asked[rpc_id] = asked

        def forget(_: asyncio.Task[None]) -> None:
            self._running.pop(rpc_id, None)
            self._asked.pop(rpc_id, None)

        task.add_done_callback(forget)
        return asked

    def cancel_all(self) -> None:
        """Stop every answer still being worked out (the connection is closing)."""
        for task in list(self._running.values()):
            task.cancel()

    def notify(self, method: str, message: dict[str, Any]) -> None:
        """Hand a server notification to every notification handler."""
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        request_id = params.get("requestId")
        if method == "notifications/cancelled" and isinstance(request_id, str | int):
            task = self._running.get(request_id)
            if task is not None:
                task.cancel()
        for handler in list(self.notification_handlers):
            try:
                handler(method, params)
            except Exception:
                log.exception("notification handler failed on %s", method)

    async def _answer(self, method: str, message: dict[str, Any]) -> None:
        rpc_id = message["id"]
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        handler = self.handlers.get(method)
        reply: dict[str, Any]
        if method == "ping":
            reply = {"jsonrpc": "2.0", "id": rpc_id, "result": {}}
        elif handler is None:
            reply = error_reply(rpc_id, METHOD_NOT_FOUND, f"Method not found: {method}")
        else:
            try:
                result = await handler(params, message)
                reply = {"jsonrpc": "2.0", "id": rpc_id, "result": result}
            except RpcError as exc:
                reply = error_reply(rpc_id, exc.code, exc.message, exc.data)
            except Exception as exc:
                log.exception("handler for %s failed", method)
                reply = error_reply(rpc_id, INTERNAL_ERROR, f"client error: {exc}")
        if self._closed():
            return
        try:
            await self._send(reply)
        except TransportError as exc:
            log.warning("could not answer %s: %s", method, exc.message)
