"""A task forgotten with `d` stays forgotten in the replay: a real session against the legacy demo
over HTTP, recorded, creates two tasks, forgets one while it still runs and lets the other
finish; the replay carries out the recorded `forgot` again, so it ends with the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text

from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.replay import read_recording
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.run import replay_app
from tests.support.demo_servers import start_http_demo
from tests.support.tui_helpers import (
    SIZE,
    SPEED,
    by_tool,
    connected,
    http_target,
    settled_with_result,
    wait_for,
)
from widgets.arguments_form import CreateRequest

pytestmark = pytest.mark.timeout(120)

SHOWN = ("status", "tool", "message")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


def rows(app: TaskscopeApp) -> dict[str, tuple[str, ...]]:
    """What each row says in its status, tool and message cells."""
    shown: dict[str, tuple[str, ...]] = {}
    for task_id in app.tasks.tasks:
        cells = [app.table.get_cell(task_id, key) for key in SHOWN]
        shown[task_id] = tuple(c.plain if isinstance(c, Text) else str(c) for c in cells)
    return shown


async def test_a_task_forgotten_with_d_is_forgotten_in_the_replay(tmp_path: Path) -> None:
    record = tmp_path / "session.ndjson"
    with start_http_demo("legacy", "--speed", SPEED) as (url, _):
        target = http_target(url)
        recorder = Recorder.to_file(record, redactor_for(target), face="tui")
        live = TaskscopeApp(LiveSource(target, recorder=recorder), history=recorder.history)
        async with live.run_test(size=SIZE) as pilot:
            await connected(pilot)
            await live.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
            await live.create_task(CreateRequest("build_report", {"quarter": "Q2"}, None, True))
            await wait_for(pilot, lambda: len(live.tasks) == 2)
            forgotten = by_tool(live, "migrate_database")
            assert not forgotten.settled  # its later events would bring the row back
            live.table.select_task(forgotten.task_id)
            await pilot.press("d")
            await wait_for(pilot, lambda: forgotten.task_id not in live.tasks.tasks)
            kept = by_tool(live, "build_report").task_id
            await wait_for(pilot, lambda: settled_with_result(live.tasks.tasks[kept]))
            await pilot.pause(0.6)  # the last batch is drawn
            live_rows = rows(live)
            await live.close_source()
        recorder.close()

    assert list(live_rows) == [kept]
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    forgot = [line for line in lines if line["type"] == "action" and line["action"] == "forgot"]
    assert len(forgot) == 1
    recording = read_recording(record)
    assert recording.problems == ()
    replay = replay_app(str(record), recording, speed=None)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(replay.rpc_frames) >= len(recording.frames))
        await wait_for(pilot, lambda: kept in replay.tasks.tasks)
        await wait_for(pilot, lambda: rows(replay) == live_rows)
        assert forgotten.task_id not in replay.tasks.tasks
