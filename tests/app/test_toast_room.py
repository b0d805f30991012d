"""Toasts never cover what the user works in, and a burst of announcements is one toast.

A bulk cancel is one "N tasks finished" note (and one toast when the server refuses them all);
a modal has the screen to itself (toasts shown before it are taken down, finished tasks wait for
it to close, a question asked over the inbox only rings), a modal's own toasts stay clear of its
hint line, and the main screen's stay clear of the filter bar.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Input
from textual.widgets._toast import Toast

from app.engine.tasks.events import TaskEvent
from app.tui.app import TaskscopeApp
from app.tui.intake import INPUT_NEEDED, NOTE_SUMMARIES, TASK_FINISHED
from app.tui.messages import TaskEventsArrived
from app.tui.notes import NoteMerger
from tests.support.manual_clock import ManualClock
from tests.support.markup import LastingToastsApp, Notes, toasts
from tests.support.tui_helpers import (
    SIZE,
    connected,
    live_app,
    stdio_target,
    wait_for,
)
from tests.support.tui_recording import (
    APPROVAL,
    NOW,
    RECORDED_TASKS,
    recorded_events,
    recorded_source,
)
from widgets.confirm import ConfirmModal, TextPrompt
from widgets.input_inbox import InputInbox
from widgets.plain import toast
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(120)

BULK = 15
UNSETTLED = ("tk-report-01a9", "tk-deploy-7f3a", "tk-index-c4e8")
"""The recording's tasks that have not settled (each can be cancelled)."""
ASKED = "Which region should the report cover?"
SAVE_FAILED = "PermissionError: [Errno 13] Permission denied: 'exports/tasks-of-the-week.json'"


def with_manual_notes(app: TaskscopeApp) -> ManualClock:
    clock = ManualClock()
    app.notes = NoteMerger(NOTE_SUMMARIES, clock=clock)
    return clock


def lasting_app(**kwargs: Any) -> TaskscopeApp:
    return LastingToastsApp(recorded_source(), clock=lambda: NOW, remember_tasks=False, **kwargs)


async def loaded(pilot: Any) -> TaskscopeApp:
    app: TaskscopeApp = pilot.app
    await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS and app.table.row_count)
    return app


async def toast_shown(pilot: Any, message: str, *, title: str = "") -> list[Widget]:
    """Raise a toast and wait until it is laid out; every toast on the screen."""
    app = pilot.app
    toast(app, message, title=title)
    await wait_for(pilot, lambda: bool(toasts(app)))
    await pilot.pause(0.2)
    return list(toasts(app))


def overlaps(toast_widgets: list[Widget], region: Region) -> bool:
    return any(widget.region.overlaps(region) for widget in toast_widgets)


async def test_cancelling_many_tasks_at_once_is_one_note() -> None:
    from widgets.arguments_form import CreateRequest

    app = live_app(stdio_target("legacy"), remember_tasks=False)
    clock = with_manual_notes(app)
    notes = Notes()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await connected(pilot)
        for _ in range(BULK):
            await app.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == BULK)
        await pilot.press("ctrl+a", "x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: all(w.status == "cancelled" for w in app.tasks.tasks.values())
        )
        await pilot.pause(0.5)  # the last batch applied: its notes are gathered
        assert notes.titled(TASK_FINISHED) == []  # the burst is not over on the notes' clock
        clock.now += 2  # now it is
        await wait_for(pilot, lambda: bool(notes.titled(TASK_FINISHED)))
        await pilot.pause(1.5)  # another tick: nothing else comes
    assert [note.message for note in notes.titled(TASK_FINISHED)] == [f"{BULK} tasks finished"]


async def test_a_refused_bulk_cancel_is_one_toast() -> None:
    notes = Notes()
    app = lasting_app()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await loaded(pilot)
        for task_id in UNSETTLED:
            app.go_to_task(task_id)
            await pilot.press("space")
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.severity == "error" for n in notes.made))
        await pilot.pause(0.5)
    [refused] = [note for note in notes.made if note.severity == "error"]
    assert refused.title == "Cancel failed"
    assert refused.message.startswith("3 tasks were not cancelled; the first, tk-report-01a9: ")


