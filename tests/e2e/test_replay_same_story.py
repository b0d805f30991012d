"""A replay tells the same story as the live session it recorded: a real session against the legacy
demo over HTTP, recorded with `--record`, that restores a task an earlier run created (not
visible to this session), creates one of its own and clears the gone row with `C`, replays to the
same rows, statuses and messages, with ages, last changes and TTLs on the recorded clock; played up
to just before `C`, the restored row reads "not visible", aged from what the earlier run saw. A
task forgotten with `d` stays forgotten in the replay, which carries out the recorded `forgot`."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.text import Text

from app.engine.record.export import render, task_lives
from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.recording import Action
from app.engine.record.replay import read_recording
from app.engine.tasks.gone import NOT_VISIBLE_REASON
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.run import replay_app
from app.view.formatting import format_duration
from app.view.watched import WatchedTask
from tests.support.demo_servers import start_http_demo
from tests.support.markup import rendered_text
from tests.support.tui_helpers import (
    SIZE,
    SPEED,
    by_tool,
    connected,
    earlier_run_task,
    http_target,
    only_task,
    settled_with_result,
    wait_for,
)
from widgets.arguments_form import CreateRequest
from widgets.detail_overview import overview_table
from widgets.task_cells import CLOCK_KEYS, clock_texts

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


def shown_clocks(app: TaskscopeApp) -> dict[str, tuple[str, ...]]:
    """Each row's age, last change and TTL left as the list shows them."""
    return {
        task_id: tuple(app.table.clock_text(task_id, key).plain for key in CLOCK_KEYS[:3])
        for task_id in app.tasks.tasks
    }


@dataclass(frozen=True)
class Session:
    """A recorded live session and what it showed."""

    record: Path
    restored: WatchedTask
    """The task an earlier run created, as that run last saw it."""
    before_clear: dict[str, tuple[str, ...]]
    live_rows: dict[str, tuple[str, ...]]
    live_tasks: dict[str, WatchedTask]


async def recorded_session(tmp_path: Path) -> Session:
    """Record a live session against the legacy demo that restores a task an earlier run created,
    creates one of its own and clears the gone row with `C`."""
    record = tmp_path / "session.ndjson"
    with start_http_demo("legacy", "--speed", SPEED) as (url, _):
        target = http_target(url)
        earlier = await earlier_run_task(target)
        restored = earlier.task_id

        recorder = Recorder.to_file(record, redactor_for(target), face="tui")
        live = TaskscopeApp(LiveSource(target, recorder=recorder), history=recorder.history)
        async with live.run_test(size=SIZE) as pilot:
            await connected(pilot)
            await wait_for(pilot, lambda: restored in live.tasks.tasks)
            await wait_for(pilot, lambda: live.tasks.tasks[restored].settled)
            before_clear = rows(live)
            await live.create_task(CreateRequest("build_report", {"quarter": "Q2"}, None, True))
            await wait_for(pilot, lambda: len(live.tasks) == 2)
            await pilot.press("C")
            await wait_for(pilot, lambda: restored not in live.tasks.tasks)
            await wait_for(pilot, lambda: settled_with_result(only_task(live)))
            await pilot.pause(0.6)  # the last batch is drawn
            live_rows = rows(live)
            await live.close_source()
        recorder.close()
    return Session(record, earlier, before_clear, live_rows, dict(live.tasks.tasks))


async def test_a_recorded_session_replays_the_same_rows_on_the_recorded_clock(
    tmp_path: Path,
) -> None:
    session = await recorded_session(tmp_path)
    record, restored = session.record, session.restored.task_id
    before_clear, live_rows, live_tasks = (
        session.before_clear,
        session.live_rows,
        session.live_tasks,
    )

    assert before_clear[restored][0] == "◌ not visible"
    recording = read_recording(record)
    assert recording.problems == ()
    end = max(entry.at for entry in recording.entries)
    replay = replay_app(str(record), recording, speed=None)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(replay.rpc_frames) >= len(recording.frames))
        await wait_for(pilot, lambda: rows(replay) == live_rows)
        assert replay.clock() == end  # the recorded clock, not today's
        expected = {task_id: clock_texts(w, end)[:3] for task_id, w in live_tasks.items()}
        await wait_for(pilot, lambda: shown_clocks(replay) == expected)  # the next tick's redraw

    lines = [json.loads(line) for line in record.read_text().splitlines()]
    actions = [line["action"] for line in lines if line["type"] == "action"]
    assert actions.count("restored") == 1 and actions.count("cleared") == 1

    # the export of the restored task's life (`tasks export`, `e`) names it as the rows did
    (life,) = json.loads(render(task_lives(recording.entries, [restored]), "json"))["tasks"]
    kinds = [step["kind"] for step in life["steps"]]
    assert "not visible" in kinds and "expired" not in kinds and "not found" not in kinds
    (gone,) = [step for step in life["steps"] if step["kind"] == "not visible"]
    assert gone["detail"].startswith(NOT_VISIBLE_REASON)
    assert [step["detail"] for step in life["steps"] if step["kind"] == "stopped"] == [
        "not visible"
    ]


async def test_the_restored_row_replays_not_visible_with_its_remembered_age(
    tmp_path: Path,
) -> None:
    """Played up to just before `C` cleared it, the restored row reads as it did live: not
    visible, with the one explanation, aged from the `createdAt` the earlier run remembered (the
    replay's `restored` action carried out again, not an id it never knew)."""
    session = await recorded_session(tmp_path)
    restored = session.restored
    assert restored.task is not None and restored.task.created_at is not None
    created = restored.task.created_at.timestamp()
    recording = read_recording(session.record)
    (cleared,) = [
        entry
        for entry in recording.entries
        if isinstance(entry, Action) and entry.action == "cleared"
    ]
    cut = dataclasses.replace(
        recording, entries=recording.entries[: recording.entries.index(cleared)]
    )
    replay = replay_app(str(session.record), cut, speed=None)
    async with replay.run_test(size=SIZE) as pilot:
        tasks = replay.tasks.tasks
        await wait_for(pilot, lambda: len(replay.rpc_frames) >= len(cut.frames))
        await wait_for(pilot, lambda: restored.task_id in tasks and tasks[restored.task_id].settled)
        await wait_for(pilot, lambda: rows(replay)[restored.task_id][0] == "◌ not visible")
        row = tasks[restored.task_id]
        assert row.status == "not_visible" and row.created_at == created
        overview = rendered_text(overview_table(row))
        assert NOT_VISIBLE_REASON in overview and "forgotten" not in overview
        age = format_duration(replay.clock() - created)
        await wait_for(pilot, lambda: replay.table.clock_text(row.task_id, "age").plain == age)


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
