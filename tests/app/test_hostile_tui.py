"""The App against the hostile server: what the list and the detail pane show for each mode.

Pilot runs of the real App on a live source (the hostile server over stdio), one per
representative mode: escape strings (also markup in toasts, the palette and the tool picker), a
1 MB status message, a deeply nested result, and a protocol violation that marks the task and is
cleared by the next good poll. Nothing here asserts on elapsed time, only on what happened.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.command import CommandList, CommandPalette
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, TabbedContent

from app.demo.hostile_modes import HUGE_MESSAGE_CHARS
from app.engine.rpc.targets import StdioTarget
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from tests.support.demo_servers import REPO_ROOT, hostile_command
from tests.support.markup import (
    LastingToastsApp,
    Notes,
    clickable_cells,
    shown_text,
    toast_showing,
)
from tests.support.tui_helpers import SIZE, connected, only_task, wait_for
from widgets.arguments_form import CreateRequest
from widgets.frame_exchange import ExchangeScreen
from widgets.json_view import JsonView
from widgets.text_pager import TextPager
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(90)

FORBIDDEN_ON_SCREEN = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u200b")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


def hostile_app(
    wire: str, *modes: str, poll_ms: int = 300, app_class: type[TaskscopeApp] = TaskscopeApp
) -> TaskscopeApp:
    command = hostile_command(wire, *modes, extra_args=["--poll-interval-ms", str(poll_ms)])  # type: ignore[arg-type]
    return app_class(LiveSource(StdioTarget(command, cwd=str(REPO_ROOT))))


async def create_job(pilot: Any, app: TaskscopeApp, tool: str = "job") -> None:
    await connected(pilot)
    await app.create_task(CreateRequest(tool, {}, None, True))
    await wait_for(pilot, lambda: len(app.tasks) == 1)


def cell(app: TaskscopeApp, task_id: str, column: str) -> str:
    """The plain text of one cell of the task list."""
    value = app.table.get_cell(task_id, column)
    return value.plain if isinstance(value, Text) else str(value)


def screen_text(app: TaskscopeApp) -> str:
    """The visible screen as text, after checking no raw control or bidi character is on it."""
    svg = app.export_screenshot()
    for forbidden in FORBIDDEN_ON_SCREEN:
        assert forbidden not in svg, repr(forbidden)
    return html.unescape(svg).replace("\xa0", " ")


def static_text(app: TaskscopeApp, selector: str) -> str:
    """The plain text a detail-pane `Static` holds (a Rich renderable, printed without colour)."""
    content = app.detail.query_one(selector, Static).content
    if isinstance(content, Text):
        return content.plain
    console = Console(width=200, color_system=None)
    with console.capture() as capture:
        console.print(content)
    return capture.get()


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_escape_strings_are_plain_visible_text(wire: str) -> None:
    app = hostile_app(wire, "escapes")
    async with app.run_test(size=SIZE) as pilot:
        await create_job(pilot, app)
        await wait_for(pilot, lambda: only_task(app).status == "completed")
        await pilot.pause(0.3)
        watched = only_task(app)
        assert cell(app, watched.task_id, "status") == "● completed"
        assert cell(app, watched.task_id, "tool") == "job"  # as called, not as listed
        assert cell(app, watched.task_id, "id").startswith("task-")  # cut in the middle
        assert cell(app, watched.task_id, "message").startswith(
            "done red  link  [bold red]loud[/bold red]"
        )
        overview = static_text(app, "#overview-body")
        assert "[link=https://evil.example]click[/link]" in overview
        assert "bell␇ back␈ nul␀" in overview and "<U+202E>gnirts desrever<U+202C>" in overview
        assert "pwned title" not in overview
        assert "tags<U+E0001><U+E0074>" in overview and "\U000e0074" not in overview
        app.detail.show_tab("result")
        await pilot.pause(0.2)
        result = app.detail.query_one("#result-body", TextPager).text.plain
        assert "job finished red  link  [bold red]loud[/bold red]" in result
        shown = screen_text(app)
        assert "[bold red]loud[/bold red]" in shown and "␇" in shown


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_markup_reaches_the_picker_toasts_and_palette_as_typed(wire: str) -> None:
    """Tool names, and task ids ending in "[b]", are shown with their brackets, never styled."""
    app = hostile_app(wire, "escapes", app_class=LastingToastsApp)
    notes = Notes()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        tools = app.screen.query_one("#picker-list", Widget)
        await wait_for(pilot, lambda: "job" in shown_text(tools))
        assert shown_text(tools).startswith("job red link [bold re…")
        assert clickable_cells(app.screen) == []
        await pilot.press("escape")
        await create_job(pilot, app)
        await wait_for(pilot, lambda: bool(notes.titled("Task finished")))
        task_id = "task-1[b]<U+202E>"  # ESC[7m removed, the bidi override made visible
        [finished] = notes.titled("Task finished")
        assert finished.message == f"{task_id} completed" and not finished.markup
        await wait_for(pilot, lambda: toast_showing(app, f"Task finished {task_id}") is not None)
        assert clickable_cells(app.screen) == []
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"task-1")
        hits = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: "go to task" in shown_text(hits))
        assert f"go to task {task_id} · job · ● completed" in shown_text(hits)


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_megabyte_message_is_cut_in_the_list_and_whole_in_the_detail(wire: str) -> None:
    app = hostile_app(wire, "huge-message", poll_ms=2000)
    activations: list[TabbedContent.TabActivated] = []

    def note_tab(message: Message) -> None:
        """Each tab switch once, in order (a bubbling message arrives at several widgets)."""
        if isinstance(message, TabbedContent.TabActivated) and all(
            message is not seen for seen in activations
        ):
            activations.append(message)

    async with app.run_test(size=SIZE, message_hook=note_tab) as pilot:
        await create_job(pilot, app)
        await pilot.pause(0.3)
        watched = only_task(app)
        shown = app.table.shown_cell(watched.task_id, "message")
        assert shown is not None
        message = shown.plain
        assert message.startswith("BEGIN 0123456789") and message.endswith("…")
        assert len(message) < app.table.size.width
        app.detail.show_tab("result")
        app.detail.show_tab("overview")
        await wait_for(
            pilot, lambda: [tab.pane.id for tab in activations[-2:]] == ["result", "overview"]
        )
        assert app.detail.active_tab == "overview"
        overview = static_text(app, "#overview-body")
        assert "BEGIN 0123456789" in overview and re.search(r"^ +END +$", overview, re.MULTILINE)
        assert len(overview) > HUGE_MESSAGE_CHARS
        screen_text(app)
        await pilot.press("q")


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_deep_result_renders_lazily(wire: str) -> None:
    app = hostile_app(wire, "deep-result")
    async with app.run_test(size=SIZE) as pilot:
        await create_job(pilot, app)
        await wait_for(
            pilot,
            lambda: only_task(app).task is not None and only_task(app).task.result is not None,
        )  # type: ignore[union-attr]
        app.detail.show_tab("result")
        await pilot.pause(0.2)
        result = app.detail.query_one("#result-body", TextPager).text.plain
        assert '"nested": {' in result and '"…"' in result  # cut at the JSON depth cap
        app.detail.show_tab("json")
        await pilot.pause(0.2)
        tree = app.detail.query_one(JsonView)
        assert tree.root.children  # built lazily: only the first levels exist
        assert sum(1 for _ in _walk(tree.root)) < 50
        app.detail.show_tab("timeline")
        await pilot.pause(0.2)
        assert "+ result: " in static_text(app, "#timeline-body") or wire == "legacy"
        screen_text(app)


def _walk(node: Any) -> Any:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_violation_marks_the_task_keeps_its_state_and_clears(wire: str) -> None:
    app = hostile_app(wire, "unknown-status", poll_ms=1500)
    async with app.run_test(size=SIZE) as pilot:
        await create_job(pilot, app)
        await wait_for(pilot, lambda: only_task(app).violation is not None, timeout=10)
        await pilot.pause(0.3)
        watched = only_task(app)
        assert watched.task is not None and watched.task.status == "working"
        assert watched.task.status_message == "started"  # the last good state
        assert cell(app, watched.task_id, "status") == "◐ working"
        assert cell(app, watched.task_id, "marks").startswith("‼ violation")
        assert cell(app, watched.task_id, "message").startswith(
            "protocol violation: unknown task status 'paused'"
        )
        await pilot.press("v")  # the exchange that carried the offending frame
        await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
        exchange = app.screen.exchange  # type: ignore[attr-defined]
        assert exchange.response is not None and exchange.response.task_id == watched.task_id
        assert '"status": "paused"' in json.dumps(exchange.response.message)
        await pilot.press("escape")
        await wait_for(pilot, lambda: only_task(app).violation is None, timeout=10)
        await pilot.pause(0.3)
        cleared = only_task(app)
        assert cleared.task is not None and cleared.task.status_message == "step 2"
        assert "violation" not in cell(app, cleared.task_id, "marks")
        assert cell(app, cleared.task_id, "message") == "step 2"
