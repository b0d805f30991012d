"""Shared helpers for the TUI tests: start the App on a demo server and wait for its state."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from app.engine.rpc.targets import HttpTarget, StdioTarget, Target
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.view.state import WatchedTask
from tests.support.demo_servers import Wire, stdio_demo_command
from tests.support.markup import shown_text
from widgets.server_screen import ServerScreen

SPEED = "20"
SIZE = (120, 36)


def stdio_target(wire: Wire, *extra: str) -> Target:
    """A demo server of `wire` over stdio, fast (`--speed 20`)."""
    return StdioTarget(stdio_demo_command(wire, "--speed", SPEED, *extra))


def http_target(url: str) -> Target:
    return HttpTarget(url)


def live_app(target: Target, **kwargs: Any) -> TaskscopeApp:
    """The App on a live source for `target` (known tasks live in TASKSCOPE_DATA_DIR)."""
    return TaskscopeApp(LiveSource(target), **kwargs)


async def wait_for(
    pilot: Pilot[Any], predicate: Callable[[], object], timeout: float = 15.0, step: float = 0.05
) -> None:
    """Pause the pilot until `predicate()` is true; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {predicate}")
        await pilot.pause(step)


async def connected(pilot: Pilot[Any]) -> TaskscopeApp:
    """Wait until the App's source is connected; returns the App."""
    app = pilot.app
    assert isinstance(app, TaskscopeApp)
    await wait_for(pilot, lambda: app.info is not None or app.failed, timeout=20)
    assert app.info is not None, app.problem
    return app


def only_task(app: TaskscopeApp) -> WatchedTask:
    """The single watched task."""
    tasks = list(app.tasks.tasks.values())
    assert len(tasks) == 1, [task.task_id for task in tasks]
    return tasks[0]


def settled_with_result(watched: WatchedTask) -> bool:
    """Settled, and a completed task's result has arrived: a legacy task is terminal before its
    tasks/result answer lands, so waiting for the status alone races the result."""
    task = watched.task
    if not watched.settled or task is None:
        return False
    return task.status != "completed" or task.result is not None


def by_tool(app: TaskscopeApp, tool: str) -> WatchedTask:
    """The watched task created by `tool` (exactly one)."""
    found = [task for task in app.tasks.tasks.values() if task.tool_name == tool]
    assert len(found) == 1, [task.task_id for task in found]
    return found[0]


def server_pane_text(app: TaskscopeApp) -> str:
    """What the open server pane (`s`) shows: its title and rows as plain text."""
    screen = app.screen
    assert isinstance(screen, ServerScreen)
    return " ".join(
        shown_text(screen.query_one(part)) for part in ("#server-title", "#server-rows")
    )


def servers_up(app: TaskscopeApp, *names: str) -> bool:
    """Whether each of the named servers (of several watched) is connected."""
    from app.view.source import SourceUnavailable

    try:
        return all(app.source.server(name) for name in names)
    except SourceUnavailable:
        return False


async def create_on(
    app: TaskscopeApp, server: str, tool: str, *, as_task: bool = True, **arguments: object
) -> None:
    """Call `tool` on the named one of several servers, as `n` does once that server is chosen."""
    from app.tui.server_choice import ChosenServer
    from app.tui.verbs import create
    from widgets.arguments_form import CreateRequest

    source, info = app.source.server(server)
    request = CreateRequest(tool, dict(arguments), None, as_task)
    await create.create_task(app, request, ChosenServer(source, info, server))


async def earlier_run_task(target: Target) -> WatchedTask:
    """Run the App once on `target` (its task ids remembered in TASKSCOPE_DATA_DIR), create a
    `build_report` task there and let it finish: the task as that run last saw it."""
    from widgets.arguments_form import CreateRequest

    earlier = live_app(target)
    async with earlier.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await earlier.create_task(CreateRequest("build_report", {"quarter": "Q1"}, None, True))
        await wait_for(pilot, lambda: earlier.tasks and settled_with_result(only_task(earlier)))
        await earlier.close_source()
    return only_task(earlier)
