"""A Line-API list of task ids, one a row between fixed lines above and below, whose cursor follows
the keys and says which task is highlighted: what the task table and the time view share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import events
from textual.geometry import Region, Spacing
from textual.message import Message
from textual.scroll_view import ScrollView

from widgets.row_cursor import RowCursorKeys


class TaskCursorView(RowCursorKeys, ScrollView, inherit_bindings=False):
    """Rows of task ids (`_order`) scrolled under `ROWS_ABOVE` fixed lines and above
    `rows_below()` fixed lines, with a cursor that posts `selected_message` when its task
    changes."""

    ROWS_ABOVE: ClassVar[int] = 0
    """Lines fixed above the rows (a header, an axis)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._order: list[str] = []
        self._index: dict[str, int] = {}
        self._announced: str | None = None
        self.cursor_row = 0
        """Index (into `order`) of the highlighted row; 0 when nothing is shown."""

    def rows_below(self) -> int:
        """Lines fixed below the rows (a legend)."""
        return 0

    def selected_message(self, task_id: str | None) -> Message:
        """The message that says the task under the cursor is now `task_id`."""
        raise NotImplementedError

    @property
    def selected_task_id(self) -> str | None:
        """The task id under the cursor, or None when nothing is shown."""
        if 0 <= self.cursor_row < len(self._order):
            return self._order[self.cursor_row]
        return None

    @property
    def order(self) -> Sequence[str]:
        """The task ids in the order they are shown."""
        return tuple(self._order)

    @property
    def row_count(self) -> int:
        return len(self._order)

    def select_task(self, task_id: str) -> bool:
        """Move the cursor to `task_id`; False when that task is not shown."""
        index = self._index.get(task_id)
        if index is None:
            return False
        self.move_cursor(index)
        return True

    def move_cursor(self, row: int) -> None:
        """Highlight the row at index `row` (clamped to the rows shown), scrolled into view."""
        if not self._order:
            return
        row = max(0, min(row, len(self._order) - 1))
        if row != self.cursor_row:
            self._refresh_index(self.cursor_row)
            self.cursor_row = row
            self._refresh_index(row)
        self._scroll_to_cursor()
        self._announce()

    def _scroll_to_cursor(self) -> None:
        """Scroll the cursor row into view between the fixed lines."""
        self.scroll_to_region(
            Region(0, self.cursor_row + self.ROWS_ABOVE, self.scrollable_content_region.width, 1),
            spacing=Spacing(self.ROWS_ABOVE, 0, self.rows_below(), 0),
            animate=False,
            force=True,
            immediate=True,
        )

    def cursor_page(self) -> int:
        return max(self._rows_tall(), 1)

    def cursor_rows(self) -> int:
        return len(self._order)

    def _rows_tall(self) -> int:
        """Lines the scrolling rows get between the fixed ones."""
        return self.scrollable_content_region.height - self.ROWS_ABOVE - self.rows_below()

    def _visible_indexes(self) -> range:
        first = int(self.scroll_y)
        return range(first, min(first + max(self._rows_tall(), 0), len(self._order)))

    def _refresh_index(self, index: int | None) -> None:
        """Repaint the row at `index` if it is on screen."""
        if index is not None and index in self._visible_indexes():
            self.refresh_line(index + self.ROWS_ABOVE)

    def _row_under(self, event: events.MouseEvent) -> int | None:
        """The index of the row under the mouse, or None off the rows."""
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        bottom = self.scrollable_content_region.height - self.rows_below()
        if not self.ROWS_ABOVE <= offset.y < bottom:
            return None
        index = int(self.scroll_y) + offset.y - self.ROWS_ABOVE
        return index if index < len(self._order) else None

    def _announce(self) -> None:
        selected = self.selected_task_id
        if selected != self._announced:
            self._announced = selected
            self.post_message(self.selected_message(selected))
