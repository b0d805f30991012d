"""A tiny host App for the input-modal tests: pushes one modal, records what it dismissed with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from app.engine.tasks.models import InputKind, InputRequest

INPUT_SIZES = [(200, 50), (120, 36), (80, 24)]


class FakeSubmit:
    """An async `submit` that records every response and fails the first `failures` calls."""

    def __init__(self, failures: int = 0) -> None:
        self.sent: list[dict[str, Any]] = []
        self.failures = failures

    async def __call__(self, response: dict[str, Any]) -> None:
        self.sent.append(response)
        if self.failures:
            self.failures -= 1
            raise ConnectionError("connection lost")


class InputHost(App[None]):
    """Pushes the screen `make_screen` builds on mount; `results` gets what it dismissed with."""

    def __init__(self, make_screen: Callable[[], Screen[Any]] | None) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.results: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("host app")

    def on_mount(self) -> None:
        if self.make_screen is not None:
            self.push_screen(self.make_screen(), self.results.append)


def form_request(
    schema: dict[str, Any], message: str = "Describe the server to provision."
) -> InputRequest:
    """A form elicitation of task t-1, as an adapter would hand it over."""
    return InputRequest(
        key="spec",
        kind=InputKind.FORM,
        method="elicitation/create",
        params={"mode": "form", "message": message, "requestedSchema": schema},
        wire="extension",
        task_id="t-1",
        message=message,
    )


PUNYCODE_URL = "https://xn--bcher-kva.example/authorize?state=1"


def url_request(url: str = PUNYCODE_URL) -> InputRequest:
    message = "Sign in to the book shop to continue."
    return InputRequest(
        key="7",
        kind=InputKind.URL,
        method="elicitation/create",
        params={"mode": "url", "message": message, "url": url, "elicitationId": "e-1"},
        wire="legacy",
        task_id="t-9",
        message=message,
    )


def sampling_request() -> InputRequest:
    return InputRequest(
        key="capital",
        kind=InputKind.SAMPLING,
        method="sampling/createMessage",
        params={
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Capital of France?"}}
            ],
            "systemPrompt": "Answer in one word.",
            "maxTokens": 100,
            "temperature": 0.2,
        },
        wire="extension",
        task_id="t-3",
    )
