"""Which server a new task or an adopted id goes to, when several are watched: a list of the
servers with their state, enter picks one, escape picks none.

Server names and states are shown as plain text; nothing here parses markup.
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

from app.engine.safety.sanitize import one_line
from widgets.css_paths import MODALS_CSS

NAME_MAX = 40
STATE_MAX = 60


class ServerPicker(ModalScreen[str | None]):
    """Dismisses with the chosen server's name, or None."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Cancel", id="server-picker-cancel"),
    ]

    def __init__(self, title: str, servers: Sequence[tuple[str, str]]) -> None:
        """`servers`: each name with its state in words ("connected", "failed: …")."""
        super().__init__()
        self._title = title
        self._servers = list(servers)

    def compose(self) -> ComposeResult:
        options = []
        for name, state in self._servers:
            label = Text(one_line(name, NAME_MAX), style="bold")
            label.append(f"  {one_line(state, STATE_MAX)}", style="dim")
            options.append(Option(label, id=name))
        with Vertical(classes="small-modal-body"):
            yield Static(Text(self._title, style="bold"), classes="small-modal-title")
            yield OptionList(*options, id="server-picker-list")
            yield Static("enter choose · esc cancel", classes="small-modal-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
