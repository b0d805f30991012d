"""A clock the test moves by hand, for logic that waits on time (the notes' bursts)."""

from __future__ import annotations


class ManualClock:
    """Monotonic seconds that change only when the test sets `now`."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
