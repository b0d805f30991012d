"""When to poll a task next: the largest of every term that asks for a delay, never below a floor.

Pure arithmetic, so the rule "never poll faster than the server asked" is testable without a clock.
"""

from __future__ import annotations

from app.engine.tasks.events import PacingTerm

DEFAULT_INTERVAL_MS = 1000
"""The interval when neither the server nor the user names one (TS SDK, python branch)."""

FLOOR_S = 0.25
"""No poll ever comes sooner than this after the previous one."""

BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 60.0

LONGEST_DELAY_S = 7 * 86_400.0
"""No poll is planned more than a week out: a longer hint, Retry-After or user minimum (however
many digits it has, or infinite) is cut to a week, so every due time is a finite, schedulable
time. A week is far past any real hint (minutes at most) and any real Retry-After (hours)."""
LONGEST_DELAY_MS = int(LONGEST_DELAY_S * 1000)


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
    The backoff is capped at a minute; a server's hint or Retry-After is honoured up to a week
    (`LONGEST_DELAY_S`), and a NaN Retry-After is no term at all.
    """
    # The terms in tie order (the server's own word first); a later one wins only when longer.
    # Plain comparisons: this runs for every poll, a thousand times a second at scale.
    longest = -1.0
    term: PacingTerm = "floor"
    if server_hint_ms is not None:
        longest, term = _seconds(server_hint_ms), "server"
    if retry_after_s is not None and retry_after_s > longest:
        longest, term = min(retry_after_s, LONGEST_DELAY_S), "retry-after"
    backoff = backoff_s(consecutive_errors)
    if backoff is not None and backoff > longest:
        longest, term = backoff, "backoff"
    if user_min_ms is not None:
        user: float | None = _seconds(user_min_ms)
    else:
        user = DEFAULT_INTERVAL_MS / 1000.0 if server_hint_ms is None else None
    if user is not None and user > longest:
        longest, term = user, "user"
    if longest < FLOOR_S:
        return FLOOR_S, "floor"
    return longest, term


def _seconds(milliseconds: int) -> float:
    """Milliseconds as seconds within [0, LONGEST_DELAY_S]; clamped as an integer first, since an
    integer of hundreds of digits is too large to become a float."""
    return min(max(milliseconds, 0), LONGEST_DELAY_MS) / 1000.0
