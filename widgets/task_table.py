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
from typing import ClassVar, NamedTuple

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.theme import Theme

from app.engine.safety.sanitize import middle_line, one_line
from app.view.formatting import (
    PACING_WORDS,
    SEVERITY_COLOURS,
    STATUS_COLOURS,
    format_age,
    format_next_poll,
    format_since,
    format_task_progress,
    format_ttl_left,
    row_marks,
    status_label,
)
from app.view.state import WatchedTask
from widgets.row_cursor import CURSOR_BINDINGS, RowCursorKeys
from widgets.table_layout import (
    CELL_PADDING,
    COLUMN_KEYS,
    COLUMNS,
    SIZED_KEYS,
    ColumnLayout,
    fit_columns,
    layout_width,
)
from widgets.theme_style import theme_style

_CLOCK_KEYS = ("age", "changed", "ttl", "next")
_CLOCK_INDEX = {key: index for index, key in enumerate(_CLOCK_KEYS)}
_CLOCK_WIDTHS = {column.key: column.max_width for column in COLUMNS if column.key in _CLOCK_KEYS}
MARK_GLYPH = "▸"
"""Shown in the first column of a row the user marked for a bulk action."""
CELL_TEXT_MAX = 400
ID_CELL_WIDTH = 10
"""Cells of a task id in the list, cut in the middle: ids sharing a prefix still differ."""
"""Cells are kept up to this many cells (cut with "…" to their column when drawn): the message
column grows with the terminal, and the detail pane has the whole text."""
NEXT_POLL_CLOCK_WIDTH = 5
"""Cells the next-poll delay takes (`9m59s`) when sizing that column to its pacing words."""
HEADER_HEIGHT = 1

ClockTexts = tuple[str, str, str, str]
"""Age, changed, TTL left and next poll as a row reads them at the table's current time."""
ContentWidths = tuple[int, ...]
"""Cells a row's content needs in each of `SIZED_KEYS`, in that order."""


class TableLook(NamedTuple):
    """The styles of one repaint: base (widget), header, cursor and hover; focus and theme change
    them, so they are part of every cached row's key."""

    base: Style
    header: Style
    cursor: Style
    hover: Style


class TaskRow:
    """One shown task: its latest `WatchedTask`, its static cells by column key, and the strip it
    was last drawn as with the inputs that strip was drawn from. (A plain class: these small
    records are defined before the first frame, and a dataclass costs ~0.5 ms to create.)"""

    __slots__ = ("cells", "content", "source", "strip", "strip_key")

    def __init__(self, source: WatchedTask, cells: dict[str, Text], content: ContentWidths) -> None:
        self.source = source
        self.cells = cells
        self.content = content
        """The cells each sized column (`SIZED_KEYS`) needs for this row."""
        self.strip: Strip | None = None
        self.strip_key: tuple[object, ...] | None = None


