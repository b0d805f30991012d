"""Which columns the task list shows at a given width, and how wide each is.

The list never scrolls sideways: `fit_columns` sizes each column to its content (clamped to the
column's bounds), drops the least useful columns until the status message keeps at least
`MESSAGE_MIN_WIDTH` cells (marks, the task id, server and tool only when cutting what can shrink
is not enough), shrinks what can shrink if that is still too wide, and gives the message every
cell left. Pure functions of widths, so the table's layout is tested without a
screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


class TaskColumn(NamedTuple):
    """One column: its key (for `get_cell`), header label and width bounds in cells.

    A column with `sized` False is always `max_width` wide (clocks, whose text changes every
    second, must not make the columns jitter); a sized one is as wide as its widest cell, between
    `min_width` and `max_width`. An `optional` column is hidden while no row has anything to show
    in it (no progress, no marks, nothing polling).
    """

    key: str
    label: str
    min_width: int
    max_width: int
    sized: bool = True
    optional: bool = False


COLUMNS: tuple[TaskColumn, ...] = (
    TaskColumn("mark", "", 1, 1, sized=False),
    TaskColumn("status", "Status", 8, 14),
    TaskColumn("server", "Server", 6, 16, optional=True),
    TaskColumn("tool", "Tool", 8, 24),
    TaskColumn("id", "Task", 6, 10),
    TaskColumn("age", "Age", 6, 6, sized=False),
    TaskColumn("changed", "Changed", 7, 7, sized=False),
    TaskColumn("ttl", "TTL left", 8, 8, sized=False),
    TaskColumn("next", "Next poll", 9, 20, optional=True),
    TaskColumn("progress", "Prog", 4, 6, optional=True),
    TaskColumn("marks", "Marks", 9, 32, optional=True),
    TaskColumn("message", "Message", 1, 1),
)
"""Every column in the order it is shown, left to right."""

COLUMN_KEYS: tuple[str, ...] = tuple(column.key for column in COLUMNS)
SIZED_KEYS: tuple[str, ...] = tuple(
    column.key for column in COLUMNS if column.sized and column.key != "message"
)
"""The columns whose width follows their content (the message takes what is left)."""

DROP_ORDER: tuple[str, ...] = (
    "ttl",
    "changed",
    "age",
    "progress",
    "next",
    "marks",
    "id",
    "server",
    "tool",
)
"""Least useful first: the columns given up, in this order, when the terminal is too narrow.

TTL left, Changed and Age are in the detail pane and matter least at a glance; progress is often
in the message too; Next poll says what the poller is doing; Marks say what the server waits
on (the status and message mostly say it too); the task id (its short form) is what tells two
runs of one tool apart; the Server column (shown only while several servers are watched) says
whose task it is, and the tool names the row. The mark, status and message columns are never
dropped."""

SHRINK_ORDER: tuple[tuple[str, ...], ...] = (("marks", "server", "tool"), ("status",))
"""Cut towards their `min_width` (with "…") when even the kept columns do not fit: a cell at a
time from the column of the first group furthest above its minimum (so a cut is spread, and a
short server name is not cut while a long tool name stays whole), the status last."""

KEPT_BY_SHRINKING: frozenset[str] = frozenset({"marks", "id", "server", "tool"})
"""Columns dropped only when cutting the `SHRINK_ORDER` columns cannot make room enough: at 80
columns the short task id stays beside a cut tool name, with several servers too."""

MESSAGE_MIN_WIDTH = 24
"""The status message keeps at least this many cells while any column can still be dropped."""

CELL_PADDING = 1
"""Blank cells on each side of every column."""

_BY_KEY = {column.key: column for column in COLUMNS}


class ColumnSlot(NamedTuple):
    """One shown column and the cells it was given."""

    key: str
    label: str
    width: int


ColumnLayout = tuple[ColumnSlot, ...]
"""The shown columns, left to right, the message last."""


def column_width(column: TaskColumn, content: int) -> int:
    """How wide `column` wants to be for its widest cell: clamped to its bounds and never
    narrower than its label; 0 (hidden) for an optional column with nothing in it."""
    if not column.sized:
        return column.max_width
    if content <= 0 and column.optional:
        return 0
    wanted = max(content, len(column.label), column.min_width)
    return min(wanted, max(column.max_width, len(column.label)))


def fit_columns(available: int, content: Mapping[str, int]) -> ColumnLayout:
    """The columns to show in `available` cells, given each sized column's widest cell.

    Drops columns in `DROP_ORDER` until the message keeps `MESSAGE_MIN_WIDTH` (the columns
    `KEPT_BY_SHRINKING` only while shrinking cannot make room), then shrinks the `SHRINK_ORDER`
    columns; the message gets the rest (at least one cell: on a terminal too narrow even for
    that the row is cut at the right edge).
    """
    widths = {
        column.key: column_width(column, content.get(column.key, 0))
        for column in COLUMNS
        if column.key != "message"
    }
    shown = [key for key, width in widths.items() if width > 0]
    pad = 2 * CELL_PADDING

    def needed() -> int:
        return sum(widths[key] + pad for key in shown) + pad + MESSAGE_MIN_WIDTH

    def spare() -> int:  # the status is cut only when nothing else can go
        return sum(widths[key] - _BY_KEY[key].min_width for key in SHRINK_ORDER[0] if key in shown)

    for key in DROP_ORDER:
        if needed() <= available:
            break
        if key in KEPT_BY_SHRINKING and needed() - spare() <= available:
            break
        if key in shown:
            shown.remove(key)
    for group in SHRINK_ORDER:
        for _ in range(max(needed() - available, 0)):
            slack = {key: widths[key] - _BY_KEY[key].min_width for key in group if key in shown}
            widest = max(slack, key=slack.__getitem__, default=None)
            if widest is None or slack[widest] <= 0:
                break
            widths[widest] -= 1
    used = sum(widths[key] + pad for key in shown) + pad
    slots = [ColumnSlot(key, _BY_KEY[key].label, widths[key]) for key in shown]
    slots.append(ColumnSlot("message", _BY_KEY["message"].label, max(available - used, 1)))
    return tuple(slots)


def layout_width(layout: ColumnLayout) -> int:
    """Cells one row of `layout` takes, padding included."""
    return sum(slot.width + 2 * CELL_PADDING for slot in layout)
