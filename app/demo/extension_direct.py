"""Running a demo job without a task on the extension-wire server (2026-07-28 and legacy era).

A job that asks questions is replayed from the start on every MRTR round: the first round raises
`InputNeeded` (which the server turns into an `InputRequiredResult`), and the retry carries the
`inputResponses` that `ask` then returns. Status and progress have nowhere to go and are dropped.
"""

from __future__ import annotations

from typing import Any

from app.demo.tool_contract import scaled_sleep


class InputNeeded(Exception):
    """The job asked for input that the current request does not carry yet."""

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__("input required")
        self.requests = requests


class ReadyForTask(Exception):
    """The job paused for the first time with every question so far answered: it now runs as a
    task (see `DirectJobContext(..., pause_ends_call=True)`)."""


class DirectJobContext:
    """`JobContext` for a synchronous call: answers come from the request's `inputResponses`.

    With `pause_ends_call`, the job's first `sleep` raises `ReadyForTask` instead of sleeping: the
    questions it asked up to then were answered in MRTR rounds, and the rest of the work belongs in
    a task."""

    def __init__(
        self, speed: float, responses: dict[str, Any] | None, *, pause_ends_call: bool = False
    ) -> None:
        self._speed = speed
        self._responses = responses or {}
        self._pause_ends_call = pause_ends_call

    async def status(self, message: str) -> None:
        """Dropped: a synchronous call has no status to show."""

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        """Dropped: the demo does not stream progress for synchronous calls."""

    async def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Return the retry's answers when every key has one, else ask for all of them."""
        if all(key in self._responses for key in requests):
            return {key: self._responses[key] for key in requests}
        raise InputNeeded(requests)

    async def sleep(self, seconds: float) -> None:
        """Sleep `seconds` of demo time (or end the call, see the class docstring)."""
        if self._pause_ends_call:
            raise ReadyForTask
        await scaled_sleep(seconds, self._speed)
