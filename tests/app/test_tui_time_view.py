"""Pilot tests of the time view against the extension demo server (a real subprocess): tools run
with `n`, `t` (or the palette) shows a bar per task, a finished task's bar ends, and selecting a
bar selects its task in the App (the detail pane follows, and the list keeps it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from app.tui.app import TaskscopeApp
from app.tui.config import TuiConfig
from tests.support.tui_helpers import SIZE, by_tool, connected, live_app, stdio_target, wait_for
from tests.support.tui_recording import HISTORY_TASKS, history_app
from widgets.arguments_form import ArgumentsForm
from widgets.input_form import InputForm
from widgets.time_bars import MARK_GLYPHS, STATUS_BAR_GLYPHS
from widgets.time_view import TimeView
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))
    return tmp_path / "data"


async def run_tool(pilot: Pilot[Any], app: TaskscopeApp, search: str, tasks_before: int) -> None:
    """Pick a tool with `n` and run it with its default arguments."""
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
    await pilot.press(*search, "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: len(app.tasks) == tasks_before + 1)


def time_view(app: TaskscopeApp) -> TimeView:
    view = app.shown_list
    assert isinstance(view, TimeView), "the time view is not shown"
    return view


async def test_time_view_shows_a_bar_per_task_and_shares_the_selection() -> None:
    app = live_app(stdio_target("extension"))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, app, "build rep", 0)
        await run_tool(pilot, app, "deploy", 1)
        await wait_for(pilot, lambda: by_tool(app, "build_report").status == "completed")
        await wait_for(pilot, lambda: by_tool(app, "deploy_release").pending_inputs)
        report, deploy = (
            by_tool(app, "build_report").task_id,
            by_tool(app, "deploy_release").task_id,
        )
        app.go_to_task(report)
        await pilot.pause()

        await pilot.press("t")
        await wait_for(pilot, lambda: app.focused is app.shown_list)
        view = time_view(app)
        assert not app.table.display or not app.table.region.area  # the list gave its place up
        assert view.order == app.table.order == (report, deploy)
        assert view.selected_task_id == report  # the list's selection came along

        finished = view.bar_text(report).rstrip()
        assert finished.endswith(STATUS_BAR_GLYPHS["completed"])
        assert STATUS_BAR_GLYPHS["working"] in finished
        waiting = view.bar_text(deploy)
        assert MARK_GLYPHS["asked"] in waiting
        assert waiting[-1] == STATUS_BAR_GLYPHS["input_required"]  # a live bar reaches now
        assert len(finished) < len(waiting)  # the finished bar ends before now

        await pilot.press("down")
        await wait_for(pilot, lambda: app.detail.watched and app.detail.watched.task_id == deploy)
        assert app.table.selected_task_id == deploy
        await pilot.press("enter")  # a bar whose task waits: its question opens, as on a row
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is view)

        await pilot.click(view, offset=(2, 2))  # the first bar's row, under the two axis lines
        await wait_for(pilot, lambda: app.detail.watched and app.detail.watched.task_id == report)
        assert view.selected_task_id == report

        await pilot.press("down", "t")
        await wait_for(pilot, lambda: app.focused is app.table)
        assert app.shown_list is app.table and app.table.selected_task_id == deploy
        assert app.detail.watched is not None and app.detail.watched.task_id == deploy


async def test_the_palette_opens_the_time_view_and_bars_grow_with_the_clock() -> None:
    app = live_app(stdio_target("extension"), tick_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await run_tool(pilot, app, "deploy", 0)
        await wait_for(pilot, lambda: by_tool(app, "deploy_release").pending_inputs)
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"time view")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.shown_list, TimeView))
        view = time_view(app)
        scale = view.scale
        assert scale is not None
        first_grid = scale.grid
        await wait_for(pilot, lambda: view.scale is not None and view.scale.grid != first_grid)
        assert view.scale is not None and view.scale.start > first_grid[0]  # the edge moved on
        assert view.bar_text(by_tool(app, "deploy_release").task_id)[-1] == "▒"


async def test_the_time_view_key_is_remapped_by_its_binding_id() -> None:
    app = history_app(config=TuiConfig(keymap={"time-view": "f6"}, toasts=False, bell=False))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.table.row_count == HISTORY_TASKS)
        await pilot.press("t")
        await pilot.pause()
        assert app.shown_list is app.table
        await pilot.press("f6")
        await wait_for(pilot, lambda: isinstance(app.shown_list, TimeView))
        assert time_view(app).order == app.table.order
