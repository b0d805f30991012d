"""Transports: how bytes reach a server (stdio pipes, Streamable HTTP, legacy HTTP+SSE)."""

from __future__ import annotations

from app.engine.targets import HttpTarget, StdioTarget, Target
from app.engine.transports.base import Transport, TransportError
from app.engine.transports.http import StreamableHttpTransport
from app.engine.transports.sse import SseTransport
from app.engine.transports.stdio import StdioTransport

__all__ = ["Transport", "TransportError", "make_transport"]


def make_transport(target: Target) -> Transport:
    """The transport that reaches `target`."""
    if isinstance(target, StdioTarget):
        return StdioTransport(target)
    if isinstance(target, HttpTarget) and target.transport == "sse":
        return SseTransport(target)
    return StreamableHttpTransport(target)
