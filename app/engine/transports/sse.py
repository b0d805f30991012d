"""The deprecated HTTP+SSE transport: GET an event stream, learn the POST endpoint, read it.

All server messages (responses included) arrive on the one SSE stream; POSTs are only acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

import httpx
from httpx_sse import EventSource, SSEError

from app.engine.targets import HttpTarget
from app.engine.transports.base import (
    Era,
    Inbound,
    TransportError,
    TransportKind,
    TransportSink,
    classify,
)
from app.engine.transports.http import CONNECT_TIMEOUT, excerpt, http_failure


class SseTransport:
    """MCP over HTTP+SSE (protocol 2024-11-05 style), still served by many servers."""

    kind: TransportKind = "sse"

    def __init__(self, target: HttpTarget, *, endpoint_timeout: float = CONNECT_TIMEOUT) -> None:
        self._target = target
        self._endpoint_timeout = endpoint_timeout
        self._client: httpx.AsyncClient | None = None
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
        timeout = httpx.Timeout(CONNECT_TIMEOUT, read=None, write=CONNECT_TIMEOUT, pool=None)
        self._client = httpx.AsyncClient(timeout=timeout)
        self._endpoint = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read_stream(), name="sse-stream")
        try:
            await asyncio.wait_for(asyncio.shield(self._endpoint), self._endpoint_timeout)
        except TimeoutError:
            raise TransportError(
                "timeout",
                f"no 'endpoint' event from {self._target.url} within {self._endpoint_timeout:g} s",
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
        endpoint = self._endpoint.result()
        headers = {"Content-Type": "application/json", **self._headers()}
        self._sink.on_outgoing(message, headers)
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
        try:
            response = await self._client.post(endpoint, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise TransportError("closed", f"HTTP request failed: {exc!r}") from exc
        if response.status_code < 400:
            return
        failure = http_failure(response, response.text)
        self._sink.on_incoming(
            Inbound(
                message=None,
                raw=excerpt(response.text) or None,
                error=failure.message,
                http_status=response.status_code,
                headers=dict(response.headers),
                retry_after=failure.retry_after,
            )
        )
        rpc_id = message.get("id")
        if "method" in message and isinstance(rpc_id, str | int):
            self._sink.on_request_failed(rpc_id, failure)
        else:
            raise failure

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
        assert self._client is not None and self._sink is not None and self._endpoint is not None
        headers = {"Accept": "text/event-stream", **self._headers()}
        reason = "the SSE stream ended"
        try:
            async with self._client.stream("GET", self._target.url, headers=headers) as response:
                if response.status_code >= 400:
                    body = (await response.aread()).decode("utf-8", errors="replace")
                    self._fail_start(http_failure(response, body))
                    return
                status, response_headers = response.status_code, dict(response.headers)
                async for event in EventSource(response).aiter_sse():
                    if event.event == "endpoint":
                        if not self._endpoint.done():
                            self._endpoint.set_result(urljoin(self._target.url, event.data.strip()))
                    elif event.event in ("message", "") and event.data:
                        item = classify(event.data)
                        self._sink.on_incoming(
                            Inbound(
                                message=item.message,
                                raw=item.raw,
                                error=item.error,
                                http_status=status,
                                headers=response_headers,
                            )
                        )
        except (httpx.HTTPError, SSEError) as exc:
            reason = f"the SSE stream failed: {exc!r}"
        error = TransportError("closed", reason)
        self._fail_start(error)
        if not self._closed:
            self._sink.on_closed(error)

    def _fail_start(self, error: TransportError) -> None:
        if self._endpoint is not None and not self._endpoint.done():
            self._endpoint.set_exception(error)