class TaskTable(RowCursorKeys, ScrollView, can_focus=True):
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

    class TaskSelected(Message):
        """The highlighted task changed (None when the table became empty)."""

        def __init__(self, table: TaskTable, task_id: str | None) -> None:
            super().__init__()
            self.table = table
            self.task_id = task_id

        @property
        def control(self) -> TaskTable:
            return self.table

    class TaskChosen(Message):
        """Enter, or a click on the highlighted row, chose the task under the cursor."""

        def __init__(self, table: TaskTable, task_id: str) -> None:
            super().__init__()
            self.table = table
            self.task_id = task_id

        @property
        def control(self) -> TaskTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._rows: dict[str, TaskRow] = {}
        self._order: list[str] = []
        self._index: dict[str, int] = {}
        self._styles: dict[str, Style] = {}
        self._marked: frozenset[str] = frozenset()
        self._now = 0.0
        self._announced: str | None = None
        self._hover_row: int | None = None
        self._look: TableLook | None = None
        self._header: tuple[tuple[object, ...], Strip] | None = None
        self._content: dict[str, int] = dict.fromkeys(SIZED_KEYS, 0)
        """The widest cell of each sized column over every row (see `_content_stale`)."""
        self._content_stale = False
        """A row that was among the widest shrank or left: `_content` is recomputed when read."""
        self._columns: ColumnLayout = ()
        self._columns_for: tuple[int, tuple[int, ...]] | None = None
        """The content width and column contents `_layout` was fitted to."""
        self._sized_for: tuple[Size, Size, Size] | None = None
        """Size, virtual size and container size the scrollbars were last updated for."""
        self.cursor_row = 0
        """Index (into `order`) of the highlighted row; 0 when the table is empty."""

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

    # ------------------------------------------------------------------ what is shown

    @property
    def selected_task_id(self) -> str | None:
        """The task id under the cursor, or None when the table is empty."""
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

    @property
    def marked(self) -> frozenset[str]:
        """The task ids shown as marked (the App's bulk-action selection)."""
        return self._marked

    def get_cell(self, task_id: str, column_key: str) -> Text:
        """The cell of `task_id` in column `column_key` as it reads now."""
        if column_key in _CLOCK_KEYS:
            return self.clock_text(task_id, column_key)
        return self._rows[task_id].cells[column_key]

    def shown_cell(self, task_id: str, column_key: str) -> Text | None:
        """The cell as the list draws it now (cut with "…" to its column), or None while its
        column is not shown (dropped on a narrow terminal, or empty)."""
        for slot in self.columns:
            if slot.key == column_key:
                return _fitted(self.get_cell(task_id, column_key), slot.width)
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
        return Text(self._clock_texts(row)[_CLOCK_INDEX[key]], no_wrap=True, end="")

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
                self._content_stale = True
        for task_id in wanted:
            watched = rows[task_id]
            row = self._rows.get(task_id)
            if row is None:
                cells = self._static_cells(watched)
                row = self._rows[task_id] = TaskRow(watched, cells, _content_widths(watched, cells))
                self._widen(row.content)
            elif row.source is not watched or task_id in remarked:
                row.source = watched
                touched.add(task_id)
                self._patch_cells(task_id, row, self._static_cells(watched))
                content = _content_widths(watched, row.cells)
                if content != row.content:
                    self._content_stale |= any(
                        new < old for new, old in zip(content, row.content, strict=True)
                    )
                    row.content = content
                    self._widen(content)
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

    # ------------------------------------------------------------------ column layout

    @property
    def columns(self) -> ColumnLayout:
        """The columns shown now, with their widths (see `widgets.table_layout`)."""
        self._fit_columns()
        return self._columns

    def _widen(self, content: ContentWidths) -> None:
        """Count one row's content in the widest cell of each sized column."""
        for key, width in zip(SIZED_KEYS, content, strict=True):
            if width > self._content[key]:
                self._content[key] = width

    def _fit_columns(self) -> bool:
        """Fit the columns to the width the table has and its rows' content; True when the layout
        changed (every row then reads differently)."""
        if self._content_stale:
            self._content_stale = False
            self._content = dict.fromkeys(SIZED_KEYS, 0)
            for row in self._rows.values():
                self._widen(row.content)
        width = self.scrollable_content_region.width
        fitted_for = (width, tuple(self._content.values()))
        if fitted_for == self._columns_for:
            return False
        self._columns_for = fitted_for
        layout = fit_columns(width, self._content)
        if layout == self._columns:
            return False
        self._columns = layout
        return True

    def update_cell(self, task_id: str, column_key: str, value: Text) -> None:
        """Replace one static cell of `task_id` and repaint its line if it is on screen."""
        row = self._rows[task_id]
        row.cells[column_key] = value
        row.strip = None
        self._refresh_index(self._index.get(task_id))

    def _patch_cells(self, task_id: str, row: TaskRow, cells: dict[str, Text]) -> None:
        for key, cell in cells.items():
            if not _same_text(cell, row.cells[key]):
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
                index, self._clock_texts(row), look
            ):
                self._refresh_index(index)

    def _visible_indexes(self) -> range:
        first = int(self.scroll_y)
        shown = max(self.scrollable_content_region.height - HEADER_HEIGHT, 0)
        return range(first, min(first + shown, len(self._order)))

    def _refresh_index(self, index: int | None) -> None:
        if index is not None and index in self._visible_indexes():
            self.refresh_line(index + HEADER_HEIGHT)

    def _announce(self) -> None:
        selected = self.selected_task_id
        if selected != self._announced:
            self._announced = selected
            self.post_message(self.TaskSelected(self, selected))

    # ------------------------------------------------------------------ cursor and mouse

    def select_task(self, task_id: str) -> bool:
        """Move the cursor to `task_id`; False when that task is not shown."""
        index = self._index.get(task_id)
        if index is None:
            return False
        self.move_cursor(index)
        return True

    def move_cursor(self, row: int, *, scroll: bool = True) -> None:
        """Highlight the row at index `row` (clamped to the rows shown), scrolled into view."""
        if not self._order:
            return
        row = max(0, min(row, len(self._order) - 1))
        if row != self.cursor_row:
            self._refresh_index(self.cursor_row)
            self.cursor_row = row
            self._refresh_index(row)
        if scroll:
            width = self.scrollable_content_region.width
            self.scroll_to_region(
                Region(0, row + HEADER_HEIGHT, width, 1),
                spacing=Spacing(HEADER_HEIGHT, 0, 0, 0),
                animate=False,
                force=True,
                immediate=True,
            )
        self._announce()

    def cursor_page(self) -> int:
        return max(self.scrollable_content_region.height - HEADER_HEIGHT, 1)

    def cursor_rows(self) -> int:
        return len(self._order)

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

    def _row_under(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < HEADER_HEIGHT:
            return None
        index = int(self.scroll_y) + offset.y - HEADER_HEIGHT
        return index if index < len(self._order) else None

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
        clocks = self._clock_texts(row)
        key = self._strip_key(index, clocks, look)
        if row.strip is None or row.strip_key != key:
            pre, post = self._row_styles(look, index)
            cells = {
                slot.key: clocks[_CLOCK_INDEX[slot.key]]
                if slot.key in _CLOCK_INDEX
                else row.cells[slot.key]
                for slot in self._columns
            }
            line = _row_line(self.app.console, self._columns, cells, pre, post)
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
            self._columns,
            self.size.width,
        )

    def _row_styles(self, look: TableLook, index: int) -> tuple[Style, Style]:
        """A data row's style under each cell and over it (the cursor's colour wins over the
        cell's own, as in Textual's `DataTable`)."""
        component = Style()
        if index == self._hover_row:
            component += look.hover
        if index == self.cursor_row:
            component += look.cursor
        if not component:
            return look.base, Style()
        return look.base + component, Style.from_color(component.color)

    def _header_strip(self, look: TableLook, width: int) -> Strip:
        key: tuple[object, ...] = (look, self._columns, width)
        if self._header is None or self._header[0] != key:
            labels: dict[str, Text | str] = {slot.key: slot.label for slot in self._columns}
            line = _row_line(self.app.console, self._columns, labels, look.header, Style())
            self._header = (key, line.crop_extend(0, width, look.header))
        return self._header[1]

    def _clock_texts(self, row: TaskRow) -> ClockTexts:
        watched, now = row.source, self._now
        return (
            one_line(format_age(watched, now), _CLOCK_WIDTHS["age"]),
            one_line(format_since(watched.last_change, now), _CLOCK_WIDTHS["changed"]),
            one_line(format_ttl_left(watched, now), _CLOCK_WIDTHS["ttl"]),
            one_line(format_next_poll(watched, now), _CLOCK_WIDTHS["next"]),
        )

    # ------------------------------------------------------------------ cells and colours

    def _on_theme_changed(self, _theme: Theme) -> None:
        self._styles = {}
        for row in self._rows.values():
            row.cells = self._static_cells(row.source)
            row.strip = None
        self._header = None
        self.refresh()

    def _style(self, variable: str) -> Style:
        if not variable:
            return Style(dim=True)
        style = self._styles.get(variable)
        if style is None:
            style = theme_style(self.app.theme_variables, variable)
            self._styles[variable] = style
        return style

    def _static_cells(self, watched: WatchedTask) -> dict[str, Text]:
        """The row's cells other than the clocks, each whole up to `CELL_TEXT_MAX` (`_row_line`
        cuts them to their column when drawing)."""
        status_style = self._style(STATUS_COLOURS.get(watched.status, ""))
        marks = Text(no_wrap=True, end="")
        for text, severity in row_marks(watched):
            if marks:
                marks.append(" ")
            marks.append(one_line(text, CELL_TEXT_MAX), self._style(SEVERITY_COLOURS[severity]))
        mark = MARK_GLYPH if watched.task_id in self._marked else ""
        return {
            "mark": _cell(mark, self._style("text-accent")),
            "status": _cell(status_label(watched.status), status_style),
            "tool": _cell(watched.tool_name or "—"),
            "id": Text(middle_line(watched.task_id, ID_CELL_WIDTH), no_wrap=True, end=""),
            "progress": _cell(format_task_progress(watched.task)),
            "marks": marks,
            "message": self._message_cell(watched),
        }

    def _message_cell(self, watched: WatchedTask) -> Text:
        error_style = self._style("text-error")
        if watched.violation is not None:
            return _cell(f"protocol violation: {watched.violation.reason}", error_style)
        if watched.last_error is not None:
            return _cell(f"poll failed: {watched.last_error}", error_style)
        if watched.stopped is not None and watched.task is None:
            return _cell(watched.stopped, Style(dim=True))
        message = watched.task.status_message if watched.task else None
        return _cell(message or "")


