"""Widget tests: small host apps mount one widget and feed it hand-made tasks and frames."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from app.engine.events import NextPoll
from app.engine.models import Task, TaskStatus
from app.tui.state import Violation, WatchedTask
from widgets.task_table import TaskTable

NOW = 1_800_000_100.0
HOSTILE = "\x1b[31mred\x1b[0m [bold red]not markup[/] \u202egnp.exe\x1b]52;c;aGk=\x07 \x9b2J"


def watched(
    task_id: str,
    status: TaskStatus = "working",
    *,
    message: str | None = None,
    tool: str = "deploy",
    **extra: Any,
) -> WatchedTask:
    raw: dict[str, Any] = {"taskId": task_id, "status": status}
    if message is not None:
        raw["statusMessage"] = message
    task = Task(
        task_id=task_id,
        wire="extension",
        status=status,
        status_message=message,
        created_at=datetime.fromtimestamp(NOW - 30, UTC),
        ttl_ms=600_000,
        tool_name=tool,
        raw=raw,
    )
    fields: dict[str, Any] = {
        "task_id": task_id,
        "task": task,
        "tool_name": tool,
        "first_seen": NOW - 30,
        "last_change": NOW - 5,
        "last_event": NOW - 1,
        **extra,
    }
    return WatchedTask(**fields)


class TableHost(App[None]):
    """Mounts one TaskTable and records the TaskSelected messages it posts."""

    def __init__(self) -> None:
        super().__init__()
        self.selections: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield TaskTable(id="tasks")

    def on_task_table_task_selected(self, message: TaskTable.TaskSelected) -> None:
        self.selections.append(message.task_id)


def screen_text(app: App[Any]) -> str:
    """The screenshot's visible text, after checking no escape or bidi control reached it."""
    svg = app.export_screenshot()
    text = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
    for control in ("\x1b", "\x9b", "\u202e", "\x07"):
        assert control not in svg and control not in text
    return text


def cell_text(table: DataTable[Any], row: str, column: str) -> str:
    return str(table.get_cell(row, column))


def rows_by_id(*items: WatchedTask) -> dict[str, WatchedTask]:
    return {item.task_id: item for item in items}


async def test_cursor_stays_on_task_when_rows_are_inserted_above() -> None:
    app = TableHost()
    async with app.run_test(size=(200, 30)) as pilot:
        table = app.query_one(TaskTable)
        rows = rows_by_id(watched("a"), watched("b"), watched("c"))
        table.sync(rows, ["a", "b", "c"], NOW)
        await pilot.pause()
        assert table.select_task("b")
        await pilot.pause()
        assert table.selected_task_id == "b"
        rows = rows_by_id(watched("new-1"), watched("new-2"), *rows.values())
        table.sync(rows, ["new-1", "new-2", "a", "b", "c"], NOW)
        await pilot.pause()
        assert table.selected_task_id == "b"
        assert table.cursor_row == 3
        assert table.order == ("new-1", "new-2", "a", "b", "c")
        # Re-sorting and removing rows keeps it there too.
        del rows["a"]
        table.sync(rows, ["c", "b", "new-2", "new-1"], NOW)
        await pilot.pause()
        assert table.selected_task_id == "b"
        assert [str(table.get_row_at(i)[2]) for i in range(4)] == ["c", "b", "new-2", "new-1"]
        assert app.selections[-1] == "b"


async def test_removing_the_selected_row_selects_a_neighbour() -> None:
    app = TableHost()
    async with app.run_test(size=(200, 30)) as pilot:
        table = app.query_one(TaskTable)
        rows = rows_by_id(watched("a"), watched("b"), watched("c"))
        table.sync(rows, ["a", "b", "c"], NOW)
        table.select_task("b")
        await pilot.pause()
        table.sync(rows, ["a", "c"], NOW)
        await pilot.pause()
        assert table.selected_task_id == "c"
        assert app.selections[-1] == "c"


