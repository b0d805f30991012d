"""How the time view's lines are drawn: a row's label and bar, the two axis lines and the legend,
each as one `Strip` in the styles of the repaint (server text as plain segments, never markup)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from app.engine.safety.sanitize import middle_line, one_line
from app.view.formatting import STATUS_COLOURS, format_duration
from app.view.state import WatchedTask
from widgets.task_cells import ID_CELL_WIDTH, MARK_GLYPH
from widgets.theme_style import ThemeStyles
from widgets.time_bars import TimeScale, axis_lines

KIND_COLOURS: dict[str, str] = {
    **STATUS_COLOURS,
    "asked": "text-warning",
    "answered": "text-success",
    "poll_failed": "text-error",
    "ttl": "text-accent",
}
"""The theme variable that colours each cell kind (empty means dim)."""
_BOLD_KINDS = frozenset({"asked", "answered", "poll_failed", "ttl"})


class ViewLook(NamedTuple):
    """The styles of one repaint: base, axis and cursor (part of every cached key)."""

    base: Style
    axis: Style
    cursor: Style


def label_width(width: int) -> int:
    """Cells for the id-and-tool label before the bars: a quarter of the width, 12 to 30."""
    return max(12, min(30, width // 4))


def row_label(watched: WatchedTask, width: int, marked: bool) -> str:
    """`▸build_report ab12…cd34`: mark, tool and the short id (what tells two runs of one tool
    apart, so the tool is cut first), cleaned and cut to `width`."""
    mark = MARK_GLYPH if marked else " "
    short_id = middle_line(watched.server_task_id, ID_CELL_WIDTH)
    room = width - 1 - len(" ") - cell_len(short_id)
    if room < MIN_TOOL_CELLS:
        text = one_line(f"{short_id} {watched.tool_name or '—'}", max(width - 1, 1))
    else:
        text = f"{one_line(watched.tool_name or '—', room)} {short_id}"
    return (mark + text).ljust(width)[:width]


MIN_TOOL_CELLS = 4
"""Below this many cells for the tool, the label leads with the id (a narrower label cuts the
tool after it)."""


def kind_style(look: ViewLook, styles: ThemeStyles, kind: str) -> Style:
    """The style of a bar or legend cell of `kind` ('' is the background)."""
    if not kind:
        return look.base
    return look.base + styles.get(KIND_COLOURS.get(kind, ""), bold=kind in _BOLD_KINDS)


def row_strip(
    label: Segment,
    cells: Iterable[tuple[str, str]],
    look: ViewLook,
    styles: ThemeStyles,
    width: int,
) -> Strip:
    """One task's line: its label, then its bar's (glyph, kind) cells joined into runs of one
    kind, cut or padded to `width`."""
    segments = [label, Segment(" ", look.base)]
    run_kind, run = "", list[str]()
    for glyph, kind in cells:
        if kind != run_kind and run:
            segments.append(Segment("".join(run), kind_style(look, styles, run_kind)))
            run = []
        run_kind = kind
        run.append(glyph)
    if run:
        segments.append(Segment("".join(run), kind_style(look, styles, run_kind)))
    return Strip(segments).extend_cell_length(width, look.base).crop(0, width)


def axis_strip(y: int, scale: TimeScale, labels: int, look: ViewLook, width: int) -> Strip:
    """Axis line `y` (0: the tick labels under a "Task" heading; 1: the rule beside the span)."""
    tick_labels, rule = axis_lines(scale)
    if y == 0:
        head, line = "Task".ljust(labels), tick_labels
    else:
        head, line = f"span {format_duration(scale.span)}".ljust(labels)[:labels], rule
    style = look.base + look.axis
    strip = Strip([Segment(head, style + Style(bold=y == 0)), Segment(" " + line, style)])
    return strip.extend_cell_length(width, style).crop(0, width)


def legend_strip(
    entries: Sequence[tuple[str, str, str]], look: ViewLook, styles: ThemeStyles, width: int
) -> Strip:
    """One legend line: each (glyph, words, kind) entry, two cells apart."""
    segments: list[Segment] = []
    for glyph, words, kind in entries:
        if segments:
            segments.append(Segment("  ", look.base))
        segments.append(Segment(glyph, kind_style(look, styles, kind)))
        segments.append(Segment(" " + words, look.base + Style(dim=True)))
    return Strip(segments).extend_cell_length(width, look.base).crop(0, width)
