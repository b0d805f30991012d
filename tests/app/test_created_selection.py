"""`n` selects what it created: the new task's row (or a synchronous answer's) takes the cursor
when it appears, so `enter` answers that task; unless the user moved the cursor meanwhile."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.multi import MultiSource
from tests.support.tui_helpers import (
    SIZE,
    by_tool,
    connected,
    create_on,
    live_app,
    servers_up,
    stdio_target,
    wait_for,
)
from widgets.arguments_form import CreateRequest
from widgets.input_form import InputForm

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


async def create(app: TaskscopeApp, tool: str, arguments: dict[str, object]) -> None:
    await app.create_task(CreateRequest(tool, arguments, None, tool != "lookup_weather"))


async def test_the_created_task_and_a_synchronous_answer_take_the_cursor() -> None:
    app = live_app(stdio_target("legacy"), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await create(app, "migrate_database", {"tables": 500})
        await wait_for(pilot, lambda: app.table.row_count == 1)
        await create(app, "lookup_weather", {"city": "Lisbon"})
        await wait_for(pilot, lambda: app.table.row_count == 2)
        assert app.table.selected_task_id == by_tool(app, "lookup_weather").task_id
        await create(app, "provision_server", {})
        await wait_for(pilot, lambda: app.table.row_count == 3)
        created = by_tool(app, "provision_server").task_id
        assert app.table.selected_task_id == created
        assert app.detail.watched is not None and app.detail.watched.task_id == created
        await wait_for(pilot, lambda: by_tool(app, "provision_server").pending_inputs)
        await pilot.press("enter")  # answers the new task's question, not another row's
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))


async def test_a_cursor_moved_before_the_row_appears_stays_where_it_was_moved() -> None:
    app = live_app(stdio_target("legacy"), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await create(app, "migrate_database", {"tables": 500})
        await create(app, "migrate_database", {"tables": 400})
        await wait_for(pilot, lambda: app.table.row_count == 2)
        await create(app, "lookup_weather", {"city": "Lisbon"})  # its row is posted, not shown
        assert app.table.row_count == 2
        moved_to = next(key for key in app.table.order if key != app.table.selected_task_id)
        app.table.select_task(moved_to)
        await wait_for(pilot, lambda: app.table.row_count == 3)
        await pilot.pause()
        assert app.table.selected_task_id == moved_to


async def test_with_several_servers_the_row_of_the_chosen_server_takes_the_cursor() -> None:
    entries: list[tuple[str, LiveSource | str]] = [
        ("alpha", LiveSource(stdio_target("legacy"))),
        ("beta", LiveSource(stdio_target("extension"))),
    ]
    app = TaskscopeApp(
        MultiSource(entries, label="servers.json", readonly=False), remember_tasks=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.info is not None and servers_up(app, "alpha", "beta"))
        await create_on(app, "alpha", "migrate_database", tables=500)
        await wait_for(pilot, lambda: app.table.row_count == 1)
        await create_on(app, "beta", "migrate_database", tables=500)
        await wait_for(pilot, lambda: app.table.row_count == 2)
        selected = app.tasks.get(app.table.selected_task_id or "")
        assert selected is not None and selected.server == "beta"
        await create_on(app, "alpha", "lookup_weather", as_task=False, city="Porto")
        await wait_for(pilot, lambda: app.table.row_count == 3)
        assert app.table.selected_task_id == "alpha · sync-1"
