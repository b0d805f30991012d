"""Checkbox and multi-select boxes tell on from off without colour: `✓` on, blank off."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from widgets.toggles import MarkedCheckbox, MarkedSelectionList


class Toggles(App[None]):
    def compose(self) -> ComposeResult:
        yield MarkedCheckbox("on", value=True, id="on")
        yield MarkedCheckbox("off", id="off")
        yield MarkedSelectionList(("red", "r", True), ("blue", "b", False), id="multi")


def drawn(widget: Widget) -> list[str]:
    region = widget.region
    return [strip.text for strip in widget.render_lines(Region(0, 0, region.width, region.height))]


async def test_boxes_show_a_tick_only_when_on() -> None:
    app = Toggles()
    async with app.run_test(size=(40, 12)) as pilot:
        on, off = app.query_one("#on", MarkedCheckbox), app.query_one("#off", MarkedCheckbox)
        assert "▐✓▌ on" in " ".join(drawn(on))
        assert "▐ ▌ off" in " ".join(drawn(off))
        off.focus()
        await pilot.press("space")
        assert off.value and "▐✓▌ off" in " ".join(drawn(off))
        multi = app.query_one(MarkedSelectionList)
        lines = " | ".join(drawn(multi))
        assert "▐✓▌ red" in lines and "▐ ▌ blue" in lines
        multi.select("b")
        multi.deselect("r")
        await pilot.pause()
        lines = " | ".join(drawn(multi))
        assert "▐ ▌ red" in lines and "▐✓▌ blue" in lines
