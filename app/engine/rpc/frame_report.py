"""Reports every frame of one connection, in and out and redacted, to its frame listeners."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from app.engine.oauth.steps import AuthExchange
from app.engine.rpc.correlation import Pending, next_exchange
from app.engine.rpc.envelopes import frame_task_id
from app.engine.rpc.purpose import answer_purpose, request_purpose
from app.engine.rpc.rpc_types import Frame, FrameListener
from app.engine.rpc.server_requests import ServerRequest
from app.engine.rpc.transports.base import Inbound
from app.engine.safety.redact import Redactor

log = logging.getLogger(__name__)


class FrameReporter:
    """Builds the redacted `Frame` of each message and hands it to every listener."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._listeners: list[FrameListener] = []

    def add(self, listener: FrameListener) -> Callable[[], None]:
        """Report every frame to `listener` from now on; returns a function that removes it."""
        self._listeners.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return remove

    def outgoing(
        self,
        message: dict[str, Any],
        headers: Mapping[str, str],
        reason: str | None,
        pending: Pending | None,
        asked: ServerRequest | None,
    ) -> None:
        """Report a message about to go out: our request (`pending`), a notification, or our
        answer to the server request `asked`."""
        if "method" not in message:
            self._emit(
                direction="out",
                message=message,
                method=asked.method if asked else None,
                reason=reason,
                headers=headers,
                latency_ms=(time.monotonic() - asked.received_at) * 1000 if asked else None,
                task_id=asked.task_id if asked else None,
                exchange=asked.exchange if asked else None,
                purpose=answer_purpose(asked.method, asked.task_id) if asked else None,
            )
            return
        method = message.get("method")
        reason = reason or (pending.reason if pending else None)
        if pending is not None:
            purpose: str | None = pending.purpose
        elif isinstance(method, str):  # a notification
            purpose = request_purpose(method, reason or "", frame_task_id(message))
        else:
            purpose = None
        self._emit(
            direction="out",
            message=message,
            method=method if isinstance(method, str) else None,
            reason=reason,
            headers=headers,
            task_id=pending.task_id if pending else None,
            task_id_known=pending is not None,
            exchange=pending.exchange if pending else None,
            purpose=purpose,
        )

    def response(
        self,
        inbound: Inbound,
        pending: Pending,
        *,
        error: str | None,
        reason_note: str = "",
    ) -> None:
        """Report what came in answer to our request `pending` (a response or a failure)."""
        self.inbound(
            inbound,
            method=pending.method,
            reason=pending.reason + reason_note,
            latency_ms=(time.monotonic() - pending.sent_at) * 1000,
            error=error,
            task_id=pending.task_id,
            exchange=pending.exchange,
            purpose=pending.purpose,
        )

    def inbound(
        self,
        inbound: Inbound,
        *,
        method: str | None = None,
        reason: str | None = None,
        latency_ms: float | None = None,
        error: str | None = None,
        task_id: str | None = None,
        exchange: int | None = None,
        purpose: str | None = None,
    ) -> None:
        """Report a received message (or what came instead of one)."""
        self._emit(
            direction="in",
            message=inbound.message,
            raw=inbound.raw,
            method=method,
            reason=reason,
            latency_ms=latency_ms,
            http_status=inbound.http_status,
            headers=inbound.headers,
            error=error,
            task_id=task_id,
            exchange=exchange,
            purpose=purpose,
        )

    def http_exchange(self, exchange: AuthExchange) -> None:
        """Report an HTTP exchange of an OAuth flow as two frames, beside the JSON-RPC ones."""
        number = next_exchange()
        method = f"HTTP {exchange.method}"
        request = f"{exchange.method} {exchange.url}"
        self._emit(
            direction="out",
            message=None,
            raw=f"{request}\n\n{exchange.request_body}" if exchange.request_body else request,
            method=method,
            reason="oauth",
            headers=exchange.request_headers,
            exchange=number,
            purpose=exchange.purpose,
        )
        self._emit(
            direction="in",
            message=None,
            raw=exchange.response_body,
            method=method,
            reason="oauth",
            headers=exchange.response_headers,
            latency_ms=exchange.latency_ms,
            http_status=exchange.status,
            error=exchange.error,
            exchange=number,
            purpose=exchange.purpose,
        )

    def _emit(
        self,
        *,
        direction: Literal["out", "in"],
        message: dict[str, Any] | None,
        method: str | None,
        reason: str | None,
        headers: Mapping[str, str],
        raw: str | None = None,
        latency_ms: float | None = None,
        http_status: int | None = None,
        error: str | None = None,
        task_id: str | None = None,
        task_id_known: bool = False,
        exchange: int | None = None,
        purpose: str | None = None,
    ) -> None:
        """Report one frame to the listeners; `task_id_known` when `task_id` was already read
        from this very message (an outgoing request), so it is not looked for again."""
        if not self._listeners:
            return
        redact = self._redactor.text
        rpc_id = self._redactor.value(message.get("id")) if message else None
        found_task = task_id if task_id_known else frame_task_id(message) or task_id
        frame = Frame(
            direction=direction,
            message=self._redactor.value(message) if message is not None else None,
            raw=redact(raw) if raw is not None else None,
            at=time.time(),
            method=redact(method) if method is not None else None,
            rpc_id=rpc_id if isinstance(rpc_id, str | int) else None,
            task_id=redact(found_task) if found_task is not None else None,
            reason=redact(reason) if reason is not None else None,
            latency_ms=latency_ms,
            http_status=http_status,
            headers=self._redactor.headers(headers) if headers else {},
            error=self._redactor.text(error) if error is not None else None,
            exchange=exchange,
            purpose=redact(purpose) if purpose is not None else None,
        )
        for listener in list(self._listeners):
            try:
                listener(frame)
            except Exception:
                log.exception("frame listener failed")
