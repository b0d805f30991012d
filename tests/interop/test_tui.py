"""The full-screen App against independent servers through Pilot: a task is created, its question
answered in the App's own input modal (typed as a user types), and a task cancelled with `x`."""

from __future__ import annotations

from typing import Any

import pytest
from textual.notifications import Notification
from textual.pilot import Pilot

from app.engine.rpc.era import EraPreference
from app.engine.rpc.targets import HttpTarget, StdioTarget, Target
from app.engine.tasks.wire import UNDECLARED_TOOL_CALLS
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from tests.interop.catalog import Call, Server, Transport, case_id, cases
from tests.support.markup import Notes, shown_text
from tests.support.tui_helpers import SIZE, connected, live_app, only_task, wait_for
from widgets.arguments_form import ArgumentsForm, CreateRequest
from widgets.confirm import ConfirmModal
from widgets.input_form import InputForm
from widgets.input_modal import AnswerModal
from widgets.input_sampling import InputSampling
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(180)
TASK_TIMEOUT_S = 60.0


def tui_target(case: tuple[Server, Transport], server_url: Any) -> Target:
    server, transport = case
    if transport == "http":
        return HttpTarget(url=server_url(server.name))
    assert server.stdio is not None
    return StdioTarget(command=server.stdio())


async def open_question(pilot: Pilot[Any], app: TaskscopeApp) -> AnswerModal:
    """The input modal of the task's question: opened by the App for a question asked outside a
    task's row, else with enter on the row that waits."""

    def asked() -> bool:
        if isinstance(app.screen, AnswerModal):
            return True
        return any(watched.pending_inputs for watched in app.tasks.tasks.values())

    await wait_for(pilot, asked, timeout=TASK_TIMEOUT_S)
    if not isinstance(app.screen, AnswerModal):
        waiting = next(w for w in app.tasks.tasks.values() if w.pending_inputs)
        await wait_for(pilot, lambda: app.table.selected_task_id == waiting.task_id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AnswerModal))
    assert isinstance(app.screen, AnswerModal)
    return app.screen


async def create(pilot: Pilot[Any], app: TaskscopeApp, call: Call) -> None:
    await app.create_task(CreateRequest(call.tool, call.arguments, None, True))
    await wait_for(pilot, lambda: len(app.tasks) >= 1)


async def finished(pilot: Pilot[Any], app: TaskscopeApp, call: Call) -> None:
    """Wait until a task completed with its result (legacy results are fetched after the status)."""

    def done() -> bool:
        return any(
            w.status == "completed" and w.task is not None and w.task.result is not None
            for w in app.tasks.tasks.values()
        )

    await wait_for(pilot, done, timeout=TASK_TIMEOUT_S)
    completed = next(w for w in app.tasks.tasks.values() if w.status == "completed")
    assert completed.task is not None and call.expect in str(completed.task.result)


