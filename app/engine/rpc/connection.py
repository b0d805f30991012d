"""One JSON-RPC connection to one MCP server: sending requests and routing what comes back.

The transport moves messages; negotiate.py picks the era; correlation.py pairs responses with
requests; server_requests.py answers the server's requests; frame_report.py reports every frame
(redacted) to listeners. This module stamps the modern `_meta` envelope (and the SEP-2243 headers)
on what it sends, and routes each received message. One connection lives as long as a command
(legacy tasks are session-bound).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from types import EllipsisType, TracebackType
from typing import TYPE_CHECKING, Any, Literal

from app import __version__
from app.engine.rpc.advertised import ClientCapabilities
from app.engine.rpc.correlation import Correlator, pairing_note, request_id, settle
from app.engine.rpc.envelopes import envelope, frame_task_id, response_problem
from app.engine.rpc.era import EraPreference, stamp_modern
from app.engine.rpc.frame_report import FrameReporter
from app.engine.rpc.negotiate import PROBE_TIMEOUT, negotiate
from app.engine.rpc.paging import pages
from app.engine.rpc.purpose import incoming_purpose
from app.engine.rpc.rpc_types import (
    CloseListener,
    Frame,
    FrameListener,
    NotificationHandler,
    RpcError,
    ServerInfo,
    ServerRequestHandler,
)
from app.engine.rpc.server_requests import ServerRequests
from app.engine.rpc.targets import HttpTarget, Target
from app.engine.rpc.tool_headers import ToolHeaderBook
from app.engine.rpc.transports import make_transport
from app.engine.rpc.transports.base import Era, Inbound, TransportError, TransportKind
from app.engine.safety.redact import Redactor

if TYPE_CHECKING:
    from app.engine.oauth.authorizer import Authorizer

__all__ = ["Connection", "default_client_info"]

log = logging.getLogger(__name__)


def default_client_info() -> dict[str, str]:
    """taskscope's own name and version, as sent to servers."""
    return {"name": "taskscope", "version": __version__}


