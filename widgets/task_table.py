"""The live task list: a keyed `DataTable` patched in place, so rows never jump under the cursor.

`TaskTable.sync` takes the App's watched tasks and the order to show them in, and touches only
the cells whose text changed; the cursor stays on the same task id through inserts, removals and
re-sorts. Every server string goes through `one_line`, and cells are `Text`, never markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.theme import Theme
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from app.engine.sanitize import one_line
from app.tui.formatting import (
    SEVERITY_COLOURS,
    STATUS_COLOURS,
    format_age,
    format_next_poll,
    format_progress,
    format_since,
    format_ttl_left,
    row_marks,
    short_id,
    status_label,
    theme_style,
)
from app.tui.state import WatchedTask


@dataclass(frozen=True, slots=True)
class TaskColumn:
    """One fixed-width column: its key (for `update_cell`), header and width in cells."""

    key: str
    label: str
    width: int


COLUMNS: tuple[TaskColumn, ...] = (
    TaskColumn("mark", "", 1),
    TaskColumn("status", "Status", 11),
    TaskColumn("tool", "Tool", 16),
    TaskColumn("id", "Task", 10),
    TaskColumn("age", "Age", 6),
    TaskColumn("changed", "Changed", 7),
    TaskColumn("ttl", "TTL left", 8),
    TaskColumn("next", "Next poll", 19),
    TaskColumn("progress", "Prog", 5),
    TaskColumn("marks", "Marks", 24),
    TaskColumn("message", "Message", 48),
)
COLUMN_KEYS: tuple[str, ...] = tuple(column.key for column in COLUMNS)
_WIDTHS = {column.key: column.width for column in COLUMNS}
_STATIC_KEYS = ("mark", "status", "tool", "id", "progress", "marks", "message")
MARK_GLYPH = "▸"
"""Shown in the first column of a row the user marked for a bulk action."""
_CLOCK_KEYS = ("age", "changed", "ttl", "next")


class ClockCell:
    """A clock cell (age, changed, TTL left, next poll) whose text is made when it is drawn.

    It reads its row's current `WatchedTask` and the table's current time, so a new `now` costs
    one repaint of the rows on screen instead of an `update_cell` on every row.
    """

    __slots__ = ("_key", "_table", "_task_id")

    def __init__(self, table: TaskTable, task_id: str, key: str) -> None:
        self._table = table
        self._task_id = task_id
        self._key = key

    def text(self) -> Text:
        """The cell as it reads now."""
        return self._table.clock_text(self._task_id, self._key)

    def __str__(self) -> str:
        return self.text().plain

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = _WIDTHS[self._key]
        return Measurement(width, width)


Cell = Text | ClockCell
Cells = tuple[Cell, ...]


class TaskTable(DataTable[Cell]):
    """The task list, one row per task id; `sync` patches it in place from the App's state."""

    DEFAULT_CSS = """
    TaskTable {
        height: 1fr;
    }
    """

    class TaskSelected(Message):
        """The highlighted task changed (None when the table became empty)."""

        def __init__(self, table: TaskTable, task_id: str | None) -> None:
            super().__init__()
            self.table = table
            self.task_id = task_id

        @property
        def control(self) -> TaskTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(
            id=id, classes=classes, cursor_type="row", zebra_stripes=False, show_row_labels=False
        )
        self._order: list[str] = []
        self._cells: dict[str, Cells] = {}
        self._sources: dict[str, WatchedTask] = {}
        self._styles: dict[str, Style] = {}
        self._announced: str | None = None
        self._last_sync: (
            tuple[Mapping[str, WatchedTask], Sequence[str], float, frozenset[str]] | None
        ) = None
        self._marked: frozenset[str] = frozenset()
        self._now = 0.0

    def on_mount(self) -> None:
        for column in COLUMNS:
            self.add_column(column.label, width=column.width, key=column.key)
        self._styles = {}
        self.app.theme_changed_signal.subscribe(self, self._on_theme_changed)

    @property
    def selected_task_id(self) -> str | None:
        """The task id under the cursor, or None when the table is empty."""
        if not self._order or not self.is_valid_row_index(self.cursor_row):
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return row_key.value

    @property
    def order(self) -> Sequence[str]:
        """The task ids in the order they are shown."""
        return tuple(self._order)

    def select_task(self, task_id: str) -> bool:
        """Move the cursor to `task_id`; False when that task is not shown."""
        if task_id not in self._cells:
            return False
        self.move_cursor(row=self.get_row_index(task_id), animate=False)
        return True

    @property
    def marked(self) -> frozenset[str]:
        """The task ids shown as marked (the App's bulk-action selection)."""
        return self._marked

    def sync(
        self,
        rows: Mapping[str, WatchedTask],
        order: Sequence[str],
        now: float,
        marked: AbstractSet[str] = frozenset(),
    ) -> None:
        """Show `order` (ids into `rows`) at wall-clock time `now`, patching only what changed.

        A row whose `WatchedTask` is the same object as last time is not touched; the clock cells
        (age, changed, TTL, next poll) are drawn from `now` when the visible rows are repainted.
        Ids in `marked` carry `MARK_GLYPH` in the first column.
        """
        marked = frozenset(marked)
        for task_id in marked ^ self._marked:
            self._sources.pop(task_id, None)  # its mark cell must be rebuilt
        self._marked = marked
        self._last_sync = (rows, order, now, marked)
        wanted = [task_id for task_id in dict.fromkeys(order) if task_id in rows]
        wanted_set = set(wanted)
        selected = self.selected_task_id
        old_index = self._order.index(selected) if selected in self._cells else None
        old_scroll = self.scroll_y
        stale = [task_id for task_id in self._order if task_id not in wanted_set]
        redraw_clocks = now != self._now
        self._now = now
        with self.app.batch_update():
            if stale and len(stale) > len(wanted):
                self.clear()
                self._order, self._cells, self._sources = [], {}, {}
            else:
                for task_id in stale:
                    self.remove_row(task_id)
                    del self._cells[task_id]
                    del self._sources[task_id]
                self._order = [task_id for task_id in self._order if task_id in wanted_set]
            for task_id in wanted:
                redraw_clocks |= self._patch_row(task_id, rows[task_id])
            if redraw_clocks:
                self._update_count += 1  # the visible rows' cached lines are stale
                self.refresh()
            if self._order != wanted:
                self._place_rows(wanted)
            self._keep_cursor(selected, old_index, old_scroll)
        self._announce()

    def _patch_row(self, task_id: str, watched: WatchedTask) -> bool:
        """Add or patch one row; True when its clock cells may read differently now."""
        previous = self._cells.get(task_id)
        if previous is not None and self._sources.get(task_id) is watched:
            return False
        self._sources[task_id] = watched
        static = self._static_cells(watched)
        cells = tuple(
            static[key] if key in static else ClockCell(self, task_id, key) for key in COLUMN_KEYS
        )
        if previous is None:
            self.add_row(*cells, key=task_id)
            self._order.append(task_id)
            self._cells[task_id] = cells
            return False
        for key in _STATIC_KEYS:
            index = COLUMN_KEYS.index(key)
            if cells[index] != previous[index]:
                self.update_cell(task_id, key, cells[index])
        self._cells[task_id] = tuple(
            new if key in static else old
            for key, new, old in zip(COLUMN_KEYS, cells, previous, strict=True)
        )
        return True

    def _place_rows(self, order: list[str]) -> None:
        """Put rows in `order` without rebuilding them (what `DataTable.sort` does, by row key)."""
        self._row_locations = type(self._row_locations)(
            {RowKey(task_id): index for index, task_id in enumerate(order)}
        )
        self._update_count += 1
        self._order = list(order)
        self.refresh()

    def _keep_cursor(self, selected: str | None, old_index: int | None, old_scroll: float) -> None:
        if selected is None or selected not in self._cells or old_index is None:
            return
        new_index = self._order.index(selected)
        if new_index != self.cursor_row:
            self.move_cursor(row=new_index, animate=False, scroll=False)
        if new_index != old_index:
            self.scroll_to(y=max(old_scroll + new_index - old_index, 0), animate=False)

    def _announce(self) -> None:
        selected = self.selected_task_id
        if selected != self._announced:
            self._announced = selected
            self.post_message(self.TaskSelected(self, selected))

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._announce()

    def _on_theme_changed(self, _theme: Theme) -> None:
        self._styles = {}
        self._sources = {}  # rebuild every row's colours on the next sync
        if self._last_sync is not None:
            self.sync(*self._last_sync)

    def _style(self, variable: str) -> Style:
        if not variable:
            return Style(dim=True)
        style = self._styles.get(variable)
        if style is None:
            style = theme_style(self.app.theme_variables, variable)
            self._styles[variable] = style
        return style

    def _static_cells(self, watched: WatchedTask) -> dict[str, Text]:
        task = watched.task
        status_style = self._style(STATUS_COLOURS.get(watched.status, ""))
        marks = Text(no_wrap=True, end="")
        budget = _WIDTHS["marks"]
        for text, severity in row_marks(watched):
            room = budget - marks.cell_len - (1 if marks else 0)
            if room <= 0:
                break
            if marks:
                marks.append(" ")
            marks.append(one_line(text, room), self._style(SEVERITY_COLOURS[severity]))
        mark = MARK_GLYPH if watched.task_id in self._marked else ""
        return {
            "mark": _cell(mark, _WIDTHS["mark"], self._style("text-accent")),
            "status": _cell(status_label(watched.status), _WIDTHS["status"], status_style),
            "tool": _cell(watched.tool_name or "—", _WIDTHS["tool"]),
            "id": _cell(short_id(watched.task_id, _WIDTHS["id"]), _WIDTHS["id"]),
            "progress": _cell(format_progress(task.progress if task else None), 5),
            "marks": marks,
            "message": self._message_cell(watched),
        }

    def _message_cell(self, watched: WatchedTask) -> Text:
        width = _WIDTHS["message"]
        error_style = self._style("text-error")
        if watched.violation is not None:
            return _cell(f"protocol violation: {watched.violation.reason}", width, error_style)
        if watched.last_error is not None:
            return _cell(f"poll failed: {watched.last_error}", width, error_style)
        if watched.stopped is not None and watched.task is None:
            return _cell(watched.stopped, width, Style(dim=True))
        message = watched.task.status_message if watched.task else None
        return _cell(message or "", width)

    def clock_text(self, task_id: str, key: str) -> Text:
        """A clock cell's text for the row's latest task at the time of the last `sync`."""
        watched = self._sources.get(task_id)
        if watched is None:
            return _cell("", _WIDTHS[key])
        now = self._now
        if key == "age":
            text = format_age(watched, now)
        elif key == "changed":
            text = format_since(watched.last_change, now)
        elif key == "ttl":
            text = format_ttl_left(watched, now)
        else:
            text = format_next_poll(watched, now)
        return _cell(text, _WIDTHS[key])


def _cell(text: Any, width: int, style: Style | str = "") -> Text:
    """One table cell: cleaned onto one line, cut to the column width, never parsed as markup."""
    return Text(one_line(text, width), style=style, no_wrap=True, end="")
