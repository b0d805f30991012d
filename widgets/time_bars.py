"""The time view's drawing rules as pure functions: a shared time scale, one bar of glyphs per task,
the axis with its tick labels, and the legend.

Nothing here knows Textual: given a task's `Bar` (its history), a `TimeScale` and a width, the
functions return characters and the kind of each cell (a status, a mark, the TTL deadline), which
the widget colours. Every status and mark has its own glyph, so the view reads without colour.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from app.view.state import WatchedTask
from app.view.status_history import Moment, StatusChange

STATUS_BAR_GLYPHS: dict[str, str] = {
    "working": "━",
    "input_required": "▒",
    "completed": "✓",
    "failed": "✗",
    "cancelled": "\u2573",  # BOX DRAWINGS LIGHT DIAGONAL CROSS
    "expired": "⊘",
    "forgotten": "∅",
    "not_found": "∄",
    "not_visible": "◌",
    "unknown": "·",
}
"""The glyph a bar is drawn with while the task shows each status (the last cell of an ended bar
carries its final status: `✓` completed, `✗` failed, a diagonal cross cancelled…)."""

MARK_GLYPHS: dict[str, str] = {"asked": "?", "answered": "↵", "poll_failed": "!"}
"""Marks drawn over a bar at the moment something happened."""

TTL_GLYPH = "┊"
"""The cell of the TTL deadline (`createdAt + ttl`), when it falls inside the axis."""

_FILL_PRIORITY: dict[str, int] = {
    "unknown": 0,
    "working": 1,
    "completed": 2,
    "forgotten": 3,
    "not_found": 3,
    "not_visible": 3,
    "expired": 4,
    "cancelled": 5,
    "failed": 6,
    "input_required": 7,
}
"""When one cell spans several statuses, the highest one shows (a short wait for input stays
visible however long each cell is)."""
_MARK_PRIORITY: dict[str, int] = {"answered": 1, "asked": 2, "poll_failed": 3}

LEGEND: tuple[tuple[str, str, str], ...] = (
    (STATUS_BAR_GLYPHS["working"], "working", "working"),
    (STATUS_BAR_GLYPHS["input_required"], "input needed", "input_required"),
    (STATUS_BAR_GLYPHS["completed"], "completed", "completed"),
    (STATUS_BAR_GLYPHS["failed"], "failed", "failed"),
    (STATUS_BAR_GLYPHS["cancelled"], "cancelled", "cancelled"),
    (STATUS_BAR_GLYPHS["expired"], "expired", "expired"),
    (STATUS_BAR_GLYPHS["forgotten"], "forgotten", "forgotten"),
    (STATUS_BAR_GLYPHS["not_found"], "not found", "not_found"),
    (STATUS_BAR_GLYPHS["not_visible"], "not visible", "not_visible"),
    (STATUS_BAR_GLYPHS["unknown"], "unknown", "unknown"),
    (MARK_GLYPHS["asked"], "asked", "asked"),
    (MARK_GLYPHS["answered"], "answered", "answered"),
    (MARK_GLYPHS["poll_failed"], "poll failed", "poll_failed"),
    (TTL_GLYPH, "TTL", "ttl"),
)
"""(glyph, words, cell kind) of every legend entry, in reading order."""

SPAN_LADDER_S: tuple[float, ...] = (
    10,
    20,
    30,
    60,
    120,
    300,
    600,
    900,
    1800,
    3600,
    2 * 3600,
    3 * 3600,
    6 * 3600,
    12 * 3600,
    86400,
    2 * 86400,
    7 * 86400,
    30 * 86400,
    365 * 86400,
)
"""The spans the axis may show; it takes the shortest that holds every bar, so it rescales only
when the tasks' span outgrows a rung (beyond the last, whole multiples of it)."""

TICK_STEPS_S: tuple[float, ...] = (1, 2, 5, 10, 15, 30, *SPAN_LADDER_S[SPAN_LADDER_S.index(60) :])
"""Tick spacings, the finest whose ticks stand `MIN_TICK_GAP` cells apart is used."""

MIN_TICK_GAP = 9
"""Cells between two ticks at least, so their labels (`-1h30m`) never touch."""