async def test_a_task_finishing_under_a_modal_is_told_when_it_closes() -> None:
    notes = Notes()
    app = lasting_app()
    clock = with_manual_notes(app)
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await loaded(pilot)
        prompt = TextPrompt("Adopt a task", "A task id")
        app.push_screen(prompt)
        await wait_for(pilot, lambda: app.screen is prompt)
        working = next(e.task for e in recorded_events() if e.task_id == UNSETTLED[0])
        assert working is not None
        done = working.model_copy(update={"status": "completed"})
        app.post_message(
            TaskEventsArrived([TaskEvent("transition", UNSETTLED[0], done, NOW, "poll")])
        )
        await wait_for(pilot, lambda: app.tasks.get(UNSETTLED[0]).status == "completed")
        clock.now += 10
        await pilot.pause(1.5)  # a tick: the note is due, but the modal is open
        assert notes.titled(TASK_FINISHED) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(notes.titled(TASK_FINISHED)))
    [told] = notes.titled(TASK_FINISHED)
    assert told.message == f"{UNSETTLED[0]} completed"


async def test_opening_a_modal_takes_the_toasts_down() -> None:
    app = lasting_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot)
        toast(app, "tk-deploy-7f3a needs input: Approve? (enter on its row; i: inbox)")
        await wait_for(pilot, lambda: bool(toasts(app)))
        await pilot.press("i")
        await wait_for(pilot, lambda: app.screen is not app.screen_stack[0])
        await pilot.pause(0.3)
        assert toasts(app) == []
        assert list(app.screen_stack[0].query(Toast)) == []  # none beneath the modal either


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_a_modals_own_toast_stays_clear_of_its_hint_line(size: tuple[int, int]) -> None:
    app = lasting_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        picker = app.screen
        shown = await toast_shown(pilot, SAVE_FAILED, title="Save failed")
        hint = picker.query_one("#picker-keys", Widget).region
        search = picker.query_one(Input).region
        assert not overlaps(shown, hint)
        assert not overlaps(shown, search)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_toasts_stay_clear_of_the_filter_bar(size: tuple[int, int]) -> None:
    app = lasting_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        shown = await toast_shown(pilot, "tasks/list: 3 new tasks")
        assert not overlaps(shown, app.query_one("#filter-bar", Input).region)


async def test_a_question_asked_over_the_open_inbox_only_rings() -> None:
    """The inbox lists what is waiting: a question asked while it is open rings the bell and
    joins the list, with no toast over the inbox, nor one left over for when it closes (the
    question is in the inbox and the header already)."""
    notes = Notes()
    app = lasting_app()
    clock = with_manual_notes(app)
    rings: list[bool] = []
    app.bell = lambda: rings.append(True)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await loaded(pilot)
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, InputInbox))
        inbox = app.screen
        assert isinstance(inbox, InputInbox)
        asking = next(e.task for e in recorded_events() if e.task_id == UNSETTLED[0])
        question = APPROVAL.model_copy(
            update={"key": "region", "task_id": UNSETTLED[0], "message": ASKED}
        )
        app.post_message(
            TaskEventsArrived(
                [
                    TaskEvent(
                        "input_needed", UNSETTLED[0], asking, NOW, "poll", input_request=question
                    )
                ]
            )
        )
        await wait_for(pilot, lambda: "region" in app.tasks.get(UNSETTLED[0]).pending_inputs)
        clock.now += 10
        await wait_for(pilot, lambda: bool(rings))  # a tick: the note was due
        await pilot.pause(0.3)
        assert notes.titled(INPUT_NEEDED) == [] and toasts(app) == []
        assert ASKED in [entry.request.message for entry in inbox.entries]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
        clock.now += 10
        await pilot.pause(1.5)  # another tick: nothing was held for the inbox's closing
    assert notes.titled(INPUT_NEEDED) == [] and rings == [True]
