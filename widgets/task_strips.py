"""How a task-list row of cells is drawn as one `Strip` laid out to the fitted columns, in the
styles of the repaint (cursor and hover over the cells' own)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from widgets.table_layout import CELL_PADDING, ColumnLayout, layout_width
from widgets.task_cells import fitted


class TableLook(NamedTuple):
    """The styles of one repaint: base (widget), header, cursor and hover; focus and theme change
    them, so they are part of every cached row's key."""

    base: Style
    header: Style
    cursor: Style
    hover: Style


def row_styles(look: TableLook, *, hovered: bool, under_cursor: bool) -> tuple[Style, Style]:
    """A data row's style under each cell and over it (the cursor's colour wins over the cell's
    own, as in Textual's `DataTable`)."""
    component = Style()
    if hovered:
        component += look.hover
    if under_cursor:
        component += look.cursor
    if not component:
        return look.base, Style()
    return look.base + component, Style.from_color(component.color)


def row_line(
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
            cell = fitted(cell, slot.width)
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
