"""Leaving the App cleanly: closing the source first, and batches queued behind the teardown.

Both used to go wrong: the App's own "closed" flag shadowed Textual's message-pump flag, so
leaving `run_test` after `close_source()` waited forever; a batch of frames handled after the
screen was gone raised `NoMatches` for the RPC log.
"""

from __future__ import annotations

import asyncio

import pytest

from app.tui.app import TaskscopeApp
from app.tui.messages import TaskEventsArrived
from tests.support.tui_helpers import SIZE, connected, live_app, stdio_target, wait_for
from tests.support.tui_recording import (
    NOW,
    RECORDED_TASKS,
    recorded_app,
    recorded_events,
    recorded_frames,
    recorded_source,
)
from widgets.rpc_log import RpcLog


@pytest.mark.timeout(30)
async def test_leaving_after_close_source_does_not_hang() -> None:
    app = live_app(stdio_target("extension"), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.close_source()
    assert app.return_code in (None, 0)


class LateBatchApp(TaskscopeApp):
    """Posts a batch to itself in the window where the screens are gone but the App still runs."""

    async def _close_all(self) -> None:
        await super()._close_all()
        self.post_message(TaskEventsArrived(recorded_events(), recorded_frames()))
        await asyncio.sleep(0.2)


@pytest.mark.timeout(15)
async def test_a_batch_queued_behind_the_teardown_is_dropped_quietly() -> None:
    app = LateBatchApp(recorded_source(), clock=lambda: NOW, remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS)
    assert app.return_code in (None, 0)


@pytest.mark.timeout(15)
async def test_one_message_carries_events_and_frames_into_list_and_log() -> None:
    app = recorded_app(remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS)
        await pilot.press("L")
        log = app.query_one("#rpc-log", RpcLog)
        before = len(log.frames)
        frames = recorded_frames()
        app.post_message(TaskEventsArrived([], frames))
        await wait_for(pilot, lambda: len(log.frames) == before + len(frames))
        assert len(app.rpc_frames) == before + len(frames)
