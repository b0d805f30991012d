"""Pilot tests against the demo servers of what the App does without asking: `roots/list` answered
from `--root`, `l` merging tasks it already shows, `e` exporting a synchronous answer, `a` with an
id the server never knew, and `C` clearing the rows of tasks the server no longer knows."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.command import CommandPalette

from app.engine.forms.input_text import root_entries
from app.engine.record.recorder import Recorder, redactor_for, server_key
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import Target
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.startup import DeferredSource, LoadedSource
from app.view.known_tasks import KnownTasks
from tests.support.tui_helpers import (
    SIZE,
    by_tool,
    connected,
    http_target,
    live_app,
    only_task,
    settled_with_result,
    stdio_target,
    wait_for,
)
from widgets.arguments_form import CreateRequest
from widgets.confirm import TextPrompt
from widgets.detail_overview import overview_table

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))
    return tmp_path / "data"


@pytest.fixture
def root(tmp_path: Path) -> tuple[str, str]:
    """A `--root` folder and the `file://` URI taskscope sends for it."""
    return str(tmp_path), tmp_path.resolve().as_uri()


def app_with_roots(target: Target, roots: list[str]) -> TaskscopeApp:
    """The App on a live source for `target` answering `roots/list` with `roots`."""
    return TaskscopeApp(LiveSource(target, roots=root_entries(roots)), remember_tasks=False)


def recorded_app(target: Target) -> TaskscopeApp:
    """The App on a live source whose in-memory recording `e` exports from (as `taskscope` runs)."""

    def load() -> LoadedSource:
        recorder = Recorder(redactor_for(target, ()), None, face="tui")
        return LoadedSource(LiveSource(target, recorder=recorder), recorder.history)

    return TaskscopeApp(DeferredSource(load), remember_tasks=False)


def sent(app: TaskscopeApp, method: str) -> list[dict[str, Any]]:
    """The params of every request of `method` the App sent."""
    return [
        frame.message.get("params") or {}
        for frame in app.rpc_frames
        if frame.direction == "out" and frame.method == method and frame.message
    ]


def replies(app: TaskscopeApp) -> list[Frame]:
    """Every response the App sent to a server request (legacy questions)."""
    return [
        frame
        for frame in app.rpc_frames
        if frame.direction == "out" and frame.message and "method" not in frame.message
    ]


def all_settled(app: TaskscopeApp) -> bool:
    return all(watched.settled for watched in app.tasks.tasks.values())


def plain(renderable: Any) -> str:
    """What a Rich renderable shows, as plain text."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def toasts(app: TaskscopeApp) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_legacy_roots_are_answered_at_once_and_shown_in_the_timeline(
    root: tuple[str, str],
) -> None:
    path, uri = root
    app = app_with_roots(stdio_target("legacy"), [path])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await wait_for(pilot, lambda: sent(app, "initialize"))  # frames come in batches
        initialize = sent(app, "initialize")[0]
        assert "roots" in initialize["capabilities"]
        await app.create_task(CreateRequest("index_workspace", {}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and settled_with_result(only_task(app)))
        done = only_task(app)  # no key was pressed: nobody was asked
        assert done.task is not None and done.task.result is not None
        assert f"Indexed 1 root(s): {uri}" in done.task.result["content"][0]["text"]
        kinds = [entry.kind for entry in done.timeline]
        assert kinds.index("input_needed") < kinds.index("input_answered")
        answered = next(entry for entry in done.timeline if entry.kind == "input_answered")
        assert answered.detail == f"roots/list answered with 1 root: {uri}"
        (reply,) = replies(app)
        assert reply.message is not None and reply.message["result"]["roots"][0]["uri"] == uri
        assert not done.pending_inputs
        assert not any("needs input" in message for message in toasts(app))


async def test_extension_roots_are_answered_through_tasks_update(
    root: tuple[str, str], extension_url: str
) -> None:
    path, uri = root
    app = app_with_roots(http_target(extension_url), [path])
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("index_workspace", {}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and settled_with_result(only_task(app)))
        done = only_task(app)
        assert done.task is not None and done.task.result is not None
        assert f"Indexed 1 root(s): {uri}" in done.task.result["content"][0]["text"]
        answered = next(entry for entry in done.timeline if entry.kind == "input_answered")
        assert answered.detail == f"roots/list answered with 1 root: {uri}"
        (update,) = sent(app, "tasks/update")
        (response,) = update["inputResponses"].values()
        assert response == {"roots": [{"uri": uri, "name": Path(path).name}]}
        capabilities = update["_meta"]["io.modelcontextprotocol/clientCapabilities"]
        assert "roots" in capabilities


@pytest.mark.parametrize("wire", ["legacy", "extension"])
async def test_without_roots_the_capability_is_not_declared(wire: str) -> None:
    app = app_with_roots(stdio_target(wire), [])  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("index_workspace", {}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and settled_with_result(only_task(app)))
        done = only_task(app)
        if wire == "legacy":  # the demo does not ask a client without roots
            (initialize,) = sent(app, "initialize")
            assert "roots" not in initialize["capabilities"]
            assert done.status == "completed" and done.task is not None
            assert "No roots were given" in str(done.task.result)
        else:  # the extension demo refuses the job: the client cannot answer roots/list
            (call,) = sent(app, "tools/call")
            assert "roots" not in call["_meta"]["io.modelcontextprotocol/clientCapabilities"]
            assert done.status == "failed"
        assert not any(entry.kind == "input_needed" for entry in done.timeline)


async def test_list_import_merges_tasks_already_shown() -> None:
    app = live_app(stdio_target("legacy"), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        for tool in ("analyze_logs", "validate_config"):
            await app.create_task(CreateRequest(tool, {}, None, True))
        await wait_for(
            pilot, lambda: len(app.tasks) == 2 and all(t.settled for t in app.tasks.tasks.values())
        )
        before = {task_id: (w.last_change, w.timeline) for task_id, w in app.tasks.tasks.items()}
        await pilot.press("l")
        await wait_for(pilot, lambda: any("tasks/list" in message for message in toasts(app)))
        assert "tasks/list: 0 new tasks" in toasts(app)
        await pilot.pause(0.3)
        after = {task_id: (w.last_change, w.timeline) for task_id, w in app.tasks.tasks.items()}
        assert after == before  # no second "created", no reset "Changed"
        forgotten = by_tool(app, "analyze_logs").task_id
        app.table.select_task(forgotten)
        await pilot.press("d")
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        await pilot.press("l")  # a task the user forgot comes back, and counts as new
        await wait_for(pilot, lambda: "tasks/list: 1 new task" in toasts(app))
        await wait_for(pilot, lambda: len(app.tasks) == 2)
        assert [entry.kind for entry in app.tasks.tasks[forgotten].timeline].count("created") == 1


async def test_export_of_a_synchronous_answer_shows_what_the_tui_shows(tmp_path: Path) -> None:
    app = recorded_app(stdio_target("legacy"))
    path = tmp_path / "sync.md"
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("lookup_weather", {"city": "Porto"}, None, False))
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
        prompt = app.screen.query_one("Input")
        prompt.value = str(path)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_for(pilot, path.exists)
    text = path.read_text()
    assert "| Server | taskscope-demo-legacy" in text
    assert "| Final status | completed |" in text
    assert "| Tool | lookup_weather |" in text
    for kind in ("created", "result", "stopped"):
        assert f"| {kind} (create) |" in text
    assert "Porto: 18 °C" in text


async def test_an_id_the_server_never_knew_is_not_found_not_forgotten(
    extension_url: str,
) -> None:
    app = live_app(http_target(extension_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*"no-such-task-typo", "enter")
        await wait_for(pilot, lambda: len(app.tasks) == 1 and only_task(app).settled)
        row = only_task(app)
        assert row.status == "not_found" and not row.forgotten and not row.expired
        entry = next(e for e in row.timeline if e.kind == "not found")
        assert entry.detail is not None and entry.detail.startswith("the server does not know")
        # the note is told after the row changes (and merged with others of its kind)
        await wait_for(
            pilot, lambda: "The server does not know the id no-such-task-typo." in toasts(app)
        )
        overview = plain(overview_table(row))
        assert "does not know this id" in overview and "TTL" not in overview
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"clear forgotten")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.tasks) == 0)
        assert app.table.order == ()


async def test_clear_forgotten_removes_gone_rows_and_their_ids(
    extension_url: str, data_dir: Path
) -> None:
    target = http_target(extension_url)
    KnownTasks(server_key(target)).remember("gone-since-last-run", "lost_tool")
    app = live_app(target)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await wait_for(pilot, lambda: len(app.tasks) == 1 and only_task(app).settled)
        assert only_task(app).status == "forgotten"  # watched before: the TTL wording stays
        await app.create_task(CreateRequest("migrate_database", {"tables": 5000}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 2)
        live_id = by_tool(app, "migrate_database").task_id
        await pilot.press("C")
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        assert app.table.order == (live_id,)
        assert "Cleared 1 row the server no longer knows" in toasts(app)
    remembered = {entry.task_id for entry in KnownTasks(server_key(target)).load()}
    assert remembered == {live_id}
