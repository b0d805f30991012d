"""Record → replay: a live TUI session recorded to a file replays (no server) to the same tasks,
timelines and RPC log; the `e` export works from the live journal; and an SVG snapshot of a fixed
recording replayed at 120x36 with a frozen clock and time zone."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

import app.tui.replay as tui_replay
from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.replay import play, read_recording
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.replay import ReplaySource
from app.view.state import WatchedTask
from tests.support.demo_servers import REPO_ROOT
from tests.support.tui_helpers import SIZE, connected, only_task, stdio_target, wait_for
from widgets.arguments_form import CreateRequest
from widgets.confirm import TextPrompt
from widgets.header_bar import HeaderBar

pytestmark = pytest.mark.timeout(90)

GOLDEN = Path(__file__).resolve().parents[1] / "support" / "golden"
ANSWERS = {
    "Approve": {"action": "accept", "content": {"approve": True, "reason": "ship"}},
    "When": {"action": "accept", "content": {"window": "weekend"}},
}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


@pytest.fixture
def utc() -> Iterator[None]:
    """Clock cells are local time: pin the zone so the screenshot is the same everywhere."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def comparable(tasks: Mapping[str, WatchedTask]) -> dict[str, WatchedTask]:
    """The watched tasks without the live-only monotonic due time of the next poll."""
    return {
        task_id: dataclasses.replace(watched, next_poll=None) for task_id, watched in tasks.items()
    }


async def test_a_recorded_tui_session_replays_to_the_same_tasks_and_rpc_log(
    tmp_path: Path,
) -> None:
    path = tmp_path / "session.ndjson"
    target = stdio_target("extension")
    recorder = Recorder.to_file(path, redactor_for(target), face="tui")
    live = TaskscopeApp(
        LiveSource(target, recorder=recorder), remember_tasks=False, history=recorder.history
    )
    async with live.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await live.create_task(CreateRequest("deploy_release", {}, None, True))
        await wait_for(pilot, lambda: live.tasks.tasks and len(only_task(live).pending_inputs) == 2)
        task = only_task(live).task
        assert task is not None
        for request in task.input_requests:
            answer = next(a for word, a in ANSWERS.items() if request.message.startswith(word))
            await live.source.answer(request, answer)
        await wait_for(pilot, lambda: only_task(live).settled)
        await pilot.pause(0.6)  # the last batch of events and frames is posted
        live_tasks = comparable(live.tasks.tasks)
        live_frames = live.rpc_frames
        exported = tmp_path / "life.json"
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(live.screen, TextPrompt))
        live.screen.query_one(Input).value = str(exported)
        await pilot.press("enter")
        await wait_for(pilot, exported.exists)
    recorder.close()

    (life,) = json.loads(exported.read_text())["tasks"]
    assert life["finalStatus"] == "completed"
    assert [s["kind"] for s in life["steps"]].count("answer") == 2

    recording = read_recording(path)
    assert recording.problems == ()
    replay = TaskscopeApp(
        ReplaySource(recording, str(path), speed=None),
        remember_tasks=False,
        history=lambda: recording.entries,
    )
    async with replay.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: len(replay.rpc_frames) >= len(live_frames) and replay.tasks.tasks
        )
        await pilot.pause(0.6)
        assert comparable(replay.tasks.tasks) == live_tasks
        assert replay.rpc_frames[: len(live_frames)] == live_frames
        header = replay.query_one(HeaderBar).header_text().plain
        assert "▶ replay" in header and "read-only" in header
        assert "taskscope-demo-extension" in header


async def test_replay_paces_events_by_the_recorded_gaps_divided_by_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recording = read_recording(GOLDEN / "deploy-release-legacy.ndjson")
    waits: list[float] = []

    async def noted_sleep(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(0)

    monkeypatch.setattr(tui_replay, "play", functools.partial(play, sleep=noted_sleep))
    app = TaskscopeApp(ReplaySource(recording, "legacy.ndjson", speed=2.0), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.tasks.tasks and only_task(app).settled, timeout=10)
    entries = recording.entries
    recorded = entries[-1].at - entries[0].at
    assert len(waits) > 1 and all(wait > 0 for wait in waits)
    assert sum(waits) == pytest.approx(recorded / 2, abs=0.1)


def test_replay_of_a_fixed_recording_at_120x36(snap_compare: Any, utc: None) -> None:
    recording = read_recording(GOLDEN / "deploy-release-legacy.ndjson")
    end = recording.entries[-1].at
    app = TaskscopeApp(
        ReplaySource(recording, "deploy-release-legacy.ndjson", speed=None),
        clock=lambda: end + 2.0,
        remember_tasks=False,
        history=lambda: recording.entries,
        tick_interval=3600,
    )

    async def replayed(pilot: Any) -> None:
        frames = len(recording.frames)
        await wait_for(pilot, lambda: len(app.rpc_frames) == frames and app.tasks.tasks)
        await wait_for(pilot, lambda: only_task(app).settled)
        await pilot.press("L")
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=SIZE, run_before=replayed)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("replay", "tests/support/golden/deploy-release-legacy.md"), "no taskscope recording"),
        (("replay", "missing.ndjson"), "cannot read"),
        (("replay", "x.ndjson", "--speed", "0"), "above zero"),
        (("replay", "x.ndjson", "--speed", "2", "--instant"), "not allowed with"),
    ],
)
def test_replay_refuses_what_it_cannot_play_as_a_usage_error(
    args: tuple[str, ...], message: str
) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO_ROOT,
    )
    assert run.returncode == 2
    error = json.loads(run.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "USAGE" and message in error["message"]
