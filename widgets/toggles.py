"""A checkbox and a multi-select whose boxes read without colour: `✓` when on, blank when off.

Textual draws `▐X▌` for both states and tells them apart by colour alone.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets._toggle_button import ToggleButton

ON_GLYPH = "✓"
OFF_GLYPH = " "


class MarkedCheckbox(Checkbox):
    """A `Checkbox` showing `✓` inside its box when checked and nothing when not."""

    BUTTON_INNER = OFF_GLYPH

    def on_mount(self) -> None:
        self._watch_value(self.value)

    def _watch_value(self, value: bool) -> None:
        self.BUTTON_INNER = ON_GLYPH if value else OFF_GLYPH


class MarkedSelectionList(SelectionList[str]):
    """A `SelectionList` whose boxes show `✓` for the chosen options and nothing for the rest."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if len(segments) < 3 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip
        index = self.scroll_offset.y + y
        if index >= self.option_count:
            return strip
        chosen = self.get_option_at_index(index).value in self.selected
        inner = segments[1]
        segments[1] = Segment(ON_GLYPH if chosen else OFF_GLYPH, inner.style, inner.control)
        return Strip(segments, strip.cell_length)
