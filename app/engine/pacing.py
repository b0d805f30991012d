"""When to poll a task next: the largest of every term that asks for a delay, never below a floor.

Pure arithmetic, so the rule "never poll faster than the server asked" is testable without a clock.
"""

from __future__ import annotations

from app.engine.events import PacingTerm

DEFAULT_INTERVAL_MS = 1000
"""The interval when neither the server nor the user names one (TS SDK, python branch)."""

FLOOR_S = 0.25
"""No poll ever comes sooner than this after the previous one."""

BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 60.0

_TIE_ORDER: tuple[PacingTerm, ...] = ("server", "retry-after", "backoff", "user")
"""Which term is named when several ask for the same delay: the server's own word first."""


def backoff_s(consecutive_errors: int) -> float | None:
    """Exponential error backoff, 1 s, 2 s, 4 s … capped at 60 s; None when there is no error."""
    if consecutive_errors <= 0:
        return None
    exponent = min(consecutive_errors - 1, 16)  # 2**16 s is far past the cap; avoids huge floats
    return min(BACKOFF_BASE_S * 2.0**exponent, BACKOFF_CAP_S)


def next_delay(
    *,
    server_hint_ms: int | None,
    user_min_ms: int | None,
    retry_after_s: float | None,
    consecutive_errors: int,
) -> tuple[float, PacingTerm]:
    """The delay in seconds before the next poll and the term that decided it.

    Terms: the server's `pollInterval(Ms)` hint, the user's minimum (or the 1000 ms default when
    neither the server nor the user named an interval), a `Retry-After`, and the error backoff.
    Only the backoff is capped; a server's hint or Retry-After is honoured however long it is.
    """
    terms: dict[PacingTerm, float] = {}
    if server_hint_ms is not None:
        terms["server"] = max(server_hint_ms, 0) / 1000.0
    if user_min_ms is not None:
        terms["user"] = max(user_min_ms, 0) / 1000.0
    elif server_hint_ms is None:
        terms["user"] = DEFAULT_INTERVAL_MS / 1000.0
    if retry_after_s is not None and retry_after_s > 0:
        terms["retry-after"] = retry_after_s
    backoff = backoff_s(consecutive_errors)
    if backoff is not None:
        terms["backoff"] = backoff

    longest = max(terms.values())
    if longest < FLOOR_S:
        return FLOOR_S, "floor"
    term = next(name for name in _TIE_ORDER if terms.get(name) == longest)
    return longest, term
