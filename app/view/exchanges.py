"""Pairs the RPC log's frames into exchanges: a request with its response, a server request with
our answer, a notification alone.

The connection numbers both frames of an exchange alike (`Frame.exchange`); the book keeps the
newest exchanges by that number, as many as the RPC log keeps rows, so what it holds is bounded
however long the App runs. An exchange is moved to the newest end when its second frame comes,
so a long request (a legacy `tasks/result` stream) still finds its request when answered late.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.engine.rpc.rpc_types import Frame


def opens_exchange(frame: Frame) -> bool:
    """Whether `frame` is a request or notification (the first frame of an exchange) rather
    than a response, an answer or something that came instead of one. An outgoing frame that is
    no JSON-RPC message is an HTTP request of an OAuth flow (discovery, registration, token)."""
    if frame.message is None:
        return frame.direction == "out"
    return "method" in frame.message


@dataclass(frozen=True, slots=True)
class Exchange:
    """The frames of one exchange that are still kept: the request (or notification, or server
    request) and the response (or our answer, or the failure that came instead)."""

    request: Frame | None = None
    response: Frame | None = None

    @property
    def frames(self) -> tuple[Frame, ...]:
        """The frames kept, request first."""
        return tuple(frame for frame in (self.request, self.response) if frame is not None)

    @property
    def lone(self) -> bool:
        """A notification (or a frame no request is known for): nothing pairs with it."""
        return self.frames[0].exchange is None

    def with_frame(self, frame: Frame) -> Exchange:
        """This exchange with `frame` in its place (a resent request replaces the first one)."""
        if opens_exchange(frame):
            return replace(self, request=frame)
        return replace(self, response=frame)


def alone(frame: Frame) -> Exchange:
    """The exchange of a frame shown without its partner."""
    return Exchange().with_frame(frame)


class ExchangeBook:
    """The newest `capacity` exchanges by number; frames without one are never kept here."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._exchanges: OrderedDict[int, Exchange] = OrderedDict()

    def __len__(self) -> int:
        return len(self._exchanges)

    def add(self, frames: Iterable[Frame]) -> None:
        """File each frame under its exchange, dropping the oldest exchanges beyond capacity."""
        kept = self._exchanges
        for frame in frames:
            number = frame.exchange
            if number is None:
                continue
            known = kept.get(number)
            kept[number] = (known or Exchange()).with_frame(frame)
            if known is not None:
                kept.move_to_end(number)
            elif len(kept) > self.capacity:
                kept.popitem(last=False)

    def find(self, frame: Frame) -> Exchange:
        """The exchange `frame` belongs to, with whichever partner is still kept."""
        found = self._exchanges.get(frame.exchange) if frame.exchange is not None else None
        return found if found is not None else alone(frame)

    def numbered(self, number: int) -> Exchange | None:
        """The exchange numbered `number`, if it is still kept."""
        return self._exchanges.get(number)


def task_frame(frames: Sequence[Frame], task_id: str, offending: object = None) -> Frame | None:
    """The frame `v` opens for a task: the one carrying its `offending` value (a protocol
    violation's frame, as a whole message or its result or params), else the newest answer
    about the task, else its newest frame; None when no kept frame is about it."""
    about = [frame for frame in reversed(frames) if frame.task_id == task_id]
    if offending is not None:
        for frame in about:
            message = frame.message or {}
            if offending in (message, message.get("result"), message.get("params")):
                return frame
    answers = (frame for frame in about if frame.direction == "in" and not opens_exchange(frame))
    return next(answers, about[0] if about else None)


class FrameBuffer:
    """The App's recent JSON-RPC frames, the one store the RPC log, `v` and the exchange view
    read: the newest `capacity` frames, and their exchanges (as many, so bounded too)."""

    def __init__(self, capacity: int) -> None:
        self._frames: deque[Frame] = deque(maxlen=capacity)
        self._exchanges = ExchangeBook(capacity)

    @property
    def frames(self) -> tuple[Frame, ...]:
        """The frames kept, oldest first."""
        return tuple(self._frames)

    def __len__(self) -> int:
        return len(self._frames)

    def __getitem__(self, index: int) -> Frame:
        """The frame at `index`, oldest first."""
        return self._frames[index]

    def add(self, frames: Sequence[Frame]) -> None:
        """Keep a batch of frames, dropping the oldest beyond the capacity."""
        self._frames.extend(frames)
        self._exchanges.add(frames)

    def exchange(self, frame: Frame) -> Exchange:
        """The exchange `frame` belongs to, with whichever partner is still kept."""
        return self._exchanges.find(frame)

    def numbered(self, number: int) -> Exchange | None:
        """The exchange numbered `number` (as a check's evidence names it), if still kept."""
        return self._exchanges.numbered(number)

    def about_task(self, task_id: str, offending: object = None) -> Frame | None:
        """The frame `v` opens for a task (see `task_frame`)."""
        return task_frame(self._frames, task_id, offending)
