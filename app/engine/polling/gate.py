"""How many polls may be in flight at once: a limit derived from demand, with a floor and a cap.

The server sets the demand: every watched task asks to be polled once per its `pollInterval`, and
a task never has two polls in flight, so the request rate is already bounded by what the server
asked for. By Little's law a rate λ with round trips of W seconds keeps λ·W requests in flight;
a fixed limit below that makes polls that are due wait for a slot, i.e. come late. The gate
measures λ (polls admitted per second) and the worst recent round trip, and allows twice their
product, never fewer than `floor` nor more than `cap` (the cap bounds concurrency if a server
slows down: beyond it polls queue and the rate falls back, which is the back-pressure we want).
Waiting polls are admitted first come, first served, so a waiting poll never loses its place.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections import deque

from app.engine.polling.clock import Clock

WINDOW_S = 1.0
"""How long each measuring window lasts; the limit is recomputed when one ends."""

HEADROOM = 2.0
"""Slots allowed per request Little's law expects in flight at the worst recent round trip."""

DEFAULT_FLOOR = 32
DEFAULT_CAP = 128


class PollGate:
    """Admits polls (`await acquire()` … `release(rtt)`) up to a limit that follows demand."""

    def __init__(self, clock: Clock, *, floor: int = DEFAULT_FLOOR, cap: int = DEFAULT_CAP):
        self._clock = clock
        self._cap = max(1, cap)
        self._floor = max(1, min(floor, self._cap))
        self._limit = self._floor
        self._in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._window_start: float | None = None
        self._admitted = 0
        self._window_peak_rtt = 0.0
        self._previous_peak_rtt = 0.0

    @property
    def limit(self) -> int:
        """How many polls may be in flight now."""
        return self._limit

    @property
    def in_flight(self) -> int:
        """How many admitted polls have not been released yet."""
        return self._in_flight

    async def acquire(self) -> None:
        """Wait for a slot; waiting callers are admitted in the order they came."""
        self._roll_window()
        self._admitted += 1
        if self._in_flight < self._limit and not self._waiters:
            self._in_flight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release(None)  # admitted, then cancelled: hand the slot on
            else:
                with contextlib.suppress(ValueError):  # already skipped by `_admit_waiters`
                    self._waiters.remove(waiter)
            raise

    def release(self, rtt: float | None) -> None:
        """Give a slot back; `rtt` is the round trip it took (None when not a measured poll)."""
        self._in_flight -= 1
        if rtt is not None and rtt > self._window_peak_rtt:
            self._window_peak_rtt = rtt
        self._roll_window()
        self._admit_waiters()

    def _roll_window(self) -> None:
        """At the end of a window, set the limit from its rate and the recent worst round trip."""
        now = self._clock.monotonic()
        if self._window_start is None:
            self._window_start = now
            return
        elapsed = now - self._window_start
        if elapsed < WINDOW_S:
            return
        rate = self._admitted / elapsed
        peak_rtt = max(self._window_peak_rtt, self._previous_peak_rtt)
        wanted = math.ceil(HEADROOM * rate * peak_rtt)
        self._limit = max(self._floor, min(self._cap, wanted))
        self._previous_peak_rtt = self._window_peak_rtt
        self._window_peak_rtt = 0.0
        self._admitted = 0
        self._window_start = now
        self._admit_waiters()

    def _admit_waiters(self) -> None:
        while self._waiters and self._in_flight < self._limit:
            waiter = self._waiters.popleft()
            if waiter.done():
                continue
            self._in_flight += 1
            waiter.set_result(None)
