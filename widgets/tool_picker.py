"""Pick a tool to run: type to narrow the list by name and description, enter to choose.

A typed function (`ModalScreen[ToolInfo | None]`). Tool names and descriptions are server text,
shown through `one_line`; the legacy `taskSupport` is shown beside each tool, and a tool that
cannot be called says why and cannot be picked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from app.engine.sanitize import one_line
from app.tui.source import ToolInfo
from widgets.css_paths import MODALS_CSS

NAME_WIDTH = 24
DESCRIPTION_WIDTH = 60


def matches(tool: ToolInfo, query: str) -> bool:
    """Every word of `query` appears in the tool's name or description (case-insensitive)."""
    haystack = f"{tool.name} {tool.description}".casefold()
    return all(word in haystack for word in query.casefold().split())


def tool_label(tool: ToolInfo) -> Text:
    """One line: name, legacy task support, description (or why the tool cannot be called)."""
    label = Text(no_wrap=True, overflow="ellipsis")
    label.append(
        one_line(tool.name, NAME_WIDTH).ljust(NAME_WIDTH), "dim" if tool.unusable else "bold"
    )
    if tool.unusable is not None:
        label.append(" ⊘ unusable: " + one_line(tool.unusable, DESCRIPTION_WIDTH), "dim")
        return label
    if tool.task_support is not None:
        label.append(f" {tool.task_support:<9}", "dim")
    label.append(" " + one_line(tool.description, DESCRIPTION_WIDTH))
    return label


class ToolPicker(ModalScreen[ToolInfo | None]):
    """The tool list with a search box; up/down move, enter picks, escape closes."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="picker-close"),
        Binding("down", "move(1)", "Next", show=False, id="picker-down"),
        Binding("up", "move(-1)", "Previous", show=False, id="picker-up"),
    ]

    def __init__(self, tools: Sequence[ToolInfo]) -> None:
        super().__init__(classes="picker-modal")
        self.tools = tuple(tools)
        self.shown: list[ToolInfo] = list(self.tools)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-body"):
            yield Static(Text("Run a tool", style="bold"), id="picker-title")
            yield Input(placeholder="type to search tools", id="picker-search")
            yield OptionList(id="picker-list")
            yield Static("↑↓ move · enter run · esc close", id="picker-keys")

    def on_mount(self) -> None:
        self._refill("")
        self.query_one(Input).focus()

    @on(Input.Changed, "#picker-search")
    def narrow(self, event: Input.Changed) -> None:
        self._refill(event.value)

    def _refill(self, query: str) -> None:
        self.shown = [tool for tool in self.tools if matches(tool, query)]
        options = self.query_one(OptionList)
        options.set_options(
            Option(tool_label(tool), disabled=tool.unusable is not None) for tool in self.shown
        )
        if self.shown:
            options.highlighted = 0
        elif not self.tools:
            options.add_option(
                Option(Text("The server lists no tools.", style="dim"), disabled=True)
            )

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if not self.shown:
            return
        current = options.highlighted or 0
        options.highlighted = max(0, min(len(self.shown) - 1, current + step))

    @on(Input.Submitted, "#picker-search")
    def pick_highlighted(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None and highlighted < len(self.shown):
            tool = self.shown[highlighted]
            if tool.unusable is None:
                self.dismiss(tool)

    @on(OptionList.OptionSelected, "#picker-list")
    def pick_clicked(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < len(self.shown):
            self.dismiss(self.shown[event.option_index])

    def action_close(self) -> None:
        self.dismiss(None)
