"""`sampling/createMessage` answered by a person: the conversation and limits shown, a reply typed.

The user plays the model: they read the system prompt, the messages and the limits, type the
assistant's reply and may set the model name and stop reason. The protocol has no result meaning
"no", so Decline answers with a JSON-RPC error through `reject` where the wire allows it (legacy);
elsewhere the request stays pending and the user is told. Later (or escape) sends nothing.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Select, Static, TextArea

from app.engine.forms.input_text import message_text, sampling_result
from app.engine.safety.sanitize import clean_text, safe_text
from app.engine.tasks.models import InputRequest
from widgets.input_modal import AnswerModal, Reject, Submit
from widgets.plain import toast

STOP_REASONS = ("endTurn", "stopSequence", "maxTokens")
DEFAULT_MODEL = "human"
TEXT_MAX_CHARS = 4000
SAMPLING_BUTTONS = [
    ("Send reply", "input-accept", "primary"),
    ("Decline", "input-reject", "default"),
    ("Later", "input-later", "default"),
]
SAMPLING_KEYS = "tab next · ctrl+s send · esc later (nothing is sent)"
DECLINED_NOTE = "Sampling request declined: the server got an error reply."
UNDECLINABLE_NOTE = (
    "This wire has no way to decline a sampling request; it stays pending (nothing was sent)."
)


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


class InputSampling(AnswerModal):
    """A sampling request: read the conversation, type the assistant's reply, or decline."""

    def __init__(
        self,
        request: InputRequest,
        submit: Submit,
        *,
        server: str = "",
        reject: Reject | None = None,
    ) -> None:
        super().__init__(request, submit, server=server)
        self._reject = reject

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

    @on(Button.Pressed, "#input-reject")
    def action_reject(self) -> None:
        """Decline: a JSON-RPC error where the wire allows it, else say it stays pending."""
        if self.sending:
            return
        if self._reject is None:
            toast(self, UNDECLINABLE_NOTE, severity="warning")
            self.dismiss(None)
            return
        self._set_sending(True)
        self._send_rejection(self._reject)

    @work(exclusive=True, group="input-send", exit_on_error=False)
    async def _send_rejection(self, reject: Reject) -> None:
        try:
            rejected = await reject()
        except Exception as error:  # keep the modal so the user can retry or reply instead
            self._set_sending(False)
            reason = clean_text(str(error) or type(error).__name__, max_len=300)
            self.show_status(f"Not declined: {reason}.", error=True)
            return
        if rejected:
            toast(self, DECLINED_NOTE)
        else:
            toast(self, UNDECLINABLE_NOTE, severity="warning")
        self.dismiss(None)
