"""SVG snapshots of the App on a fixed recording (frozen clock, fixed ids, UTC, no cursor blink).

Sizes 120x36 and 80x24: the list with every status, the detail pane, the create form and the RPC
log; the time view at 80x24, 120x36 and 200x50 on a recording of task lives. Update with
`pytest tests/snapshots/test_snapshots.py --snapshot-update` and look at every SVG.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.rpc.advertised import ClientCapabilities
from app.tui.app import TaskscopeApp
from tests.support.tui_helpers import wait_for
from tests.support.tui_recording import (
    HISTORY_TASKS,
    INFO,
    RECORDED_TASKS,
    SEVERAL_TASKS,
    history_app,
    recorded_app,
    several_app,
)
from widgets.advertised_screen import AdvertisedScreen
from widgets.arguments_form import ArgumentsForm
from widgets.frame_exchange import ExchangeScreen
from widgets.tool_picker import ToolPicker

SIZES = [(200, 50), (120, 36), (80, 24)]

Step = Callable[[Pilot[Any]], Awaitable[None]]


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Clock columns are local time: pin the zone so snapshots match everywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def loaded(pilot: Pilot[Any]) -> TaskscopeApp:
    app = pilot.app
    assert isinstance(app, TaskscopeApp)
    await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS and app.table.row_count)
    await wait_for(pilot, lambda: app.rpc_frames)
    return app


async def show_list(pilot: Pilot[Any]) -> None:
    app = await loaded(pilot)
    await pilot.press("down", "space", "down", "down", "space")
    assert len(app.marked) == 2


async def show_detail(pilot: Pilot[Any]) -> None:
    app = await loaded(pilot)
    app.go_to_task("tk-logs-33c0")
    await pilot.pause()
    app.detail.show_tab("result")
    await pilot.pause()


async def show_create_form(pilot: Pilot[Any]) -> None:
    app = await loaded(pilot)
    await pilot.press("n")
    await pilot.pause(0.2)
    await pilot.press(*"build", "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
    await pilot.pause(0.2)


async def show_rpc_log(pilot: Pilot[Any]) -> None:
    await loaded(pilot)
    await pilot.press("L")
    await pilot.pause()


async def show_tool_picker(pilot: Pilot[Any]) -> None:
    app = await loaded(pilot)
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
    await pilot.press(*"rep")
    await pilot.pause(0.2)


async def show_exchange(pilot: Pilot[Any]) -> None:
    app = await loaded(pilot)
    await pilot.press("L")
    await pilot.pause()
    await pilot.press("home", "down", "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
    await pilot.pause(0.2)


SCENES: dict[str, Step] = {
    "list": show_list,
    "detail": show_detail,
    "create_form": show_create_form,
    "rpc_log": show_rpc_log,
    "tool_picker": show_tool_picker,
    "exchange": show_exchange,
}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("scene", list(SCENES))
def test_scene(snap_compare: Any, scene: str, size: tuple[int, int]) -> None:
    assert snap_compare(recorded_app(), terminal_size=size, run_before=SCENES[scene])


async def show_time_view(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, TaskscopeApp)
    await wait_for(pilot, lambda: len(app.tasks) == HISTORY_TASKS and app.table.row_count)
    app.go_to_task("tk-deploy-7f3a")
    await pilot.press("t")
    await wait_for(pilot, lambda: app.focused is app.shown_list is not app.table)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_time_view(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(history_app(), terminal_size=size, run_before=show_time_view)


async def show_several(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, TaskscopeApp)
    await wait_for(pilot, lambda: len(app.tasks) == SEVERAL_TASKS and app.table.row_count)
    app.go_to_task("github · tk-report-01a9")
    await pilot.pause()


@pytest.mark.parametrize("size", [(120, 36), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_several_servers(snap_compare: Any, size: tuple[int, int]) -> None:
    """Two servers' tasks in one list (the same id on both), the header's state of each."""
    assert snap_compare(several_app(), terminal_size=size, run_before=show_several)


async def show_advertised(pilot: Pilot[Any]) -> None:
    """The palette's "Advertised capabilities" with tasks toggled off (no roots were given)."""
    app = await loaded(pilot)
    withheld = ClientCapabilities(roots=False, withheld=frozenset({"tasks"}))
    app.push_screen(AdvertisedScreen(withheld, legacy=False, server=INFO.server_name))
    await wait_for(pilot, lambda: isinstance(app.screen, AdvertisedScreen))
    await pilot.pause(0.2)


def test_advertised_capabilities(snap_compare: Any) -> None:
    assert snap_compare(recorded_app(), terminal_size=(80, 24), run_before=show_advertised)
