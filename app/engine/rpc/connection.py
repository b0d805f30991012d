"""One JSON-RPC connection to one MCP server: correlation, handlers and observability.

The transport moves messages; negotiate.py picks the era; this module numbers requests, matches
responses, answers server requests, stamps the modern `_meta` envelope and reports every frame
(redacted) to listeners. One connection lives as long as a command (legacy tasks are session-bound).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import reprlib
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import EllipsisType, TracebackType
from typing import Any, Literal

from app.engine.rpc.envelopes import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    envelope,
    error_reply,
    frame_task_id,
    response_problem,
)
from app.engine.rpc.negotiate import EraPreference, negotiate, stamp_modern
from app.engine.rpc.purpose import answer_purpose, incoming_purpose, request_purpose
from app.engine.rpc.rpc_types import (
    CloseListener,
    Frame,
    FrameListener,
    NotificationHandler,
    RpcError,
    ServerInfo,
    ServerRequestHandler,
)
from app.engine.rpc.targets import HttpTarget, Target
from app.engine.rpc.tool_headers import ToolHeaders, ToolUnusable, read_tool
from app.engine.rpc.transports import make_transport
from app.engine.rpc.transports.base import Era, Inbound, TransportError, TransportKind
from app.engine.safety import deep_json
from app.engine.safety.redact import Redactor

__all__ = ["Connection", "default_client_info"]

log = logging.getLogger(__name__)

LATE_IDS_REMEMBERED = 256
MAX_LIST_PAGES = 100
TOOLS_REMEMBERED = 10_000

_EXCHANGES = itertools.count(1)
"""Numbers every exchange (a request and its response) of the process, across connections, so
a reconnect that starts JSON-RPC ids at 1 again never pairs a response with an older request."""


@dataclass(slots=True)
class _Pending:
    method: str
    reason: str
    sent_at: float
    future: asyncio.Future[dict[str, Any]]
    exchange: int
    purpose: str
    task_id: str | None = None


@dataclass(frozen=True, slots=True)
class _ServerRequest:
    """A server→client request being answered: what our answer's frame is reported with."""

    method: str
    exchange: int
    received_at: float
    task_id: str | None


@dataclass(slots=True)
class _Handlers:
    requests: dict[str, ServerRequestHandler] = field(default_factory=dict)
    notifications: list[NotificationHandler] = field(default_factory=list)
    frames: list[FrameListener] = field(default_factory=list)
    closes: list[CloseListener] = field(default_factory=list)


