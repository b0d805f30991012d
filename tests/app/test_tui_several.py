"""The App on several servers at once (`MultiSource`): a legacy demo over stdio and an extension
demo over HTTP answering 429s, plus a config entry that cannot be used. One list with a Server
column, one inbox naming each question's server, `n` asking which server, the `server:` filter,
and a server killed mid-run that comes back while the other goes on."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import DataTable, OptionList

from app.engine.rpc.reconnect import ReconnectPolicy
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.multi import MultiSource
from app.view.state import WatchedTask
from tests.support.demo_servers import (
    demo_children,
    spawn_http_demo,
    start_http_demo,
    stop_process,
)
from tests.support.tui_helpers import (
    SIZE,
    create_on,
    http_target,
    server_pane_text,
    servers_up,
    stdio_target,
    wait_for,
)
from widgets.arguments_form import ArgumentsForm
from widgets.header_bar import HeaderBar
from widgets.input_form import InputForm
from widgets.input_inbox import InputInbox
from widgets.rpc_log import RpcLog
from widgets.server_picker import ServerPicker
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(120)

BROKEN = "servers.json: server 'broken' has no 'url' or 'command'"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


@pytest.fixture
def limited_url() -> Iterator[str]:
    """An extension demo over HTTP whose every third tasks/get is answered 429."""
    extra = ("--speed", "20", "--rate-limit-every", "3", "--retry-after", "0.5")
    with start_http_demo("extension", *extra) as (url, _):
        yield url


def several_app(alpha: LiveSource, beta: LiveSource) -> TaskscopeApp:
    entries: list[tuple[str, LiveSource | str]] = [
        ("alpha", alpha),
        ("beta", beta),
        ("broken", BROKEN),
    ]
    return TaskscopeApp(
        MultiSource(entries, label="servers.json", readonly=False),
        remember_tasks=False,
    )


def of_server(app: TaskscopeApp, server: str) -> list[WatchedTask]:
    return [watched for watched in app.tasks.tasks.values() if watched.server == server]


def cell(app: TaskscopeApp, key: str, column: str) -> str:
    value = app.table.get_cell(key, column)
    return value.plain if isinstance(value, Text) else str(value)


async def test_one_list_one_inbox_and_the_server_of_each_task(limited_url: str) -> None:
    app = several_app(LiveSource(stdio_target("legacy")), LiveSource(http_target(limited_url)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.info is not None and servers_up(app, "alpha", "beta"))
        header = app.query_one(HeaderBar)
        await wait_for(pilot, lambda: "2 of 3 · broken invalid" in header.header_text().plain)
        assert "3 servers · servers.json" in header.header_text().plain
        titles = [notification.title for notification in app._notifications]
        assert "tasks/list failed" not in titles  # the start's import waits for each server

        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerPicker))
        choices = app.screen.query_one(OptionList)
        await wait_for(pilot, lambda: choices.has_focus and choices.highlighted == 0)
        await pilot.press("down")
        await wait_for(pilot, lambda: choices.highlighted == 1)  # beta
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        picker = app.screen
        assert isinstance(picker, ToolPicker)
        assert "Run a tool on beta" in str(picker.query_one("#picker-title").render())
        await pilot.press(*"provision_server")
        await wait_for(pilot, lambda: [tool.name for tool in picker.shown] == ["provision_server"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(of_server(app, "beta")) == 1)
        await create_on(app, "alpha", "provision_server")
        await wait_for(
            pilot,
            lambda: (
                len(app.tasks) == 2
                and all(watched.pending_inputs for watched in app.tasks.tasks.values())
            ),
            timeout=30,
        )
        (alpha,) = of_server(app, "alpha")
        (beta,) = of_server(app, "beta")
        assert alpha.task is not None and alpha.task.wire == "legacy"
        assert beta.task is not None and beta.task.wire == "extension"
        for watched, server in ((alpha, "alpha"), (beta, "beta")):
            assert watched.task_id == f"{server} · {watched.server_task_id}"
            assert cell(app, watched.task_id, "server") == server
            assert watched.server_task_id.startswith(cell(app, watched.task_id, "id")[:4])

        # beta is polled while its question waits: its third tasks/get is refused with a 429
        await wait_for(
            pilot, lambda: any(frame.http_status == 429 for frame in app.rpc_frames), timeout=30
        )
        await pilot.press("L")  # the RPC log: a frame of no task (the handshake) names its server
        await wait_for(
            pilot, lambda: bool(app.query(RpcLog)) and bool(app.query_one(RpcLog).frames)
        )
        log = app.query_one(RpcLog)
        handshake = next(
            i for i, f in enumerate(log.frames) if f.server == "beta" and not f.task_id
        )
        assert "beta" in log.line_text(handshake).plain
        await pilot.press("L")
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, InputInbox))
        table = app.screen.query_one("#inbox-table", DataTable)
        await wait_for(pilot, lambda: table.row_count == 2)
        servers = {str(table.get_row_at(index)[2]) for index in range(2)}
        assert servers == {"alpha", "beta"}
        for _ in range(2):
            await wait_for(pilot, lambda: isinstance(app.screen, InputInbox))
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, InputForm))
            await pilot.click("#input-decline")
        await wait_for(
            pilot,
            lambda: all(watched.status == "completed" for watched in app.tasks.tasks.values()),
            timeout=30,
        )
        for watched in app.tasks.tasks.values():
            assert watched.task is not None
            assert "Provisioning abandoned (decline)." in str(watched.task.result)

        app.set_filter("server:bet", faults_only=False)
        await wait_for(pilot, lambda: app.shown_ids() == [beta.task_id])
        app.set_filter("!server:beta", faults_only=False)
        await wait_for(pilot, lambda: app.shown_ids() == [alpha.task_id])
        refused = [frame for frame in app.rpc_frames if frame.http_status == 429]
        assert all((frame.purpose or "").startswith("beta") for frame in refused)

        assert not isinstance(app.screen, InputInbox)  # it closed after the last answer
        await pilot.press("s")
        await wait_for(pilot, lambda: "alpha connected" in server_pane_text(app))
        pane = server_pane_text(app)
        assert pane.startswith("3 servers")
        assert "legacy wire" in pane and "extension wire" in pane
        assert "broken cannot be used: servers.json" in pane


async def test_a_server_killed_mid_run_comes_back_and_the_other_goes_on(limited_url: str) -> None:
    policy = ReconnectPolicy(attempts=5, first_delay_s=2.0, jitter=0.0)
    app = several_app(
        LiveSource(stdio_target("legacy"), policy=policy), LiveSource(http_target(limited_url))
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.info is not None and servers_up(app, "alpha", "beta"))
        await create_on(app, "alpha", "migrate_database", tables=500)
        await wait_for(pilot, lambda: len(of_server(app, "alpha")) == 1)
        (killed,) = demo_children()
        os.kill(killed, signal.SIGKILL)
        header = app.query_one(HeaderBar)
        await wait_for(pilot, lambda: "alpha reconnecting" in header.header_text().plain)
        await create_on(app, "beta", "build_report", quarter="Q1")
        await wait_for(
            pilot,
            lambda: [w.status for w in of_server(app, "beta")] == ["completed"],
            timeout=40,
        )
        await wait_for(pilot, lambda: "alpha" not in header.header_text().plain, timeout=40)
        assert "● connected: 2 of 3 · broken invalid" in header.header_text().plain
        await wait_for(pilot, lambda: of_server(app, "alpha")[0].settled, timeout=20)
        assert of_server(app, "alpha")[0].status == "not_visible"  # the old session took it
        await create_on(app, "alpha", "build_report", quarter="Q2")
        await wait_for(
            pilot,
            lambda: any(w.status == "completed" for w in of_server(app, "alpha")),
            timeout=40,
        )


async def test_a_config_opened_again_watches_the_tasks_of_every_server_again(
    tmp_path: Path,
) -> None:
    """Through the command line's loader: every entry of a config file, the tasks created on
    each remembered under that server's own key and adopted again, each on its own server, by
    the next run: the extension demo's task as it finished, the legacy demo's as forgotten (it
    binds tasks to the session that created them); the server opened alone has its task too."""
    from app.cli.args import parse
    from app.cli.target import target_from_args, tui_servers
    from app.tui.run import LiveLoader, TuiOptions
    from app.tui.startup import DeferredSource

    with (
        start_http_demo("legacy", "--speed", "20") as (legacy_url, _),
        start_http_demo("extension", "--speed", "20") as (extension_url, _),
    ):
        config = tmp_path / "servers.json"
        entries = {"old": {"url": legacy_url}, "new": {"url": extension_url}}
        config.write_text(json.dumps({"mcpServers": entries}))
        servers = tui_servers(parse(["--config", str(config)]).target)

        def loaded_app() -> TaskscopeApp:
            first = next(target for _, target in servers if not isinstance(target, str))
            options = TuiOptions(first, servers=servers, servers_label=str(config))
            return TaskscopeApp(DeferredSource(LiveLoader(options).load))

        app = loaded_app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.info is not None and servers_up(app, "old", "new"))
            await create_on(app, "old", "build_report", quarter="Q1")
            await create_on(app, "new", "build_report", quarter="Q2")
            await wait_for(
                pilot,
                lambda: (
                    len(app.tasks) == 2
                    and all(w.status == "completed" for w in app.tasks.tasks.values())
                ),
                timeout=40,
            )
            first_run = {w.task_id: w.server for w in app.tasks.tasks.values()}
            await app.close_source()
        again = loaded_app()
        async with again.run_test(size=SIZE) as pilot:
            await wait_for(
                pilot,
                lambda: (
                    set(again.tasks.tasks) == set(first_run)
                    and all(w.settled for w in again.tasks.tasks.values())
                ),
                timeout=40,
            )
            assert {w.task_id: w.server for w in again.tasks.tasks.values()} == first_run
            (old,) = [w for w in again.tasks.tasks.values() if w.server == "old"]
            (new,) = [w for w in again.tasks.tasks.values() if w.server == "new"]
            assert old.status == "not_visible"  # the legacy demo binds tasks to their session
            assert new.status == "completed"
            assert new.task is not None and "Q2" in str(new.task.result)
            await again.close_source()

        # each server's tasks are remembered under its own key: opened alone, "new" has its task
        alone = TaskscopeApp(LiveSource(target_from_args(parse(["--url", extension_url]).target)))
        async with alone.run_test(size=SIZE) as pilot:
            await wait_for(
                pilot, lambda: [w.status for w in alone.tasks.tasks.values()] == ["completed"]
            )
            assert list(alone.tasks.tasks) == [new.server_task_id]
            await alone.close_source()


async def test_a_question_outside_any_task_and_a_synchronous_answer_name_their_server() -> None:
    """A question asked on the tools/call stream (before its task exists) waits in the one inbox
    under its server and makes no row of its own; a plain call's answer is a row of its server."""
    app = several_app(
        LiveSource(stdio_target("legacy", "--elicit-channel", "call")),
        LiveSource(stdio_target("extension")),
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.info is not None and servers_up(app, "alpha", "beta"))
        app.run_worker(create_on(app, "alpha", "provision_server"))
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, InputForm) and bool(app.screen.query("#input-origin")),
        )
        form = app.screen
        assert isinstance(form, InputForm) and form.request.task_id is None
        assert "on server alpha" in str(form.query_one("#input-origin").render())
        await pilot.press("escape")  # later
        await wait_for(pilot, lambda: not isinstance(app.screen, InputForm))
        assert list(app.tasks.tasks) == []  # the question is no row
        [entry] = app.inbox_entries()
        assert entry.server == "alpha"
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, InputInbox))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))
        await pilot.click("#input-decline")
        await wait_for(pilot, lambda: [w.status for w in of_server(app, "alpha")] == ["completed"])
        await create_on(app, "beta", "lookup_weather", as_task=False, city="Porto")
        await wait_for(pilot, lambda: len(of_server(app, "beta")) == 1)
        (answered,) = of_server(app, "beta")
        assert answered.synchronous and answered.task_id == "beta · sync-1"
        assert cell(app, answered.task_id, "server") == "beta"
        assert list(app.tasks.tasks) == [of_server(app, "alpha")[0].task_id, answered.task_id]


