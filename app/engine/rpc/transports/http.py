"""Streamable HTTP transport: one POST per message, JSON or SSE answers, the legacy GET stream.

Every POST response is read as it arrives: a JSON body, or an SSE stream that may carry
server→client requests and notifications before the response. POSTs run concurrently, so a
blocking `tasks/result` stream can stay open while the answer to its `elicitation/create` is POSTed.
The bytes travel over the lean HTTP/1.1 pool, or httpx when a proxy applies (`http_client`).
Redirects are reported with their `Location`, never followed: they would carry the credentials.
With an `AuthGate` (http_auth.py), each request carries the OAuth token and a 401 leads to a sign-in
and the same request again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.transports.base import (
    Era,
    Inbound,
    TransportError,
    TransportKind,
    TransportSink,
    classify,
    encode_message,
    parse_retry_after,
)
from app.engine.rpc.transports.http_auth import AuthGate
from app.engine.rpc.transports.http_bodies import (
    adopt_lone_error,
    answers,
    body_text,
    excerpt,
    failure_inbound,
    http_failure,
    inbound_from_body,
    plain_headers,
)
from app.engine.rpc.transports.http_client import HttpClient, HttpResponse, make_http_client
from app.engine.rpc.transports.http_resume import is_event_stream, resume_stream
from app.engine.rpc.transports.http_routing import IDEMPOTENT_METHODS, routing_headers
from app.engine.rpc.transports.sse_decoder import (
    EventTooLarge,
    SseDecoder,
    SseEvent,
    StreamPosition,
)

CONNECT_TIMEOUT = 10.0
DELETE_TIMEOUT = 2.0
LISTEN_READY_TIMEOUT = 5.0
"""How long the legacy handshake waits for the standalone GET stream to open (servers drop the
questions they send while no stream is open)."""


class StreamableHttpTransport:
    """MCP Streamable HTTP, for both the legacy session era and the modern stateless era."""

    kind: TransportKind = "http"

    def __init__(self, target: HttpTarget, auth: AuthGate | None = None) -> None:
        self._target = target
        self._auth = auth
        self._client: HttpClient | None = None
        self._sink: TransportSink | None = None
        self._era: Era = "modern"
        self._version: str | None = None
        self._session_id: str | None = None
        self._posts: dict[str | int, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def session_id(self) -> str | None:
        """The legacy `Mcp-Session-Id` the server assigned, if any."""
        return self._session_id

    async def start(self, sink: TransportSink) -> None:
        self._sink = sink
        self._client = make_http_client(
            self._target.url, connect_timeout=CONNECT_TIMEOUT, write_timeout=CONNECT_TIMEOUT
        )

    def set_era(self, era: Era, protocol_version: str) -> None:
        self._era = era
        self._version = protocol_version

    def base_headers(self) -> dict[str, str]:
        """Headers every HTTP exchange carries: the user's, the bearer and the era's."""
        headers = dict(self._target.headers)
        if self._target.bearer:
            headers["Authorization"] = f"Bearer {self._target.bearer}"
        elif self._auth is not None and (token := self._auth.current()) is not None:
            headers["Authorization"] = token
        if self._version:
            headers["MCP-Protocol-Version"] = self._version
        if self._era == "legacy" and self._session_id:
            headers["Mcp-Session-Id"] = self._session_id
        return headers

    def headers_for(self, message: Mapping[str, Any]) -> dict[str, str]:
        """The headers of the POST that carries `message`."""
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            **self.base_headers(),
        }
        if self._era == "modern":
            headers.update(routing_headers(message))
        return headers

    async def send(self, message: dict[str, Any], headers: Mapping[str, str] | None = None) -> None:
        if self._closed or self._client is None or self._sink is None:
            raise TransportError("closed", "HTTP transport is closed")
        headers = {**self.headers_for(message), **(headers or {})}
        self._sink.on_outgoing(message, headers)
        rpc_id = message.get("id")
        if "method" in message and isinstance(rpc_id, str | int):
            task = asyncio.create_task(self._post(message, headers, rpc_id))
            self._posts[rpc_id] = task
            task.add_done_callback(lambda _: self._posts.pop(rpc_id, None))
            return
        # Notifications and our answers are acknowledged with 202; wait so order is kept.
        await self._post(message, headers, None)

    def abandon(self, rpc_id: str | int) -> None:
        """Stop reading the answer to a request nobody waits for (closing it cancels it)."""
        task = self._posts.pop(rpc_id, None)
        if task is not None:
            task.cancel()

    async def after_handshake(self) -> None:
        """Legacy: open the standalone GET SSE stream for server-initiated messages, and wait
        (briefly) until the server answered it, so no question is sent while it is closed."""
        if self._era != "legacy":
            return
        opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._spawn(self._listen(opened))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(opened), LISTEN_READY_TIMEOUT)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        tasks = [*self._posts.values(), *self._background]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        client = self._client
        if client is None:
            return
        if self._era == "legacy" and self._session_id:
            with contextlib.suppress(TimeoutError, *client.errors):
                async with asyncio.timeout(DELETE_TIMEOUT):
                    exchange = client.stream(
                        "DELETE", self._target.url, headers=self.base_headers(), retry=True
                    )
                    async with exchange as response:
                        await response.aread()
        await client.aclose()

    # -- exchanges ------------------------------------------------------------------------------

    async def _post(
        self, message: dict[str, Any], headers: dict[str, str], rpc_id: str | int | None
    ) -> None:
        """POST one message and dispatch the answer; failures of requests go to the sink,
        failures of notifications and answers are raised."""
        client = self._client
        assert client is not None
        retry = rpc_id is not None and message.get("method") in IDEMPOTENT_METHODS
        position = StreamPosition()
        try:
            body = encode_message(message)
            failure: TransportError | None = None
            while True:
                sent = await self._auth.stamp(headers) if self._auth is not None else None
                exchange = client.stream(
                    "POST", self._target.url, headers=headers, body=body, retry=retry
                )
                async with exchange as response:
                    self._capture_session(response)
                    refused = self._auth is not None and self._auth.refuses(response, sent)
                    if refused:
                        refusal = await response.aread()
                    else:
                        failure = await self._read_response(response, rpc_id, position)
                if not refused:
                    break
                assert self._auth is not None
                asks = http_failure(response, body_text(refusal))
                asks.message += " (the server asks for authorization)"
                plain = plain_headers(response)
                self._sink_incoming(failure_inbound(asks, body_text(refusal), plain, rpc_id))
                failure = await self._auth.again(response, refusal, sent, headers)
                if failure is None:
                    continue
                break
            if failure is not None and rpc_id is not None and self._resumable(position):
                failure = await self._resume(rpc_id, position)
        except client.errors as exc:
            failure = TransportError("closed", f"HTTP request failed: {exc!r}")
        except EventTooLarge as exc:
            failure = TransportError("malformed", f"HTTP response refused: {exc}")
        except Exception as exc:  # never a request left to time out for what went wrong here
            failure = TransportError("closed", f"HTTP request failed: {exc!r}")
        if failure is None:
            return
        if rpc_id is None:
            raise failure
        self._fail(rpc_id, failure)

    async def _read_response(
        self, response: HttpResponse, rpc_id: str | int | None, position: StreamPosition
    ) -> TransportError | None:
        """Dispatch every message a POST response carries; the failure if `rpc_id` got no answer."""
        status = response.status_code
        headers = plain_headers(response)
        if 300 <= status < 400:
            failure = http_failure(response, "")
            self._sink_incoming(
                Inbound(
                    message=None,
                    error=failure.message,
                    http_status=status,
                    headers=headers,
                    answers=rpc_id,
                )
            )
            return failure
        if status < 400 and "text/event-stream" in headers.get("content-type", ""):
            if await self._read_sse(response, rpc_id, headers, position) or rpc_id is None:
                return None
            return TransportError(
                "closed", "the server ended the SSE response without answering", http_status=status
            )
        text = body_text(await response.aread())
        retry_after = parse_retry_after(headers.get("retry-after"))
        items = adopt_lone_error(inbound_from_body(text, status, headers, retry_after), rpc_id)
        answered = False
        for item in items:
            answered = answered or item.answers is not None
            answered = answered or (item.message is not None and answers(item.message, rpc_id))
            if item.message is not None or status < 400:
                self._sink_incoming(item)
        if answered:
            return None
        if status >= 400 and not any(item.message is not None for item in items):
            failure = http_failure(response, text)
            self._sink_incoming(failure_inbound(failure, text, headers, rpc_id))
            return failure
        if rpc_id is None or status == 202:
            return None  # a 202 to a request: the answer comes on another stream
        return TransportError(
            "malformed",
            f"HTTP {status} response carried no answer to request {rpc_id!r}",
            http_status=status,
            body=excerpt(text),
        )

    async def _read_sse(
        self,
        response: HttpResponse,
        rpc_id: str | int | None,
        headers: Mapping[str, str],
        position: StreamPosition | None = None,
        *,
        until_answered: bool = False,
    ) -> bool:
        """Dispatch each SSE `message` event as it arrives; True when one answered `rpc_id`.

        `position` keeps the last event id and `retry:` hint seen, for a resumption;
        `until_answered` stops reading at the answer (a resumed GET may stay open after it).
        """
        answered = False
        status = response.status_code
        decoder = SseDecoder()
        try:
            async for chunk in response.aiter_bytes():
                answered = (
                    self._dispatch_events(decoder.feed(chunk), rpc_id, status, headers, position)
                    or answered
                )
                if answered and until_answered:
                    return True
            events = decoder.close()
        except EventTooLarge as exc:
            answered = (
                self._dispatch_events(exc.events, rpc_id, status, headers, position) or answered
            )
            self._sink_incoming(
                Inbound(message=None, error=str(exc), http_status=status, headers=headers)
            )
            if not answered:
                raise
            return True  # the answer came before the oversized event
        return self._dispatch_events(events, rpc_id, status, headers, position) or answered

    def _resumable(self, position: StreamPosition) -> bool:
        """SEP-1699 (2025-11-25): a stream that named its events can be resumed with GET."""
        return self._era == "legacy" and bool(position.last_event_id)

    async def _resume(self, rpc_id: str | int, position: StreamPosition) -> TransportError | None:
        """Resume a POST's SSE stream that ended before its answer (http_resume.py)."""
        assert self._client is not None
        return await resume_stream(
            self._client, self._target.url, self.base_headers, self._read_sse, rpc_id, position
        )

    def _dispatch_events(
        self,
        events: list[SseEvent],
        rpc_id: str | int | None,
        status: int,
        headers: Mapping[str, str],
        position: StreamPosition | None,
    ) -> bool:
        """Hand each SSE `message` event to the sink (noting where the stream got to); True
        when one answered `rpc_id`."""
        answered = False
        for event in events:
            if position is not None:
                position.saw(event)
            if not event.data or event.event not in ("message", ""):
                continue
            data = event.data[1:] if event.data[0] == "\ufeff" else event.data
            item = replace(classify(data), http_status=status, headers=headers)
            self._sink_incoming(item)
            answered = answered or (item.message is not None and answers(item.message, rpc_id))
        return answered

    async def _listen(self, opened: asyncio.Future[None]) -> None:
        """The legacy standalone GET stream; 405 means the server offers none. `opened` is set
        once the server answered the GET, whatever it said."""
        client = self._client
        assert client is not None
        headers = {"Accept": "text/event-stream", **self.base_headers()}
        try:
            exchange = client.stream("GET", self._target.url, headers=headers, long_lived=True)
            async with exchange as response:
                if not opened.done():
                    opened.set_result(None)
                plain = plain_headers(response)
                if not is_event_stream(response, plain):
                    return
                await self._read_sse(response, None, plain)
        except client.errors:
            return
        except EventTooLarge as exc:  # it may have been any pending request's answer
            self._sink_lost(TransportError("malformed", f"the GET stream was refused: {exc}"))
        finally:
            if not opened.done():
                opened.set_result(None)

    # -- helpers --------------------------------------------------------------------------------

    def _sink_incoming(self, inbound: Inbound) -> None:
        if self._sink is not None:
            self._sink.on_incoming(inbound)

    def _sink_lost(self, error: TransportError) -> None:
        if self._sink is not None:
            self._sink.on_message_lost(error)

    def _fail(self, rpc_id: str | int | None, error: TransportError) -> None:
        if rpc_id is not None and self._sink is not None:
            self._sink.on_request_failed(rpc_id, error)

    def _capture_session(self, response: HttpResponse) -> None:
        session = response.headers.get("mcp-session-id")
        if session and self._era == "legacy":
            self._session_id = session

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
