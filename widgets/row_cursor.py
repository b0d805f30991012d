"""The cursor keys of a list drawn line by line (the task table, the time view): one row up or
down, a page, the first or the last row, all through the widget's own `move_cursor`."""

from __future__ import annotations

from textual.binding import Binding, BindingType

CURSOR_BINDINGS: list[BindingType] = [
    Binding("up", "cursor_up", "Cursor up", show=False),
    Binding("down", "cursor_down", "Cursor down", show=False),
    Binding("pageup", "page_up", "Page up", show=False),
    Binding("pagedown", "page_down", "Page down", show=False),
    Binding("home,ctrl+home", "first_row", "First row", show=False),
    Binding("end,ctrl+end", "last_row", "Last row", show=False),
]
"""The bindings behind the actions of `RowCursorKeys`; a widget lists them in its BINDINGS."""


class RowCursorKeys:
    """The actions of `CURSOR_BINDINGS` for a widget with a `cursor_row`, a `move_cursor(row)`
    that clamps and scrolls, `cursor_page()` rows to a page and `cursor_rows()` rows in all."""

    cursor_row: int

    def move_cursor(self, row: int) -> None:
        raise NotImplementedError

    def cursor_page(self) -> int:
        """How many rows a page key moves."""
        raise NotImplementedError

    def cursor_rows(self) -> int:
        """How many rows there are."""
        raise NotImplementedError

    def before_cursor_key(self) -> None:
        """Called before every cursor key (the task table drops its mouse hover there)."""

    def action_cursor_up(self) -> None:
        self.before_cursor_key()
        self.move_cursor(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.before_cursor_key()
        self.move_cursor(self.cursor_row + 1)

    def action_page_up(self) -> None:
        self.before_cursor_key()
        self.move_cursor(self.cursor_row - self.cursor_page())

    def action_page_down(self) -> None:
        self.before_cursor_key()
        self.move_cursor(self.cursor_row + self.cursor_page())

    def action_first_row(self) -> None:
        self.before_cursor_key()
        self.move_cursor(0)

    def action_last_row(self) -> None:
        self.before_cursor_key()
        self.move_cursor(self.cursor_rows() - 1)
