"""`sampling/createMessage` answered by a person: the conversation and limits shown, a reply typed.

The user plays the model: they read the system prompt, the messages and the limits, type the
assistant's reply and may set the model name and stop reason. The protocol has no way to refuse a
sampling request with a result, so Decline sends nothing (the request stays pending).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Select, Static, TextArea

from app.cli.prompts import message_text
from app.engine.sanitize import clean_text, safe_text
from widgets.input_modal import AnswerModal

STOP_REASONS = ("endTurn", "stopSequence", "maxTokens")
DEFAULT_MODEL = "human"
TEXT_MAX_CHARS = 4000
SAMPLING_BUTTONS = [
    ("Send reply", "input-accept", "primary"),
    ("Decline", "input-later", "default"),
]
SAMPLING_KEYS = "tab next · ctrl+s send · esc decline (nothing is sent)"


def sampling_limits(params: dict[str, Any]) -> str:
    """The request's limits and preferences in one line, e.g. "max tokens 100 · temperature 0.2"."""
    parts: list[str] = []
    labels = (
        ("maxTokens", "max tokens"),
        ("temperature", "temperature"),
        ("includeContext", "include context"),
    )
    for key, label in labels:
        if key in params:
            parts.append(f"{label} {clean_text(params[key], max_len=40)}")
    stops = params.get("stopSequences")
    if isinstance(stops, list) and stops:
        parts.append("stop at " + ", ".join(repr(clean_text(s, max_len=40)) for s in stops[:5]))
    preferences = params.get("modelPreferences")
    hints = preferences.get("hints") if isinstance(preferences, dict) else None
    if isinstance(hints, list):
        names = [clean_text(h.get("name"), max_len=40) for h in hints if isinstance(h, dict)]
        if names:
            parts.append("model hints " + ", ".join(names[:5]))
    return " · ".join(parts)


def sampling_result(reply: str, model: str, stop_reason: str) -> dict[str, Any]:
    """The CreateMessageResult for a typed reply."""
    return {
        "role": "assistant",
        "content": {"type": "text", "text": reply},
        "model": model,
        "stopReason": stop_reason,
    }


class InputSampling(AnswerModal):
    """A sampling request: read the conversation, type the assistant's reply, or decline."""

    def compose(self) -> ComposeResult:
        params = self.request.params
        with Vertical(id="input-body", classes="input-sampling"):
            yield from self.compose_header()
            with VerticalScroll(id="sampling-request"):
                yield from self._compose_request(params)
            with Vertical(classes="sampling-section"):
                yield Static("Assistant reply *", classes="sampling-label")
                yield TextArea(id="sampling-reply", soft_wrap=True, tab_behavior="focus")
            with Horizontal(id="sampling-options", classes="sampling-section"):
                yield Static("Model ", classes="sampling-label")
                yield Input(DEFAULT_MODEL, id="sampling-model", compact=True)
                yield Static("  Stop reason ", classes="sampling-label")
                yield Select(
                    [(reason, reason) for reason in STOP_REASONS],
                    value=STOP_REASONS[0],
                    allow_blank=False,
                    compact=True,
                    id="sampling-stop",
                )
            yield from self.compose_footer(SAMPLING_BUTTONS, SAMPLING_KEYS)

    def _compose_request(self, params: dict[str, Any]) -> ComposeResult:
        system = params.get("systemPrompt")
        if system:
            yield Static("System prompt", classes="sampling-label")
            yield Static(
                safe_text(system, allow_newlines=True, max_len=TEXT_MAX_CHARS),
                id="sampling-system",
            )
        messages = params.get("messages")
        yield Static("Messages", classes="sampling-label" + (" sampling-section" if system else ""))
        shown = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
        conversation = Text()
        for message in shown:
            if conversation:
                conversation.append("\n")
            conversation.append(f"{clean_text(message.get('role'), max_len=20)}: ", style="bold")
            conversation.append(
                clean_text(message_text(message), max_len=TEXT_MAX_CHARS, allow_newlines=True)
            )
        yield Static(conversation or Text("(no messages)", style="dim"), id="sampling-messages")
        limits = sampling_limits(params)
        if limits:
            yield Static(
                Text(limits, style="dim"), id="sampling-limits", classes="sampling-section"
            )

    def on_mount(self) -> None:
        self.query_one("#sampling-reply", TextArea).focus()

    def accept_response(self) -> dict[str, Any] | None:
        reply = self.query_one("#sampling-reply", TextArea).text
        if not reply.strip():
            self.show_status("Type the assistant's reply first.", error=True)
            self.query_one("#sampling-reply", TextArea).focus()
            return None
        model = self.query_one("#sampling-model", Input).value.strip() or DEFAULT_MODEL
        stop = self.query_one("#sampling-stop", Select).value
        return sampling_result(reply, model, stop if isinstance(stop, str) else STOP_REASONS[0])

    def is_dirty(self) -> bool:
        return bool(self.query_one("#sampling-reply", TextArea).text.strip())

    def cancel_response(self) -> dict[str, Any] | None:
        return None
