"""Time as the poller sees it: a monotonic clock, a wall clock and a sleep that agree.

`LoopClock` follows the running asyncio loop, so under `VirtualTimeLoop` (an event loop whose clock
jumps straight to the next timer when nothing else is ready) hours of polling run in milliseconds;
tests, benchmarks and offline replays use it.
"""

from __future__ import annotations

import asyncio
import selectors
import time
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from _typeshed import FileDescriptorLike

T = TypeVar("T")


class Clock(Protocol):
    """The time source the poller schedules with."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards; NextPoll.due is on this clock."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch, stamped on events."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` on the monotonic clock."""
        ...


class LoopClock:
    """The running asyncio loop's clock (time.monotonic on a normal loop) and the wall clock."""

    def monotonic(self) -> float:
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:
            return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class _VirtualSelector(selectors.BaseSelector):
    """Wraps a real selector; instead of blocking until a timer is due, it advances virtual time."""

    def __init__(self) -> None:
        self._inner = selectors.DefaultSelector()
        self.now = 0.0

    def register(
        self, fileobj: FileDescriptorLike, events: int, data: Any = None
    ) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: FileDescriptorLike) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def modify(
        self, fileobj: FileDescriptorLike, events: int, data: Any = None
    ) -> selectors.SelectorKey:
        return self._inner.modify(fileobj, events, data)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._inner.select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            return self._inner.select(None)
        self.now += timeout
        return []

    def get_map(self) -> Mapping[FileDescriptorLike, selectors.SelectorKey]:
        return self._inner.get_map()

    def close(self) -> None:
        self._inner.close()


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose time starts at 0 and jumps to the next timer whenever the loop is idle.

    Only in-process work advances correctly; real I/O still works but takes no virtual time.
    """

    def __init__(self) -> None:
        self._virtual = _VirtualSelector()
        super().__init__(self._virtual)

    def time(self) -> float:
        return self._virtual.now


def run_in_virtual_time(main: Coroutine[Any, Any, T]) -> T:
    """Run `main` to completion on a fresh VirtualTimeLoop and close the loop."""
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(main)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
