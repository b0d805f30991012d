"""The JSON-RPC vocabulary shared by the connection and its users: errors, observed frames,
the server's identity and the callback shapes a connection calls.

Kept apart from connection.py so that code which only reads frames or catches errors does not
load the connection machinery.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from app.engine.rpc.transports.base import TransportError, TransportKind

if TYPE_CHECKING:
    from app.engine.rpc.era_decision import EraDecision

__all__ = [
    "CloseListener",
    "Frame",
    "FrameListener",
    "NotificationHandler",
    "RpcError",
    "ServerInfo",
    "ServerRequestHandler",
]


class RpcError(Exception):
    """A JSON-RPC error response, with the HTTP status and Retry-After it came with."""

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        *,
        http_status: int | None = None,
        retry_after: float | None = None,
        frame: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.data = data
        self.http_status = http_status
        self.retry_after = retry_after
        self.frame = frame


@dataclass(frozen=True, slots=True)
class Frame:
    """One JSON-RPC frame in or out, as observed on the wire (secrets redacted)."""

    direction: Literal["out", "in"]
    message: dict[str, Any] | None
    raw: str | None
    at: float
    method: str | None
    rpc_id: str | int | None
    task_id: str | None
    reason: str | None
    latency_ms: float | None
    http_status: int | None
    headers: dict[str, str]
    error: str | None
    exchange: int | None = None
    """Numbers a request and its response (or a server request and our answer) alike, unique in
    the process across connections; None for notifications and frames that answer nothing."""
    purpose: str | None = None
    """Why it was sent, in words ("poll of task X, on the poller's schedule"); see purpose.py."""
    server: str | None = None
    """Which of several servers it went to or came from (None: the one server)."""


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """Who the server is and which era this connection speaks with it."""

    name: str
    version: str
    protocol_version: str
    era: Literal["legacy", "modern"]
    capabilities: dict[str, Any]
    instructions: str | None
    transport: TransportKind
    era_decision: EraDecision | None = None
    """How the era was settled (what was tried, what answered, why)."""


ServerRequestHandler = Callable[[dict[str, Any], dict[str, Any]], Awaitable[dict[str, Any]]]
"""Answers one server→client request: (params, request frame) -> result; may raise RpcError."""

NotificationHandler = Callable[[str, dict[str, Any]], None]
FrameListener = Callable[[Frame], None]
CloseListener = Callable[[TransportError], None]
"""Called once when the channel dies under the connection (not when `close()` is called)."""
