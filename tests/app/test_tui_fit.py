"""What a new user hit (issue 12): the list fits the terminal, the selected row stays on screen,
sorts read in words, finished tasks show their final progress, the header and footer keep what
matters, and where focus is shows.

Most tests run the App on the fixed recording (plus one task with a long message) and read the
screen as a terminal shows it; the progress test runs the legacy demo server.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import HelpPanel, Static

from app.engine.rpc.targets import HttpTarget
from app.engine.tasks.events import NextPoll, TaskEvent
from app.engine.tasks.models import Progress, Task
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.tui.recorded import RecordedSource
from app.view.formatting import format_task_progress
from tests.support.tui_helpers import connected, live_app, only_task, stdio_target, wait_for
from tests.support.tui_recording import INFO, NOW, TOOLS, recorded_events, recorded_frames
from widgets.arguments_form import CreateRequest
from widgets.table_layout import COLUMN_KEYS, DROP_ORDER, MESSAGE_MIN_WIDTH, fit_columns

SIZES = [(80, 24), (120, 36), (200, 50)]
LONG_ID = "tk-long-message"
LONG_MESSAGE = (
    "Copying shard 17 of 240 from the eu-west replica to the archive bucket, then verifying"
)


def long_message_event() -> TaskEvent:
    """A working task whose status message is longer than any terminal's message column."""
    task = Task(
        task_id=LONG_ID,
        wire="extension",
        status="working",
        status_message=LONG_MESSAGE,
        created_at=datetime.fromtimestamp(NOW - 5, UTC),
        ttl_ms=600_000,
        tool_name="archive_shards",
        raw={"taskId": LONG_ID, "status": "working", "statusMessage": LONG_MESSAGE},
    )
    next_poll = NextPoll(due=NOW + 1, delay=2.0, term="server")
    return TaskEvent("created", LONG_ID, task, NOW - 5, "create", next_poll=next_poll)


def recorded_with_long_message() -> TaskscopeApp:
    """The recording plus the long-message task, on a frozen clock."""
    source = RecordedSource(
        INFO, [*recorded_events(), long_message_event()], recorded_frames(), TOOLS
    )
    return TaskscopeApp(source, clock=lambda: NOW, remember_tasks=False)


TASKS = 9


def screen_lines(app: TaskscopeApp) -> list[str]:
    """The screen as a terminal shows it, one string per row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def row_line(app: TaskscopeApp, task_id: str) -> str | None:
    """The screen row drawing `task_id`'s line of the list (None when it is not on screen)."""
    table = app.table
    index = table.order.index(task_id)
    first = int(table.scroll_y)
    visible = table.scrollable_content_region.height - 1
    if not first <= index < first + visible:
        return None
    y = table.region.y + 1 + index - first
    return screen_lines(app)[y][table.region.x : table.region.right]


