"""Transports: how bytes reach a server (stdio pipes, Streamable HTTP, legacy HTTP+SSE)."""

from __future__ import annotations

from app.engine.rpc.targets import StdioTarget, Target
from app.engine.rpc.transports.base import Transport, TransportError

__all__ = ["Transport", "TransportError", "make_transport"]


def make_transport(target: Target) -> Transport:
    """The transport that reaches `target` (HTTP modules load only when needed: httpx is slow)."""
    if isinstance(target, StdioTarget):
        from app.engine.rpc.transports.stdio import StdioTransport

        return StdioTransport(target)
    if target.transport == "sse":
        from app.engine.rpc.transports.sse import SseTransport

        return SseTransport(target)
    from app.engine.rpc.transports.http import StreamableHttpTransport

    return StreamableHttpTransport(target)