@pytest.mark.parametrize("case", cases("form"), ids=case_id)
async def test_a_form_question_is_answered_in_the_input_modal(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    server, _ = case
    assert server.form is not None
    app = live_app(tui_target(case, server_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await create(pilot, app, server.form)
        modal = await open_question(pilot, app)
        assert isinstance(modal, InputForm)
        await pilot.pause()
        await pilot.press(*server.form.keys, "ctrl+s")
        await finished(pilot, app, server.form)


@pytest.mark.parametrize("case", cases("sampling"), ids=case_id)
async def test_a_sampling_request_is_answered_in_the_sampling_modal(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    server, _ = case
    assert server.sampling is not None
    app = live_app(tui_target(case, server_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await create(pilot, app, server.sampling)
        modal = await open_question(pilot, app)
        assert isinstance(modal, InputSampling)
        await pilot.pause()
        await pilot.press(*"steam over green leaves", "ctrl+s")
        await finished(pilot, app, server.sampling)


@pytest.mark.parametrize("case", cases("slow"), ids=case_id)
async def test_a_running_task_is_cancelled_with_x(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    server, _ = case
    assert server.slow is not None
    app = live_app(tui_target(case, server_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await create(pilot, app, server.slow)
        await wait_for(pilot, lambda: app.table.selected_task_id == only_task(app).task_id)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")
        await wait_for(pilot, lambda: only_task(app).status == "cancelled", timeout=TASK_TIMEOUT_S)
        assert only_task(app).violation is None


LEGACY_ERA_COMMAND = "taskscope --era legacy"


def legacy_era_hints(notes: Notes) -> list[Notification]:
    return [note for note in notes.made if LEGACY_ERA_COMMAND in note.message]


def era_app(case: tuple[Server, Transport], server_url: Any, era: EraPreference) -> TaskscopeApp:
    return TaskscopeApp(LiveSource(tui_target(case, server_url), era=era), remember_tasks=False)


@pytest.mark.parametrize("case", cases("asks_on_legacy"), ids=case_id)
async def test_a_question_without_a_back_channel_gets_the_legacy_era_hint(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    """On the default era the server cannot ask: the call fails, and a toast names the
    `taskscope --era legacy` command."""
    server, _ = case
    call = server.asks_on_legacy
    assert call is not None
    app = era_app(case, server_url, "auto")
    notes = Notes()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest(call.tool, call.arguments, None, False))
        await wait_for(pilot, lambda: bool(legacy_era_hints(notes)), timeout=TASK_TIMEOUT_S)
        [hint] = legacy_era_hints(notes)
        assert "the server's questions need the legacy era" in hint.message
        assert not any(call.expect in note.message for note in notes.made)


@pytest.mark.parametrize("case", cases("asks_on_legacy"), ids=case_id)
async def test_on_the_legacy_era_the_question_is_answered_in_the_input_modal(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    server, _ = case
    call = server.asks_on_legacy
    assert call is not None
    app = era_app(case, server_url, "legacy")
    notes = Notes()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        # As the arguments form's ctrl+s does: the call runs in a worker while the question
        # it asks is answered.
        app.run_worker(app.create_task(CreateRequest(call.tool, call.arguments, None, False)))
        modal = await open_question(pilot, app)
        assert isinstance(modal, InputForm)
        await pilot.pause()
        await pilot.press(*call.keys, "ctrl+s")
        await finished(pilot, app, call)
        assert legacy_era_hints(notes) == []


@pytest.mark.parametrize("case", cases("asserted"), ids=case_id)
async def test_an_under_declared_server_runs_no_task_until_wire_legacy_asserts_it(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    """By default the run form offers no task (the server never declared task-augmented calls);
    started with `--wire legacy` the App sends the task, and it runs to its result."""
    server, _ = case
    call = server.asserted
    assert call is not None
    app = era_app(case, server_url, "auto")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert app.info is not None and app.info.capabilities.tool_calls is False
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        await wait_for(pilot, lambda: call.tool in shown_text(app.screen.query_one("#picker-list")))
        await pilot.press(*call.tool)
        picker = app.screen
        assert isinstance(picker, ToolPicker)
        await wait_for(pilot, lambda: picker.shown[0].name == call.tool)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
        form = app.screen
        assert isinstance(form, ArgumentsForm)
        assert (form.as_task, form.task_editable) == (False, False), form.task_reason
    asserted = TaskscopeApp(
        LiveSource(tui_target(case, server_url), expected_wire="legacy"), remember_tasks=False
    )
    notes = Notes()
    async with asserted.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        assert asserted.info is not None
        assert asserted.info.capabilities.assumed == (UNDECLARED_TOOL_CALLS,)
        await asserted.create_task(CreateRequest(call.tool, call.arguments, None, True))

        # Over HTTP the server's tasks/list also shows other sessions' tasks (its store is not
        # per session): the task created here is the one its toast names.
        def created_ids() -> list[str]:
            return [n.message.split()[1] for n in notes.made if n.message.endswith(" created")]

        await wait_for(pilot, created_ids)
        [created] = created_ids()

        def finished_here() -> bool:
            watched = asserted.tasks.tasks.get(created)
            return (
                watched is not None
                and watched.status == "completed"
                and watched.task is not None
                and call.expect in str(watched.task.result)
            )

        await wait_for(pilot, finished_here, timeout=TASK_TIMEOUT_S)
