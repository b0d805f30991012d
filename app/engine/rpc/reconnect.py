"""When a connection counts as lost, how long to wait before each reconnect, and what is reported.

Pure logic for `session.EngineSession`: a failed request is a lost connection when the channel is
closed (stdio process gone), the HTTP server cannot be reached at all, or a legacy HTTP session is
gone (404). A single dropped HTTP exchange is only a failed request: the poller backs off.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

DEFAULT_ATTEMPTS = 5
FIRST_DELAY_S = 1.0
MAX_DELAY_S = 30.0
JITTER = 0.2
LOST_WITH_OLD_SESSION = "lost with the old session"
"""The detail of a legacy task the re-established session cannot see."""

_UNREACHABLE = ("ConnectError", "ConnectTimeout")
"""How the HTTP transport's message names a server that accepts no connection (`repr` of httpx)."""

ConnectionEventKind = Literal["lost", "reconnecting", "reconnected", "gave_up"]


@dataclass(frozen=True, slots=True)
class ReconnectPolicy:
    """Bounded, jittered exponential backoff: 1 s, 2 s, 4 s … capped at 30 s, `attempts` times.

    `attempts=0` turns reconnecting off: a lost connection stays lost.
    """

    attempts: int = DEFAULT_ATTEMPTS
    first_delay_s: float = FIRST_DELAY_S
    max_delay_s: float = MAX_DELAY_S
    jitter: float = JITTER

    def delay(self, attempt: int, rand: Callable[[], float] = random.random) -> float:
        """Seconds to wait before reconnect `attempt` (1-based), within ±`jitter` of the base."""
        base = min(self.first_delay_s * 2.0 ** min(attempt - 1, 30), self.max_delay_s)
        spread = 1.0 + self.jitter * (2.0 * rand() - 1.0)
        return max(0.0, min(base * spread, self.max_delay_s))


@dataclass(frozen=True, slots=True)
class ConnectionEvent:
    """Something that happened to the connection itself (not to a task)."""

    kind: ConnectionEventKind
    at: float  # wall clock, time.time()
    attempt: int = 0
    delay_s: float | None = None
    detail: str | None = None

    def describe(self, now: float | None = None) -> str:
        """One plain line: "reconnecting in 4 s (attempt 3)", "connection lost: …" and so on."""
        if self.kind == "reconnecting":
            delay = self.delay_s or 0.0
            left = delay if now is None else max(0.0, self.at + delay - now)
            why = f": {self.detail}" if self.detail else ""
            return f"reconnecting in {left:.0f} s (attempt {self.attempt}){why}"
        if self.kind == "reconnected":
            tries = "attempt" if self.attempt == 1 else "attempts"
            return f"reconnected after {self.attempt} {tries}"
        if self.kind == "gave_up":
            return f"gave up reconnecting: {self.detail}" if self.detail else "gave up reconnecting"
        return f"connection lost: {self.detail}" if self.detail else "connection lost"


def is_connection_lost(error: BaseException, *, closed: bool, legacy_http: bool) -> bool:
    """Whether a failed request means the connection is gone (so reconnecting may help).

    `closed`: the connection's channel is closed. `legacy_http`: it is a legacy-era HTTP session,
    where 404 means the server no longer knows the session.
    """
    from app.engine.rpc.transports.base import (
        TransportError,  # not needed to parse the command line
    )

    if not isinstance(error, TransportError):
        return False
    if closed:
        return True
    if error.kind == "http" and error.http_status == 404 and legacy_http:
        return True
    return error.kind == "closed" and any(name in error.message for name in _UNREACHABLE)