async def test_a_server_down_at_the_start_is_tried_again_and_joins_once_it_listens() -> None:
    """An HTTP server that refuses connections at the start is retried with the reconnect
    backoff (shown as reconnecting, the reason in the server pane); once it listens it joins."""
    held = socket.socket()  # bound, never listening: connections are refused, the port is ours
    held.bind(("127.0.0.1", 0))
    port = int(held.getsockname()[1])
    policy = ReconnectPolicy(attempts=1000, first_delay_s=0.2, max_delay_s=0.5, jitter=0.0)
    late = LiveSource(http_target(f"http://127.0.0.1:{port}/mcp"), policy=policy, retry_start=True)
    entries: list[tuple[str, LiveSource | str]] = [
        ("alpha", LiveSource(stdio_target("legacy"))),
        ("late", late),
    ]
    app = TaskscopeApp(
        MultiSource(entries, label="servers.json", readonly=False),
        remember_tasks=False,
    )
    process: subprocess.Popen[bytes] | None = None
    try:
        async with app.run_test(size=SIZE) as pilot:
            header = app.query_one(HeaderBar)
            await wait_for(
                pilot, lambda: "1 of 2 · late reconnecting" in header.header_text().plain
            )
            await pilot.press("s")
            await wait_for(pilot, lambda: "cannot be reached yet" in server_pane_text(app))
            assert "reconnecting in" in server_pane_text(app)
            assert "Connect call failed" in server_pane_text(app)  # why the last try failed
            await pilot.press("escape")
            held.close()
            process = spawn_http_demo("extension", port, "--speed", "20")
            await wait_for(pilot, lambda: servers_up(app, "alpha", "late"), timeout=60)
            await wait_for(pilot, lambda: "2 of 2" in header.header_text().plain)
            await create_on(app, "late", "build_report")
            await wait_for(
                pilot, lambda: [w.status for w in of_server(app, "late")] == ["completed"]
            )
    finally:
        held.close()
        if process is not None:
            stop_process(process)
