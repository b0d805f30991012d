"""The server pane: everything taskscope knows of the server it watches, in rows of label and
value — who it is, how it is reached and spoken to (with how the era was decided), its tasks
wire and verbs, the connection's state, the last problem and the stored sign-in.

The rows come from `facts()` (built by the App from its state) and are read again every second
while the pane is open, so a reconnect or a refreshed token shows without reopening it. Every
value is plain text; none is parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from app.view.server_facts import ServerFacts
from widgets.css_paths import MODALS_CSS

REFRESH_S = 1.0
KEYS = "esc or s close"


class ServerScreen(ModalScreen[None]):
    """Shows the facts of the server; closes with escape (or `s` again)."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,s,q", "close", "Close", id="server-close"),
    ]

    def __init__(self, facts: Callable[[], ServerFacts]) -> None:
        super().__init__()
        self._facts = facts

    def compose(self) -> ComposeResult:
        with Vertical(id="server-body", classes="small-modal-body"):
            yield Static(id="server-title", classes="small-modal-title")
            yield Static(id="server-rows")
            yield Static(KEYS, classes="small-modal-keys")

    def on_mount(self) -> None:
        self._show()
        self.set_interval(REFRESH_S, self._show)

    def _show(self) -> None:
        facts = self._facts()
        self.query_one("#server-title", Static).update(Text(facts.title, style="bold"))
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(overflow="fold")
        for label, value in facts.rows:
            table.add_row(Text(label), Text(value))
        self.query_one("#server-rows", Static).update(table)

    def action_close(self) -> None:
        self.dismiss(None)
