"""The palette's "Advertised capabilities" on live demo servers: toggling tasks off applies from
the server's next request (the extension wire answers a task request at once or with -32021, the
legacy wire gets no `params.task`), the header and server pane say so, and toggling it back asks
for tasks again. With several servers, only the one picked changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from app.engine.tasks.protocol_keys import TASKS_EXTENSION
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.multi import MultiSource
from tests.support.markup import shown_text
from tests.support.tui_helpers import (
    SIZE,
    connected,
    create_on,
    server_pane_text,
    servers_up,
    stdio_target,
    wait_for,
)
from widgets.advertised_screen import AdvertisedScreen
from widgets.arguments_form import CreateRequest
from widgets.header_bar import HeaderBar
from widgets.server_picker import ServerPicker
from widgets.server_screen import ServerScreen
from widgets.toggles import MarkedSelectionList

pytestmark = pytest.mark.timeout(90)

CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


async def open_from_palette(pilot: Pilot[Any]) -> AdvertisedScreen:
    app = pilot.app
    await pilot.press("ctrl+p")
    await pilot.press(*"advertised capabilities")
    await pilot.pause(0.3)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, AdvertisedScreen))
    screen = app.screen
    assert isinstance(screen, AdvertisedScreen)
    return screen


async def toggle_tasks(pilot: Pilot[Any]) -> None:
    """Open the screen, flip the tasks toggle (the first) and apply."""
    screen = await open_from_palette(pilot)
    toggles = screen.query_one(MarkedSelectionList)
    await wait_for(pilot, lambda: toggles.has_focus and toggles.highlighted == 0)
    await pilot.press("space", "enter")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, AdvertisedScreen))


def header(app: TaskscopeApp) -> str:
    return app.query_one(HeaderBar).header_text().plain


def calls_sent(app: TaskscopeApp) -> list[dict[str, Any]]:
    """The params of every `tools/call` sent so far."""
    return [
        (frame.message or {}).get("params") or {}
        for frame in app.frames
        if frame.direction == "out" and frame.method == "tools/call"
    ]


def refused(app: TaskscopeApp) -> list[int]:
    """The codes of every JSON-RPC error received so far."""
    return [
        frame.message["error"].get("code")
        for frame in app.frames
        if frame.direction == "in"
        and frame.message
        and isinstance(frame.message.get("error"), dict)
    ]


def declared(params: dict[str, Any]) -> bool:
    extensions = params["_meta"][CLIENT_CAPABILITIES].get("extensions") or {}
    return TASKS_EXTENSION in extensions


async def test_withholding_tasks_on_the_extension_wire() -> None:
    app = TaskscopeApp(LiveSource(stdio_target("extension")), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert "tasks withheld" not in header(app)
        screen = await open_from_palette(pilot)
        toggles = screen.query_one(MarkedSelectionList)
        assert [toggles.get_option_at_index(i).value for i in range(toggles.option_count)] == [
            "tasks",
            "elicitation",
            "sampling",
        ]
        assert set(toggles.selected) == {"tasks", "elicitation", "sampling"}
        sent = screen.query_one("#advertised-sent")
        assert TASKS_EXTENSION in shown_text(sent)
        await wait_for(pilot, lambda: toggles.has_focus and toggles.highlighted == 0)
        await pilot.press("space")
        await wait_for(pilot, lambda: TASKS_EXTENSION not in shown_text(sent))
        assert "-32021" in shown_text(sent)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "⊘ tasks withheld" in header(app))
        assert app.source.advertised() is not None
        assert app.source.advertised().withheld == {"tasks"}  # type: ignore[union-attr]

        await app.create_task(CreateRequest("build_report", {"quarter": "Q4"}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        (row,) = app.tasks.tasks.values()
        assert row.status == "completed" and row.synchronous
        await app.create_task(CreateRequest("migrate_database", {"tables": 2}, None, True))
        await wait_for(pilot, lambda: -32021 in refused(app))
        await wait_for(pilot, lambda: len(calls_sent(app)) == 2)
        assert [declared(params) for params in calls_sent(app)] == [False, False]

        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerScreen))
        await wait_for(pilot, lambda: "Advertised" in server_pane_text(app))
        assert "Advertised elicitation, sampling · withheld: tasks" in server_pane_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ServerScreen))

        await toggle_tasks(pilot)  # and back on
        await wait_for(pilot, lambda: "tasks withheld" not in header(app))
        await app.create_task(CreateRequest("build_report", {"quarter": "Q1"}, None, True))
        await wait_for(pilot, lambda: len(calls_sent(app)) == 3)
        (again,) = [call for call in calls_sent(app) if call["arguments"] == {"quarter": "Q1"}]
        assert declared(again)
        await wait_for(pilot, lambda: len(app.tasks) == 2)
        assert sorted(task.synchronous for task in app.tasks.tasks.values()) == [False, True]


async def test_withholding_tasks_on_the_legacy_wire_sends_no_params_task() -> None:
    app = TaskscopeApp(LiveSource(stdio_target("legacy")), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        screen = await open_from_palette(pilot)
        toggles = screen.query_one(MarkedSelectionList)
        assert toggles.option_count == 1  # the rest was declared at initialize
        assert "params.task" in shown_text(toggles)
        await wait_for(pilot, lambda: toggles.has_focus)
        await pilot.press("space")
        sent = screen.query_one("#advertised-sent")
        await wait_for(pilot, lambda: "sent plain" in shown_text(sent))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "⊘ tasks withheld" in header(app))
        await app.create_task(CreateRequest("build_report", {"quarter": "Q4"}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        (row,) = app.tasks.tasks.values()
        assert row.synchronous
        await wait_for(pilot, lambda: len(calls_sent(app)) == 1)
        assert "task" not in calls_sent(app)[0]


async def test_with_several_servers_only_the_one_picked_changes() -> None:
    alpha = LiveSource(stdio_target("extension"))
    beta = LiveSource(stdio_target("extension"))
    entries: list[tuple[str, LiveSource | str]] = [("alpha", alpha), ("beta", beta)]
    app = TaskscopeApp(MultiSource(entries, label="servers.json", readonly=False))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: servers_up(app, "alpha", "beta"), timeout=30)
        await pilot.press("ctrl+p")
        await pilot.press(*"advertised capabilities")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerPicker))
        choices = app.screen.query_one(OptionList)
        await wait_for(pilot, lambda: choices.has_focus and choices.highlighted == 0)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AdvertisedScreen))
        assert "beta" in shown_text(app.screen.query_one(".small-modal-title"))
        toggles = app.screen.query_one(MarkedSelectionList)
        await wait_for(pilot, lambda: toggles.has_focus and toggles.highlighted == 0)
        await pilot.press("space", "enter")
        await wait_for(pilot, lambda: beta.advertised().withheld == {"tasks"})
        assert alpha.advertised().withheld == frozenset()
        await create_on(app, "alpha", "build_report", quarter="Q4")
        await create_on(app, "beta", "build_report", quarter="Q4")
        await wait_for(pilot, lambda: len(app.tasks) == 2)
        by_server = {task.server: task.synchronous for task in app.tasks.tasks.values()}
        assert by_server == {"alpha": False, "beta": True}
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerScreen))
        await wait_for(pilot, lambda: "beta" in server_pane_text(app))
        text = server_pane_text(app)
        assert "beta connected · tasks withheld" in text
        assert "alpha connected · tasks withheld" not in text
