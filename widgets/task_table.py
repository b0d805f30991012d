"""The live task list: a Line-API table patched in place, so rows never jump under the cursor.

`TaskTable.sync` takes the App's watched tasks and the order to show them in, and touches only the
rows whose cells changed; the cursor stays on the same task id through inserts, removals and
re-sorts. Each row keeps the `Strip` it was last drawn as, keyed by everything it shows (cells,
clock texts, cursor/hover, styles, column layout and width), so a repaint renders only visible
rows whose inputs changed and an update to a row off screen costs a dict update. Every server
string goes through `one_line`; cells are `Text`, never markup.

The list fits the width it has and never scrolls sideways (`widgets.table_layout`): columns are
as wide as their widest cell, the status message takes every cell left and is cut with "…" (the
detail pane shows it whole), and when the terminal is narrow columns are dropped least useful
first: TTL left, Changed, Age, Prog, Task, Next poll, Marks, Tool. The mark, Status and Message
columns always stay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.theme import Theme

from app.view.state import WatchedTask
from widgets.column_fitter import ColumnFitter
from widgets.row_cursor import CURSOR_BINDINGS
from widgets.table_layout import COLUMN_KEYS, ColumnLayout
from widgets.task_cells import (
    CLOCK_INDEX,
    CLOCK_KEYS,
    ClockTexts,
    TaskRow,
    clock_texts,
    content_widths,
    fitted,
    same_text,
    static_cells,
)
from widgets.task_cursor_view import TaskCursorView
from widgets.task_strips import TableLook, row_line, row_styles
from widgets.task_table_messages import TaskTableMessage
from widgets.theme_style import ThemeStyles

HEADER_HEIGHT = 1


class TaskTable(TaskCursorView, can_focus=True):
    """The task list, one row per task id; `sync` patches it in place from the App's state.

    Where focus is shows: focused, the header row is tinted and the cursor row is in the cursor
    colour; unfocused (tab moved to the detail pane), the header is muted and the cursor row
    dimmed, so ↑/↓ not moving the list is no surprise.
    """

    DEFAULT_CSS = """
    TaskTable {
        height: 1fr;
        overflow-x: hidden;
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .task-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .task-table--header {
                background: $primary-muted;
                color: $foreground;
            }
        }
        & > .task-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground-muted;
        }
        &:ansi > .task-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .task-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: dim;
        }
        & > .task-table--hover {
            background: $block-hover-background;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "task-table--header",
        "task-table--cursor",
        "task-table--hover",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "tab",
            "app.focus_next",
            "Next pane",
            show=False,
            tooltip="the detail tabs (←→ switch tab, tab into it, shift+tab back to the list)",
        ),
        Binding("enter", "choose", "Choose", show=False),
        *CURSOR_BINDINGS,
    ]

    ROWS_ABOVE = HEADER_HEIGHT

    class TaskSelected(TaskTableMessage):
        """The highlighted task changed (None when the table became empty)."""

    class TaskChosen(TaskTableMessage):
        """Enter, or a click on the highlighted row, chose the task under the cursor."""

        task_id: str

        def __init__(self, table: TaskTable, task_id: str) -> None:
            super().__init__(table, task_id)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._rows: dict[str, TaskRow] = {}
        self._styles = ThemeStyles(lambda: self.app.theme_variables)
        self._marked: frozenset[str] = frozenset()
        self._now = 0.0
        self._hover_row: int | None = None
        self._look: TableLook | None = None
        self._header: tuple[tuple[object, ...], Strip] | None = None
        self._fitter = ColumnFitter()
        self._sized_for: tuple[Size, Size, Size] | None = None
        """Size, virtual size and container size the scrollbars were last updated for."""

    def on_mount(self) -> None:
        self.virtual_size = Size(0, HEADER_HEIGHT)
        self.app.theme_changed_signal.subscribe(self, self._on_theme_changed)

    def on_resize(self, _event: events.Resize) -> None:
        """Panes opening or closing (the RPC log, the filter bar, a terminal resize) change the
        table's height: keep the selected row on screen."""
        if self._order:
            self.move_cursor(self.cursor_row)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Update the scrollbars only when a size changed: `ScrollView` compares the layout's
        virtual size (the viewport) with the table's own, which never match, so it refreshed
        both scrollbars on every layout pass of the screen."""
        sizes = (size, self.virtual_size, container_size)
        if sizes == self._sized_for:
            return False
        self._sized_for = sizes
        return super()._size_updated(size, virtual_size, container_size, layout)

    def selected_message(self, task_id: str | None) -> Message:
        return self.TaskSelected(self, task_id)

    # ------------------------------------------------------------------ what is shown

    @property
    def marked(self) -> frozenset[str]:
        """The task ids shown as marked (the App's bulk-action selection)."""
        return self._marked

    @property
    def columns(self) -> ColumnLayout:
        """The columns shown now, with their widths (see `widgets.table_layout`)."""
        self._fit_columns()
        return self._fitter.columns

    def get_cell(self, task_id: str, column_key: str) -> Text:
        """The cell of `task_id` in column `column_key` as it reads now."""
        if column_key in CLOCK_KEYS:
            return self.clock_text(task_id, column_key)
        return self._rows[task_id].cells[column_key]

    def shown_cell(self, task_id: str, column_key: str) -> Text | None:
        """The cell as the list draws it now (cut with "…" to its column), or None while its
        column is not shown (dropped on a narrow terminal, or empty)."""
        for slot in self.columns:
            if slot.key == column_key:
                return fitted(self.get_cell(task_id, column_key), slot.width)
        return None

    def get_row_at(self, index: int) -> list[Text]:
        """Every cell of the row at `index` (into `order`), in column order."""
        task_id = self._order[index]
        return [self.get_cell(task_id, key) for key in COLUMN_KEYS]

    def clock_text(self, task_id: str, key: str) -> Text:
        """A clock cell's text for the row's latest task at the time of the last `sync`."""
        row = self._rows.get(task_id)
        if row is None:
            return Text("", no_wrap=True, end="")
        return Text(clock_texts(row.source, self._now)[CLOCK_INDEX[key]], no_wrap=True, end="")

    # ------------------------------------------------------------------ patching from the App

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
        remarked = marked ^ self._marked
        self._marked = marked
        clocks_moved = now != self._now
        self._now = now
        touched: set[str] = set()
        wanted = [task_id for task_id in dict.fromkeys(order) if task_id in rows]
        selected = self.selected_task_id
        old_index, old_scroll = self.cursor_row, self.scroll_y
        if len(self._rows) > len(wanted) or any(task_id not in self._rows for task_id in wanted):
            wanted_set = set(wanted)
            for task_id in [task_id for task_id in self._rows if task_id not in wanted_set]:
                del self._rows[task_id]
                self._fitter.row_left()
        for task_id in wanted:
            watched = rows[task_id]
            row = self._rows.get(task_id)
            if row is None:
                cells = self._static_cells(watched)
                row = self._rows[task_id] = TaskRow(watched, cells, content_widths(watched, cells))
                self._fitter.widen(row.content)
            elif row.source is not watched or task_id in remarked:
                row.source = watched
                touched.add(task_id)
                self._patch_cells(task_id, row, self._static_cells(watched))
                content = content_widths(watched, row.cells)
                if content != row.content:
                    self._fitter.row_changed(row.content, content)
                    row.content = content
        relaid = self._fit_columns()
        if wanted != self._order:
            self._order = wanted
            self._index = {task_id: index for index, task_id in enumerate(wanted)}
            self.virtual_size = Size(0, len(wanted) + HEADER_HEIGHT)
            self._keep_cursor(selected, old_index, old_scroll)
            self.refresh()
        elif relaid:
            self.refresh()
        elif clocks_moved or touched:
            self._refresh_stale_lines(None if clocks_moved else touched)
        self._announce()

    def _fit_columns(self) -> bool:
        """Fit the columns to the width the table has and its rows' content; True when the layout
        changed (every row then reads differently)."""
        width = self.scrollable_content_region.width
        return self._fitter.fit(width, (row.content for row in self._rows.values()))

    def update_cell(self, task_id: str, column_key: str, value: Text) -> None:
        """Replace one static cell of `task_id` and repaint its line if it is on screen."""
        row = self._rows[task_id]
        row.cells[column_key] = value
        row.strip = None
        self._refresh_index(self._index.get(task_id))

    def _patch_cells(self, task_id: str, row: TaskRow, cells: dict[str, Text]) -> None:
        for key, cell in cells.items():
            if not same_text(cell, row.cells[key]):
                self.update_cell(task_id, key, cell)

    def _keep_cursor(self, selected: str | None, old_index: int, old_scroll: float) -> None:
        """Keep the cursor on the task it was on (and that row where it was on screen); when that
        task is gone, the cursor stays at its index, on a neighbour."""
        new_index = self._index.get(selected) if selected is not None else None
        if new_index is None:
            self.cursor_row = max(0, min(self.cursor_row, len(self._order) - 1))
            return
        self.cursor_row = new_index
        if new_index != old_index:
            self.scroll_to(
                y=max(old_scroll + new_index - old_index, 0), animate=False, immediate=True
            )

    def _refresh_stale_lines(self, candidates: AbstractSet[str] | None) -> None:
        """Repaint the visible rows (`candidates` among them, or all) that now read differently."""
        look = self._look
        if look is None:
            self.refresh()
            return
        for index in self._visible_indexes():
            task_id = self._order[index]
            if candidates is not None and task_id not in candidates:
                continue
            row = self._rows[task_id]
            if row.strip is None or row.strip_key != self._strip_key(
                index, clock_texts(row.source, self._now), look
            ):
                self._refresh_index(index)

    # ------------------------------------------------------------------ cursor and mouse

    def before_cursor_key(self) -> None:
        self._set_hover(None)

    def action_page_up(self) -> None:
        """Scroll a page first, so the cursor keeps its place on screen."""
        self.scroll_to(y=self.scroll_y - self.cursor_page(), animate=False, immediate=True)
        super().action_page_up()

    def action_page_down(self) -> None:
        self.scroll_to(y=self.scroll_y + self.cursor_page(), animate=False, immediate=True)
        super().action_page_down()

    def action_choose(self) -> None:
        """Enter: tell the App which task was chosen."""
        selected = self.selected_task_id
        if selected is not None:
            self.post_message(self.TaskChosen(self, selected))

    def on_click(self, event: events.Click) -> None:
        """A click highlights its row; a click on the highlighted row chooses it."""
        index = self._row_under(event)
        if index is None:
            return
        event.stop()
        if index == self.cursor_row:
            self.action_choose()
        else:
            self.move_cursor(index)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._row_under(event))

    def on_leave(self, _event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, index: int | None) -> None:
        if index != self._hover_row:
            self._refresh_index(self._hover_row)
            self._hover_row = index
            self._refresh_index(index)

    # ------------------------------------------------------------------ drawing

    def render_lines(self, crop: Region) -> list[Strip]:
        """Read this repaint's styles once, then let the Line API call `render_line`."""
        self._look = TableLook(
            base=self.rich_style,
            header=self.get_component_rich_style("task-table--header"),
            cursor=self.get_component_rich_style("task-table--cursor"),
            hover=self.get_component_rich_style("task-table--hover"),
        )
        self._fit_columns()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        look = self._look
        assert look is not None, "render_lines sets the look before any line is drawn"
        scroll_y = self.scroll_offset.y
        width = self.size.width  # as DataTable: lines span the scrollbar gutter too
        if y < HEADER_HEIGHT:
            return self._header_strip(look, width)
        index = scroll_y + y - HEADER_HEIGHT
        if index >= len(self._order):
            return Strip.blank(width, look.base)
        row = self._rows[self._order[index]]
        clocks = clock_texts(row.source, self._now)
        key = self._strip_key(index, clocks, look)
        if row.strip is None or row.strip_key != key:
            pre, post = row_styles(
                look, hovered=index == self._hover_row, under_cursor=index == self.cursor_row
            )
            columns = self._fitter.columns
            cells = {
                slot.key: clocks[CLOCK_INDEX[slot.key]]
                if slot.key in CLOCK_INDEX
                else row.cells[slot.key]
                for slot in columns
            }
            line = row_line(self.app.console, columns, cells, pre, post)
            row.strip = line.crop_extend(0, width, pre)
            row.strip_key = key
        return row.strip

    def _strip_key(self, index: int, clocks: ClockTexts, look: TableLook) -> tuple[object, ...]:
        """Everything a row's strip depends on besides its static cells (whose change drops the
        strip): clock texts, cursor and hover, the look, the column layout and the width."""
        return (
            clocks,
            index == self.cursor_row,
            index == self._hover_row,
            look,
            self._fitter.columns,
            self.size.width,
        )

    def _header_strip(self, look: TableLook, width: int) -> Strip:
        columns = self._fitter.columns
        key: tuple[object, ...] = (look, columns, width)
        if self._header is None or self._header[0] != key:
            labels: dict[str, Text | str] = {slot.key: slot.label for slot in columns}
            line = row_line(self.app.console, columns, labels, look.header, Style())
            self._header = (key, line.crop_extend(0, width, look.header))
        return self._header[1]

    # ------------------------------------------------------------------ cells and colours

    def _on_theme_changed(self, _theme: Theme) -> None:
        self._styles.clear()
        for row in self._rows.values():
            row.cells = self._static_cells(row.source)
            row.strip = None
        self._header = None
        self.refresh()

    def _static_cells(self, watched: WatchedTask) -> dict[str, Text]:
        """The row's cells other than the clocks, in the current theme (see `static_cells`)."""
        return static_cells(watched, watched.task_id in self._marked, self._styles.get)
