"""Two small modals: a yes/no confirmation and a one-line text prompt (task id, file path).

Both are typed functions: `ConfirmModal` dismisses with a bool, `TextPrompt` with the text or
None. Messages are built by the caller from sanitized text; nothing here parses markup.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from widgets.css_paths import MODALS_CSS


class ConfirmModal(ModalScreen[bool]):
    """Asks one question the way every confirmation does: enter confirms (the confirming button
    has focus), escape declines; no letter, so `y` (copy elsewhere) never means yes here."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decline", "No", id="confirm-no"),
    ]

    def __init__(self, title: str, body: Text | str, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__(classes="small-modal")
        self._title = title
        self._body = body if isinstance(body, Text) else Text(body)
        self._yes, self._no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical(classes="small-modal-body"):
            yield Static(Text(self._title, style="bold"), classes="small-modal-title")
            if self._body:
                yield Static(self._body, classes="small-modal-text")
            with Horizontal(classes="small-modal-buttons"):
                yield Button(self._yes, variant="error", id="confirm-yes")
                yield Button(self._no, id="confirm-no")
            yield Static(
                f"enter {self._yes.lower()} · esc {self._no.lower()}",
                classes="small-modal-keys confirm-keys",
            )

    def on_mount(self) -> None:
        self.query_one("#confirm-yes", Button).focus()

    @on(Button.Pressed, "#confirm-yes")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-no")
    def action_decline(self) -> None:
        self.dismiss(False)


class TextPrompt(ModalScreen[str | None]):
    """Asks for one line of text; enter submits (blank is refused), escape gives None."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Cancel", id="prompt-cancel"),
    ]

    def __init__(
        self, title: str, hint: str = "", *, value: str = "", placeholder: str = ""
    ) -> None:
        super().__init__(classes="small-modal")
        self._title, self._hint = title, hint
        self._value, self._placeholder = value, placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="small-modal-body"):
            yield Static(Text(self._title, style="bold"), classes="small-modal-title")
            if self._hint:
                yield Static(Text(self._hint), classes="small-modal-text")
            yield Input(self._value, placeholder=self._placeholder, id="prompt-input")
            yield Static("enter to confirm · esc to cancel", classes="small-modal-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def submit(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.dismiss(text)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
