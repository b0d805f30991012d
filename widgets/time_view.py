"""The time view: every shown task as a bar along one shared time axis, drawn on the Line API.

`TimeView.sync` takes the App's watched tasks, the order the list shows them in and the time; the
bars, axis and legend follow the rules in `widgets.time_bars`. Two axis lines stay on top and the
legend at the bottom while the rows scroll between them. Each row keeps the strip it was last drawn
as, keyed by its `WatchedTask` and the scale's grid, so a clock tick repaints nothing until the
right edge moves by a whole cell, and then only the visible rows. The cursor is the App's
selection: moving it posts `TaskSelected`, as the task table does. Server text (ids, tool names)
goes through `one_line` into plain segments, never markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import ClassVar

from rich.segment import Segment
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.theme import Theme

from app.view.state import WatchedTask
from widgets.row_cursor import CURSOR_BINDINGS
from widgets.task_cursor_view import TaskCursorView
from widgets.theme_style import ThemeStyles
from widgets.time_bars import (
    RARE_KINDS,
    Bar,
    TimeScale,
    bar_cells,
    bar_for,
    choose_scale,
    earliest_start,
    legend_lines,
)
from widgets.time_strips import (
    ViewLook,
    axis_strip,
    label_width,
    legend_strip,
    row_label,
    row_strip,
)

AXIS_HEIGHT = 2
"""Tick labels and the rule, fixed above the rows."""


class TimeView(TaskCursorView, can_focus=True):
    """Tasks as bars on a shared time axis; `sync` follows the App's state."""

    DEFAULT_CSS = """
    TimeView {
        height: 1fr;
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .time-view--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
        & > .time-view--axis {
            background: $panel;
            color: $foreground;
        }
        & > .time-view--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"time-view--axis", "time-view--cursor"}

    BINDINGS: ClassVar[list[BindingType]] = CURSOR_BINDINGS

    ROWS_ABOVE = AXIS_HEIGHT

    class TaskSelected(Message):
        """The bar under the cursor changed (None when no task is shown)."""

        def __init__(self, view: TimeView, task_id: str | None) -> None:
            super().__init__()
            self.view = view
            self.task_id = task_id

        @property
        def control(self) -> TimeView:
            return self.view

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._watched: dict[str, WatchedTask] = {}
        self._bars: dict[str, tuple[WatchedTask, Bar]] = {}
        self._strips: dict[str, tuple[WatchedTask, tuple[object, ...], Strip]] = {}
        self._marked: frozenset[str] = frozenset()
        self._now = 0.0
        self._scale: TimeScale | None = None
        self._legend: list[list[tuple[str, str, str]]] = []
        self._laid_out_for: tuple[int, frozenset[str]] | None = None
        """The width the legend and the scale were last laid out for."""
        self._styles = ThemeStyles(lambda: self.app.theme_variables)
        self._look: ViewLook | None = None

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._on_theme_changed)

    def rows_below(self) -> int:
        return len(self._legend)

    def selected_message(self, task_id: str | None) -> Message:
        return self.TaskSelected(self, task_id)

    # ------------------------------------------------------------------ what is shown

    @property
    def scale(self) -> TimeScale | None:
        """The axis of the last `sync` (None before the first)."""
        return self._scale

    def bar_text(self, task_id: str) -> str:
        """The characters of a task's bar as last laid out (empty when it is not shown)."""
        if self._scale is None or task_id not in self._index:
            return ""
        return "".join(glyph for glyph, _kind in bar_cells(self._bar(task_id), self._scale))

    # ------------------------------------------------------------------ following the App

    def sync(
        self,
        rows: Mapping[str, WatchedTask],
        order: Sequence[str],
        now: float,
        marked: AbstractSet[str] = frozenset(),
        selected: str | None = None,
    ) -> None:
        """Show the bars of `order` (ids into `rows`) at wall-clock time `now`, the cursor on
        `selected` (the App's selection; None keeps it on the task it is on), repainting only
        what reads differently: everything when the order, marks or the axis grid changed, else
        the visible rows whose task changed."""
        wanted = [task_id for task_id in dict.fromkeys(order) if task_id in rows]
        selected = selected if selected in rows else self.selected_task_id
        self._watched = {task_id: rows[task_id] for task_id in wanted}
        self._now = now
        for gone in [task_id for task_id in self._bars if task_id not in self._watched]:
            del self._bars[gone]
            self._strips.pop(gone, None)
        old_grid = self._scale.grid if self._scale is not None else None
        laid_out = self._ensure_layout()
        self._rescale()
        marked = frozenset(marked) & frozenset(wanted)
        everything = (
            laid_out
            or wanted != self._order
            or marked != self._marked
            or (self._scale is not None and self._scale.grid != old_grid)
        )
        self._marked = marked
        if wanted != self._order:
            self._order = wanted
            self._index = {task_id: index for index, task_id in enumerate(wanted)}
            self._update_virtual_size()
        if selected != self.selected_task_id:
            self._keep_cursor(selected)
        if everything:
            self.refresh()
        else:
            for index in self._visible_indexes():
                task_id = self._order[index]
                cached = self._strips.get(task_id)
                if cached is None or cached[0] is not self._watched[task_id]:
                    self.refresh_line(index + AXIS_HEIGHT)
        self._announce()

    def _bar(self, task_id: str) -> Bar:
        """The task's bar, rebuilt only when its `WatchedTask` changed."""
        watched = self._watched[task_id]
        cached = self._bars.get(task_id)
        if cached is None or cached[0] is not watched:
            cached = (watched, bar_for(watched))
            self._bars[task_id] = cached
        return cached[1]

    def _rescale(self) -> None:
        """Fit the axis to the bars shown and the width the bars get."""
        bars = [self._bar(task_id) for task_id in self._watched]
        cells = max(self._bar_area_width(), 1)
        self._scale = choose_scale(earliest_start(bars, self._now), self._now, cells)

    def _bar_area_width(self) -> int:
        width = self.scrollable_content_region.width
        return width - label_width(width) - 1

    def _update_virtual_size(self) -> None:
        width = max(self.scrollable_content_region.width, 1)
        self.virtual_size = Size(width, len(self._order) + AXIS_HEIGHT + len(self._legend))

    def _ensure_layout(self) -> bool:
        """Lay the legend and the scale out again when the width, or the rare statuses the bars
        show, changed (a repaint may come before the widget's `Resize` event)."""
        width = self.scrollable_content_region.width
        rare = frozenset(watched.status for watched in self._watched.values()) & RARE_KINDS
        if (width, rare) == self._laid_out_for:
            return False
        self._laid_out_for = (width, rare)
        self._legend = legend_lines(max(width, 1), rare)
        self._rescale()
        self._update_virtual_size()
        return True

    def on_resize(self, _event: events.Resize) -> None:
        self._ensure_layout()
        self.refresh()

    def _keep_cursor(self, selected: str | None) -> None:
        """Put the cursor on `selected` (scrolled into view), or on its neighbour when it is
        gone."""
        index = self._index.get(selected) if selected is not None else None
        if index is not None:
            self.move_cursor(index)
            return
        self.refresh_line(self.cursor_row + AXIS_HEIGHT)
        self.cursor_row = max(0, min(self.cursor_row, len(self._order) - 1))
        self.refresh_line(self.cursor_row + AXIS_HEIGHT)

    # ------------------------------------------------------------------ cursor and mouse

    def _scroll_to_cursor(self) -> None:
        if self.scrollable_content_region.height:  # not laid out yet: the App scrolls later
            super()._scroll_to_cursor()

    def on_click(self, event: events.Click) -> None:
        """A click on a bar selects its task."""
        index = self._row_under(event)
        if index is not None:
            event.stop()
            self.move_cursor(index)

    # ------------------------------------------------------------------ drawing

    def render_lines(self, crop: Region) -> list[Strip]:
        """Read this repaint's styles once, then let the Line API call `render_line`."""
        self._look = ViewLook(
            base=self.rich_style,
            axis=self.get_component_rich_style("time-view--axis"),
            cursor=self.get_component_rich_style("time-view--cursor"),
        )
        self._ensure_layout()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        look = self._look
        assert look is not None, "render_lines sets the look before any line is drawn"
        width = self.size.width
        height = self.scrollable_content_region.height
        if self._scale is None:
            return Strip.blank(width, look.base)
        if y < AXIS_HEIGHT:
            return self._axis_strip(y, look, width)
        legend_row = y - (height - len(self._legend))
        if 0 <= legend_row < len(self._legend):
            return self._legend_strip(legend_row, look, width)
        index = int(self.scroll_y) + y - AXIS_HEIGHT
        if index >= len(self._order):
            return Strip.blank(width, look.base)
        return self._row_strip(index, look, width)

    def _row_strip(self, index: int, look: ViewLook, width: int) -> Strip:
        task_id = self._order[index]
        watched = self._watched[task_id]
        scale = self._scale
        assert scale is not None
        selected = index == self.cursor_row
        marked = task_id in self._marked
        labels = label_width(self.scrollable_content_region.width)
        key: tuple[object, ...] = (scale.grid, selected, marked, look, width, labels)
        cached = self._strips.get(task_id)
        if cached is not None and cached[0] is watched and cached[1] == key:
            return cached[2]
        label_style = look.base + look.cursor if selected else look.base
        label = Segment(row_label(watched, labels, marked), label_style)
        cells = bar_cells(self._bar(task_id), scale)
        strip = row_strip(label, cells, look, self._styles, width)
        self._strips[task_id] = (watched, key, strip)
        return strip

    def _axis_strip(self, y: int, look: ViewLook, width: int) -> Strip:
        assert self._scale is not None
        labels = label_width(self.scrollable_content_region.width)
        return axis_strip(y, self._scale, labels, look, width)

    def _legend_strip(self, row: int, look: ViewLook, width: int) -> Strip:
        return legend_strip(self._legend[row], look, self._styles, width)

    def _on_theme_changed(self, _theme: Theme) -> None:
        self._styles.clear()
        self._strips = {}
        self.refresh()
