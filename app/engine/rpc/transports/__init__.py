"""Transports: how bytes reach a server (stdio pipes, Streamable HTTP, legacy HTTP+SSE)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.rpc.targets import StdioTarget, Target
from app.engine.rpc.transports.base import Transport, TransportError

if TYPE_CHECKING:
    from app.engine.oauth.authorizer import Authorizer

__all__ = ["Transport", "TransportError", "make_transport"]


def make_transport(target: Target, authorizer: Authorizer | None = None) -> Transport:
    """The transport that reaches `target` (HTTP modules load only when needed: httpx is slow);
    `authorizer` signs HTTP requests in when the server asks for it."""
    if isinstance(target, StdioTarget):
        from app.engine.rpc.transports.stdio import StdioTransport

        return StdioTransport(target)
    from app.engine.rpc.transports.http_auth import AuthGate

    gate = AuthGate(authorizer) if authorizer else None
    if target.transport == "sse":
        from app.engine.rpc.transports.sse import SseTransport

        return SseTransport(target, gate)
    from app.engine.rpc.transports.http import StreamableHttpTransport

    return StreamableHttpTransport(target, gate)
