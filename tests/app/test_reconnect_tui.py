"""The App across a lost connection: the stdio demo server is killed mid-watch; the header says
"reconnecting in N s (attempt 1)" until the session respawned it, then "connected" again; the
legacy task the new session cannot see stays in the list, marked lost with the old session."""

from __future__ import annotations

import dataclasses
import os
import signal
from pathlib import Path

import pytest

from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.recording import ConnectionChange
from app.engine.record.replay import read_recording
from app.engine.rpc.reconnect import LOST_WITH_OLD_SESSION, ReconnectPolicy
from app.engine.tasks.gone import NOT_VISIBLE_REASON
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.run import replay_app
from tests.support.demo_servers import demo_children
from tests.support.tui_helpers import SIZE, connected, only_task, stdio_target, wait_for
from widgets.arguments_form import CreateRequest
from widgets.header_bar import HeaderBar

pytestmark = pytest.mark.timeout(60)


async def test_header_shows_the_reconnect_and_the_lost_task_stays_listed(tmp_path: Path) -> None:
    """Recorded, the reconnect replays as it was lived: the header reads the same at the moment
    the connection was lost, on the replay's clock."""
    policy = ReconnectPolicy(attempts=3, first_delay_s=3.0, jitter=0.0)
    record = tmp_path / "reconnect.ndjson"
    target = stdio_target("legacy")
    recorder = Recorder.to_file(record, redactor_for(target), face="tui")
    source = LiveSource(target, policy=policy, recorder=recorder)
    app = TaskscopeApp(source, remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        header = app.query_one(HeaderBar)
        await app.create_task(CreateRequest("migrate_database", {"tables": 500}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and only_task(app).polls >= 1)
        for pid in demo_children():
            os.kill(pid, signal.SIGKILL)
        await wait_for(
            pilot, lambda: "↻ reconnecting: reconnecting in" in header.header_text().plain
        )
        assert "(attempt 1)" in header.header_text().plain
        await wait_for(pilot, lambda: only_task(app).settled, timeout=20)
        text = header.header_text().plain
        assert "● connected" in text and "reconnecting" not in text
        row = only_task(app)
        assert row.status == "not_visible" and row.task is not None
        assert row.task.status == "working"  # the last good state is kept
        lost = [entry for entry in row.timeline if entry.kind == "not visible"]
        assert lost and (lost[0].detail or "").startswith(NOT_VISIBLE_REASON)
        assert LOST_WITH_OLD_SESSION in (lost[0].detail or "")
    recorder.close()

    recording = read_recording(record)
    changes = [entry for entry in recording.entries if isinstance(entry, ConnectionChange)]
    assert [change.kind for change in changes] == ["lost", "reconnecting", "reconnected"]
    # played up to the moment the connection was being reopened, then to its end
    upto = recording.entries.index(changes[1]) + 1
    reconnecting = "↻ reconnecting: reconnecting in 3 s (attempt 1)"  # the countdown then
    for entries, expected in ((recording.entries[:upto], reconnecting), (recording.entries, None)):
        cut = dataclasses.replace(recording, entries=entries)
        text = await replayed_header(replay_app(str(record), cut, speed=None))
        if expected is None:
            assert "reconnecting" not in text and "▶ replay read-only" in text
        else:
            assert connection_line(text) == expected


async def replayed_header(replay: TaskscopeApp) -> str:
    """The header of a replay once everything is played."""
    async with replay.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: replay.tasks.tasks and replay.info is not None)
        await pilot.pause(0.3)
        return replay.query_one(HeaderBar).header_text().plain


def connection_line(header: str) -> str:
    """The header's connection state and note (a replay's "read-only" and the era left out)."""
    first = header.splitlines()[0]
    shown = first[first.index("↻") :] if "↻" in first else first
    return shown.split("  era")[0].replace(" read-only", "")