HANDSHAKE_METHODS = frozenset({"server/discover", "initialize"})
MAX_HANDSHAKE_FRAMES = 8


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
        probe_timeout: float = PROBE_TIMEOUT,
        advertised: ClientCapabilities | None = None,
        authorizer: Authorizer | None = None,
        handshake_timeout: float | None = None,
    ) -> None:
        self.target = target
        self.advertised = advertised or ClientCapabilities()
        """The client capabilities this connection advertises; its session replaces the value
        when the user changes them, and the next request carries the new one."""
        self.era_preference: EraPreference = era
        self.client_info = client_info or default_client_info()
        self.request_timeout = request_timeout
        self.probe_timeout = probe_timeout
        self.handshake_timeout = request_timeout if handshake_timeout is None else handshake_timeout
        """How long each request of the era dance waits (`request_timeout` unless told)."""
        self.handshake_frames: tuple[Frame, ...] = ()
        """The frames of the era dance (`server/discover`, `initialize`) in and out."""
        self.state: Literal["idle", "connecting", "connected", "closed"] = "idle"
        self.closed_error: TransportError | None = None
        self.received_chars = 0
        """Characters of every message received so far (what bounds a listing, `paging`)."""
        headers = target.headers if isinstance(target, HttpTarget) else None
        bearer = target.bearer if isinstance(target, HttpTarget) else None
        self._redactor = Redactor.build(redact, [bearer], headers)
        self._transport = make_transport(target, authorizer)
        self._info: ServerInfo | None = None
        self._era: Era | None = None
        self._version: str | None = None
        self._requests = Correlator(
            lambda message, reason, headers: self._send(message, reason=reason, headers=headers),
            self._transport.abandon,
        )
        self._out_reasons: dict[int, str] = {}
        self._frames = FrameReporter(self._redactor)
        self._server_requests = ServerRequests(
            lambda reply: self._send(reply, reason="answer"), lambda: self.state == "closed"
        )
        self._close_listeners: list[CloseListener] = []
        self._tools = ToolHeaderBook()
        """SEP-2243 header parameters of every tool seen in a `tools/list` answer."""
        if authorizer is not None:
            authorizer.attach(self._requests.holding_clocks, self._frames.http_exchange)

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
        stop_keeping = self.add_frame_listener(self._keep_handshake_frame)
        try:
            await self._transport.start(self)
            agreed = await negotiate(
                _Handshake(self),
                self.era_preference,
                client_info=self.client_info,
                probe_timeout=self.probe_timeout,
                request_timeout=self.handshake_timeout,
                advertised=self.advertised,
            )
            if self.closed_error is not None:
                raise self._closed_failure()
            if agreed.era == "legacy":
                await self._transport.after_handshake()
        except BaseException:
            await self.close()
            raise
        finally:
            stop_keeping()
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

    def _keep_handshake_frame(self, frame: Frame) -> None:
        """Keep the era dance's requests and answers (the newest few), for whoever must cite
        what the server declared (`taskscope check`'s evidence)."""
        if frame.method in HANDSHAKE_METHODS:
            self.handshake_frames = (*self.handshake_frames, frame)[-MAX_HANDSHAKE_FRAMES:]

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        reason: str = "user",
        timeout: float | EllipsisType | None = ...,
        declare_tasks: bool = True,
        headers: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Send a request and return its result; raises RpcError or TransportError.

        On the modern era `params._meta` is stamped with the protocol version, client info and
        the advertised capabilities (the tasks extension only when they declare it and
        `declare_tasks`), keeping the caller's keys.
        `timeout=None` waits forever (e.g. a blocking legacy `tasks/result`). `headers` go on the
        HTTP request over the routing headers (the checker sends a wrong `Mcp-Name` on purpose).
        """
        if self.state != "connected":
            raise (
                self._closed_failure()
                if self.state == "closed"
                else RuntimeError("the connection is not open yet")
            )
        sent_headers: dict[str, str] = {}
        if self._era == "modern" and self._version is not None:
            params = stamp_modern(
                params,
                version=self._version,
                client_info=self.client_info,
                capabilities=self.advertised.modern(declare_tasks=declare_tasks),
            )
            if method == "tools/call" and self.transport_kind == "http":
                sent_headers = await self._param_headers(params)
        sent_headers.update(headers or {})
        wait = self.request_timeout if isinstance(timeout, EllipsisType) else timeout
        return await self._requests.call(
            method, params, reason=reason, timeout=wait, headers=sent_headers
        )

    async def list_all(
        self, method: str, key: str, *, reason: str = "user"
    ) -> list[dict[str, Any]]:
        """Every page of a paginated list (`tools/list` → `tools`, …), within the listing bound
        (`paging.pages`); each item as the server sent it."""
        items: list[dict[str, Any]] = []
        async for page in pages(self, method, reason=reason):
            found = page.get(key)
            if isinstance(found, list):
                items.extend(item for item in found if isinstance(item, dict))
        return items

    async def list_tools(self, *, reason: str = "user") -> list[dict[str, Any]]:
        """Every page of `tools/list`; afterwards every tool's header parameters are known."""
        tools = await self.list_all("tools/list", "tools", reason=reason)
        self._tools.listed = True
        return tools

    def tool_problem(self, name: str) -> str | None:
        """Why the connection refuses to call tool `name` (SEP-2243 annotations), if it does."""
        if self._era != "modern" or self.transport_kind != "http":
            return None
        return self._tools.problem(name)

    async def _param_headers(self, params: Mapping[str, Any]) -> dict[str, str]:
        """The `Mcp-Param-*` headers of a modern `tools/call` over HTTP; raises ToolUnusable for
        a tool whose annotations are invalid. An unknown tool is looked up in `tools/list` once."""
        name = params.get("name")
        if not isinstance(name, str):
            return {}
        if not self._tools.knows(name) and not self._tools.listed:
            await self.list_tools(reason="x-mcp-header: learn the tool's header parameters")
        return self._tools.headers(params)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification (no answer expected)."""
        if self.state == "closed":
            raise self._closed_failure()
        await self._send(envelope(method, params), reason="user")

    def set_request_handler(self, method: str, handler: ServerRequestHandler) -> None:
        """Answer server→client requests for `method` with `handler` (each in its own task)."""
        self._server_requests.handlers[method] = handler

    def add_notification_handler(self, handler: NotificationHandler) -> None:
        """Call `handler(method, params)` for every server notification."""
        self._server_requests.notification_handlers.append(handler)

    def add_frame_listener(self, listener: FrameListener) -> Callable[[], None]:
        """Report every frame in and out to `listener`; returns a function that removes it."""
        return self._frames.add(listener)

    def add_close_listener(self, listener: CloseListener) -> None:
        """Call `listener(error)` once if the channel dies under us (process exit, EOF)."""
        self._close_listeners.append(listener)

    async def close(self) -> None:
        """Close the transport (legacy HTTP: DELETE the session) and fail what is still pending."""
        if self.state == "closed" and self.closed_error is not None:
            await self._transport.close()
            return
        self.state = "closed"
        if self.closed_error is None:
            self.closed_error = TransportError("closed", "connection closed")
        self._server_requests.cancel_all()
        self._requests.fail_all(self.closed_error)
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

    async def _send(
        self, message: dict[str, Any], *, reason: str, headers: Mapping[str, str] | None = None
    ) -> None:
        self._out_reasons[id(message)] = reason
        try:
            await self._transport.send(message, headers)
        finally:
            self._out_reasons.pop(id(message), None)

    # -- TransportSink --------------------------------------------------------------------------

    def on_outgoing(self, message: dict[str, Any], headers: Mapping[str, str]) -> None:
        """Report a message the transport is about to put on the wire."""
        rpc_id = message.get("id")
        pending = self._requests.get(rpc_id) if "method" in message else None
        asked = self._server_requests.asked(rpc_id) if "method" not in message else None
        self._frames.outgoing(message, headers, self._out_reasons.get(id(message)), pending, asked)

    def on_incoming(self, inbound: Inbound) -> None:
        """Route one received message: resolve a request, run a handler or call listeners."""
        self.received_chars += inbound.size
        message = inbound.message
        if message is None:
            self._emit_failure(inbound)
            return
        method = message.get("method")
        if isinstance(method, str):
            task_id = frame_task_id(message)
            if "id" not in message:
                purpose = incoming_purpose("notification", task_id)
                self._frames.inbound(inbound, method=method, purpose=purpose)
                self._server_requests.notify(method, message)
                return
            asked = self._server_requests.start(method, message, task_id)
            self._frames.inbound(
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
        pending = self._requests.get(inbound.answers)
        if pending is None:
            self._frames.inbound(inbound, error=error)
            return
        self._frames.response(inbound, pending, error=error)

    def on_request_failed(self, rpc_id: str | int, error: TransportError) -> None:
        """A request got an HTTP failure instead of a JSON-RPC answer."""
        self._requests.fail(rpc_id, self._redacted_error(error))

    def on_message_lost(self, error: TransportError) -> None:
        """A message could not be read (over a size limit): fail every pending request at once,
        since any of them may have been the one it answered."""
        self._requests.fail_all(self._redacted_error(error), late=True)

    def on_closed(self, error: TransportError) -> None:
        """The channel died under us: fail every pending request, stop and tell close listeners."""
        already_closed = self.state == "closed"
        self.closed_error = self._redacted_error(error)
        self.state = "closed"
        self._server_requests.cancel_all()
        self._requests.fail_all(self.closed_error)
        if already_closed:
            return
        for listener in list(self._close_listeners):
            try:
                listener(self.closed_error)
            except Exception:
                log.exception("close listener failed")

    # -- receiving ------------------------------------------------------------------------------

    def _resolve(self, inbound: Inbound, message: dict[str, Any]) -> None:
        """Settle the request a response answers (and report it), or report it dropped."""
        sent_id = message.get("id")
        rpc_id = request_id(sent_id) if inbound.answers is None else inbound.answers
        pending = self._requests.take(rpc_id)
        if pending is None:
            self._frames.inbound(inbound, error=self._requests.unmatched(rpc_id, sent_id))
            return
        body_error = response_problem(message)
        note = pairing_note(inbound, sent_id, rpc_id) if rpc_id is not None else ""
        self._frames.response(inbound, pending, error=body_error, reason_note=note)
        delivered = settle(pending, message, inbound, body_error, self._redactor)
        if delivered and pending.method == "tools/list":
            self._tools.learn(message["result"])

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
        return await self._connection._requests.call(
            method, params, reason=reason, timeout=timeout, headers=None
        )

    async def handshake_notify(self, method: str, params: dict[str, Any] | None) -> None:
        await self._connection._send(envelope(method, params), reason="connect")

    def is_rpc_error(self, error: BaseException) -> bool:
        return isinstance(error, RpcError)
