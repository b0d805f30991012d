"""Pairs our requests with their responses: what is in flight, the ids given up on, and settling
a response into the caller's future."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import reprlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.engine.rpc.envelopes import envelope, frame_task_id
from app.engine.rpc.purpose import request_purpose
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.transports.base import Inbound, TransportError
from app.engine.safety import deep_json
from app.engine.safety.redact import Redactor

LATE_IDS_REMEMBERED = 256

SendRequest = Callable[[dict[str, Any], str, Mapping[str, str] | None], Awaitable[None]]
"""Puts a message on the wire, with its reason and extra HTTP headers."""

_EXCHANGES = itertools.count(1)
"""Numbers every exchange (a request and its response) of the process, across connections, so
a reconnect that starts JSON-RPC ids at 1 again never pairs a response with an older request."""


def next_exchange() -> int:
    """The number of a new exchange (ours or the server's request), unique in the process."""
    return next(_EXCHANGES)


@dataclass(slots=True)
class Pending:
    """A request of ours waiting for its response."""

    method: str
    reason: str
    sent_at: float
    future: asyncio.Future[dict[str, Any]]
    exchange: int
    purpose: str
    task_id: str | None = None


class Correlator:
    """The requests of one connection in flight: numbered, awaited (with a timeout), paired with
    their responses, and failed together when the channel goes. Ids given up on (timed out,
    abandoned, failed early) are remembered, the newest `LATE_IDS_REMEMBERED`, so a late response
    to one is reported as late rather than unknown. While `holding_clocks` holds (an
    authorization: a refresh, or a sign-in and the person at the browser), no request times out:
    each whose time ran out gets its whole timeout again after.
    """

    def __init__(self, send: SendRequest, abandon: Callable[[str | int], None]) -> None:
        self._send = send
        self._abandon = abandon
        self._ids = itertools.count(1)
        self._pending: dict[str | int, Pending] = {}
        self._late: OrderedDict[str | int, str] = OrderedDict()
        self._holds = 0
        self._held: list[tuple[asyncio.Future[dict[str, Any]], float]] = []

    def get(self, rpc_id: Any) -> Pending | None:
        """The request of ours with id `rpc_id` that is still waiting, if any."""
        return self._pending.get(rpc_id) if isinstance(rpc_id, str | int) else None

    def take(self, rpc_id: str | int | None) -> Pending | None:
        """The waiting request `rpc_id` names, no longer waiting (its response came)."""
        return self._pending.pop(rpc_id, None) if rpc_id is not None else None

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None,
        *,
        reason: str,
        timeout: float | None,
        headers: Mapping[str, str] | None,
    ) -> dict[str, Any]:
        """Send a request and wait for its result; raises what its response or `send` raises,
        or a timeout TransportError."""
        rpc_id = next(self._ids)
        message = envelope(method, params, rpc_id)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        task_id = frame_task_id(message)
        self._pending[rpc_id] = Pending(
            method=method,
            reason=reason,
            sent_at=time.monotonic(),
            future=future,
            exchange=next_exchange(),
            purpose=request_purpose(method, reason, task_id),
            task_id=task_id,
        )
        timer: asyncio.TimerHandle | None = None
        try:
            await self._send(message, reason, headers)
            if timeout is not None:
                # One timer instead of `wait_for`, which costs an extra future and loop turn.
                timer = loop.call_later(timeout, self._expire, future, timeout)
            return await future
        except TimeoutError:
            self._remember_late(rpc_id, f"timed out after {timeout:g} s")
            raise TransportError(
                "timeout", f"{method} got no answer within {timeout:g} s"
            ) from None
        except asyncio.CancelledError:
            self._remember_late(rpc_id, "abandoned by the caller")
            raise
        finally:
            if timer is not None:
                timer.cancel()
            if self._pending.pop(rpc_id, None) is not None:
                self._abandon(rpc_id)
            if not future.done():
                future.cancel()

    @contextlib.contextmanager
    def holding_clocks(self) -> Iterator[None]:
        """Hold every request's clock while the connection authorizes; restart them after."""
        self._holds += 1
        try:
            yield
        finally:
            self._holds -= 1
            if not self._holds:
                held, self._held = self._held, []
                loop = asyncio.get_running_loop()
                for future, timeout in held:
                    if not future.done():
                        loop.call_later(timeout, self._expire, future, timeout)

    def _expire(self, future: asyncio.Future[dict[str, Any]], timeout: float) -> None:
        """A request's timer ran out: it times out, unless the connection is authorizing."""
        if self._holds:
            self._held.append((future, timeout))
        else:
            _time_out(future)

    def fail(self, rpc_id: str | int, error: TransportError) -> None:
        """Fail the waiting request `rpc_id` with `error` (it got no JSON-RPC answer)."""
        pending = self._pending.pop(rpc_id, None)
        if pending is not None and not pending.future.done():
            pending.future.set_exception(error)

    def fail_all(self, error: TransportError, *, late: bool = False) -> None:
        """Fail every waiting request with `error`; `late`: remember their ids as failed early,
        for their responses may still come."""
        waiting = self._pending
        self._pending = {}
        for rpc_id, pending in waiting.items():
            if not pending.future.done():
                pending.future.set_exception(error)
            if late:
                self._remember_late(rpc_id, f"failed early: {error.message}")

    def unmatched(self, rpc_id: str | int | None, sent_id: Any) -> str:
        """Why a response that pairs with no waiting request is dropped."""
        late = self._late.pop(rpc_id, None) if rpc_id is not None else None
        shown = reprlib.repr(sent_id)
        if late:
            return f"late response to id {shown} ({late}); dropped"
        return f"response to unknown id {shown}; dropped"

    def _remember_late(self, rpc_id: str | int, why: str) -> None:
        self._late[rpc_id] = why
        while len(self._late) > LATE_IDS_REMEMBERED:
            self._late.popitem(last=False)


