"""The App's first frame comes before the engine: what `app.tui.app` imports, when a deferred
source is loaded, what the header says meanwhile, and the panes built only when first needed."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.tui.app import TaskscopeApp
from app.tui.messages import TaskEventsArrived
from app.tui.recorded import RecordedSource
from app.tui.startup import STILL_LOADING, DeferredSource, LoadedSource
from tests.support.tui_helpers import SIZE, connected, wait_for
from tests.support.tui_recording import (
    INFO,
    NOW,
    RECORDED_TASKS,
    TOOLS,
    recorded_app,
    recorded_events,
    recorded_frames,
    recorded_source,
)
from widgets.header_bar import HeaderBar
from widgets.rpc_log import RpcLog
from widgets.task_detail import TaskDetail

REPO = Path(__file__).resolve().parents[2]

ENGINE_MODULES = (
    "pydantic",
    "app.engine.tasks.models",
    "app.engine.rpc.connection",
    "app.engine.record.recorder",
    "app.engine.tasks.factory",
    "app.engine.rpc.session",
    "app.tui.live",
    "widgets.task_detail",
    "widgets.rpc_log",
)
"""What the first frame does not need: the engine, and the panes built on demand."""

FIRST_FRAME_PROBE = """
import asyncio, json, sys
from textual.screen import Screen

engine_loaded_at_frame = []
paint = Screen._compositor_refresh

def counting_paint(self):
    paint(self)
    engine_loaded_at_frame.append("pydantic" in sys.modules or "app.tui.live" in sys.modules)

Screen._compositor_refresh = counting_paint

from app.engine.rpc.targets import demo_target
from app.tui.app import TaskscopeApp
from app.tui.startup import DeferredSource
from app.tui.run import LiveLoader, TuiOptions

loader = LiveLoader(TuiOptions(demo_target("extension")))
app = TaskscopeApp(DeferredSource(loader.load), remember_tasks=False)

async def main():
    async with app.run_test(size=(120, 36)) as pilot:
        for _ in range(400):
            if app.info is not None or app.failed:
                break
            await pilot.pause(0.05)
        header = app.query_one("#header").header_text().plain
        await app.close_source()
    loader.close()
    print(json.dumps({"frames": engine_loaded_at_frame, "header": header, "problem": app.problem}))

asyncio.run(main())
"""


def _run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_importing_the_app_loads_no_engine_module() -> None:
    shown = _run_python(
        "import json, sys\n"
        "import app.tui.app, app.tui.run\n"
        f"print(json.dumps([name for name in {ENGINE_MODULES!r} if name in sys.modules]))\n"
    )
    assert json.loads(shown) == []


@pytest.mark.timeout(60)
def test_the_first_frame_is_painted_before_the_engine_loads_then_it_connects() -> None:
    """The real `taskscope demo` path (LiveLoader, a stdio demo server) in a fresh process."""
    result = json.loads(_run_python(FIRST_FRAME_PROBE))
    frames = result["frames"]
    assert frames and frames[0] is False, "the engine was imported before the first frame"
    assert frames[-1] is True
    assert result["problem"] is None
    assert "taskscope-demo-extension" in result["header"] and "connected" in result["header"]


async def test_the_header_says_loading_and_verbs_wait_until_the_source_is_built() -> None:
    release = threading.Event()

    def load() -> LoadedSource:
        if not release.wait(10):
            raise TimeoutError("the test never released the loader")
        return LoadedSource(recorded_source(), history=lambda: [])

    app = TaskscopeApp(DeferredSource(load), clock=lambda: NOW, remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        header = app.query_one(HeaderBar)
        await wait_for(pilot, lambda: "loading the engine" in header.header_text().plain)
        assert app.source.connection_state() == "loading"
        await pilot.press("p")  # pause polling: refused while loading, said in a toast
        await wait_for(pilot, lambda: any(STILL_LOADING in n.message for n in app._notifications))
        assert not app.paused
        release.set()
        await connected(pilot)
        await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS)
        assert app.history is not None and list(app.history()) == []
        assert "loading" not in header.header_text().plain


async def test_a_failing_loader_is_reported_like_a_failed_connection() -> None:
    def load() -> LoadedSource:
        raise ImportError("no engine here")

    app = TaskscopeApp(DeferredSource(load), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.failed)
        assert app.problem == "ImportError: no engine here"
        assert "failed" in app.query_one(HeaderBar).header_text().plain


async def test_the_detail_pane_is_built_when_a_task_is_first_shown() -> None:
    app = TaskscopeApp(RecordedSource(INFO, (), (), TOOLS), clock=lambda: NOW, remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.pause(0.1)
        assert not app.query(TaskDetail)
        assert "Select a task" in str(app.query_one("#detail-hint").render())
        app.post_message(TaskEventsArrived(recorded_events()))
        await wait_for(pilot, lambda: app.query(TaskDetail))
        await wait_for(pilot, lambda: app.detail.watched is not None)
        assert app.detail.watched is not None
        assert app.detail.watched.task_id == app.table.selected_task_id
        assert not app.query("#detail-hint")


async def test_the_rpc_log_shows_frames_that_arrived_before_it_was_first_opened() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.rpc_frames) == len(recorded_frames()))
        assert not app.query(RpcLog)  # never shown: never built
        await pilot.press("L")
        log = app.query_one(RpcLog)
        await pilot.pause()
        assert log.frames == tuple(recorded_frames())
        first = recorded_frames()[0]
        assert log.line_text(0).plain.split()[1:3] == ["→", first.method]

        await pilot.press("L")  # hidden again: new frames wait in the App's buffer, unshown
        later = recorded_frames()[:3]
        app.post_message(TaskEventsArrived([], later))
        await wait_for(pilot, lambda: len(app.rpc_frames) == len(recorded_frames()) + 3)
        assert log.virtual_size.height == len(recorded_frames())
        await pilot.press("L")  # shown: caught up
        await pilot.pause()
        assert log.frames == app.rpc_frames
        assert log.virtual_size.height == len(app.rpc_frames)


async def test_quitting_while_the_engine_loads_leaves_cleanly() -> None:
    release = threading.Event()
    built: list[RecordedSource] = []

    def load() -> LoadedSource:
        release.wait(10)
        built.append(recorded_source())
        return LoadedSource(built[-1])

    app = TaskscopeApp(DeferredSource(load), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.source.connection_state() == "loading")
        await app.close_source()
        release.set()
        await asyncio.sleep(0.1)
    assert app.return_code in (None, 0)
    assert app.info is None


async def test_a_layout_pass_that_changes_no_size_leaves_the_table_scrollbars_alone() -> None:
    app = recorded_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.table.row_count == RECORDED_TASKS)
        await pilot.pause()
        updates: list[object] = []
        table = app.table
        scroll_update = table._scroll_update
        table._scroll_update = lambda size: (updates.append(size), scroll_update(size))  # type: ignore[method-assign]
        for _ in range(3):
            app.screen.refresh(layout=True)
            await pilot.pause()
        assert updates == []
        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])
        await pilot.pause()
        assert updates
        assert table.horizontal_scrollbar.window_virtual_size == SIZE[0] - 20  # the new width


async def test_narrowing_the_terminal_stacks_the_list_and_the_detail_pane() -> None:
    app = recorded_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: app.table.row_count == RECORDED_TASKS)
        assert app.screen.has_class("-wide")
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        assert not app.screen.has_class("-wide")
        await pilot.resize_terminal(160, 40)
        await pilot.pause(0.1)
        assert app.screen.has_class("-wide")
