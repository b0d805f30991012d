"""Measures poll pacing from the wire: for every `tasks/get` sent, the time since the answer to the
previous one, divided by the interval the pacing rule intended, and whether it came sooner than
the server asked (its `pollInterval(Ms)` hint, or a `Retry-After`).

It listens to a `Connection`'s frames, so it sees what really went out and came in, not what the
poller believes it did. A frame's time is stamped when the client handles it, the earliest moment
the client knew the answer, so the measured intervals are never flattered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.polling.pacing import next_delay
from app.engine.rpc.rpc_types import Frame

BIN = 0.001
"""Ratios are counted in bins this wide, so a long run holds constant memory (the memory
benchmark measures the App's process with the probe inside it)."""


@dataclass
class _Answered:
    at: float
    hint_ms: int | None
    retry_after_s: float | None
    errors: int


@dataclass
class PacingProbe:
    """A frame listener: `connection.add_frame_listener(probe)`; read the figures afterwards."""

    bins: dict[int, int] = field(default_factory=dict)
    early: int = 0
    polls: int = 0
    _answers: dict[str, _Answered] = field(default_factory=dict)
    _hints: dict[str, int] = field(default_factory=dict)
    _errors: dict[str, int] = field(default_factory=dict)

    def __call__(self, frame: Frame) -> None:
        self.observe(frame)

    def observe(self, frame: Frame, server: str = "") -> None:
        """Count `frame`; `server` (one of several) keeps equal task ids of two servers apart
        without copying every frame."""
        if frame.method != "tasks/get" or frame.task_id is None:
            return
        task_key = f"{server}:{frame.task_id}" if server else frame.task_id
        if frame.direction == "out":
            self._sent(task_key, frame.at)
        elif frame.message is not None and "id" in frame.message:
            self._answered(task_key, frame)

    def reset(self) -> None:
        """Forget the figures so far (keeps what is known about each task's last answer)."""
        self.bins.clear()
        self.early = 0
        self.polls = 0

    def p(self, fraction: float) -> float:
        """A quantile of measured ÷ intended intervals (to within `BIN`); 0.0 before any poll."""
        if not self.polls:
            return 0.0
        rank = fraction * (self.polls - 1)
        seen = 0
        for index in sorted(self.bins):
            seen += self.bins[index]
            if seen > rank:
                return index * BIN
        return max(self.bins) * BIN

    def _sent(self, task_id: str, at: float) -> None:
        previous = self._answers.pop(task_id, None)
        if previous is None:
            return  # the first poll of a task has no previous answer to pace from
        intended, _term = next_delay(
            server_hint_ms=previous.hint_ms,
            user_min_ms=None,
            retry_after_s=previous.retry_after_s,
            consecutive_errors=previous.errors,
        )
        asked = max((previous.hint_ms or 0) / 1000, previous.retry_after_s or 0.0)
        measured = at - previous.at
        self.polls += 1
        index = round(measured / intended / BIN)
        self.bins[index] = self.bins.get(index, 0) + 1
        if measured < asked:
            self.early += 1

    def _answered(self, task_id: str, frame: Frame) -> None:
        message = frame.message or {}
        result = message.get("result")
        if isinstance(result, dict):
            hint = _hint(result)
            if hint is not None:
                self._hints[task_id] = hint
            self._errors[task_id] = 0
            retry_after = None
        else:
            self._errors[task_id] = self._errors.get(task_id, 0) + 1
            retry_after = _retry_after(frame.headers)
        self._answers[task_id] = _Answered(
            frame.at, self._hints.get(task_id), retry_after, self._errors[task_id]
        )


def _hint(result: dict[str, Any]) -> int | None:
    for key in ("pollIntervalMs", "pollInterval"):
        value = result.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _retry_after(headers: dict[str, str]) -> float | None:
    for key, value in headers.items():
        if key.lower() == "retry-after":
            try:
                return float(value)
            except ValueError:
                return None
    return None
