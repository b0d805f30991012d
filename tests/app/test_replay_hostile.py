"""The App replaying a hostile recording: lines whose time no clock can show are skipped, and `e`
exports the rest while the App keeps running."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input

from app.engine.record.replay import read_recording
from app.tui.app import TaskscopeApp
from app.tui.replay import ReplaySource
from app.tui.run import replay_app
from tests.support.hostile_files import RECORDING, TASK_ID, with_raw
from tests.support.tui_helpers import SIZE, only_task, wait_for
from widgets.confirm import TextPrompt
from widgets.header_bar import HeaderBar

pytestmark = pytest.mark.timeout(60)

UNSHOWABLE_TIMES = ("NaN", "1e999", "-1e999", "1e300")
"""Times of user actions no date holds: the export is the only place that shows them."""


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))


def recording_with_unshowable_times(folder: Path) -> Path:
    """The fixed legacy recording with a cancel of its task at each of `UNSHOWABLE_TIMES`."""
    cancel = {"type": "action", "at": "RAW", "action": "cancel", "taskId": TASK_ID, "details": {}}
    actions = [with_raw(cancel, at) for at in UNSHOWABLE_TIMES]
    path = folder / "times.ndjson"
    path.write_text(RECORDING.read_text(encoding="utf-8") + "\n".join(actions) + "\n")
    return path


@pytest.mark.parametrize("suffix", ["md", "json"])
async def test_e_in_a_replay_exports_what_the_recording_holds_and_the_app_keeps_running(
    suffix: str, tmp_path: Path
) -> None:
    path = recording_with_unshowable_times(tmp_path)
    recording = read_recording(path)
    app = TaskscopeApp(
        ReplaySource(recording, str(path), speed=None),
        remember_tasks=False,
        history=lambda: recording.entries,
    )
    target = tmp_path / f"export.{suffix}"
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.tasks.tasks and only_task(app).settled)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.exists() or not app.is_running)
        assert app.is_running and app.return_code is None
        header = app.query_one(HeaderBar).header_text().plain
        assert f"skipped {len(UNSHOWABLE_TIMES)} bad lines (line " in header
    text = target.read_text(encoding="utf-8")
    assert "cancel requested" not in text  # the actions at those times were skipped
    if suffix == "json":
        (life,) = json.loads(text)["tasks"]
        assert life["taskId"] == TASK_ID and life["finalStatus"] == "completed"
    else:
        assert f"## Task `{TASK_ID}`" in text


async def test_hostile_app_actions_and_connection_lines_replay_without_harm(
    tmp_path: Path,
) -> None:
    """`restored` and `cleared` actions of any shape, and connection lines of unknown kinds or
    with escapes in their detail: the odd ones are passed over, the task still replays, the
    header shows the detail cleaned."""
    junk = [
        {"type": "action", "at": 1.0, "action": "restored", "details": {"tasks": "all"}},
        {"type": "action", "at": 1.0, "action": "restored", "details": {"tasks": [7, None, {}]}},
        {"type": "action", "at": 1.0, "action": "cleared", "details": {"tasks": [{"id": 9}]}},
        {"type": "action", "at": 1.0, "action": "cleared", "details": {"tasks": [{"id": "x"}]}},
        {"type": "connection", "at": 1.0, "connection": {"kind": "exploded"}},
        {
            "type": "connection",
            "at": 1.0,
            "connection": {"kind": "gave_up", "attempt": -3, "detail": "\x1b[31m[b]red[/b]"},
        },
    ]
    path = tmp_path / "junk.ndjson"
    lines = RECORDING.read_text(encoding="utf-8").splitlines()
    lines += [json.dumps(line) for line in junk]
    path.write_text("\n".join(lines) + "\n")
    recording = read_recording(path)
    assert [problem.split(":")[0] for problem in recording.problems] == [f"line {len(lines) - 1}"]
    app = replay_app(str(path), recording, speed=None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.tasks.tasks and only_task(app).settled)
        await pilot.pause(0.3)
        assert only_task(app).task_id == TASK_ID
        header = app.query_one(HeaderBar).header_text().plain
        assert "▶ replay · ✗ failed: gave up reconnecting: [b]red[/b] · skipped 1" in header
        assert "\x1b" not in header


async def test_e_in_a_replay_refuses_an_export_that_fails_to_render_and_keeps_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever goes wrong turning the lives into text (here the renderer raises, as it did on
    times no clock can show), the export is refused with a toast saying why, nothing is
    written, and the App keeps running: `e` works again afterwards."""
    import app.engine.record.export as export_module

    def unrenderable(lives: object, fmt: str) -> str:
        raise OverflowError("cannot convert float infinity to integer")

    monkeypatch.setattr(export_module, "render", unrenderable)
    recording = read_recording(RECORDING)
    app = TaskscopeApp(
        ReplaySource(recording, str(RECORDING), speed=None),
        remember_tasks=False,
        history=lambda: recording.entries,
    )
    target = tmp_path / "export.md"
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.tasks.tasks and only_task(app).settled)
        for _ in range(2):
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
            app.screen.query_one(Input).value = str(target)
            await pilot.press("enter")
            await wait_for(
                pilot, lambda: any(n.title == "Export failed" for n in app._notifications)
            )
            assert app.is_running and app.return_code is None
            assert not isinstance(app.screen, TextPrompt)
            app.clear_notifications()
    assert not target.exists()
