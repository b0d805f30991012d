"""How often a token the server refuses (401) may be refreshed: a server refusing every other
request with a good token made one refresh per request, while a server whose tokens really live a
second must get a refresh each second. So a refusal refreshes only while the refreshes of the last
`MIN_REFRESH_INTERVAL_S` fit the life the server gives its tokens: one per interval for a token
said to live that long or longer, one per second at most."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

MIN_REFRESH_INTERVAL_S = 30.0
"""The window refreshes are counted in (the same floor as the shortest token life the store
keeps): a token said to live at least this long is refreshed once per window at most."""
SHORTEST_LIFE_S = 1.0
"""The shortest token life the budget believes (`expires_in: -5` counts as one second)."""


class RefreshBudget:
    """The refreshes made because the server refused a token, on `clock`."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._times: deque[float] = deque()
        self._life = MIN_REFRESH_INTERVAL_S

    def refreshed(self, expires_in: object) -> None:
        """A refresh was made; the new token's life as the server gave it (any JSON value)."""
        self._times.append(self._clock())
        self._life = _life_of(expires_in)

    def refused_since(self) -> float | None:
        """None when a refusal may refresh now; else how long ago the last refresh was."""
        now = self._clock()
        while self._times and now - self._times[0] >= MIN_REFRESH_INTERVAL_S:
            self._times.popleft()
        if len(self._times) < max(1, int(MIN_REFRESH_INTERVAL_S // self._life)):
            return None
        return max(0.0, now - self._times[-1])

    def clear(self) -> None:
        """Forget the refreshes (signed out: the next sign-in starts afresh)."""
        self._times.clear()
        self._life = MIN_REFRESH_INTERVAL_S


def _life_of(expires_in: object) -> float:
    """The life the budget believes for a token the server said lives `expires_in` seconds."""
    if isinstance(expires_in, bool) or not isinstance(expires_in, int | float):
        return MIN_REFRESH_INTERVAL_S
    if isinstance(expires_in, float) and math.isnan(expires_in):
        return MIN_REFRESH_INTERVAL_S
    # compared, never converted: an integer too large for a float is fine
    return float(min(max(expires_in, SHORTEST_LIFE_S), MIN_REFRESH_INTERVAL_S))
