"""Questions against the demo server: toasts never cover an open question, escape keeps it
pending with what was typed, and the header counts questions as the inbox does."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from app.tui.intake import INPUT_NEEDED
from tests.support.tui_helpers import SIZE, connected, live_app, only_task, stdio_target, wait_for
from widgets.arguments_form import CreateRequest
from widgets.header_bar import HeaderBar
from widgets.input_form import InputForm
from widgets.input_inbox import InputInbox

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_a_question_put_off_keeps_its_typing_and_no_toast_covers_it(wire: str) -> None:
    """Also: both wires ask deploy_release's questions in the server's order."""
    app = live_app(stdio_target(wire), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("deploy_release", {}, None, True))
        await wait_for(
            pilot, lambda: len(app.tasks) == 1 and len(only_task(app).pending_inputs) == 2
        )
        # the questions' toast (the task's "created" toast lasts 3 s and may be gone by then:
        # waiting for both raced the clock on a loaded machine)
        await wait_for(
            pilot, lambda: any(note.title == INPUT_NEEDED for note in app._notifications)
        )
        header = app.query_one(HeaderBar)
        await wait_for(pilot, lambda: "✉ 2 questions waiting" in header.header_text().plain)
        await wait_for(pilot, lambda: app.table.selected_task_id == only_task(app).task_id)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, InputForm) and bool(app.screen.query(Input))
        )
        assert len(app._notifications) == 0
        form = app.screen
        assert isinstance(form, InputForm)
        assert form.request.message == "Approve the rollout of 2.4.0?"
        reason = form.query(Input).first()
        reason.focus()
        await pilot.press(*"after lunch")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, InputForm))
        assert len(only_task(app).pending_inputs) == 2  # nothing was sent
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, InputForm) and bool(app.screen.query(Input))
        )
        assert app.screen.query(Input).first().value == "after lunch"
        await pilot.press("escape")  # put off a second time: the draft must survive that too
        await wait_for(pilot, lambda: not isinstance(app.screen, InputForm))
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, InputForm) and bool(app.screen.query(Input))
        )
        assert app.screen.query(Input).first().value == "after lunch"


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_enter_goes_on_to_the_tasks_next_question_after_an_answer(wire: str) -> None:
    """`enter` opens a task's questions in the order asked: after Accept the next one opens,
    and after the last the modal closes."""
    app = live_app(stdio_target(wire), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("deploy_release", {}, None, True))
        await wait_for(
            pilot, lambda: len(app.tasks) == 1 and len(only_task(app).pending_inputs) == 2
        )
        await wait_for(pilot, lambda: app.table.selected_task_id == only_task(app).task_id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))
        first = app.screen
        assert isinstance(first, InputForm)
        assert first.request.message == "Approve the rollout of 2.4.0?"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm) and app.screen is not first)
        second = app.screen
        assert isinstance(second, InputForm)
        assert second.request.message == "When should it roll out?"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, InputForm))
        await wait_for(pilot, lambda: not only_task(app).pending_inputs)


async def test_a_question_asked_before_its_task_exists_waits_in_the_inbox_when_put_off() -> None:
    """A question on the tools/call stream belongs to no task yet: Later must not lose it."""
    app = live_app(stdio_target("legacy", "--elicit-channel", "call"), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        app.run_worker(app.create_task(CreateRequest("provision_server", {}, None, True)))
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))
        form = app.screen
        assert isinstance(form, InputForm) and form.request.task_id is None
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, InputForm))
        assert form.request.key in [entry.request.key for entry in app.inbox_entries()]
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, InputInbox))
        table = app.screen.query_one("#inbox-table", DataTable)
        labels = [str(column.label) for column in table.ordered_columns]
        assert labels == ["Age", "Task", "Kind", "Question"]  # one server: no Server column
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))
        again = app.screen
        assert isinstance(again, InputForm) and again.request.key == form.request.key
