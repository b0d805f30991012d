"""A short list to choose one item from: enter picks the highlighted one, escape picks none.

A typed function (`ModalScreen[str | None]`, dismissed with the chosen item's id). The labels are
built by the caller as Rich `Text` from cleaned text; nothing here parses markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from widgets.css_paths import MODALS_CSS


class ChoicePicker(ModalScreen[str | None]):
    """Dismisses with the chosen item's id, or None."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Cancel", id="choice-cancel"),
    ]

    def __init__(
        self, title: str, choices: Sequence[tuple[str, Text]], *, list_id: str = "choice-list"
    ) -> None:
        """`choices`: each item's id with its label."""
        super().__init__()
        self._title = title
        self._choices = list(choices)
        self._list_id = list_id

    def compose(self) -> ComposeResult:
        options = [Option(label, id=item) for item, label in self._choices]
        with Vertical(classes="small-modal-body"):
            yield Static(Text(self._title, style="bold"), classes="small-modal-title")
            yield OptionList(*options, id=self._list_id, classes="choice-list")
            yield Static("enter choose · esc cancel", classes="small-modal-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
