"""The tool picker's search: what a user typed finds the tool they meant first (pure logic), and
the side pane shows the highlighted tool's description and schema (Pilot); the check's picker
offers "no tool" first, which typing a tool's name never picks."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App
from textual.widgets import OptionList, Static

from app.engine.rpc.tool_info import ToolInfo
from tests.support.tui_helpers import wait_for
from widgets.tool_picker import NO_TOOL, ToolPicker, match_rank, ranked


def tool(name: str, description: str = "", schema: dict[str, Any] | None = None) -> ToolInfo:
    return ToolInfo(name, description, schema or {"type": "object"}, None)


EVERYTHING = [
    tool("multi-greet", "Greets with delays between messages"),
    tool("delay", "Waits"),
    tool("toggle-simulated-logging", "Toggles simulated logging"),
    tool("simulate-research-query", "Simulates research"),
    tool("echo", "Echoes"),
]


def names(tools: list[ToolInfo]) -> list[str]:
    return [each.name for each in tools]


def test_the_exact_name_comes_before_a_description_match() -> None:
    assert names(ranked(EVERYTHING, "delay"))[0] == "delay"
    assert names(ranked(EVERYTHING, "delay")) == ["delay", "multi-greet"]


def test_a_name_prefix_comes_before_a_name_substring() -> None:
    assert names(ranked(EVERYTHING, "simu")) == [
        "simulate-research-query",
        "toggle-simulated-logging",
    ]


def test_words_match_the_name_or_the_description_and_nothing_else_is_shown() -> None:
    assert names(ranked(EVERYTHING, "greets messages")) == ["multi-greet"]
    assert ranked(EVERYTHING, "nothing like it") == []
    assert names(ranked(EVERYTHING, "  ")) == names(EVERYTHING)
    assert match_rank(EVERYTHING[1], "DELAY") == 0


class PickerHost(App[None]):
    def on_mount(self) -> None:
        tools = [
            tool("build_report", "Builds the [b]quarterly[/b] report", {"properties": {"q": {}}}),
            tool("deploy", "Deploys"),
        ]
        self.push_screen(ToolPicker(tools))


async def test_the_side_pane_shows_the_highlighted_tool_whole_and_plain() -> None:
    app = PickerHost()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        about = str(app.screen.query_one("#picker-about", Static).render())
        assert "Builds the [b]quarterly[/b] report" in about and '"q"' in about
        await pilot.press("down")
        await pilot.pause()
        assert "Deploys" in str(app.screen.query_one("#picker-about", Static).render())


async def test_a_narrow_terminal_hides_the_side_pane() -> None:
    app = PickerHost()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one("#picker-side").display


class NoToolHost(App[None]):
    """The picker as the check (`c`) opens it: a "no tool" entry besides the tools."""

    def __init__(self) -> None:
        super().__init__()
        self.picked: list[object] = []

    def on_mount(self) -> None:
        tools = [tool("build_report", "Builds"), tool("deploy", "Deploys")]
        picker = ToolPicker(tools, title="Check with which tool?", no_tool=Text("no tool"))
        self.push_screen(picker, self.picked.append)


async def test_no_tool_is_the_default_and_typing_a_name_never_picks_it() -> None:
    app = NoToolHost()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, ToolPicker)
        assert "no tool" in str(picker.query_one("#picker-about", Static).render())
        await pilot.press(*"dep")
        await pilot.pause()
        assert picker.query_one(OptionList).option_count == 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.picked))
        assert isinstance(app.picked[0], ToolInfo) and app.picked[0].name == "deploy"


async def test_enter_on_the_no_tool_entry_picks_no_tool() -> None:
    app = NoToolHost()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("down", "up", *"no t", "enter")
        await wait_for(pilot, lambda: bool(app.picked))
        assert app.picked == [NO_TOOL]