def _content_widths(watched: WatchedTask, cells: Mapping[str, Text]) -> ContentWidths:
    """Cells one row needs in each sized column: its cells' lengths, and for the next poll the
    delay and the pacing word it shows while polling (the clock text itself changes every tick,
    the column must not)."""
    widths: list[int] = []
    for key in SIZED_KEYS:
        if key == "next":
            polling = watched.next_poll is not None and not watched.settled
            term = watched.next_poll.term if watched.next_poll is not None else ""
            word = PACING_WORDS.get(term, term)
            widths.append(NEXT_POLL_CLOCK_WIDTH + len(" · ") + cell_len(word) if polling else 0)
        else:
            widths.append(cells[key].cell_len)
    return tuple(widths)


def _cell(text: object, style: Style | str = "") -> Text:
    """One table cell: cleaned onto one line (up to `CELL_TEXT_MAX` cells), never parsed as
    markup."""
    return Text(one_line(text, CELL_TEXT_MAX), style=style, no_wrap=True, end="")


def _fitted(cell: Text, width: int) -> Text:
    """`cell` as it fits in `width` cells: whole, or cut with "…"."""
    if cell.cell_len <= width:
        return cell
    cut = cell.copy()
    cut.truncate(width, overflow="ellipsis")
    return cut


def _same_text(first: Text, second: Text) -> bool:
    """Equal text, base style and spans (`Text.__eq__` ignores the base style)."""
    return (
        first.plain == second.plain and first.style == second.style and first.spans == second.spans
    )


def _row_line(
    console: Console,
    columns: ColumnLayout,
    cells: Mapping[str, Text | str],
    pre: Style,
    post: Style,
) -> Strip:
    """One table row laid out to `columns`: each cell padded and fitted to its column (cut with
    "…"), drawn as `pre` + the cell's own style (and its spans') + `post`."""
    pad = pre + post
    segments: list[Segment] = []
    blank = Segment(" " * CELL_PADDING, pad)
    for slot in columns:
        cell = cells[slot.key]
        if isinstance(cell, str):
            content = [Segment(cell, pad)] if cell else []
        else:
            cell = _fitted(cell, slot.width)
            own = pre + console.get_style(cell.style) if cell.style else pre
            content = [
                Segment(segment.text, own + segment.style + post if segment.style else own + post)
                for segment in cell.render(console)
                if segment.text
            ]
        segments.append(blank)
        segments.extend(Segment.adjust_line_length(content, slot.width, pad))
        segments.append(blank)
    return Strip(segments, layout_width(columns)).simplify()