async def test_only_changed_cells_are_updated() -> None:
    app = TableHost()
    async with app.run_test(size=(200, 30)) as pilot:
        table = app.query_one(TaskTable)
        first = watched("a", message="step 1")
        table.sync({"a": first, "b": watched("b")}, ["a", "b"], NOW)
        await pilot.pause()
        updated: list[tuple[str, str]] = []
        original = table.update_cell

        def spy(row_key: Any, column_key: Any, value: Any, **kwargs: Any) -> None:
            updated.append((str(getattr(row_key, "value", row_key)), str(column_key)))
            original(row_key, column_key, value, **kwargs)

        table.update_cell = spy  # type: ignore[method-assign]
        changed = watched("a", message="step 2")
        table.sync({"a": changed, "b": watched("b")}, ["a", "b"], NOW)
        assert updated == [("a", "message")]
        updated.clear()
        table.sync({"a": changed, "b": watched("b")}, ["a", "b"], NOW)
        assert updated == []
        await pilot.pause()
        assert cell_text(table, "a", "message") == "step 2"


async def test_clock_cells_follow_now() -> None:
    app = TableHost()
    async with app.run_test(size=(200, 30)) as pilot:
        table = app.query_one(TaskTable)
        item = watched(
            "a",
            next_poll=NextPoll(due=0.0, delay=4.0, term="retry-after"),
            next_poll_at=NOW + 4,
        )
        table.sync({"a": item}, ["a"], NOW)
        await pilot.pause()
        assert cell_text(table, "a", "next") == "4.0s · retry-after"
        assert cell_text(table, "a", "age") == "30s"
        assert cell_text(table, "a", "ttl") == "9m30s"
        table.sync({"a": item}, ["a"], NOW + 5)
        assert cell_text(table, "a", "next") == "due · retry-after"
        assert cell_text(table, "a", "changed") == "10s"


async def test_status_and_marks_read_without_colour() -> None:
    app = TableHost()
    async with app.run_test(size=(200, 30)) as pilot:
        table = app.query_one(TaskTable)
        rows = rows_by_id(
            watched("w", cancel_requested=True),
            watched("i", "input_required", pending_inputs=frozenset({"k"})),
            watched("f", "failed", last_error="HTTP 503"),
            watched("v", violation=Violation("unknown status 'bogus'", {"x": 1}, NOW)),
            watched("s", "completed", synchronous=True),
            watched("x", expired=True),
        )
        table.sync(rows, list(rows), NOW)
        await pilot.pause()
        assert cell_text(table, "w", "status") == "◐ working"
        assert "cancel requested" in cell_text(table, "w", "marks")
        assert cell_text(table, "i", "status") == "? input"
        assert "1 input" in cell_text(table, "i", "marks")
        assert cell_text(table, "f", "status") == "✗ failed"
        assert cell_text(table, "f", "message") == "poll failed: HTTP 503"
        assert "violation" in cell_text(table, "v", "marks")
        assert cell_text(table, "s", "status") == "● completed"
        assert "answered synchronously" in cell_text(table, "s", "marks")
        assert cell_text(table, "x", "status") == "⧗ expired"
        assert cell_text(table, "x", "next") == "—"


async def test_hostile_strings_render_literally_in_the_table() -> None:
    app = TableHost()
    async with app.run_test(size=(220, 20)) as pilot:
        table = app.query_one(TaskTable)
        item = watched("[bold]id", message=HOSTILE, tool="[red]tool\x1b[2J")
        table.sync({item.task_id: item}, [item.task_id], NOW)
        await pilot.pause()
        screen = screen_text(app)
        assert "[bold red]not" in screen
        assert "[red]tool" in screen
        assert "[bold]id" in screen


async def test_large_table_sync_is_cheap_when_nothing_changed() -> None:
    app = TableHost()
    async with app.run_test(size=(200, 40)) as pilot:
        table = app.query_one(TaskTable)
        rows = {f"t-{i:04d}": watched(f"t-{i:04d}") for i in range(1000)}
        order = list(rows)
        table.sync(rows, order, NOW)
        await pilot.pause()
        import time

        started = time.perf_counter()
        table.sync(rows, order, NOW)
        assert time.perf_counter() - started < 0.5
        assert table.row_count == 1000
