"""Pilot tests of the App against the demo servers as real subprocesses (stdio and HTTP)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.record.recorder import server_key
from app.engine.rpc import paging
from app.engine.rpc.targets import StdioTarget
from app.engine.safety.limits import Limits
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.view.known_tasks import KnownTasks
from tests.support.demo_servers import SUPPORT_SERVERS, start_http_demo
from tests.support.markup import rendered_text
from tests.support.tui_helpers import (
    SIZE,
    SPEED,
    by_tool,
    connected,
    http_target,
    live_app,
    only_task,
    settled_with_result,
    stdio_target,
    wait_for,
)
from widgets.arguments_form import ArgumentsForm, CreateRequest
from widgets.confirm import ConfirmModal, TextPrompt
from widgets.detail_overview import overview_table
from widgets.header_bar import HeaderBar
from widgets.input_sampling import InputSampling
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))
    return tmp_path / "data"


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_create_through_picker_and_form_then_watch_to_completion(wire: str) -> None:
    app = live_app(stdio_target(wire))  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        await pilot.press(*"build rep", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
        form = app.screen
        assert isinstance(form, ArgumentsForm) and form.tool.name == "build_report"
        assert form.spec is not None and [f.name for f in form.spec.fields] == ["quarter"]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        watched = only_task(app)
        assert watched.tool_name == "build_report"
        await wait_for(pilot, lambda: settled_with_result(only_task(app)))
        done = only_task(app)
        assert done.status == "completed" and done.task is not None and done.task.result is not None
        assert "Q3" in done.task.result["content"][0]["text"]
        assert app.table.order == (done.task_id,)
        assert app.detail.watched is done or app.detail.watched == done


async def test_synchronous_answer_is_a_finished_row_not_an_error() -> None:
    app = live_app(stdio_target("legacy"))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        await pilot.press(*"weather", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
        form = app.screen
        assert isinstance(form, ArgumentsForm)
        assert (form.as_task, form.task_editable) == (False, False)  # taskSupport: forbidden
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        row = only_task(app)
        assert row.synchronous and row.status == "completed" and row.settled
        assert row.task is not None and "Lisbon" in str(row.task.result)


async def test_a_synchronous_answer_on_a_server_without_tasks_names_no_tasks_wire() -> None:
    """The SDK server has no tasks wire (the header says `none tasks`): its plain answer's
    Overview must not claim a wire."""
    sdk_server = [sys.executable, "-m", "tests.support.servers.sdk_server", "--transport", "stdio"]
    app = live_app(StdioTarget(sdk_server))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert app.info is not None and app.info.capabilities.wire == "none"
        await app.create_task(CreateRequest("echo", {"text": "hi"}, None, False))
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        row = only_task(app)
        assert row.synchronous
        overview = rendered_text(overview_table(row))
        assert "legacy" not in overview and "extension" not in overview
        assert "none (answered synchronously, without a task)" in overview


async def test_declining_legacy_sampling_lets_the_task_finish() -> None:
    app = live_app(stdio_target("legacy"), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("summarize_text", {"text": "long"}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and bool(only_task(app).pending_inputs))
        await wait_for(pilot, lambda: app.table.selected_task_id == only_task(app).task_id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InputSampling))
        await pilot.click("#input-reject")
        await wait_for(pilot, lambda: only_task(app).status == "failed")
        done = only_task(app)
        assert done.task is not None and done.task.result is not None
        assert done.task.result["isError"] is True
        assert done.task.result["content"][0]["text"] == "The client declined to sample."


async def test_extension_server_may_answer_synchronously(extension_url: str) -> None:
    app = live_app(http_target(extension_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("fetch_quote", {"symbol": "SYNC"}, None, True))
        await wait_for(
            pilot, lambda: any(t.status == "completed" for t in app.tasks.tasks.values())
        )
        assert not only_task(app).synchronous  # first fetch: a task
        await app.create_task(CreateRequest("fetch_quote", {"symbol": "SYNC"}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 2)
        answered = [t for t in app.tasks.tasks.values() if t.synchronous]
        assert len(answered) == 1 and answered[0].task_id.startswith("sync-")


async def test_legacy_cancel_shows_the_cancelled_task() -> None:
    app = live_app(stdio_target("legacy"))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and app.table.selected_task_id)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")
        await wait_for(pilot, lambda: only_task(app).status == "cancelled")
        watched = only_task(app)
        assert not watched.cancel_requested and watched.violation is None


async def test_extension_cancel_is_cooperative(extension_url: str) -> None:
    app = live_app(http_target(extension_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and app.table.selected_task_id)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")
        seen_requested_beside: set[str] = set()

        def settled() -> bool:
            watched = only_task(app)
            if watched.cancel_requested:
                seen_requested_beside.add(watched.status)
            return watched.status == "cancelled"

        await wait_for(pilot, settled, step=0.02)
        # "cancel requested" stood beside the server's own status, never a local "cancelled".
        assert seen_requested_beside == {"working"}
        watched = only_task(app)
        assert not watched.cancel_requested
        assert any(entry.kind == "cancel_requested" for entry in watched.timeline)


async def test_adopt_a_pasted_task_id(extension_url: str) -> None:
    first = live_app(http_target(extension_url), remember_tasks=False)
    async with first.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await first.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
        await wait_for(pilot, lambda: len(first.tasks) == 1)
        task_id = only_task(first).task_id
    second = live_app(http_target(extension_url), remember_tasks=False)
    async with second.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert len(second.tasks) == 0
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(second.screen, TextPrompt))
        await pilot.press(*task_id, "enter")
        await wait_for(pilot, lambda: len(second.tasks) == 1)
        adopted = only_task(second)
        assert adopted.task_id == task_id
        await wait_for(pilot, lambda: only_task(second).status == "working")


async def test_legacy_list_import_reads_every_page() -> None:
    app = live_app(stdio_target("legacy", "--page-size", "1"))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        for tool in ("nightly_backup", "analyze_logs", "build_report"):
            await app.create_task(CreateRequest(tool, {}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 3)
        await pilot.press("ctrl+a", "d")  # mark every row, forget them all
        await wait_for(pilot, lambda: len(app.tasks) == 0)
        assert app.table.order == ()
        await pilot.press("l")
        await wait_for(pilot, lambda: len(app.tasks) == 3)
        tools = {watched.tool_name for watched in app.tasks.tasks.values()}
        assert tools == {"nightly_backup", "analyze_logs", "build_report"}
        sources = {w.timeline[0].source for w in app.tasks.tasks.values()}
        assert sources == {"list"}


async def test_filter_tokens_and_faults_only() -> None:
    app = live_app(stdio_target("legacy"))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        for tool in ("build_report", "validate_config", "sync_inventory"):
            await app.create_task(CreateRequest(tool, {}, None, True))
        await wait_for(
            pilot, lambda: len(app.tasks) == 3 and all(t.settled for t in app.tasks.tasks.values())
        )
        assert len(app.table.order) == 3
        await pilot.press("slash", *"tool:build")
        await wait_for(pilot, lambda: len(app.table.order) == 1)
        assert app.table.order == (by_tool(app, "build_report").task_id,)
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.table.order) == 3)
        assert app.filter_query == ""
        await pilot.press("f")
        await wait_for(pilot, lambda: len(app.table.order) == 2)
        faults = {app.tasks.tasks[task_id].tool_name for task_id in app.table.order}
        assert faults == {"validate_config", "sync_inventory"}  # both failed on legacy
        await pilot.press("slash", *"status:fail inventory", "enter")
        await wait_for(pilot, lambda: len(app.table.order) == 1)
        assert app.table.order == (by_tool(app, "sync_inventory").task_id,)
        assert app.table.has_focus and app.task_filter.faults_only


def all_settled(app: TaskscopeApp) -> bool:
    return all(watched.settled for watched in app.tasks.tasks.values())


async def test_pause_stops_polling_and_resume_restarts_it(extension_url: str) -> None:
    app = live_app(http_target(extension_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and only_task(app).polls >= 1)
        await pilot.press("p")
        assert app.paused
        paused_at = only_task(app).polls
        await pilot.pause(2.5)  # the server's interval is 1 s: two polls would have gone
        assert only_task(app).polls <= paused_at + 1  # at most the one already in flight
        settled_count = only_task(app).polls
        await pilot.pause(1.2)
        assert only_task(app).polls == settled_count
        await pilot.press("p")
        assert not app.paused
        await wait_for(pilot, lambda: only_task(app).polls > settled_count, timeout=5)


async def test_restart_resumes_known_tasks(extension_url: str, data_dir: Path) -> None:
    target = http_target(extension_url)
    first = live_app(target)
    async with first.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await first.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
        await wait_for(pilot, lambda: len(first.tasks) == 1)
        live_id = only_task(first).task_id
    KnownTasks(server_key(target)).remember("no-such-task", "lost_tool")
    second = live_app(target)
    async with second.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await wait_for(pilot, lambda: len(second.tasks) == 2)
        await wait_for(pilot, lambda: second.tasks.tasks[live_id].status == "working")
        resumed = second.tasks.tasks[live_id]
        assert resumed.tool_name == "migrate_database"
        await wait_for(pilot, lambda: second.tasks.tasks["no-such-task"].status == "forgotten")
        assert "no-such-task" in second.table.order  # shown as forgotten, not dropped
        forgotten = second.tasks.tasks["no-such-task"]
        assert forgotten.tool_name == "lost_tool"  # as remembered
        overview = rendered_text(overview_table(forgotten))
        # nothing was remembered of it, so its TTL is not known: not "before its TTL"
        assert "forgotten (its TTL is not known)" in overview
        assert "before its TTL" not in overview
        assert "stopped: the server no longer answers for it" in overview
    remembered = {entry.task_id for entry in KnownTasks(server_key(target)).load()}
    assert remembered == {live_id}


async def test_failed_polls_show_in_the_row_and_header_then_recover() -> None:
    with start_http_demo("extension", "--speed", SPEED, "--rate-limit-every", "2") as (url, _):
        app = live_app(http_target(url), remember_tasks=False)
        async with app.run_test(size=SIZE) as pilot:
            await connected(pilot)
            await app.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
            await wait_for(pilot, lambda: len(app.tasks) == 1 and only_task(app).erroring)
            assert only_task(app).last_error
            header = app.query_one(HeaderBar).header_text().plain
            assert "1 erroring" in header
            assert app.is_running
            await wait_for(pilot, lambda: not only_task(app).erroring)  # the next poll is good
            assert only_task(app).status == "working"


async def test_a_silent_server_never_freezes_the_ui() -> None:
    command = [sys.executable, str(SUPPORT_SERVERS / "hostile_stdio.py")]
    app = live_app(StdioTarget(command), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.info is None  # still probing server/discover
        await pilot.press("f")
        assert app.task_filter.faults_only  # keys work while the connection waits
        assert "connecting" in app.query_one(HeaderBar).header_text().plain
        await connected(pilot)
        assert app.info is not None and app.info.capabilities.wire == "none"
        assert "none tasks" in app.query_one(HeaderBar).header_text().plain


async def test_wire_assertion_and_dead_servers_show_in_the_header() -> None:
    mismatch = TaskscopeApp(LiveSource(stdio_target("legacy"), expected_wire="extension"))
    async with mismatch.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: mismatch.failed, timeout=20)
        assert "expected the extension tasks wire" in (mismatch.problem or "")
        header = mismatch.query_one(HeaderBar).header_text().plain
        assert "failed" in header
    dead = live_app(StdioTarget([sys.executable, "-c", "pass"]), remember_tasks=False)
    async with dead.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: dead.failed, timeout=20)
        assert dead.problem and dead.is_running


async def test_a_listing_past_its_bound_is_said_in_a_toast(monkeypatch: pytest.MonkeyPatch) -> None:
    """tasks/list at start and tools/list for the picker each stop at the listing bound."""
    monkeypatch.setattr(paging, "configured", lambda: Limits(listing_chars=256 * 1024))
    server = SUPPORT_SERVERS / "paging_stdio.py"
    command = [sys.executable, str(server), "--pages", "20", "--page-bytes", "100000"]
    app = live_app(StdioTarget(command), remember_tasks=False)

    def said(text: str) -> bool:
        return any(text in notification.message for notification in app._notifications)

    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await wait_for(pilot, lambda: said("tasks/list stopped after 3 pages"))
        await pilot.press("n")
        await wait_for(pilot, lambda: said("tools/list stopped after 3 pages"))
        assert said("(the listing bound, TASKSCOPE_MAX_LISTING)")
        assert not isinstance(app.screen, ToolPicker) and app.is_running
