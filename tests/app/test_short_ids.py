"""Runs of one tool told apart at 80 columns: the short task id stays on each row of the task
list and of the time view, with one server and with several (issue 26)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from app.engine.safety.sanitize import middle_line
from app.engine.tasks.events import NextPoll, TaskEvent
from app.engine.tasks.models import Task
from app.engine.tasks.server_keys import row_key
from app.tui.app import TaskscopeApp
from app.tui.recorded import RecordedSource
from tests.support.tui_helpers import wait_for
from tests.support.tui_recording import INFO, NOW, TOOLS
from widgets.task_cells import ID_CELL_WIDTH

IDS = (
    "6f1c2d3e-0000-4000-8000-00000000a1b2",
    "6f1c2d3e-0000-4000-8000-00000000c3d4",
    "6f1c2d3e-0000-4000-8000-00000000e5f6",
)
"""Ids sharing everything but their end, as one session's ids often do."""
SERVERS = ("fastmcp", "extension-demo-server")


def migration(task_id: str, age: float, server: str | None) -> TaskEvent:
    """A working `migrate_database` task, polled, with a long status message."""
    message = f"Migrating table {int(age)} of 60 from the primary to the replica"
    task = Task(
        task_id=task_id,
        wire="legacy",
        status="working",
        status_message=message,
        tool_name="migrate_database",
        raw={"taskId": task_id, "status": "working", "statusMessage": message},
    )
    key = task_id if server is None else row_key(server, task_id)
    next_poll = NextPoll(due=NOW + 1, delay=1.0, term="server")
    event = TaskEvent("created", task_id, task, NOW - age, "create", next_poll=next_poll)
    return replace(event, task_id=key, server=server)


def migrations_app(several: bool) -> TaskscopeApp:
    events = [
        migration(task_id, 30 - 5 * index, SERVERS[index % 2] if several else None)
        for index, task_id in enumerate(IDS)
    ]
    info = replace(INFO, several=SERVERS) if several else INFO
    return TaskscopeApp(
        RecordedSource(info, events, [], TOOLS), clock=lambda: NOW, remember_tasks=False
    )


def screen_lines(app: TaskscopeApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def rows_shown(app: TaskscopeApp, widget: Any, first_row: int) -> list[str]:
    """The lines of `widget` from its `first_row` on, as the terminal shows them."""
    region = widget.region
    lines = screen_lines(app)[region.y + first_row : region.bottom]
    return [line[region.x : region.right] for line in lines]


@pytest.mark.parametrize("several", [False, True], ids=["one server", "several servers"])
async def test_at_80_columns_each_run_of_a_tool_shows_its_short_id(several: bool) -> None:
    app = migrations_app(several)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.table.row_count == len(IDS))
        await pilot.pause()
        short_ids = [middle_line(task_id, ID_CELL_WIDTH) for task_id in IDS]
        table_rows = rows_shown(app, app.table, 1)
        for short_id in short_ids:
            assert sum(short_id in row for row in table_rows) == 1, (short_id, table_rows)
        await pilot.press("t")
        await wait_for(pilot, lambda: app.shown_list is not app.table)
        await pilot.pause()
        bars = rows_shown(app, app.shown_list, 2)
        for short_id in short_ids:
            assert sum(short_id in row for row in bars) == 1, (short_id, bars)
