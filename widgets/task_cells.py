"""What each cell of a task-list row reads: its static cells and clock texts, every server string
cleaned onto one line as `Text` (never markup), and the cells each sized column needs for it."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from app.engine.safety.sanitize import middle_line, one_line
from app.view.formatting import (
    PACING_WORDS,
    SEVERITY_COLOURS,
    STATUS_COLOURS,
    format_age,
    format_changed,
    format_next_poll,
    format_task_progress,
    format_ttl_left,
    row_marks,
    status_label,
)
from app.view.state import WatchedTask
from widgets.table_layout import COLUMNS, SIZED_KEYS

CLOCK_KEYS = ("age", "changed", "ttl", "next")
CLOCK_INDEX = {key: index for index, key in enumerate(CLOCK_KEYS)}
"""Where each clock column's text stands in `ClockTexts`."""
_CLOCK_WIDTHS = {column.key: column.max_width for column in COLUMNS if column.key in CLOCK_KEYS}
MARK_GLYPH = "▸"
"""Shown in the first column of a row the user marked for a bulk action."""
CELL_TEXT_MAX = 400
"""Cells are kept up to this many cells (cut with "…" to their column when drawn): the message
column grows with the terminal, and the detail pane has the whole text."""
ID_CELL_WIDTH = 10
"""Cells of a task id in the list, cut in the middle: ids sharing a prefix still differ."""
NEXT_POLL_CLOCK_WIDTH = 5
"""Cells the next-poll delay takes (`9m59s`) when sizing that column to its pacing words."""

ClockTexts = tuple[str, str, str, str]
"""Age, changed, TTL left and next poll as a row reads them at the table's current time."""
ContentWidths = tuple[int, ...]
"""Cells a row's content needs in each of `SIZED_KEYS`, in that order."""


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


def clock_texts(watched: WatchedTask, now: float) -> ClockTexts:
    """The row's clock cells at wall-clock time `now`, each cut to its column."""
    return (
        one_line(format_age(watched, now), _CLOCK_WIDTHS["age"]),
        one_line(format_changed(watched, now), _CLOCK_WIDTHS["changed"]),
        one_line(format_ttl_left(watched, now), _CLOCK_WIDTHS["ttl"]),
        one_line(format_next_poll(watched, now), _CLOCK_WIDTHS["next"]),
    )


def static_cells(
    watched: WatchedTask, marked: bool, style: Callable[[str], Style]
) -> dict[str, Text]:
    """The row's cells other than the clocks, each whole up to `CELL_TEXT_MAX` (the row is cut
    to its columns when drawn); `style` turns a theme variable into a style ('' is dim)."""
    marks = Text(no_wrap=True, end="")
    for text, severity in row_marks(watched):
        if marks:
            marks.append(" ")
        marks.append(one_line(text, CELL_TEXT_MAX), style(SEVERITY_COLOURS[severity]))
    return {
        "mark": cell(MARK_GLYPH if marked else "", style("text-accent")),
        "status": cell(status_label(watched.status), style(STATUS_COLOURS.get(watched.status, ""))),
        "server": cell(watched.server or ""),
        "tool": cell(watched.tool_name or "—"),
        "id": Text(middle_line(watched.server_task_id, ID_CELL_WIDTH), no_wrap=True, end=""),
        "progress": cell(format_task_progress(watched.task)),
        "marks": marks,
        "message": _message_cell(watched, style("text-error")),
    }


def _message_cell(watched: WatchedTask, error_style: Style) -> Text:
    """The status message, or what went wrong with the task instead."""
    if watched.violation is not None:
        return cell(f"protocol violation: {watched.violation.reason}", error_style)
    if watched.last_error is not None:
        return cell(f"poll failed: {watched.last_error}", error_style)
    if watched.stopped is not None and watched.task is None:
        return cell(watched.stopped, Style(dim=True))
    message = watched.task.status_message if watched.task else None
    return cell(message or "")


def content_widths(watched: WatchedTask, cells: Mapping[str, Text]) -> ContentWidths:
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


def cell(text: object, style: Style | str = "") -> Text:
    """One table cell: cleaned onto one line (up to `CELL_TEXT_MAX` cells), never parsed as
    markup."""
    return Text(one_line(text, CELL_TEXT_MAX), style=style, no_wrap=True, end="")


def fitted(text: Text, width: int) -> Text:
    """`text` as it fits in `width` cells: whole, or cut with "…"."""
    if text.cell_len <= width:
        return text
    cut = text.copy()
    cut.truncate(width, overflow="ellipsis")
    return cut


def same_text(first: Text, second: Text) -> bool:
    """Equal text, base style and spans (`Text.__eq__` ignores the base style)."""
    return (
        first.plain == second.plain and first.style == second.style and first.spans == second.spans
    )
