"""The RPC log strip: every JSON-RPC frame in and out, one line each, capped in memory.

Frames are kept in a bounded deque and only the lines on screen are rendered, so a busy session
with thousands of polls costs a constant amount per repaint. The App hands frames over in
batches (`add_frames`) a few times a second; server text goes through `one_line`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.theme import Theme

from app.engine.sanitize import one_line
from app.tui.formatting import format_clock, theme_style

if TYPE_CHECKING:
    from app.engine.rpc_types import Frame

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
_ERROR_WIDTH = 60
LINE_WIDTH = sum(width + 1 for _, width in _FIELDS) + 2 + _ERROR_WIDTH
"""Every line is laid out to this many cells, so horizontal scrolling is stable."""


def frame_cells(frame: Frame) -> list[tuple[str, str]]:
    """The text of each field of one log line, with the theme variable that colours it."""
    outgoing = frame.direction == "out"
    method = frame.method or ("error" if frame.error else "result")
    latency = f"{frame.latency_ms:.0f}ms" if frame.latency_ms is not None else ""
    status = str(frame.http_status) if frame.http_status is not None else ""
    return [
        (format_clock(frame.at), ""),
        ("→" if outgoing else "←", "text-primary" if outgoing else "text-success"),
        (method, "text-error" if frame.error else ""),
        (frame.task_id or "", "text-accent"),
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
    """

    follow: var[bool] = var(True)
    """Scroll to new frames as they arrive (only while already at the bottom)."""

    def __init__(
        self,
        frames: Iterable[Frame] = (),
        *,
        max_frames: int = DEFAULT_MAX_FRAMES,
        id: str | None = None,  # noqa: A002 - Textual's own name for it
        classes: str | None = None,
    ) -> None:
        """Start with `frames` (the newest `max_frames` of them), e.g. those seen before the log
        was first opened."""
        super().__init__(id=id, classes=classes)
        self._frames: deque[Frame] = deque(frames, maxlen=max_frames)
        self._styles: dict[str, Style] = {}
        self._end_pending = False
        self._at_end_when_fed = True
        """Whether the last batch came in with the view on the newest line (always, when hidden)."""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.virtual_size = Size(LINE_WIDTH, len(self._frames))

    @property
    def frames(self) -> Sequence[Frame]:
        """The frames kept, oldest first."""
        return tuple(self._frames)

    @property
    def max_frames(self) -> int:
        return self._frames.maxlen or 0

    def add_frames(self, frames: Iterable[Frame]) -> None:
        """Append a batch of frames, dropping the oldest beyond the cap, and repaint once."""
        at_end = self._end_pending or self.is_vertical_scroll_end
        self._at_end_when_fed = at_end
        before = len(self._frames)
        incoming = list(frames)
        if not incoming:
            return
        self._frames.extend(incoming)
        dropped = before + len(incoming) - len(self._frames)
        self.virtual_size = Size(LINE_WIDTH, len(self._frames))
        if self.follow and at_end:
            self._end_pending = True  # the new size is laid out on refresh; scroll after that
            self.call_after_refresh(self._scroll_to_newest)
        elif dropped:  # keep the lines being read where they were
            self.scroll_to(y=max(self.scroll_y - dropped, 0), animate=False, immediate=True)
        self.refresh()

    def set_frames(self, frames: Iterable[Frame]) -> None:
        """Replace the frames kept with `frames` (the newest `max_frames` of them), e.g. to catch
        up after being hidden, and land on the newest while following."""
        self._frames.clear()
        self._end_pending = True
        self.add_frames(frames)

    def on_resize(self, _event: events.Resize) -> None:
        """Shown (or resized) while following: land on the newest line, not the oldest."""
        if self.follow and self._at_end_when_fed:
            self.call_after_refresh(self._scroll_to_newest)

    def _scroll_to_newest(self) -> None:
        self.scroll_end(animate=False, immediate=True, x_axis=False)
        self._end_pending = False

    def clear(self) -> None:
        """Forget every frame."""
        self._frames.clear()
        self.virtual_size = Size(LINE_WIDTH, 0)
        self.refresh()

    def line_text(self, index: int) -> Text:
        """The log line for the frame at `index` (oldest first), as shown."""
        frame = self._frames[index]
        line = Text(no_wrap=True, end="")
        for (text, variable), (_, width) in zip(frame_cells(frame), _FIELDS, strict=True):
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
