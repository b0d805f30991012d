"""Running a demo job without a task on the extension-wire server (2026-07-28 and legacy era).

A job that asks questions is replayed from the start on every MRTR round: the first round raises
`InputNeeded` (which the server turns into an `InputRequiredResult`), and the retry carries the
`inputResponses` that `ask` then returns. Status and progress have nowhere to go and are dropped.
"""

from __future__ import annotations

from typing import Any

from app.demo.catalog import scaled_sleep


class InputNeeded(Exception):
    """The job asked for input that the current request does not carry yet."""

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__("input required")
        self.requests = requests


class DirectJobContext:
    """`JobContext` for a synchronous call: answers come from the request's `inputResponses`."""

    def __init__(self, speed: float, responses: dict[str, Any] | None) -> None:
        self._speed = speed
        self._responses = responses or {}

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
        """Sleep `seconds` of demo time."""
        await scaled_sleep(seconds, self._speed)


def missing_capability(
    requests: dict[str, dict[str, Any]], capabilities: dict[str, Any]
) -> dict[str, Any] | None:
    """The client capability the requests need but `capabilities` lacks, as a `ClientCapabilities`
    fragment (e.g. `{"elicitation": {"url": {}}}`), or None when the client may be asked."""
    for request in requests.values():
        method = request.get("method")
        params = request.get("params") or {}
        if method == "elicitation/create":
            declared = capabilities.get("elicitation")
            if not isinstance(declared, dict):
                return {"elicitation": {}}
            if params.get("mode") == "url" and "url" not in declared:
                return {"elicitation": {"url": {}}}
            if params.get("mode", "form") == "form" and declared and "form" not in declared:
                return {"elicitation": {"form": {}}}
        elif method == "sampling/createMessage" and "sampling" not in capabilities:
            return {"sampling": {}}
        elif method == "roots/list" and "roots" not in capabilities:
            return {"roots": {}}
    return None
