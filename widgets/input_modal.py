"""The shared frame of every input modal: who asks, the server's message, and sending the answer.

An `AnswerModal` is a typed function (`ModalScreen[dict | None]`): it dismisses with the response
the server acknowledged, or None when nothing was sent ("Later"). Sending goes through an async
`submit` callable inside the modal; while it runs the modal shows "sending…", and when it fails the
error is shown and everything typed stays, so pressing the same button again retries.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from app.engine.safety.sanitize import clean_text, safe_text
from app.engine.tasks.models import InputRequest
from app.engine.tasks.server_keys import bare_id
from widgets.confirm import ConfirmModal

Submit = Callable[[dict[str, Any]], Awaitable[None]]
"""Sends one response to the server; returns once it is acknowledged, raises when it was not."""

Reject = Callable[[], Awaitable[bool]]
"""Declines the request with a JSON-RPC error; False when the wire has no way to (the request
then stays pending); raises when it failed."""

INPUTS_CSS = Path(__file__).resolve().parent.parent / "styles" / "inputs.tcss"
"""Layout and colours of every input modal; screens load it themselves, so any App can push them."""

MESSAGE_MAX_CHARS = 4000
"""A server message longer than this is cut (with a "(+N chars)" note) to keep the modal usable."""

ACCEPT = {"action": "accept"}
DECLINE = {"action": "decline"}
CANCEL = {"action": "cancel"}


def origin_text(request: InputRequest, server: str) -> Text:
    """ "Task t-1 on server demo asks (elicitation/create)", every part sanitized."""
    text = Text()
    task_id = bare_id(request.task_id, server) if request.task_id else None
    text.append(f"Task {clean_text(task_id)}" if task_id else "A request")
    if server:
        text.append(f" on server {clean_text(server)}")
    text.append(f" asks ({clean_text(request.method)})", style="dim")
    return text


def request_message(request: InputRequest) -> str:
    """The question's text: the normalized message, else `params.message`, else empty."""
    message = request.message or request.params.get("message")
    return message if isinstance(message, str) else ""


class ConfirmDiscard(ConfirmModal):
    """Asks before Cancel throws away typed answers; True means discard and cancel the request."""

    def __init__(self) -> None:
        super().__init__(
            "Discard what you typed and cancel this request?", "", yes="Discard", no="Keep editing"
        )


class AnswerModal(ModalScreen[dict[str, Any] | None]):
    """Base of the input modals: header, status line, button actions and the sending worker.

    Subclasses compose their body between `compose_header()` and `compose_footer()`, implement
    `accept_response()` (None when the answer is not valid yet; they show why), and may override
    `is_dirty()` and `draft_response()` (what escape keeps for the next time it is opened).
    Escape is "later": the question stays pending; cancelling is the explicit Cancel button.
    """

    CSS_PATH = INPUTS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "later", "Later", id="input-later"),
        Binding("ctrl+s", "accept", "Accept", id="input-accept", priority=True),
    ]

    def __init__(self, request: InputRequest, submit: Submit, *, server: str = "") -> None:
        super().__init__()
        self.request = request
        self.server = server
        self._submit = submit
        self.sending = False
        self.kept_draft: dict[str, Any] | None = None
        """What was typed when the modal was put off with Later or escape, to fill in again."""

    # -- composition helpers --------------------------------------------------------------------

    def compose_header(self) -> ComposeResult:
        yield Static(origin_text(self.request, self.server), id="input-origin")
        message = request_message(self.request)
        if message:
            yield Static(
                safe_text(message, allow_newlines=True, max_len=MESSAGE_MAX_CHARS),
                id="input-message",
            )

    def compose_footer(self, buttons: list[tuple[str, str, str]], keys: str) -> ComposeResult:
        """The status line, the buttons as (label, id, variant), and a one-line key hint."""
        yield Static("", id="input-status")
        with Horizontal(classes="input-buttons"):
            for label, button_id, variant in buttons:
                yield Button(label, id=button_id, variant=variant)  # type: ignore[arg-type]
        yield Static(Text(keys, style="dim"), id="input-keys")

    # -- what subclasses decide -----------------------------------------------------------------

    def accept_response(self) -> dict[str, Any] | None:
        """The response Accept sends, or None (after showing why) while the answer is invalid."""
        raise NotImplementedError

    def is_dirty(self) -> bool:
        """Whether the user typed or changed anything (Cancel then asks before discarding it)."""
        return False

    def draft_response(self) -> dict[str, Any] | None:
        """What was typed so far as a response to fill in again, unchecked; None when nothing."""
        return None

    # -- actions --------------------------------------------------------------------------------

    @on(Button.Pressed, "#input-accept")
    def action_accept(self) -> None:
        if self.sending:
            return
        response = self.accept_response()
        if response is not None:
            self.send(response)

    @on(Button.Pressed, "#input-decline")
    def action_decline(self) -> None:
        self.send(DECLINE)

    @on(Button.Pressed, "#input-cancel")
    def action_send_cancel(self) -> None:
        """Cancel the request on the server, asking first when something was typed."""
        if self.sending:
            return
        if self.is_dirty():
            self.app.push_screen(ConfirmDiscard(), self._after_confirm)
        else:
            self.send(dict(CANCEL))

    def _after_confirm(self, discard: bool | None) -> None:
        if discard:
            self.send(dict(CANCEL))

    @on(Button.Pressed, "#input-later")
    def action_later(self) -> None:
        """Close without answering; the request stays pending (the inbox still lists it) and
        what was typed is kept in `kept_draft`."""
        if not self.sending:
            self.kept_draft = self.draft_response()
            self.dismiss(None)

    # -- sending --------------------------------------------------------------------------------

    def send(self, response: dict[str, Any]) -> None:
        """Send `response` through `submit` in a worker; dismiss with it once acknowledged."""
        if self.sending:
            return
        self._set_sending(True)
        self._send(response)

    @work(exclusive=True, group="input-send", exit_on_error=False)
    async def _send(self, response: dict[str, Any]) -> None:
        try:
            await self._submit(response)
        except Exception as error:  # any failure must keep the modal and what was typed
            self._set_sending(False)
            reason = clean_text(str(error) or type(error).__name__, max_len=300)
            self.show_status(
                f"Not sent: {reason}. What you typed is kept; press the button again to retry.",
                error=True,
            )
            return
        self.dismiss(response)

    def _set_sending(self, sending: bool) -> None:
        self.sending = sending
        for button in self.query(".input-buttons Button").results(Button):
            button.disabled = sending
        if sending:
            self.show_status("sending…")

    def show_status(self, text: str, *, error: bool = False) -> None:
        """Show a (plain) status or error line above the buttons."""
        status = self.query_one("#input-status", Static)
        status.update(Text(text))
        status.set_class(error, "-error")
