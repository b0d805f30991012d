"""Pick a tool to run (or to check a server with): type to narrow the list by name and
description, enter to choose.

A typed function (`ModalScreen[ToolChoice | None]`). Search ranks the exact name first,
then name prefixes, name substrings and last descriptions; a side pane shows the highlighted
tool's whole description and input schema (hidden on narrow terminals). Tool names and
descriptions are server text, shown plainly; the legacy `taskSupport` is shown beside each tool,
and a tool that cannot be called says why and cannot be picked. When the caller offers it, a first
entry chooses no tool at all (`NO_TOOL`): the default, hidden once a tool's name is typed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import Enum
from typing import ClassVar, Final, Literal

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from app.engine.rpc.tool_info import ToolInfo
from app.engine.safety.sanitize import one_line, safe_text
from widgets.css_paths import MODALS_CSS

SIDE_PANE_MIN_WIDTH = 110
"""Below this many terminal columns the side pane is hidden, so the list keeps a usable width."""
NAME_WIDTH = 24
DESCRIPTION_WIDTH = 60


class NoTool(Enum):
    """The picker's answer when the user chose to use no tool (offered by `no_tool`)."""

    NO_TOOL = "no tool"


NO_TOOL: Final = NoTool.NO_TOOL
ToolChoice = ToolInfo | Literal[NoTool.NO_TOOL]


def match_rank(tool: ToolInfo, query: str) -> int | None:
    """How well `query` finds `tool`, best first: 0 the exact name, 1 a name prefix, 2 a name
    substring, 3 every word in the name or description; None when it does not match at all
    (case-insensitive). An empty query matches every tool equally."""
    wanted = query.strip().casefold()
    if not wanted:
        return 0
    name = tool.name.casefold()
    if name == wanted:
        return 0
    if name.startswith(wanted):
        return 1
    if wanted in name:
        return 2
    haystack = f"{name} {tool.description.casefold()}"
    return 3 if all(word in haystack for word in wanted.split()) else None


def ranked(tools: Sequence[ToolInfo], query: str) -> list[ToolInfo]:
    """The tools `query` finds, best match first, server order among equals."""
    found: list[tuple[int, int, ToolInfo]] = []
    for index, tool in enumerate(tools):
        rank = match_rank(tool, query)
        if rank is not None:
            found.append((rank, index, tool))
    found.sort(key=lambda item: (item[0], item[1]))
    return [tool for _, _, tool in found]


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


def tool_about(tool: ToolInfo) -> Text:
    """The side pane's text: name, task support, why it cannot be called, the description and
    the input schema, all server text shown plainly."""
    about = safe_text(tool.name, max_len=200, style="bold")
    if tool.task_support is not None:
        about.append(f"\ntaskSupport: {tool.task_support}", "dim")
    if tool.unusable is not None:
        about.append("\n⊘ cannot be called: ")
        about.append_text(safe_text(tool.unusable, max_len=400))
    if tool.description:
        about.append("\n\n")
        about.append_text(safe_text(tool.description, max_len=4000, allow_newlines=True))
    about.append("\n\nInput schema\n", "bold")
    schema = json.dumps(tool.input_schema, indent=2, ensure_ascii=False, default=str)
    about.append_text(safe_text(schema, max_len=8000, allow_newlines=True))
    return about


class ToolPicker(ModalScreen[ToolChoice | None]):
    """The tool list with a search box; up/down move, enter picks, escape closes."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="picker-close"),
        Binding("down", "move(1)", "Next", show=False, id="picker-down"),
        Binding("up", "move(-1)", "Previous", show=False, id="picker-up"),
    ]

    def __init__(
        self,
        tools: Sequence[ToolInfo],
        *,
        server: str | None = None,
        title: str = "Run a tool",
        verb: str = "run",
        no_tool: Text | None = None,
    ) -> None:
        """`server`: which of several servers the tools are on (named in the title); `verb`:
        what enter does; `no_tool`: the label of an entry that picks no tool (None: there is
        no such entry)."""
        super().__init__(classes="picker-modal")
        self.tools = tuple(tools)
        self.server = server
        self.title_text = title
        self.verb = verb
        self.no_tool = no_tool
        self.shown: list[ToolInfo] = list(self.tools)
        """The tools the search finds, best first."""
        self._choices: list[ToolChoice] = []
        """What each option of the list picks, in order (the no-tool entry first, if shown)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-body"):
            title = Text(self.title_text, style="bold")
            if self.server is not None:
                title.append(f" on {one_line(self.server, 40)}")
            yield Static(title, id="picker-title")
            yield Input(placeholder="type to search tools", id="picker-search")
            with Horizontal(id="picker-main"):
                yield OptionList(id="picker-list")
                with VerticalScroll(id="picker-side"):
                    yield Static(id="picker-about")
            yield Static(f"↑↓ move · enter {self.verb} · esc close", id="picker-keys")

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < SIDE_PANE_MIN_WIDTH, "-narrow")
        self._refill("")
        self.query_one(Input).focus()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < SIDE_PANE_MIN_WIDTH, "-narrow")

    @on(Input.Changed, "#picker-search")
    def narrow(self, event: Input.Changed) -> None:
        self._refill(event.value)

    def _refill(self, query: str) -> None:
        """The tools `query` finds, best first; the no-tool entry first while the query is empty
        or starts "no tool" (so it is the default, and typing a name never picks it)."""
        self.shown = ranked(self.tools, query)
        wanted = query.strip().casefold()
        offer_none = self.no_tool is not None and NO_TOOL.value.startswith(wanted)
        self._choices = [NO_TOOL] if offer_none else []
        self._choices += self.shown
        options = self.query_one(OptionList)
        options.set_options(
            Option(self.no_tool or Text(), id="no-tool")
            if choice is NO_TOOL
            else Option(tool_label(choice), disabled=choice.unusable is not None)
            for choice in self._choices
        )
        if not self.tools:
            options.add_option(
                Option(Text("The server lists no tools.", style="dim"), disabled=True)
            )
        if self._choices:
            options.highlighted = 0
        self._describe(self._choices[0] if self._choices else None)

    @on(OptionList.OptionHighlighted, "#picker-list")
    def follow_highlight(self, event: OptionList.OptionHighlighted) -> None:
        self._describe(self._choice_at(event.option_index))

    def _choice_at(self, index: int | None) -> ToolChoice | None:
        """The tool (or no tool) of the option at `index`; None for a notice."""
        choices = self._choices
        return choices[index] if index is not None and 0 <= index < len(choices) else None

    def _describe(self, choice: ToolChoice | None) -> None:
        """The side pane: the highlighted tool's whole description and input schema."""
        about = self.query_one("#picker-about", Static)
        if choice is NO_TOOL:
            about.update(self.no_tool or Text())
        else:
            about.update(tool_about(choice) if choice is not None else Text())

    def action_move(self, step: int) -> None:
        if not self._choices:
            return
        options = self.query_one(OptionList)
        current = options.highlighted or 0
        options.highlighted = max(0, min(len(self._choices) - 1, current + step))

    @on(Input.Submitted, "#picker-search")
    def pick_highlighted(self) -> None:
        self._pick(self._choice_at(self.query_one(OptionList).highlighted))

    @on(OptionList.OptionSelected, "#picker-list")
    def pick_clicked(self, event: OptionList.OptionSelected) -> None:
        self._pick(self._choice_at(event.option_index))

    def _pick(self, choice: ToolChoice | None) -> None:
        if choice is NO_TOOL or (choice is not None and choice.unusable is None):
            self.dismiss(choice)

    def action_close(self) -> None:
        self.dismiss(None)
