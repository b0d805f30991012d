"""What `r` (poll now) says: how many tasks it polled and, for the rest, why not.

A refresh that polls nothing must say so, or the user cannot tell a quiet server from a key that
did nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PollFeedback:
    """The toast after a poll-now: its text and whether it is a warning (nothing was polled)."""

    message: str
    warning: bool


def _tasks(count: int) -> str:
    return f"{count} task{'s' if count != 1 else ''}"


def poll_feedback(
    polled: int, finished: Iterable[str], in_flight: int, synchronous: int
) -> PollFeedback:
    """Say what a poll-now did: `polled` tasks polled; `finished` the statuses of chosen tasks
    left alone because they settled; `in_flight` chosen tasks whose poll was already on the
    wire; `synchronous` tool calls answered without a task (there is nothing to poll)."""
    statuses = Counter(finished)
    reasons: list[str] = []
    if statuses:
        counts = ", ".join(f"{status} {count}" for status, count in sorted(statuses.items()))
        reasons.append(f"{_tasks(statuses.total())} finished ({counts})")
    if in_flight:
        reasons.append(f"{_tasks(in_flight)} with a poll already in flight")
    if synchronous:
        reasons.append(f"{synchronous} answered synchronously, with no task to poll")
    if polled:
        message = f"Polling {_tasks(polled)} now"
        return PollFeedback(
            message + (" · not polled: " + "; ".join(reasons) if reasons else ""), False
        )
    if not reasons:
        return PollFeedback("Nothing to poll: no task is selected.", True)
    return PollFeedback("Nothing polled: " + "; ".join(reasons) + ".", True)