Cell = tuple[str, str]
"""One drawn cell: its glyph and its kind (a status, `asked`, `answered`, `poll_failed`, `ttl`,
or "" for nothing)."""

BLANK: Cell = (" ", "")


@dataclass(frozen=True, slots=True)
class TimeScale:
    """The shared axis: `cells` columns of `cell_seconds` each from `start` (wall-clock seconds),
    the last one holding `now`. `grid` is what the drawing depends on (not `now` itself, which
    moves inside the last cell without changing a glyph)."""

    start: float
    cell_seconds: float
    cells: int
    span: float
    now: float

    @property
    def grid(self) -> tuple[float, float, int]:
        return (self.start, self.cell_seconds, self.cells)

    def column(self, at: float) -> int:
        """The column holding the moment `at` (may lie outside 0..cells-1)."""
        return math.floor((at - self.start) / self.cell_seconds)


@dataclass(frozen=True, slots=True)
class Bar:
    """What one task's bar is drawn from: when it began, its status changes and marks, when it
    ended (None while it goes on) and its TTL deadline (None without one)."""

    start: float
    changes: tuple[StatusChange, ...]
    moments: tuple[Moment, ...]
    end: float | None
    ttl_at: float | None


def bar_for(watched: WatchedTask) -> Bar:
    """The bar of a watched task: from the server's `createdAt` (or what an earlier run saw of
    it, or when first seen, if earlier) to now or to when it settled."""
    history = watched.history
    start = min(watched.first_seen, watched.created_at)
    return Bar(start, history.changes, history.moments, history.settled_at, watched.expires_at)


def _spans() -> Iterator[float]:
    yield from SPAN_LADDER_S
    top = SPAN_LADDER_S[-1]
    multiple = 2
    while True:
        yield top * multiple
        multiple *= 2


def choose_scale(earliest: float, now: float, cells: int) -> TimeScale:
    """The shortest ladder span that holds everything from `earliest` to `now` in `cells`
    columns; the right edge is rounded up to a whole cell so the axis stands still between
    cell boundaries."""
    cells = max(cells, 1)
    earliest = min(earliest, now)
    for span in _spans():
        cell_seconds = span / cells
        end = math.ceil(now / cell_seconds) * cell_seconds
        start = end - span
        if start <= earliest:
            return TimeScale(start, cell_seconds, cells, span, now)
    raise AssertionError("unreachable: the spans grow without bound")  # pragma: no cover


def _paint(
    priorities: list[int], kinds: list[str], first: int, last: int, kind: str, priority: int
) -> None:
    """Give cells `first..last` (clamped) `kind` where it outranks what they hold."""
    for column in range(max(first, 0), min(last, len(kinds) - 1) + 1):
        if priority > priorities[column]:
            priorities[column] = priority
            kinds[column] = kind


def bar_cells(bar: Bar, scale: TimeScale) -> list[Cell]:
    """The bar's glyph and kind in every column of `scale`.

    Each cell shows the highest-ranked status the task showed during it (`_FILL_PRIORITY`); over
    that, in order of precedence: the final status in the cell where an ended bar ends, a mark
    (poll failed, asked, answered), the TTL deadline. Before the first known status (an adopted
    task, or history dropped by the cap) the bar reads `unknown`.
    """
    cells = scale.cells
    kinds = [""] * cells
    priorities = [-1] * cells
    last = max(bar.end if bar.end is not None else scale.now, bar.start)
    cell_seconds = scale.cell_seconds

    def columns(since: float, until: float) -> tuple[int, int]:
        first = scale.column(since)
        end = math.ceil((until - scale.start) / cell_seconds) - 1
        return first, max(end, first)

    changes = bar.changes
    known_from = changes[0].at if changes else last
    if known_from > bar.start or not changes:
        first, end = columns(bar.start, min(known_from, last))
        _paint(priorities, kinds, first, end, "unknown", _FILL_PRIORITY["unknown"])
    for index, change in enumerate(changes):
        until = changes[index + 1].at if index + 1 < len(changes) else last
        since = max(change.at, bar.start)
        first, end = columns(since, max(min(until, last), since))
        _paint(priorities, kinds, first, end, change.status, _FILL_PRIORITY.get(change.status, 0))

    drawn: list[Cell] = [
        (STATUS_BAR_GLYPHS.get(kind, "·"), kind) if kind else BLANK for kind in kinds
    ]
    if bar.ttl_at is not None:
        column = scale.column(bar.ttl_at)
        if 0 <= column < cells:
            drawn[column] = (TTL_GLYPH, "ttl")
    marked: dict[int, str] = {}
    for moment in bar.moments:
        column = scale.column(moment.at)
        held = marked.get(column)
        if 0 <= column < cells and (
            held is None or _MARK_PRIORITY[moment.kind] > _MARK_PRIORITY[held]
        ):
            marked[column] = moment.kind
    for column, kind in marked.items():
        drawn[column] = (MARK_GLYPHS[kind], kind)
    if bar.end is not None and changes:
        column = min(max(scale.column(last), 0), cells - 1)
        final = changes[-1].status
        drawn[column] = (STATUS_BAR_GLYPHS.get(final, "·"), final)
    return drawn