def default_client_info() -> dict[str, str]:
    """taskscope's own name and version, as sent to servers."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return {"name": "taskscope", "version": version("taskscope")}
    except PackageNotFoundError:
        return {"name": "taskscope", "version": "0.0.0"}


class Connection:
    """A JSON-RPC 2.0 client connection to one MCP server over stdio, Streamable HTTP or SSE."""

    def __init__(
        self,
        target: Target,
        *,
        era: EraPreference = "auto",
        client_info: dict[str, str] | None = None,
        redact: Sequence[str] = (),
        request_timeout: float = 30.0,
        probe_timeout: float = 3.0,
        declare_roots: bool = True,
    ) -> None:
        self.target = target
        self.declare_roots = declare_roots
        """Whether the client capabilities sent say taskscope answers `roots/list`."""
        self.era_preference: EraPreference = era
        self.client_info = client_info or default_client_info()
        self.request_timeout = request_timeout
        self.probe_timeout = probe_timeout
        self.state: Literal["idle", "connecting", "connected", "closed"] = "idle"
        self.closed_error: TransportError | None = None
        headers = target.headers if isinstance(target, HttpTarget) else None
        bearer = target.bearer if isinstance(target, HttpTarget) else None
        self._redactor = Redactor.build(redact, [bearer], headers)
        self._transport = make_transport(target)
        self._info: ServerInfo | None = None
        self._era: Era | None = None
        self._version: str | None = None
        self._ids = itertools.count(1)
        self._pending: dict[str | int, _Pending] = {}
        self._late: OrderedDict[str | int, str] = OrderedDict()
        self._out_reasons: dict[int, str] = {}
        self._handlers = _Handlers()
        self._server_requests: dict[str | int, asyncio.Task[None]] = {}
        self._server_asked: dict[str | int, _ServerRequest] = {}
        self._tool_headers: dict[str, ToolHeaders] = {}
        """SEP-2243 header parameters of every tool seen in a `tools/list` answer."""
        self._tools_listed = False

    # -- public API -----------------------------------------------------------------------------

    @property
    def info(self) -> ServerInfo:
        """The server's identity and the negotiated era; valid after `open()`."""
        if self._info is None:
            raise RuntimeError("the connection is not open yet")
        return self._info

    @property
    def transport_kind(self) -> TransportKind:
        """stdio, http or sse."""
        return self._transport.kind

    async def open(self) -> ServerInfo:
        """Start the transport, negotiate the era and (legacy) run the initialize handshake."""
        if self.state != "idle":
            raise RuntimeError(f"cannot open a connection that is {self.state}")
        self.state = "connecting"
        try:
            await self._transport.start(self)
            agreed = await negotiate(
                _Handshake(self),
                self.era_preference,
                client_info=self.client_info,
                probe_timeout=self.probe_timeout,
                request_timeout=self.request_timeout,
                declare_roots=self.declare_roots,
            )
            if self.closed_error is not None:
                raise self._closed_failure()
            if agreed.era == "legacy":
                await self._transport.after_handshake()
        except BaseException:
            await self.close()
            raise
        self._info = ServerInfo(
            name=agreed.name,
            version=agreed.version,
            protocol_version=agreed.protocol_version,
            era=agreed.era,
            capabilities=agreed.capabilities,
            instructions=agreed.instructions,
            transport=self._transport.kind,
            era_decision=agreed.decision,
        )
        self.state = "connected"
        return self._info

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        reason: str = "user",
        timeout: float | EllipsisType | None = ...,
        declare_tasks: bool = True,
    ) -> dict[str, Any]:
        """Send a request and return its result; raises RpcError or TransportError.

        On the modern era `params._meta` is stamped with the protocol version, client info and
        capabilities (plus the tasks extension when `declare_tasks`), keeping the caller's keys.
        `timeout=None` waits forever (e.g. a blocking legacy `tasks/result`).
        """
        if self.state != "connected":
            raise (
                self._closed_failure()
                if self.state == "closed"
                else RuntimeError("the connection is not open yet")
            )
        headers: dict[str, str] = {}
        if self._era == "modern" and self._version is not None:
            params = stamp_modern(
                params,
                version=self._version,
                client_info=self.client_info,
                declare_tasks=declare_tasks,
                declare_roots=self.declare_roots,
            )
            if method == "tools/call" and self.transport_kind == "http":
                headers = await self._param_headers(params)
        wait = self.request_timeout if isinstance(timeout, EllipsisType) else timeout
        return await self._call(method, params, reason=reason, timeout=wait, headers=headers)

    async def list_all(
        self, method: str, key: str, *, reason: str = "user"
    ) -> list[dict[str, Any]]:
        """Every page of a paginated list (`tools/list` → `tools`, …), bounded to
        `MAX_LIST_PAGES`; each item as the server sent it."""
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            page = await self.request(method, {"cursor": cursor} if cursor else {}, reason=reason)
            found = page.get(key)
            if isinstance(found, list):
                items.extend(item for item in found if isinstance(item, dict))
            next_cursor = page.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor or next_cursor == cursor:
                break
            cursor = next_cursor
        return items

    async def list_tools(self, *, reason: str = "user") -> list[dict[str, Any]]:
        """Every page of `tools/list`; afterwards every tool's header parameters are known."""
        tools = await self.list_all("tools/list", "tools", reason=reason)
        self._tools_listed = True
        return tools

    def tool_problem(self, name: str) -> str | None:
        """Why the connection refuses to call tool `name` (SEP-2243 annotations), if it does."""
        if self._era != "modern" or self.transport_kind != "http":
            return None
        known = self._tool_headers.get(name)
        return known.problem if known is not None else None

    async def _param_headers(self, params: Mapping[str, Any]) -> dict[str, str]:
        """The `Mcp-Param-*` headers of a modern `tools/call` over HTTP; raises ToolUnusable for
        a tool whose annotations are invalid. An unknown tool is looked up in `tools/list` once."""
        name = params.get("name")
        if not isinstance(name, str):
            return {}
        if name not in self._tool_headers and not self._tools_listed:
            await self.list_tools(reason="x-mcp-header: learn the tool's header parameters")
        known = self._tool_headers.get(name)
        if known is None:
            return {}
        if known.problem is not None:
            raise ToolUnusable(name, known.problem)
        arguments = params.get("arguments")
        return known.for_arguments(arguments if isinstance(arguments, dict) else {})

    def _learn_tools(self, result: Mapping[str, Any]) -> None:
        tools = result.get("tools")
        for tool in tools if isinstance(tools, list) else []:
            name = tool.get("name") if isinstance(tool, dict) else None
            if isinstance(name, str) and len(self._tool_headers) < TOOLS_REMEMBERED:
                self._tool_headers[name] = read_tool(tool)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification (no answer expected)."""
        if self.state == "closed":
            raise self._closed_failure()
        await self._send(envelope(method, params), reason="user")

    def set_request_handler(self, method: str, handler: ServerRequestHandler) -> None:
        """Answer server→client requests for `method` with `handler` (each in its own task)."""
        self._handlers.requests[method] = handler

    def add_notification_handler(self, handler: NotificationHandler) -> None:
        """Call `handler(method, params)` for every server notification."""
        self._handlers.notifications.append(handler)

    def add_frame_listener(self, listener: FrameListener) -> Callable[[], None]:
        """Report every frame in and out to `listener`; returns a function that removes it."""
        self._handlers.frames.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._handlers.frames.remove(listener)

        return remove

    def add_close_listener(self, listener: CloseListener) -> None:
        """Call `listener(error)` once if the channel dies under us (process exit, EOF)."""
        self._handlers.closes.append(listener)

    async def close(self) -> None:
        """Close the transport (legacy HTTP: DELETE the session) and fail what is still pending."""
        if self.state == "closed" and self.closed_error is not None:
            await self._transport.close()
            return
        self.state = "closed"
        if self.closed_error is None:
            self.closed_error = TransportError("closed", "connection closed")
        for task in list(self._server_requests.values()):
            task.cancel()
        self._fail_all(self.closed_error)
        await self._transport.close()

    async def __aenter__(self) -> Connection:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- sending --------------------------------------------------------------------------------

    async def _call(
        self,
        method: str,
        params: dict[str, Any] | None,
        *,
        reason: str,
        timeout: float | None,
        headers: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        rpc_id = next(self._ids)
        message = envelope(method, params, rpc_id)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        task_id = frame_task_id(message)
        self._pending[rpc_id] = _Pending(
            method=method,
            reason=reason,
            sent_at=time.monotonic(),
            future=future,
            exchange=next(_EXCHANGES),
            purpose=request_purpose(method, reason, task_id),
            task_id=task_id,
        )
        timer: asyncio.TimerHandle | None = None
        try:
            await self._send(message, reason=reason, headers=headers)
            if timeout is not None:
                # One timer instead of `wait_for`, which costs an extra future and loop turn.
                timer = loop.call_later(timeout, _time_out, future)
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
                self._transport.abandon(rpc_id)
            if not future.done():
                future.cancel()

    async def _send(
        self, message: dict[str, Any], *, reason: str, headers: Mapping[str, str] | None = None
    ) -> None:
        self._out_reasons[id(message)] = reason
        try:
            await self._transport.send(message, headers)
        finally:
            self._out_reasons.pop(id(message), None)

    def _remember_late(self, rpc_id: str | int, why: str) -> None:
        self._late[rpc_id] = why
        while len(self._late) > LATE_IDS_REMEMBERED:
            self._late.popitem(last=False)

    # -- TransportSink --------------------------------------------------------------------------

    def on_outgoing(self, message: dict[str, Any], headers: Mapping[str, str]) -> None:
        """Report a message the transport is about to put on the wire."""
        rpc_id = message.get("id")
        reason = self._out_reasons.get(id(message))
        if "method" not in message:
            self._emit_answer(message, headers, reason)
            return
        pending = self._pending.get(rpc_id) if rpc_id is not None else None
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

    def _emit_answer(
        self, message: dict[str, Any], headers: Mapping[str, str], reason: str | None
    ) -> None:
        """Report our response to a server request, paired with that request."""
        rpc_id = message.get("id")
        asked = self._server_asked.get(rpc_id) if isinstance(rpc_id, str | int) else None
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

    def on_incoming(self, inbound: Inbound) -> None:
        """Route one received message: resolve a request, run a handler or call listeners."""
        message = inbound.message
        if message is None:
            self._emit_failure(inbound)
            return
        method = message.get("method")
        if isinstance(method, str):
            task_id = frame_task_id(message)
            if "id" not in message:
                purpose = incoming_purpose("notification", task_id)
                self._emit_inbound(inbound, method=method, purpose=purpose)
                self._dispatch_notification(method, message)
                return
            asked = self._start_server_request(method, message, task_id)
            self._emit_inbound(
                inbound,
                method=method,
                exchange=asked.exchange if asked else None,
                purpose=incoming_purpose("request", task_id),
            )
            return
        self._resolve(inbound, message)

    def _emit_failure(self, inbound: Inbound) -> None:
        """Report what came instead of a message (an HTTP failure, garbage), paired with the
        request it answers when the transport knows which (the one request of a POST)."""
        error = inbound.error or "unparseable message"
        pending = self._pending.get(inbound.answers) if inbound.answers is not None else None
        if pending is None:
            self._emit_inbound(inbound, error=error)
            return
        self._emit_inbound(
            inbound,
            method=pending.method,
            reason=pending.reason,
            latency_ms=(time.monotonic() - pending.sent_at) * 1000,
            error=error,
            task_id=pending.task_id,
            exchange=pending.exchange,
            purpose=pending.purpose,
        )

    def on_request_failed(self, rpc_id: str | int, error: TransportError) -> None:
        """A request got an HTTP failure instead of a JSON-RPC answer."""
        pending = self._pending.pop(rpc_id, None)
        if pending is not None and not pending.future.done():
            pending.future.set_exception(self._redacted_error(error))

    def on_message_lost(self, error: TransportError) -> None:
        """A message could not be read (over a size limit): fail every pending request at once,
        since any of them may have been the one it answered."""
        lost = self._redacted_error(error)
        pending_ids = list(self._pending)
        self._fail_all(lost)
        for rpc_id in pending_ids:
            self._remember_late(rpc_id, f"failed early: {lost.message}")

    def on_closed(self, error: TransportError) -> None:
        """The channel died under us: fail every pending request, stop and tell close listeners."""
        already_closed = self.state == "closed"
        self.closed_error = self._redacted_error(error)
        self.state = "closed"
        for task in list(self._server_requests.values()):
            task.cancel()
        self._fail_all(self.closed_error)
        if already_closed:
            return
        for listener in list(self._handlers.closes):
            try:
                listener(self.closed_error)
            except Exception:
                log.exception("close listener failed")

    # -- receiving ------------------------------------------------------------------------------

    def _resolve(self, inbound: Inbound, message: dict[str, Any]) -> None:
        sent_id = message.get("id")
        rpc_id = _request_id(sent_id) if inbound.answers is None else inbound.answers
        pending = self._pending.pop(rpc_id, None) if rpc_id is not None else None
        if pending is None:
            late = self._late.pop(rpc_id, None) if rpc_id is not None else None
            shown = reprlib.repr(sent_id)
            error = (
                f"late response to id {shown} ({late}); dropped"
                if late
                else f"response to unknown id {shown}; dropped"
            )
            self._emit_inbound(inbound, error=error)
            return
        latency = (time.monotonic() - pending.sent_at) * 1000
        body_error = response_problem(message)
        reason = pending.reason
        if inbound.answers is not None:
            reason += (
                f"; its id {deep_json.dumps(sent_id)} was taken as request {rpc_id!r},"
                " the only request of that HTTP POST"
            )
        elif isinstance(sent_id, float):
            reason += f"; its id {sent_id!r} was read as {rpc_id!r}, the same JSON number"
        self._emit_inbound(
            inbound,
            method=pending.method,
            reason=reason,
            latency_ms=latency,
            error=body_error,
            task_id=pending.task_id,
            exchange=pending.exchange,
            purpose=pending.purpose,
        )
        if pending.future.done():
            return
        redacted = self._redactor.value(message)
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
            if pending.method == "tools/list":
                self._learn_tools(message["result"])
            pending.future.set_result(message["result"])

    def _start_server_request(
        self, method: str, message: dict[str, Any], task_id: str | None
    ) -> _ServerRequest | None:
        """Answer a server request in its own task; None when its id cannot be answered."""
        rpc_id = message["id"]
        if not isinstance(rpc_id, str | int):
            return None
        asked = _ServerRequest(method, next(_EXCHANGES), time.monotonic(), task_id)
        task = asyncio.create_task(self._answer(method, message), name=f"answer {method}")
        self._server_requests[rpc_id] = task
        self._server_asked[rpc_id] = asked

        def forget(_: asyncio.Task[None]) -> None:
            self._server_requests.pop(rpc_id, None)
            self._server_asked.pop(rpc_id, None)

        task.add_done_callback(forget)
        return asked

    async def _answer(self, method: str, message: dict[str, Any]) -> None:
        rpc_id = message["id"]
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        handler = self._handlers.requests.get(method)
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
        if self.state == "closed":
            return
        try:
            await self._send(reply, reason="answer")
        except TransportError as exc:
            log.warning("could not answer %s: %s", method, exc.message)

    def _dispatch_notification(self, method: str, message: dict[str, Any]) -> None:
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        request_id = params.get("requestId")
        if method == "notifications/cancelled" and isinstance(request_id, str | int):
            task = self._server_requests.get(request_id)
            if task is not None:
                task.cancel()
        for handler in list(self._handlers.notifications):
            try:
                handler(method, params)
            except Exception:
                log.exception("notification handler failed on %s", method)

    def _fail_all(self, error: TransportError) -> None:
        pending_requests = list(self._pending.values())
        self._pending.clear()
        for pending in pending_requests:
            if not pending.future.done():
                pending.future.set_exception(error)

    def _closed_failure(self) -> TransportError:
        return self.closed_error or TransportError("closed", "connection closed")

    def _redacted_error(self, error: TransportError) -> TransportError:
        return TransportError(
            error.kind,
            self._redactor.text(error.message),
            http_status=error.http_status,
            retry_after=error.retry_after,
            body=self._redactor.text(error.body) if error.body is not None else None,
        )

    # -- observability --------------------------------------------------------------------------

    def _emit_inbound(
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
        if not self._handlers.frames:
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
        for listener in list(self._handlers.frames):
            try:
                listener(frame)
            except Exception:
                log.exception("frame listener failed")


def _request_id(value: Any) -> str | int | None:
    """The request a response's id names: a string or an integer, and a float with no fraction
    (2.0) as that integer, since JSON has one number type (JSON.parse reads 2.0 as 2, and the
    Python SDK's ids accept it); anything else names no request."""
    if isinstance(value, str | int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _time_out(future: asyncio.Future[dict[str, Any]]) -> None:
    """A request's timer ran out before its answer came."""
    if not future.done():
        future.set_exception(TimeoutError())


class _Handshake:
    """The slice of a connection that negotiate.py drives before the connection is open."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self.transport_kind: TransportKind = connection.transport_kind

    def use_era(self, era: Era, protocol_version: str) -> None:
        connection = self._connection
        connection._era = era
        connection._version = protocol_version
        connection._transport.set_era(era, protocol_version)

    async def handshake_request(
        self, method: str, params: dict[str, Any], *, timeout: float | None, reason: str
    ) -> dict[str, Any]:
        return await self._connection._call(method, params, reason=reason, timeout=timeout)

    async def handshake_notify(self, method: str, params: dict[str, Any] | None) -> None:
        await self._connection._send(envelope(method, params), reason="connect")

    def is_rpc_error(self, error: BaseException) -> bool:
        return isinstance(error, RpcError)