def static_text(widget: Static) -> str:
    """The plain text a Static holds (its Rich renderable printed wide, without styles)."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


async def loaded(pilot: Pilot[Any], tasks: int = TASKS) -> TaskscopeApp:
    app = pilot.app
    assert isinstance(app, TaskscopeApp)
    await wait_for(pilot, lambda: len(app.tasks) == tasks and app.table.row_count == tasks)
    await pilot.pause()
    return app


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_the_message_is_on_screen_cut_with_an_ellipsis_and_whole_in_the_detail(
    size: tuple[int, int],
) -> None:
    app = recorded_with_long_message()
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        app.go_to_task(LONG_ID)
        await pilot.pause()
        line = row_line(app, LONG_ID)
        assert line is not None
        start = line.index("Copying shard 17")
        shown = line[start:].rstrip()
        assert shown.endswith("…") and LONG_MESSAGE.startswith(shown[:-1])
        assert len(shown) >= MESSAGE_MIN_WIDTH
        assert "Message" in screen_lines(app)[app.table.region.y]
        assert app.table.max_scroll_x == 0  # nothing to scroll sideways to
        assert LONG_MESSAGE in static_text(app.detail.query_one("#overview-body", Static))
        await pilot.press("right", "right")
        assert app.table.scroll_x == 0


async def test_a_wider_terminal_shows_more_columns_in_the_documented_order() -> None:
    app = recorded_with_long_message()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        narrow = [slot.key for slot in app.table.columns]
        await pilot.resize_terminal(140, 36)
        await pilot.pause()
        wide = [slot.key for slot in app.table.columns]
    assert set(narrow) < set(wide)
    assert {"mark", "status", "tool", "message"} <= set(narrow)
    gone = [DROP_ORDER.index(key) for key in wide if key not in narrow]
    kept = [DROP_ORDER.index(key) for key in narrow if key in DROP_ORDER]
    assert gone and kept and max(gone) < min(kept)  # the narrow list gave up the least useful


def test_columns_are_dropped_least_useful_first_and_the_message_keeps_its_minimum() -> None:
    content = {"status": 11, "tool": 16, "id": 10, "next": 14, "progress": 4, "marks": 13}
    previous: list[str] | None = None
    for width in range(200, 50, -1):
        layout = fit_columns(width, content)
        keys = [slot.key for slot in layout]
        assert keys == [key for key in COLUMN_KEYS if key in keys]  # shown in column order
        assert keys[-1] == "message" and {"mark", "status"} <= set(keys)
        assert sum(slot.width + 2 for slot in layout) == width  # exactly the width it has
        if previous is not None and keys != previous:
            gone = [key for key in previous if key not in keys]
            assert len(gone) == 1
            shown_droppable = [key for key in DROP_ORDER if key in previous]
            assert gone[0] == shown_droppable[0]
        if len(keys) > 3:  # while a column can still go, the message keeps its minimum
            assert layout[-1].width >= MESSAGE_MIN_WIDTH
        previous = keys
    assert fit_columns(200, {**content, "progress": 0})[-1].key == "message"
    assert "progress" not in [slot.key for slot in fit_columns(200, {**content, "progress": 0})]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=lambda size: f"{size[0]}x{size[1]}")
async def test_the_selected_row_stays_on_screen_when_panes_open_and_close(
    size: tuple[int, int],
) -> None:
    app = recorded_with_long_message()
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        await pilot.press("end")
        last = app.table.order[-1]
        assert app.table.selected_task_id == last and row_line(app, last) is not None
        await pilot.press("L")
        await pilot.pause()
        assert app.screen.has_class("-show-rpc")
        assert row_line(app, last) is not None
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.press("z", "z")
        await pilot.pause()
        assert app.table.has_focus  # unzooming gives the list its focus back
        assert row_line(app, last) is not None
        await pilot.press("L")
        await pilot.pause()
        assert row_line(app, last) is not None


def test_a_finished_task_shows_its_final_progress_and_100_percent_when_completed() -> None:
    def task(status: Any, done: float) -> Task:
        return Task(
            task_id="t",
            wire="legacy",
            status=status,
            progress=Progress(progress=done, total=100),
            raw={},
        )

    assert format_task_progress(task("completed", 97)) == "100%"
    assert format_task_progress(task("working", 97)) == "97%"
    assert format_task_progress(task("failed", 40)) == "40%"
    assert format_task_progress(task("cancelled", 12)) == "12%"
    unbounded = Task(
        task_id="t", wire="legacy", status="completed", progress=Progress(progress=7), raw={}
    )
    assert format_task_progress(unbounded) == "7"


async def test_a_completed_demo_task_reads_100_percent_in_the_list_and_the_detail() -> None:
    app = live_app(stdio_target("legacy"), remember_tasks=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("build_report", {"quarter": "Q3"}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        watched = only_task(app)
        await wait_for(pilot, lambda: only_task(app).status == "completed", timeout=30)
        assert only_task(app).task is not None and only_task(app).task.progress is not None  # type: ignore[union-attr]
        await pilot.pause(0.3)
        assert app.table.get_cell(watched.task_id, "progress").plain == "100%"
        line = row_line(app, watched.task_id)
        assert line is not None and "100%" in line
        assert "100%" in static_text(app.detail.query_one("#overview-body", Static))


@pytest.mark.parametrize("width", [80, 120])
async def test_the_header_keeps_the_connection_state_and_the_footer_help_and_quit(
    width: int,
) -> None:
    app = recorded_with_long_message()
    async with app.run_test(size=(width, 24)) as pilot:
        await loaded(pilot)
        lines = screen_lines(app)
        assert "● connected" in lines[0]
        # the server's description gave way (its declared verbs first), not the state or the wire
        assert "extension tasks" in lines[0] and "[call" not in lines[0]
        assert "? Keys" in lines[-1] and "q Quit" in lines[-1]


async def test_a_connect_error_is_shown_whole_and_wrapped_in_the_detail_pane() -> None:
    app = TaskscopeApp(LiveSource(HttpTarget("http://127.0.0.1:9/mcp")), remember_tasks=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.failed, timeout=20)
        await pilot.pause()
        assert app.problem
        header = screen_lines(app)[0]
        assert "✗ failed" in header and "connecting" not in header
        labels = screen_lines(app)[app.table.region.y].split()
        assert labels[:3] == ["Status", "Tool", "Task"] and labels[-1] == "Message"  # empty list
        hint = app.query_one("#detail-hint", Static)
        rows = screen_lines(app)[hint.region.y : hint.region.bottom]
        shown = " ".join(" ".join(row[hint.region.x : hint.region.right] for row in rows).split())
        assert "Could not connect" in shown
        assert " ".join(app.problem.split()) in shown  # whole, wrapped over several rows
        assert hint.region.height > 3


async def test_focus_shows_and_the_help_names_tab_and_shift_tab() -> None:
    app = recorded_with_long_message()
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        table = app.table
        await pilot.pause()

        def cursor_style() -> Any:
            return table.get_component_rich_style("task-table--cursor")

        def header_style() -> Any:
            return table.get_component_rich_style("task-table--header")

        focused_cursor, focused_header = cursor_style(), header_style()
        await pilot.press("down")
        selected = table.selected_task_id
        await pilot.press("tab")
        await pilot.pause()
        assert not table.has_focus and app.focused is not None
        assert app.detail in app.focused.ancestors_with_self
        blurred_cursor, blurred_header = cursor_style(), header_style()
        assert blurred_cursor != focused_cursor and blurred_cursor.dim
        assert blurred_header != focused_header
        await pilot.press("down", "right")  # the detail pane's keys: the list stays put
        assert table.selected_task_id == selected
        assert app.detail.active_tab == "result"
        await pilot.press("shift+tab")
        await pilot.pause()
        assert table.has_focus
        assert cursor_style() == focused_cursor and header_style() == focused_header
        await pilot.press("question_mark")
        await pilot.pause()
        panel = app.screen.query_one(HelpPanel)
        rows = screen_lines(app)[panel.region.y : panel.region.bottom]
        text = " ".join(" ".join(row[panel.region.x : panel.region.right] for row in rows).split())
        assert "Next pane" in text and "shift+tab" in text
