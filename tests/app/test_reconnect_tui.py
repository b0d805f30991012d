"""The App across a lost connection: the stdio demo server is killed mid-watch; the header says
"reconnecting in N s (attempt 1)" until the session respawned it, then "connected" again; the
legacy task the new session cannot see stays in the list, marked lost with the old session."""

from __future__ import annotations

import os
import signal

import pytest

from app.engine.rpc.reconnect import LOST_WITH_OLD_SESSION, ReconnectPolicy
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.view.watched import NOT_VISIBLE_REASON
from tests.support.demo_servers import demo_children
from tests.support.tui_helpers import SIZE, connected, only_task, stdio_target, wait_for
from widgets.arguments_form import CreateRequest
from widgets.header_bar import HeaderBar

pytestmark = pytest.mark.timeout(60)


async def test_header_shows_the_reconnect_and_the_lost_task_stays_listed() -> None:
    policy = ReconnectPolicy(attempts=3, first_delay_s=3.0, jitter=0.0)
    source = LiveSource(stdio_target("legacy"), policy=policy)
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
