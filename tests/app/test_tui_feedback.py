"""Keys that cannot act say why: `r` on finished tasks, `x` on a server without tasks/cancel."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from textual.message import Message
from textual.notifications import Notification, Notify

from app.tui.app import TaskscopeApp
from app.tui.recorded import RecordedSource
from app.tui.run import run_then_close
from app.view.poll_feedback import poll_feedback
from tests.support.tui_helpers import wait_for
from tests.support.tui_recording import (
    INFO,
    NOW,
    RECORDED_TASKS,
    TOOLS,
    recorded_events,
    recorded_frames,
)
from widgets.confirm import ConfirmModal
from widgets.key_footer import KeyFooter

SIZE = (120, 36)


class Toasts:
    """Every notification the App made, for `run_test(message_hook=…)`."""

    def __init__(self) -> None:
        self.made: list[Notification] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify):
            self.made.append(message.notification)

    def texts(self) -> list[str]:
        return [note.message for note in self.made]


def app_on(info: Any = INFO) -> TaskscopeApp:
    source = RecordedSource(info, recorded_events(), recorded_frames(), TOOLS)
    return TaskscopeApp(source, clock=lambda: NOW, remember_tasks=False)


def test_poll_feedback_names_what_was_polled_and_why_the_rest_was_not() -> None:
    assert poll_feedback(2, [], 0, 0).message == "Polling 2 tasks now"
    mixed = poll_feedback(1, ["completed", "failed", "completed"], 1, 0)
    assert not mixed.warning
    assert mixed.message == (
        "Polling 1 task now · not polled: 3 tasks finished (completed 2, failed 1); "
        "1 task with a poll already in flight"
    )
    nothing = poll_feedback(0, ["cancelled"], 0, 1)
    assert nothing.warning
    assert nothing.message == (
        "Nothing polled: 1 task finished (cancelled 1); "
        "1 answered synchronously, with no task to poll."
    )
    assert poll_feedback(0, [], 0, 0).warning


async def test_poll_now_on_finished_tasks_says_nothing_was_polled_and_why() -> None:
    toasts = Toasts()
    app = app_on()
    async with app.run_test(size=SIZE, message_hook=toasts) as pilot:
        await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS and app.table.row_count)
        for task_id in ("tk-logs-33c0", "tk-migrate-5d21"):
            app.go_to_task(task_id)
            await pilot.press("space")
        await pilot.press("r")
        await wait_for(pilot, lambda: any("polled" in text for text in toasts.texts()))
        assert "Nothing polled: 2 tasks finished (cancelled 1, completed 1)." in toasts.texts()
        source = app.source
        assert isinstance(source, RecordedSource) and source.polled == []


async def test_cancel_is_greyed_out_and_says_why_without_tasks_cancel() -> None:
    toasts = Toasts()
    info = dataclasses.replace(
        INFO, capabilities=dataclasses.replace(INFO.capabilities, cancel=False)
    )
    app = app_on(info)
    async with app.run_test(size=SIZE, message_hook=toasts) as pilot:
        await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS and app.table.row_count)
        app.go_to_task("tk-report-01a9")
        await pilot.pause()
        hints, _ = app.query_one(KeyFooter).key_hints()
        (cancel,) = [hint for hint in hints if hint.key == "x"]
        assert not cancel.enabled
        assert (
            cancel.tooltip == "This server declared no tasks/cancel: its tasks cannot be cancelled."
        )
        await pilot.press("x")
        await wait_for(pilot, lambda: bool(toasts.made))
        assert toasts.texts() == [
            "This server declared no tasks/cancel: its tasks cannot be cancelled."
        ]
        assert not isinstance(app.screen, ConfirmModal)


async def test_cancel_asks_first_when_the_server_declared_it() -> None:
    app = app_on()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS and app.table.row_count)
        app.go_to_task("tk-report-01a9")
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))


class StuckSource(RecordedSource):
    """A recording whose close never finishes, noting whether the App still ran when it began."""

    def __init__(self, app_running: list[bool]) -> None:
        super().__init__(INFO, recorded_events(), recorded_frames(), TOOLS)
        self.app_running = app_running
        self.app: TaskscopeApp | None = None

    async def close(self) -> None:
        assert self.app is not None
        self.app_running.append(self.app.is_running)
        await asyncio.Event().wait()


async def test_quit_gives_the_terminal_back_before_a_bounded_teardown() -> None:
    """`q` exits the App first; the close that follows never hangs the command line."""
    app_running: list[bool] = []
    source = StuckSource(app_running)
    app = TaskscopeApp(source, clock=lambda: NOW, remember_tasks=False)
    source.app = app

    running = asyncio.ensure_future(run_then_close(app, bound=0.2, headless=True))
    for _ in range(400):  # bounded: at most 20 s for the recording to show
        if app.is_running and app.table.row_count:
            break
        await asyncio.sleep(0.05)
    app.simulate_key("q")
    code = await running
    assert code == 0
    assert app_running == [False]
