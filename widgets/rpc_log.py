"""The RPC log strip: every JSON-RPC frame in and out, one line each, capped in memory.

The frames live in a bounded `FrameBuffer` (the App's own, shared, so they are kept once) and
only the lines on screen are rendered, so a busy session with thousands of polls costs a
constant amount per repaint. The App hands frames over in batches (`add_frames`) a few times a
second; server text goes through `one_line`. A cursor row
(the arrows, PgUp/PgDn, Home/End) stays on its frame as frames arrive and drop; `enter` or a
click posts `FrameChosen` for the App to open the frame's exchange.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.theme import Theme

from app.engine.safety.sanitize import middle_line, one_line
from app.engine.tasks.server_keys import SEPARATOR, bare_id
from app.view.exchanges import FrameBuffer
from app.view.formatting import format_clock
from widgets.task_cells import ID_CELL_WIDTH
from widgets.theme_style import theme_style

if TYPE_CHECKING:
    from app.engine.rpc.rpc_types import Frame

DEFAULT_MAX_FRAMES = 2_000

_FIELDS: tuple[tuple[str, int], ...] = (
    ("time", 12),
    ("dir", 1),
    ("method", 24),
    ("task", 12),
    ("latency", 8),
    ("reason", 12),
    ("http", 3),
)
"""Each field of a line and its cells on a narrow log."""
GROWTH: tuple[tuple[str, int], ...] = (("method", 28), ("task", 48), ("method", 40))
"""How a wide log's room is handed out, in turn: the method column up to 28 cells (every tasks
method whole, `notifications/tasks/status` too), the task column up to 48 (`server · id` of a
UUID), then the method column up to 40."""
ERROR_ROOM = 24
"""Cells the error text keeps on screen before the method and task columns grow."""
_ERROR_WIDTH = 60
SERVER_MIN_CELLS = 2
"""With several servers the task column reads `server · id`; the server name is cut first, and
left out when fewer cells than this are left for it (the short id stays whole)."""


TASK_FIELD = [key for key, _ in _FIELDS].index("task")


@functools.lru_cache(maxsize=8)
def field_widths(width: int) -> tuple[int, ...]:
    """Each field's cells (in `_FIELDS` order) on a log `width` cells wide: what the fixed
    fields and `ERROR_ROOM` leave goes to the method and task columns as `GROWTH` says."""
    widths = dict(_FIELDS)
    spare = width - sum(cells + 1 for cells in widths.values()) - 2 - ERROR_ROOM
    for key, most in GROWTH:
        grown = min(max(most - widths[key], 0), max(spare, 0))
        widths[key] += grown
        spare -= grown
    return tuple(widths.values())


def line_width(widths: tuple[int, ...]) -> int:
    """Every line is laid out to this many cells, so horizontal scrolling is stable."""
    return sum(cells + 1 for cells in widths) + 2 + _ERROR_WIDTH


def task_cell(frame: Frame, width: int) -> str:
    """The frame's task in `width` cells: its id cut in the middle, or with several servers
    `server · id`, the server name cut first so that the short id stays readable (any room the
    whole name leaves goes to the id); a frame of no task shows its server."""
    if frame.task_id is None:
        return one_line(frame.server or "", width)
    task_id = bare_id(frame.task_id, frame.server)
    if frame.server is None:
        return middle_line(task_id, width)
    server_room = width - len(SEPARATOR) - cell_len(middle_line(task_id, ID_CELL_WIDTH))
    if server_room < SERVER_MIN_CELLS:
        return middle_line(task_id, width)
    server = one_line(frame.server, server_room)
    return f"{server}{SEPARATOR}{middle_line(task_id, width - len(SEPARATOR) - cell_len(server))}"


def frame_cells(frame: Frame, task_width: int) -> list[tuple[str, str]]:
    """The text of each field of one log line, with the theme variable that colours it."""
    outgoing = frame.direction == "out"
    method = frame.method or ("error" if frame.error else "result")
    latency = f"{frame.latency_ms:.0f}ms" if frame.latency_ms is not None else ""
    status = str(frame.http_status) if frame.http_status is not None else ""
    return [
        (format_clock(frame.at), ""),
        ("→" if outgoing else "←", "text-primary" if outgoing else "text-success"),
        (method, "text-error" if frame.error else ""),
        (task_cell(frame, task_width), "text-accent"),  # a task's key names its server
        (latency, ""),
        (frame.reason or "", "text-primary"),
        (status, "text-error" if (frame.http_status or 0) >= 400 else ""),
    ]


class RpcLog(ScrollView, can_focus=True):
    """A scrolling log of frames; follows the newest line while scrolled to the bottom."""

    DEFAULT_CSS = """
    RpcLog {
        height: 10;
    }
    RpcLog > .rpc-log--cursor {
        background: $block-cursor-blurred-background;
        color: $block-cursor-blurred-foreground;
    }
    RpcLog:focus > .rpc-log--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"rpc-log--cursor"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "choose",
            "Open",
            id="open-frame",
            tooltip="The exchange of the frame under the cursor: request, response, headers",
        ),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "move_page(-1)", "Page up", show=False),
        Binding("pagedown", "move_page(1)", "Page down", show=False),
        Binding("home", "move_to(0)", "First", show=False),
        Binding("end", "move_to(-1)", "Newest", show=False),
    ]

    class FrameChosen(Message):
        """`enter` or a click on a frame: open its exchange."""

        def __init__(self, frame: Frame) -> None:
            super().__init__()
            self.frame = frame

    follow: var[bool] = var(True)
    """Scroll to new frames as they arrive (only while already at the bottom)."""

    def __init__(
        self,
        frames: Iterable[Frame] = (),
        *,
        max_frames: int = DEFAULT_MAX_FRAMES,
        buffer: FrameBuffer | None = None,
        id: str | None = None,  # noqa: A002 - Textual's own name for it
        classes: str | None = None,
    ) -> None:
        """Show `buffer` (the App's frames, those seen before the log was first opened
        included), or a buffer of its own holding the newest `max_frames` of `frames`."""
        super().__init__(id=id, classes=classes)
        if buffer is None:
            buffer = FrameBuffer(max_frames)
            buffer.add(tuple(frames))
        self._frames = buffer
        self._styles: dict[str, Style] = {}
        self._end_pending = False
        self._at_end_when_fed = True
        """Whether the last batch came in with the view on the newest line (always, when hidden)."""
        self._cursor: int | None = None
        """The index of the frame under the cursor; None until the user moves it."""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.virtual_size = self._laid_out_size()

    @property
    def frames(self) -> Sequence[Frame]:
        """The frames kept, oldest first."""
        return self._frames.frames

    @property
    def cursor(self) -> int | None:
        """The index (oldest first) of the frame under the cursor, None before it is moved."""
        return self._cursor

    @property
    def cursor_frame(self) -> Frame | None:
        """The frame under the cursor, if any."""
        return self._frames[self._cursor] if self._cursor is not None else None

    def add_frames(self, frames: Iterable[Frame]) -> None:
        """Add a batch of frames to the buffer, dropping the oldest beyond its capacity, and
        repaint once."""
        at_end = self._end_pending or self.is_vertical_scroll_end
        self._at_end_when_fed = at_end
        before = len(self._frames)
        incoming = tuple(frames)
        if not incoming:
            return
        on_newest = self._cursor is None or self._cursor == before - 1
        self._frames.add(incoming)
        dropped = before + len(incoming) - len(self._frames)
        self.virtual_size = self._laid_out_size()
        if self._cursor is not None:  # stay on the same frame, or on the newest one
            last = len(self._frames) - 1
            self._cursor = last if on_newest else max(self._cursor - dropped, 0)
        if self.follow and at_end and on_newest:
            self._end_pending = True  # the new size is laid out on refresh; scroll after that
            self.call_after_refresh(self._scroll_to_newest)
        elif dropped:  # keep the lines being read where they were
            self.scroll_to(y=max(self.scroll_y - dropped, 0), animate=False, immediate=True)
        self.refresh()

    def catch_up(self) -> None:
        """Show what the buffer gained while the log was hidden, and land on the newest line
        while following."""
        self._cursor = None
        self._end_pending = True
        self.virtual_size = self._laid_out_size()
        if self.follow:
            self.call_after_refresh(self._scroll_to_newest)
        self.refresh()

    def _widths(self) -> tuple[int, ...]:
        return field_widths(self.scrollable_content_region.width)

    def _laid_out_size(self) -> Size:
        """Every line's width at the log's current width, by the number of frames."""
        return Size(line_width(self._widths()), len(self._frames))

    def on_resize(self, _event: events.Resize) -> None:
        """Shown (or resized) while following: land on the newest line, not the oldest; the
        method and task columns follow the new width."""
        self.virtual_size = self._laid_out_size()
        if self.follow and self._at_end_when_fed:
            self.call_after_refresh(self._scroll_to_newest)

    def _scroll_to_newest(self) -> None:
        self.scroll_end(animate=False, immediate=True, x_axis=False)
        self._end_pending = False

    # -- the cursor -----------------------------------------------------------------------------

    def move_cursor(self, index: int) -> None:
        """Put the cursor on frame `index` (clamped; negative counts from the newest) and scroll
        it into view."""
        count = len(self._frames)
        if not count:
            return
        self._cursor = max(0, min(index if index >= 0 else count + index, count - 1))
        height = max(self.scrollable_content_region.height, 1)
        top = round(self.scroll_y)
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, immediate=True)
        elif self._cursor >= top + height:
            self.scroll_to(y=self._cursor - height + 1, animate=False, immediate=True)
        self.refresh()

    def action_move(self, step: int) -> None:
        """One row up or down; the first move starts from the edge of what is on screen."""
        if self._cursor is None:
            top = round(self.scroll_y)
            height = self.scrollable_content_region.height
            self.move_cursor(top if step > 0 else min(top + height, len(self._frames)) - 1)
            return
        self.move_cursor(self._cursor + step)

    def action_move_page(self, direction: int) -> None:
        height = max(self.scrollable_content_region.height - 1, 1)
        start = self._cursor if self._cursor is not None else round(self.scroll_y)
        self.move_cursor(max(start + direction * height, 0))

    def action_move_to(self, index: int) -> None:
        self.move_cursor(index)

    def action_choose(self) -> None:
        """Open the frame under the cursor (the newest when the cursor was never moved)."""
        if self._cursor is None:
            self.move_cursor(-1)
        frame = self.cursor_frame
        if frame is not None:
            self.post_message(self.FrameChosen(frame))

    def on_click(self, event: events.Click) -> None:
        """A click on a line puts the cursor there and opens its frame."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = round(self.scroll_y) + offset.y
        if 0 <= index < len(self._frames):
            event.stop()
            self.move_cursor(index)
            self.post_message(self.FrameChosen(self._frames[index]))

    def line_text(self, index: int) -> Text:
        """The log line for the frame at `index` (oldest first), as shown."""
        frame = self._frames[index]
        line = Text(no_wrap=True, end="")
        widths = self._widths()
        cells = frame_cells(frame, widths[TASK_FIELD])
        for (text, variable), width in zip(cells, widths, strict=True):
            cell = one_line(text, width)
            line.append(cell.ljust(width), self._style(variable))
            line.append(" ")
        if frame.error:
            line.append("✗ ", self._style("text-error"))
            line.append(one_line(frame.error, _ERROR_WIDTH), self._style("text-error"))
        return line

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if index >= len(self._frames):
            return Strip.blank(width, style)
        if index == self._cursor:
            style = style + self.get_component_rich_style("rpc-log--cursor")
        segments = self.line_text(index).render(self.app.console)
        strip = Strip(Segment.apply_style(segments, style))
        return strip.crop_extend(scroll_x, scroll_x + width, style)

    def _style(self, variable: str) -> Style:
        if not variable:
            return Style()
        style = self._styles.get(variable)
        if style is None:
            style = theme_style(self.app.theme_variables, variable)
            self._styles[variable] = style
        return style

    def _on_theme_changed(self, _theme: Theme) -> None:
        self._styles = {}
        self.refresh()
