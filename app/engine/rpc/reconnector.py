"""Runs a session's reconnects: one at a time, bounded by its `ReconnectPolicy` (attempts counted
since a request last worked), and each step reported to the connection listeners."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from app.engine.rpc.reconnect import ConnectionEvent, ReconnectPolicy
from app.engine.rpc.transports.base import TransportError

log = logging.getLogger(__name__)

ConnectionListener = Callable[[ConnectionEvent], None]
ConnectAgain = Callable[[], Awaitable[tuple[str, bool] | None]]
"""One attempt to connect again: None once connected, else why not and whether to stop trying."""


class Reconnector:
    """The reconnect running (if any), the attempts used, and the listeners told about them."""

    def __init__(self, policy: ReconnectPolicy, sleep: Callable[[float], Awaitable[None]]) -> None:
        self.policy = policy
        self._sleep = sleep
        self.listeners: list[ConnectionListener] = []
        self.last_event: ConnectionEvent | None = None
        self.running: asyncio.Task[bool] | None = None
        self.gave_up: TransportError | None = None
        """Set once the attempts ran out: what every later request fails with."""
        self._attempts_used = 0
        """Reconnect attempts since a request last succeeded (a server that dies again right after
        each reconnect keeps counting towards `policy.attempts` instead of starting over)."""

    def start(self, reconnect: Callable[[], Coroutine[Any, Any, bool]]) -> asyncio.Task[bool]:
        """The reconnect running, started with `reconnect()` when none is."""
        if self.running is None or self.running.done():
            self.running = asyncio.get_running_loop().create_task(reconnect(), name="reconnect")
        return self.running

    async def settled(self) -> None:
        """Wait until no reconnect runs."""
        while self.running is not None and not self.running.done():
            await asyncio.shield(self.running)

    def worked(self) -> None:
        """A request on the current connection was answered: the attempts start over."""
        self._attempts_used = 0

    async def run(
        self, reason: str, close_old: Callable[[], Awaitable[None]], connect_again: ConnectAgain
    ) -> str | None:
        """Report the loss, close what is left, then try `connect_again` while attempts are left;
        None once one connected, else the last reason none did (then call `give_up`)."""
        self.emit(ConnectionEvent("lost", time.time(), detail=reason))
        await close_old()
        return await self.attempts(connect_again, reason)

    async def attempts(
        self, connect_again: ConnectAgain, last_error: str, *, say_why: bool = False
    ) -> str | None:
        """Try `connect_again` after each backoff while attempts are left; None once one
        connected, else the last reason none did. `say_why`: each "reconnecting" event carries
        why the try before it failed (a server not reachable at the start)."""
        while self._attempts_used < self.policy.attempts:
            self._attempts_used += 1
            attempt = self._attempts_used
            delay = self.policy.delay(attempt)
            why = last_error if say_why else None
            self.emit(ConnectionEvent("reconnecting", time.time(), attempt, delay, why))
            await self._sleep(delay)
            failed = await connect_again()
            if failed is None:
                self.emit(ConnectionEvent("reconnected", time.time(), attempt))
                return None
            last_error, stop = failed
            if stop:
                break
        return last_error

    def give_up(self, last_error: str) -> None:
        """No more attempts: every later request fails with `gave_up`; tell the listeners."""
        used = self._attempts_used
        self.gave_up = TransportError(
            "closed", f"connection lost; gave up after {used} reconnect attempts: {last_error}"
        )
        self.emit(ConnectionEvent("gave_up", time.time(), used, detail=last_error))

    def emit(self, event: ConnectionEvent) -> None:
        """Tell every connection listener about `event`."""
        self.last_event = event
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:
                log.exception("connection listener failed")