def bar_text(bar: Bar, scale: TimeScale) -> str:
    """The bar as plain characters (what a monochrome terminal shows)."""
    return "".join(glyph for glyph, _kind in bar_cells(bar, scale))


def tick_label(seconds_before: float) -> str:
    """A tick's label: `now`, or how long before it, e.g. `-30s`, `-1m30s`, `-2h`, `-1d12h`."""
    whole = round(seconds_before)
    if whole <= 0:
        return "now"
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, whole = divmod(whole, size)
        if count:
            parts.append(f"{count}{unit}")
        if len(parts) == 2:
            break
    return "-" + "".join(parts)


def axis_ticks(scale: TimeScale) -> list[tuple[int, float]]:
    """(column, seconds before the right edge) of every tick, right to left: the right edge is
    `now`, then one tick every step, the finest step that keeps `MIN_TICK_GAP` cells apart."""
    step = next(
        (step for step in TICK_STEPS_S if step / scale.cell_seconds >= MIN_TICK_GAP),
        scale.span,
    )
    ticks: list[tuple[int, float]] = []
    offset = 0.0
    while True:
        column = scale.cells - 1 - round(offset / scale.cell_seconds)
        if column < 0:
            return ticks
        ticks.append((column, offset))
        offset += step


def axis_lines(scale: TimeScale) -> tuple[str, str]:
    """The axis as two lines of `scale.cells` characters: tick labels, each ending at its tick
    (a label that would touch its left neighbour is left out), then the rule with `┬` ticks."""
    labels = [" "] * scale.cells
    rule = ["─"] * scale.cells
    free_until = scale.cells + 1  # labels fill right to left, a blank before each
    for column, offset in axis_ticks(scale):
        rule[column] = "┬"
        label = tick_label(offset)
        first = column - len(label) + 1
        if first >= 0 and column < free_until - 1:
            labels[first : column + 1] = label
            free_until = first
    return "".join(labels), "".join(rule)


RARE_KINDS = frozenset({"not_found", "not_visible"})
"""Statuses the legend names only while a bar shows them (the legend would take another line
at 80 columns for what most sessions never see)."""


def legend_lines(
    width: int, shown: AbstractSet[str] = frozenset()
) -> list[list[tuple[str, str, str]]]:
    """The legend entries laid out on as few lines of `width` as they fit (two spaces apart);
    of the `RARE_KINDS`, only those in `shown`."""
    lines: list[list[tuple[str, str, str]]] = [[]]
    used = 0
    for entry in LEGEND:
        if entry[2] in RARE_KINDS and entry[2] not in shown:
            continue
        size = len(entry[0]) + 1 + len(entry[1])
        gap = 2 if lines[-1] else 0
        if lines[-1] and used + gap + size > width:
            lines.append([])
            used, gap = 0, 0
        lines[-1].append(entry)
        used += gap + size
    return lines


def earliest_start(bars: Sequence[Bar], now: float) -> float:
    """Where the axis must begin to hold every bar (now when there are none)."""
    return min((bar.start for bar in bars), default=now)
