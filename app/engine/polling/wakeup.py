"""The poll loop's sleep and its background jobs: it sleeps until the earliest due poll or until
something wakes it, and keeps every poll job it started until the job ends."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from app.engine.polling.clock import Clock, LoopClock

log = logging.getLogger(__name__)


class Wakeup:
    """When the sleeping loop wakes: at `wake_at`, or at once when `set()` (a poll planned
    sooner, a watch stopped, the last job ended)."""

    def __init__(self, clock: Clock, on_timer: Callable[[], None]) -> None:
        self._clock = clock
        self._on_timer = on_timer
        self._event = asyncio.Event()
        self.wake_at: float | None = None
        """When the sleeping loop wakes by itself; a poll planned later need not wake it."""

    def set(self) -> None:
        self._event.set()

    def clear(self) -> None:
        self._event.clear()

    def planned(self, due: float) -> None:
        """A poll was planned: wake the loop only if it would otherwise sleep past `due`."""
        if self.wake_at is None or due < self.wake_at:
            self._event.set()

    async def sleep(self, timeout: float | None) -> None:
        """Sleep `timeout` seconds (None: until woken), or less when woken."""
        if timeout is None:
            await self._event.wait()
            return
        if isinstance(self._clock, LoopClock):
            # The loop's own clock: one timer wakes us, no sleeper task per wake-up.
            timer = asyncio.get_running_loop().call_later(max(timeout, 0.0), self._timer_fired)
            try:
                await self._event.wait()
            finally:
                timer.cancel()
            return
        waiter = asyncio.ensure_future(self._event.wait())
        sleeper = asyncio.ensure_future(self._clock.sleep(max(timeout, 0.0)))
        try:
            await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            sleeper.cancel()

    def _timer_fired(self) -> None:
        """The wake-up timer: `on_timer` runs first (the poller starts the polls now due, a loop
        turn sooner than the woken loop could, since a turn may hold a long repaint), then the
        loop wakes to plan the next one."""
        self._on_timer()
        self._event.set()


class Jobs:
    """The poller's background jobs (polls, result fetches), kept until each ends."""

    def __init__(self, on_idle: Callable[[], None]) -> None:
        self._on_idle = on_idle
        self._running: set[asyncio.Task[None]] = set()

    def __bool__(self) -> bool:
        return bool(self._running)

    def spawn(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._running.add(task)
        task.add_done_callback(self._done)

    async def cancel_all(self, also: Iterable[asyncio.Task[None]] = ()) -> None:
        """Cancel every job (and `also`), waiting until they ended."""
        jobs = [*self._running, *also]
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)
        self._running.clear()

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("poller job failed", exc_info=task.exception())
        if not self._running:
            self._on_idle()  # `run_until_idle` may be done