def request_id(value: Any) -> str | int | None:
    """The request a response's id names: a string or an integer, and a float with no fraction
    (2.0) as that integer, since JSON has one number type (JSON.parse reads 2.0 as 2, and the
    Python SDK's ids accept it); anything else names no request."""
    if isinstance(value, str | int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def pairing_note(inbound: Inbound, sent_id: Any, rpc_id: str | int) -> str:
    """How a response's id was read when it is not the id we sent verbatim ('' when it is)."""
    if inbound.answers is not None:
        return (
            f"; its id {deep_json.dumps(sent_id)} was taken as request {rpc_id!r},"
            " the only request of that HTTP POST"
        )
    if isinstance(sent_id, float):
        return f"; its id {sent_id!r} was read as {rpc_id!r}, the same JSON number"
    return ""


def settle(
    pending: Pending,
    message: dict[str, Any],
    inbound: Inbound,
    body_error: str | None,
    redactor: Redactor,
) -> bool:
    """Resolve `pending`'s future with the response's result (True), or fail it with its
    RpcError, or with a malformed-response TransportError when `body_error` says what is wrong
    with it; False as well when the caller already gave up."""
    if pending.future.done():
        return False
    redacted = redactor.value(message)
    if body_error is not None:
        pending.future.set_exception(
            TransportError(
                "malformed",
                f"{pending.method}: {body_error}",
                http_status=inbound.http_status,
                body=deep_json.dumps(redacted, ensure_ascii=False, default=str)[:500],
            )
        )
    elif "error" in message:
        error = message["error"]
        pending.future.set_exception(
            RpcError(
                int(error["code"]),
                str(error.get("message", "")),
                error.get("data"),
                http_status=inbound.http_status,
                retry_after=inbound.retry_after,
                frame=redacted,
            )
        )
    else:
        pending.future.set_result(message["result"])
        return True
    return False


def _time_out(future: asyncio.Future[dict[str, Any]]) -> None:
    """A request's timer ran out before its answer came."""
    if not future.done():
        future.set_exception(TimeoutError())
