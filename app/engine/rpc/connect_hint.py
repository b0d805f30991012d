"""The next thing to try when connecting failed, in one sentence, for both faces.

A failed connect names its cause (the exception's text) and, from this module, what a user can do
about it: a flag to add, a URL to check, a command to run by hand.
"""

from __future__ import annotations

from app.engine.rpc.era import EraPreference
from app.engine.rpc.era_decision import era_steps
from app.engine.rpc.transports.base import TransportError, TransportKind

AUTH_STATUSES = frozenset({401, 403})
MODERN_REFUSALS = frozenset({-32021, -32020, -32003, -32001})


def next_step(error: BaseException, *, preference: EraPreference, transport: TransportKind) -> str:
    """What to try after `error` ended a connect with era `preference` over `transport`."""
    status = getattr(error, "http_status", None)
    code = getattr(error, "code", None)
    if status in AUTH_STATUSES:
        return (
            "the server wants authorization: taskscope signs in by itself unless --auth-mode "
            "none (see the reason for why that failed); --auth-mode client_credentials with "
            "--client-id signs in without a browser, or pass --bearer TOKEN (TASKSCOPE_BEARER)"
        )
    if status == 404 or status == 405:
        return (
            "check the URL: nothing speaks MCP at that path (endpoints are often /mcp); an old "
            "HTTP+SSE server needs --transport sse"
        )
    if isinstance(code, int) and code in MODERN_REFUSALS:
        return (
            "the server speaks the 2026-07-28 era but refused this client's request; if it also "
            "speaks 2025-11-25, try --era legacy"
        )
    if isinstance(error, OSError) or _never_reached(error):
        if transport == "stdio":
            return "check --command: run it by hand to see whether it starts"
        return "check that the server is running and that the URL is right"
    if isinstance(error, TransportError) and error.kind == "closed" and transport == "stdio":
        return (
            "the server exited during the handshake: run the command by hand to read its "
            "error output (the last lines are above)"
        )
    if preference == "modern":
        return "try --era legacy (or --era auto) for a server of the 2025-11-25 era"
    if preference == "legacy":
        return "try --era modern (or --era auto) for a server of the 2026-07-28 era"
    if era_steps(error):
        return (
            "it answered neither server/discover nor initialize usably: check that this is an "
            "MCP server, then try --era legacy or --era modern to force one era"
        )
    return "try --era legacy or --era modern to force one era"


def _never_reached(error: BaseException) -> bool:
    """A transport failure before any answer: refused connection, unknown host, spawn failure."""
    if not isinstance(error, TransportError) or error.kind != "closed":
        return False
    text = error.message
    return text.startswith("cannot start") or "ConnectError" in text or "Refused" in text
