"""The deprecated HTTP+SSE transport: GET an event stream, learn the POST endpoint, read it.

All server messages (responses included) arrive on the one SSE stream; POSTs are only acknowledged.
The endpoint must be on the stream's own origin (scheme, host and port): the POSTs carry the
bearer token and every `--header`, so an endpoint elsewhere is refused before anything is sent.
With an `AuthGate`, the GET and each POST carry the OAuth token, and a refusal signs in and goes
again; the wait for the endpoint stops counting while the person signs in.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.transports.base import (
    Era,
    Inbound,
    TransportError,
    TransportKind,
    TransportSink,
    classify,
    encode_message,
)
from app.engine.rpc.transports.http import CONNECT_TIMEOUT
from app.engine.rpc.transports.http_auth import AuthGate
from app.engine.rpc.transports.http_bodies import (
    body_text,
    excerpt,
    failure_inbound,
    http_failure,
    plain_headers,
)
from app.engine.rpc.transports.http_client import HttpResponse, HttpxClient
from app.engine.rpc.transports.sse_decoder import EventTooLarge, SseDecoder

DEFAULT_PORTS = {"http": 80, "https": 443}


class SseTransport:
    """MCP over HTTP+SSE (protocol 2024-11-05 style), still served by many servers."""

    kind: TransportKind = "sse"

    def __init__(
        self,
        target: HttpTarget,
        auth: AuthGate | None = None,
        *,
        endpoint_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        self._target = target
        self._auth = auth
        self._authorizing = False
        self._endpoint_timeout = endpoint_timeout
        self._client: HttpxClient | None = None
        self._sink: TransportSink | None = None
        self._endpoint: asyncio.Future[str] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    def _headers(self) -> dict[str, str]:
        headers = dict(self._target.headers)
        if self._target.bearer:
            headers["Authorization"] = f"Bearer {self._target.bearer}"
        return headers

    async def start(self, sink: TransportSink) -> None:
        self._sink = sink
        self._client = HttpxClient(connect_timeout=CONNECT_TIMEOUT, write_timeout=CONNECT_TIMEOUT)
        self._endpoint = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read_stream(), name="sse-stream")
        while True:
            try:
                await asyncio.wait_for(asyncio.shield(self._endpoint), self._endpoint_timeout)
                return
            except TimeoutError:
                if self._authorizing:
                    continue  # a sign-in takes as long as the person takes
                raise TransportError(
                    "timeout",
                    f"no 'endpoint' event from {self._target.url} within "
                    f"{self._endpoint_timeout:g} s",
                ) from None

    def set_era(self, era: Era, protocol_version: str) -> None:
        """HTTP+SSE carries no per-request era headers."""

    async def after_handshake(self) -> None:
        """The one SSE stream already carries everything."""

    def abandon(self, rpc_id: str | int) -> None:
        """Answers share the one stream; there is nothing to stop per request."""

    async def send(self, message: dict[str, Any], headers: Mapping[str, str] | None = None) -> None:
        if self._closed or self._client is None or self._sink is None or self._endpoint is None:
            raise TransportError("closed", "SSE transport is closed")
        client = self._client
        endpoint = self._endpoint.result()
        headers = {"Content-Type": "application/json", **self._headers()}
        self._sink.on_outgoing(message, headers)
        body = encode_message(message)
        sent_id = message.get("id")
        rpc_id = sent_id if "method" in message and isinstance(sent_id, str | int) else None
        try:
            while True:
                sent = await self._auth.stamp(headers) if self._auth is not None else None
                async with client.stream("POST", endpoint, headers=headers, body=body) as response:
                    raw = await response.aread()  # read, so the connection is kept
                if self._auth is not None and self._auth.refuses(response, sent):
                    failure = await self._sign_in(response, raw, sent, headers, rpc_id)
                    if failure is None:
                        continue
                elif response.status_code < 300:
                    return
                else:
                    text = body_text(raw)
                    failure = http_failure(response, text)
                    self._sink.on_incoming(
                        failure_inbound(failure, text, dict(response.headers), rpc_id)
                    )
                break
        except client.errors as exc:
            raise TransportError("closed", f"HTTP request failed: {exc!r}") from exc
        if rpc_id is None:
            raise failure
        self._sink.on_request_failed(rpc_id, failure)

    async def _sign_in(
        self,
        response: HttpResponse,
        raw: bytes,
        sent: str | None,
        headers: dict[str, str],
        answers: str | int | None,
    ) -> TransportError | None:
        """The server asked for authorization: show its refusal, sign in (the endpoint wait
        stops counting meanwhile); None when the request should go again, else the failure."""
        assert self._auth is not None and self._sink is not None
        text = body_text(raw)
        asks = http_failure(response, text)
        asks.message += " (the server asks for authorization)"
        self._sink.on_incoming(failure_inbound(asks, text, plain_headers(response), answers))
        self._authorizing = True
        try:
            return await self._auth.again(response, raw, sent, headers)
        finally:
            self._authorizing = False

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._client is not None:
            await self._client.aclose()

    async def _read_stream(self) -> None:
        assert self._client is not None and self._sink is not None
        client = self._client
        headers = {"Accept": "text/event-stream", **self._headers()}
        reason = "the SSE stream ended"
        try:
            while (outcome := await self._read_events(client, headers)) == "again":
                pass
            if outcome == "stopped":
                return  # start() says why; nothing more is read
        except client.errors as exc:
            reason = f"the SSE stream failed: {exc!r}"
        except EventTooLarge as exc:
            reason = f"the SSE stream was refused: {exc}"
        error = TransportError("closed", reason)
        self._fail_start(error)
        if not self._closed:
            self._sink.on_closed(error)

    async def _read_events(
        self, client: HttpxClient, headers: dict[str, str]
    ) -> Literal["again", "stopped", "ended"]:
        """GET the stream and dispatch its events: `ended` when it ends, `stopped` when it
        could not start (or named another origin), `again` after a sign-in it asked for."""
        assert self._sink is not None
        sent = await self._auth.stamp(headers) if self._auth is not None else None
        async with client.stream("GET", self._target.url, headers=headers) as response:
            if self._auth is not None and self._auth.refuses(response, sent):
                failure = await self._sign_in(response, await response.aread(), sent, headers, None)
                if failure is None:
                    return "again"
                self._fail_start(failure)
                return "stopped"
            if response.status_code >= 300:
                self._fail_start(http_failure(response, body_text(await response.aread())))
                return "stopped"
            content_type = response.headers.get("content-type", "")
            if "text/event-stream" not in content_type:
                self._fail_start(
                    TransportError(
                        "malformed",
                        f"the SSE GET was answered with Content-Type {content_type[:80]!r}, "
                        "not text/event-stream",
                        http_status=response.status_code,
                    )
                )
                return "stopped"
            status, response_headers = response.status_code, dict(response.headers)
            decoder = SseDecoder()
            async for chunk in response.aiter_bytes():
                for event in decoder.feed(chunk):
                    if event.event == "endpoint":
                        if not self._take_endpoint(event.data.strip()):
                            return "stopped"
                    elif event.event in ("message", "") and event.data:
                        data = event.data[1:] if event.data[0] == "\ufeff" else event.data
                        item = classify(data)
                        self._sink.on_incoming(
                            Inbound(
                                message=item.message,
                                raw=item.raw,
                                error=item.error,
                                http_status=status,
                                headers=response_headers,
                            )
                        )
        return "ended"

    def _take_endpoint(self, location: str) -> bool:
        """Adopt the first `endpoint` event's URL; False when it names another origin (refused)."""
        assert self._endpoint is not None
        if self._endpoint.done():
            return True
        endpoint = urljoin(self._target.url, location)
        if _origin(endpoint) != _origin(self._target.url):
            self._fail_start(
                TransportError(
                    "malformed",
                    f"the server's endpoint event names {excerpt(endpoint)}, another origin than "
                    f"{_origin_text(self._target.url)}; refused, so the bearer token and headers "
                    "go nowhere else",
                )
            )
            return False
        self._endpoint.set_result(endpoint)
        return True

    def _fail_start(self, error: TransportError) -> None:
        if self._endpoint is not None and not self._endpoint.done():
            self._endpoint.set_exception(error)


def _origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port with the default filled in) of a URL; None when it has none."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    return scheme, (parts.hostname or "").lower(), port


def _origin_text(url: str) -> str:
    """The origin of a URL as text, without any userinfo, path or query."""
    origin = _origin(url)
    if origin is None:
        return "the server's"
    scheme, host, port = origin
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port}"
