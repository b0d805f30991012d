"""Messages the engine workers post to the App, and the batcher that paces them.

Task events are deltas: they are batched (at most four flushes a second) but never coalesced
away. Frames for the RPC log ride in the same batches, and the App's clock asks for a flush too
(`poke`), so everything that redraws the task table keeps one cadence.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # annotations only: the App's first frame does not load the engine
    from app.engine.record.recording import SessionInfo
    from app.engine.rpc.rpc_types import Frame
    from app.engine.tasks.events import TaskEvent
    from app.tui.startup import LoadedSource
    from app.view.sign_in import SignInState

FLUSH_INTERVAL_S = 0.26
"""A little over a quarter second: with the clock folded in, the table repaints at most four times
a second, even counted over a window that starts just before a flush."""


class TaskEventsArrived(Message):
    """A batch of poller events, in order, with the JSON-RPC frames for the RPC log seen meanwhile
    (one message per flush, so the list and the log change in the same repaint)."""

    def __init__(self, events: Sequence[TaskEvent], frames: Sequence[Frame] = ()) -> None:
        super().__init__()
        self.events = tuple(events)
        self.frames = tuple(frames)


class ActionReplayed(Message):
    """A recording's action that the App carried out itself (`restored`, `cleared`, `forgot`),
    to carry out again: each task's id (row key) with its particulars."""

    def __init__(self, action: str, tasks: Mapping[str, Mapping[str, Any]]) -> None:
        super().__init__()
        self.action = action
        self.tasks = tasks


class SignInChanged(Message):
    """A sign-in the server asked for moved on a step (or ended)."""

    def __init__(self, state: SignInState) -> None:
        super().__init__()
        self.state = state


class SourceLoaded(Message):
    """The deferred source is built (the engine imported); the App takes it and connects it."""

    def __init__(self, loaded: LoadedSource) -> None:
        super().__init__()
        self.loaded = loaded


class SourceConnected(Message):
    """The source is open; the header can show who the server is."""

    def __init__(self, info: SessionInfo) -> None:
        super().__init__()
        self.info = info


class SourceFailed(Message):
    """The source could not be opened, or its poller stopped with an error."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class CancelAcknowledged(Message):
    """The server took a cooperative (extension) `tasks/cancel`; show "cancel requested"."""

    def __init__(self, task_id: str, at: float) -> None:
        super().__init__()
        self.task_id = task_id
        self.at = at


class Batcher:
    """Collects events and frames and hands them to `flush` together, at most once per
    `interval` seconds.

    The first item after a quiet spell is flushed on the next loop turn, so a single event shows
    at once; a burst is gathered until the interval has passed. `poke` asks for a flush with or
    without items (the App's clock), on the same cadence. Call from the event loop only.
    """

    def __init__(
        self,
        flush: Callable[[list[TaskEvent], list[Frame]], None],
        interval: float = FLUSH_INTERVAL_S,
    ) -> None:
        self._flush = flush
        self._interval = interval
        self._events: list[TaskEvent] = []
        self._frames: list[Frame] = []
        self._handle: asyncio.TimerHandle | asyncio.Handle | None = None
        self._last_flush = float("-inf")

    def add_event(self, event: TaskEvent) -> None:
        """Queue one task event; schedules a flush if none is pending."""
        self._events.append(event)
        self.poke()

    def add_frame(self, frame: Frame) -> None:
        """Queue one frame for the RPC log; schedules a flush if none is pending."""
        self._frames.append(frame)
        self.poke()

    def poke(self) -> None:
        """Schedule a flush (even of nothing) if none is pending: at once after a quiet spell,
        else one interval after the last flush."""
        if self._handle is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_flush + self._interval - loop.time()
        if wait <= 0:
            self._handle = loop.call_soon(self._run)
        else:
            self._handle = loop.call_later(wait, self._run)

    def flush_now(self) -> None:
        """Flush what is queued at once (so what comes next is handled after it)."""
        if self._handle is not None:
            self._handle.cancel()
        self._run()

    def _run(self) -> None:
        self._handle = None
        self._last_flush = asyncio.get_running_loop().time()
        events, self._events = self._events, []
        frames, self._frames = self._frames, []
        self._flush(events, frames)

    def cancel(self) -> None:
        """Drop anything queued and the pending flush."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._events = []
        self._frames = []
