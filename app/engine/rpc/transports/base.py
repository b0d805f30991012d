"""What every transport shares: the failure type, the inbound record, and the sink it reports to.

Transports move JSON-RPC messages as dicts; they know bytes, pipes and HTTP, never correlation.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from app.engine.polling.pacing import LONGEST_DELAY_S
from app.engine.safety import deep_json

TransportKind = Literal["stdio", "http", "sse"]
Era = Literal["legacy", "modern"]


class TransportError(Exception):
    """A request got no JSON-RPC answer: timeout, closed channel, HTTP failure or garbage."""

    def __init__(
        self,
        kind: Literal["timeout", "closed", "http", "malformed"],
        message: str,
        *,
        http_status: int | None = None,
        retry_after: float | None = None,
        body: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.http_status = http_status
        self.retry_after = retry_after
        self.body = body


@dataclass(frozen=True, slots=True)
class Inbound:
    """One thing a transport received: a parsed message, or text that was not a JSON-RPC message."""

    message: dict[str, Any] | None
    raw: str | None = None
    error: str | None = None
    size: int = 0
    """Characters of the message as received (its share of a batch), for the listing bound."""
    http_status: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    retry_after: float | None = None
    answers: str | int | None = None
    """The request an error response answers although its own `id` does not name it (an HTTP
    POST carries one request, so the lone error in its answer is that request's, whatever its id
    says: servers send `null` or a string such as "server-error"); for an HTTP failure with no
    message, the request of the POST that failed."""


class TransportSink(Protocol):
    """Where a transport reports traffic; the connection implements it."""

    def on_outgoing(self, message: dict[str, Any], headers: Mapping[str, str]) -> None: ...

    def on_incoming(self, inbound: Inbound) -> None: ...

    def on_request_failed(self, rpc_id: str | int, error: TransportError) -> None: ...

    def on_message_lost(self, error: TransportError) -> None:
        """A message arrived that could not be read (it broke a size limit); whichever pending
        request it answered cannot be told, so every pending request fails with `error` now
        instead of waiting out its timeout."""

    def on_closed(self, error: TransportError) -> None: ...


class Transport(Protocol):
    """Moves JSON-RPC messages to and from one server."""

    kind: TransportKind

    async def start(self, sink: TransportSink) -> None:
        """Open the channel (spawn, connect); traffic is reported to `sink` from now on."""

    def set_era(self, era: Era, protocol_version: str) -> None:
        """Tell the transport which era's headers to send from now on."""

    async def send(self, message: dict[str, Any], headers: Mapping[str, str] | None = None) -> None:
        """Send one message; reported via `sink.on_outgoing` before it leaves. `headers` are
        extra HTTP headers for it (SEP-2243 `Mcp-Param-*`); transports without headers drop them."""

    def abandon(self, rpc_id: str | int) -> None:
        """Nobody waits for this request's answer any more (timeout or caller gave up)."""

    async def after_handshake(self) -> None:
        """Called once a legacy session is initialized (HTTP opens its GET stream here)."""

    async def close(self) -> None:
        """Release everything; idempotent."""


def classify(text: str) -> Inbound:
    """Parse one message of text: a JSON-RPC dict, or an `Inbound` with `raw` and `error` set."""
    try:
        value = deep_json.loads(text)
    except ValueError as exc:
        return Inbound(message=None, raw=text, error=f"malformed JSON: {exc}")
    return classify_value(value, text)


def classify_value(value: Any, text: str, size: int | None = None) -> Inbound:
    """Check that an already-decoded value is a JSON-RPC 2.0 message; it came as `size`
    characters (by default, those of `text`)."""
    if not isinstance(value, dict):
        return Inbound(message=None, raw=text, error="not a JSON-RPC message (not an object)")
    if value.get("jsonrpc") != "2.0":
        return Inbound(message=None, raw=text, error="not a JSON-RPC 2.0 message")
    if not ("method" in value or "result" in value or "error" in value):
        return Inbound(message=None, raw=text, error="JSON-RPC message without method/result/error")
    return Inbound(message=value, size=len(text) if size is None else size)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a `Retry-After` header given as delta-seconds or an HTTP date, at most
    `LONGEST_DELAY_S`; None for anything else (`inf`, `nan`, `soon`), which never sets the pace."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # delta-seconds, however many digits
        return min(float(value), LONGEST_DELAY_S)
    try:
        seconds = float(value)  # tolerated: a fraction or a sign
    except ValueError:
        return _seconds_until(value)
    return min(max(0.0, seconds), LONGEST_DELAY_S) if math.isfinite(seconds) else None


def encode_message(message: dict[str, Any]) -> bytes:
    """One outgoing message as compact UTF-8 JSON: non-ASCII as is, but a string with a lone
    surrogate (a server's task id `"\\ud800"`) escaped so that it can be sent back at all."""
    return deep_json.dumps_utf8(message, separators=(",", ":")).encode()


def _seconds_until(value: str) -> float | None:
    """Seconds from now until an HTTP date (0 when it is past), None when it is not one."""
    from email.utils import parsedate_to_datetime  # the email package: for the odd dated answer

    try:
        ahead = parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return min(max(0.0, ahead), LONGEST_DELAY_S)
