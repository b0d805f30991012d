"""Reading what the App shows as a terminal shows it (text, clickable cells, toasts), for the
markup-injection and hostile-server App tests."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.geometry import Region
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._toast import Toast

from app.tui.app import TaskscopeApp


def shown_text(widget: Widget) -> str:
    """What `widget` draws inside its border and padding, its lines joined and runs of spaces
    made one, so text wrapped at a space still reads as typed."""
    region, gutter = widget.region, widget.styles.gutter
    strips = widget.render_lines(Region(0, 0, region.width, region.height))
    inner = strips[gutter.top : region.height - gutter.bottom]
    lines = [strip.crop(gutter.left, region.width - gutter.right).text for strip in inner]
    return " ".join(" ".join(lines).split())


def clickable_cells(screen: Screen[Any]) -> list[tuple[int, int, object]]:
    """Every cell of `screen` whose style carries a click action (what `[@click=…]` makes)."""
    width, height = screen.size
    cells = []
    for y in range(height):
        for x in range(width):
            meta = screen.get_style_at(x, y).meta
            if "@click" in meta:
                cells.append((x, y, meta["@click"]))
    return cells


def toast_showing(app: App[Any], needle: str) -> Toast | None:
    """The toast on screen whose text contains `needle`, if any."""
    return next((toast for toast in toasts(app) if needle in shown_text(toast)), None)


class Notes:
    """Every notification the App made, caught as `Notify` messages (whether or not it is still
    on screen), for `run_test(message_hook=…)`."""

    def __init__(self) -> None:
        self.made: list[Notification] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify):
            self.made.append(message.notification)

    def titled(self, title: str) -> list[Notification]:
        return [note for note in self.made if note.title == title]


class LastingToastsApp(TaskscopeApp):
    """The App with toasts that stay on screen however slowly a test runs."""

    NOTIFICATION_TIMEOUT = 600


def toasts(app: App[Any]) -> list[Toast]:
    return list(app.screen.query(Toast))


def rendered_text(renderable: object) -> str:
    """What Rich prints for `renderable`, as plain text on one line per row."""
    from rich.console import Console

    console = Console(width=200, color_system=None)
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()
