"""SEP-1699 (2025-11-25): resuming a POST's SSE stream that ended before its answer, with GET and
`Last-Event-ID`, after the server's `retry:` interval; a bounded number of times."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

from app.engine.rpc.transports.base import TransportError
from app.engine.rpc.transports.http_bodies import body_text, http_failure, plain_headers
from app.engine.rpc.transports.http_client import HttpClient, HttpResponse
from app.engine.rpc.transports.sse_decoder import StreamPosition

RESUME_ATTEMPTS = 5
DEFAULT_RETRY_MS = 1000
"""How often, and after how long when the server set no `retry:`, a stream is resumed."""

ReadStream = Callable[..., Awaitable[bool]]
"""The transport's SSE reader: (response, rpc_id, headers, position, until_answered=), True
when the answer came."""


async def resume_stream(
    client: HttpClient,
    url: str,
    base_headers: Callable[[], Mapping[str, str]],
    read_sse: ReadStream,
    rpc_id: str | int,
    position: StreamPosition,
) -> TransportError | None:
    """Resume until the answer to `rpc_id` comes (None), or the failure that stopped it."""
    for _ in range(RESUME_ATTEMPTS):
        wait_ms = position.retry_ms if position.retry_ms is not None else DEFAULT_RETRY_MS
        await asyncio.sleep(wait_ms / 1000)
        headers = {
            "Accept": "text/event-stream",
            **base_headers(),
            "Last-Event-ID": position.last_event_id,
        }
        resumed_from = position.last_event_id
        exchange = client.stream("GET", url, headers=headers, long_lived=True)
        async with exchange as response:
            plain = plain_headers(response)
            if not is_event_stream(response, plain):
                failure = http_failure(response, body_text(await response.aread()))
                return TransportError(
                    "closed",
                    "the server ended the SSE response without answering, and resuming it "
                    f"(GET, Last-Event-ID {resumed_from}) got {failure.message}",
                    http_status=response.status_code,
                )
            if await read_sse(response, rpc_id, plain, position, until_answered=True):
                return None
    return TransportError(
        "closed",
        f"the server ended the SSE response without answering, also after {RESUME_ATTEMPTS} "
        "resumptions with Last-Event-ID",
    )


def is_event_stream(response: HttpResponse, headers: Mapping[str, str]) -> bool:
    """Whether a GET's answer is the SSE stream it asked for."""
    return response.status_code < 400 and "text/event-stream" in headers.get("content-type", "")
