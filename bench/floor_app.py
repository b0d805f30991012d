"""The start-up floor: a minimal Textual app (Header, a DataTable with taskscope's column labels,
Footer), measured exactly like taskscope's own first frame and idle memory."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header

LABELS = ("Status", "Tool", "Task", "Age", "Changed", "TTL left", "Next poll", "Prog", "Message")


class FloorApp(App[None]):
    """Header, one empty DataTable and Footer; q quits."""

    BINDINGS = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*LABELS)


if __name__ == "__main__":
    FloorApp().run()
