"""A read-only pager for a (maybe megabyte-long) text that folds it to the width and renders only
the lines on screen (the Result tab's body)."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


class TextPager(ScrollView, can_focus=True):
    """A read-only scrolling view of a (maybe megabyte-long) `Text`, rendering visible lines only.

    `Static` lays out its whole content at once (seconds for 1 MB); here long lines are folded
    by slicing at the current width and each frame renders just the lines on screen.
    """

    DEFAULT_CSS = """
    TextPager {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._text = Text()
        self._lines: list[Text] = []
        self._folded_at = 0

    @property
    def text(self) -> Text:
        """The whole text shown."""
        return self._text

    def update(self, text: Text) -> None:
        """Show `text` from the top."""
        self._text = text
        self._fold()
        self.scroll_to(0, 0, animate=False)

    def on_resize(self) -> None:
        if self._fold_width() != self._folded_at:
            self._fold()

    def _fold_width(self) -> int:
        return max(self.scrollable_content_region.width, 20)

    def _fold(self) -> None:
        width = self._fold_width()
        self._folded_at = width
        lines: list[Text] = []
        for line in self._text.split("\n", allow_blank=True):
            pieces = line.divide(range(width, len(line), width)) if len(line) > width else [line]
            for piece in pieces:
                if piece.cell_len <= width:
                    lines.append(piece)
                else:  # wide characters: fold this short piece by cells
                    lines.extend(piece.wrap(self.app.console, width, overflow="fold"))
        self._lines = lines
        self.virtual_size = Size(width, len(lines))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, style)
        segments = self._lines[index].render(self.app.console)
        strip = Strip(Segment.apply_style(segments, style))
        return strip.crop_extend(0, width, style)
