"""Widget tests: small host apps mount one widget and feed it hand-made tasks and frames."""

from __future__ import annotations

import html
import io
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from app.engine.rpc.rpc_types import Frame
from app.engine.tasks.events import NextPoll
from app.view.state import TimelineEntry, Violation, WatchedTask, json_diff
from tests.support.watched_tasks import NOW, watched
from widgets.detail_result import result_text
from widgets.json_view import JsonView
from widgets.rpc_log import RpcLog
from widgets.task_detail import TaskDetail
from widgets.task_table import COLUMN_KEYS, TaskTable
from widgets.text_pager import TextPager

HOSTILE = "\x1b[31mred\x1b[0m [bold red]not markup[/] \u202egnp.exe\x1b]52;c;aGk=\x07 \x9b2J"


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


def static_text(app: App[Any], selector: str) -> str:
    """The plain text a Static currently shows (its Rich renderable printed without styles)."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.query_one(selector, Static).content)
    return console.export_text()


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
        id_column = COLUMN_KEYS.index("id")
        shown = [str(table.get_row_at(i)[id_column]) for i in range(4)]
        assert shown == ["c", "b", "new-2", "new-1"]
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
        assert cell_text(table, "s", "marks") == "↯ synchronous"
        assert cell_text(table, "x", "status") == "⊘ expired"
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


async def test_large_table_sync_touches_no_cell_when_nothing_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = TableHost()
    async with app.run_test(size=(200, 40)) as pilot:
        table = app.query_one(TaskTable)
        rows = {f"t-{i:04d}": watched(f"t-{i:04d}") for i in range(1000)}
        order = list(rows)
        table.sync(rows, order, NOW)
        await pilot.pause()
        updates: list[object] = []
        monkeypatch.setattr(table, "update_cell", lambda *args, **kw: updates.append(args))
        table.sync(rows, order, NOW)
        assert updates == []
        assert table.row_count == 1000


# --- detail pane -------------------------------------------------------------------------------


class DetailHost(App[None]):
    """Mounts one TaskDetail."""

    def compose(self) -> ComposeResult:
        yield TaskDetail(id="detail")


def with_result(item: WatchedTask, result: dict[str, Any]) -> WatchedTask:
    assert item.task is not None
    task = item.task.model_copy(
        update={"status": "completed", "result": result, "raw": {**item.task.raw, "result": result}}
    )
    return replace(item, task=task)


async def test_detail_renders_only_the_visible_tab() -> None:
    app = DetailHost()
    async with app.run_test(size=(120, 40)) as pilot:
        detail = app.query_one(TaskDetail)
        detail.watched = with_result(watched("a"), {"content": [{"type": "text", "text": "hello"}]})
        await pilot.pause()
        overview = static_text(app, "#overview-body")
        assert "deploy" in overview and "● completed" in overview
        assert app.query_one(TextPager).text.plain == ""
        detail.show_tab("result")
        await pilot.pause()
        assert "hello" in app.query_one(TextPager).text.plain


async def test_result_blocks_show_type_and_size() -> None:
    result = {
        "content": [
            {"type": "text", "text": "line one\nline two"},
            {"type": "image", "mimeType": "image/png", "data": "A" * 4000},
            {"type": "audio", "mimeType": "audio/wav", "data": "A" * 400},
            {"type": "resource_link", "uri": "file:///x.txt", "name": "x"},
            {"type": "resource", "resource": {"uri": "mem://r", "text": "embedded"}},
        ],
        "structuredContent": {"answer": 42},
        "isError": True,
    }
    text = result_text(with_result(watched("a"), result).task).plain
    assert "tool reported an error" in text
    assert "line one\nline two" in text
    assert "image · image/png · 3.0 kB" in text
    assert "audio · audio/wav · 300 B" in text
    assert "resource link · file:///x.txt · x" in text
    assert "resource · mem://r\nembedded" in text
    assert '"answer": 42' in text
    assert "A" * 100 not in text


async def test_megabyte_text_result_scrolls_to_its_end() -> None:
    huge = "x" * 1_000_000 + "END"
    app = DetailHost()
    async with app.run_test(size=(120, 40)) as pilot:
        detail = app.query_one(TaskDetail)
        detail.watched = with_result(watched("a"), {"content": [{"type": "text", "text": huge}]})
        detail.show_tab("result")
        await pilot.pause()
        pager = app.query_one(TextPager)
        assert pager.text.plain.endswith("END")
        pager.scroll_end(animate=False)
        await pilot.pause()
        assert pager.scroll_y > 5000
        assert "xEND" in screen_text(app)
        for tab in ("json", "raw"):  # strings are cut there, so these stay quick
            detail.show_tab(tab)
            await pilot.pause()


async def test_deeply_nested_result_shows_capped_levels() -> None:
    deep: Any = "bottom"
    for _ in range(3000):
        deep = {"d": deep}
    app = DetailHost()
    async with app.run_test(size=(120, 40)) as pilot:
        detail = app.query_one(TaskDetail)
        detail.watched = with_result(watched("a"), {"content": [], "structuredContent": deep})
        for tab in ("result", "raw", "json"):
            detail.show_tab(tab)
            await pilot.pause()
        assert "…" in app.query_one(TextPager).text.plain
        tree = app.query_one(JsonView)
        node = tree.root
        for _ in range(40):  # unfold down the chain until the depth cap shows a "…" leaf
            if not node.children:
                break
            node = node.children[-1]
            node.expand()
            await pilot.pause()
        assert "deeper levels not shown" in str(node.label)


async def test_violation_frame_is_in_the_raw_tab() -> None:
    frame = {"jsonrpc": "2.0", "id": 7, "result": {"taskId": "a", "status": "bogus"}}
    item = watched("a", violation=Violation("unknown status 'bogus'", frame, NOW))
    app = DetailHost()
    async with app.run_test(size=(160, 40)) as pilot:
        detail = app.query_one(TaskDetail)
        detail.watched = item
        await pilot.pause()
        assert "offending frame" in static_text(app, "#overview-body")
        detail.show_tab("raw")
        await pilot.pause()
        shown = static_text(app, "#raw-frame-body")
        assert "Offending frame" in shown and '"bogus"' in shown


async def test_timeline_shows_causes_and_diffs() -> None:
    diff = json_diff({"status": "working"}, {"status": "completed"})
    entries = (
        TimelineEntry(NOW - 10, "created", "create", "working"),
        TimelineEntry(NOW, "transition", "notification", "completed", diff=diff),
    )
    app = DetailHost()
    async with app.run_test(size=(160, 40)) as pilot:
        detail = app.query_one(TaskDetail)
        detail.watched = watched("a", timeline=entries)
        detail.show_tab("timeline")
        await pilot.pause()
        shown = static_text(app, "#timeline-body")
        assert "notification" in shown
        assert '~ status: "working" → "completed"' in shown


async def test_hostile_strings_render_literally_in_the_detail() -> None:
    entry = TimelineEntry(NOW, "error", "poll", "working", HOSTILE)
    item = watched("a", message=HOSTILE, last_error=HOSTILE, timeline=(entry,))
    item = with_result(item, {"content": [{"type": "text", "text": HOSTILE}], "x": HOSTILE})
    app = DetailHost()
    async with app.run_test(size=(200, 50)) as pilot:
        detail = app.query_one(TaskDetail)
        detail.watched = item
        for tab in ("overview", "result", "json", "raw", "timeline"):
            detail.show_tab(tab)
            await pilot.pause()
            assert "[bold red]not markup[/]" in screen_text(app)


# --- RPC log -----------------------------------------------------------------------------------


def frame(index: int, **extra: Any) -> Frame:
    fields: dict[str, Any] = {
        "direction": "out" if index % 2 == 0 else "in",
        "message": {"jsonrpc": "2.0", "id": index, "method": "tasks/get"},
        "raw": None,
        "at": NOW + index,
        "method": "tasks/get",
        "rpc_id": index,
        "task_id": f"task-{index}",
        "reason": "poll",
        "latency_ms": 12.4 if index % 2 else None,
        "http_status": 200,
        "headers": {},
        "error": None,
        **extra,
    }
    return Frame(**fields)


class LogHost(App[None]):
    """Mounts one RpcLog with a small cap."""

    def compose(self) -> ComposeResult:
        yield RpcLog(max_frames=50, id="log")


async def test_rpc_log_is_capped_and_follows_the_newest_frame() -> None:
    app = LogHost()
    async with app.run_test(size=(160, 20)) as pilot:
        log = app.query_one(RpcLog)
        log.add_frames(frame(i) for i in range(30))
        log.add_frames(frame(i) for i in range(30, 120))
        await pilot.pause()
        assert len(log.frames) == 50
        assert log.frames[0].rpc_id == 70
        assert log.is_vertical_scroll_end
        shown = screen_text(app)
        assert "task-119" in shown and "task-60" not in shown
        assert "12ms" in log.line_text(49).plain and "←" in log.line_text(49).plain


async def test_rpc_log_keeps_place_when_scrolled_up() -> None:
    app = LogHost()
    async with app.run_test(size=(160, 20)) as pilot:
        log = app.query_one(RpcLog)
        log.add_frames(frame(i) for i in range(50))
        await pilot.pause()
        log.scroll_to(y=10, animate=False)
        await pilot.pause()
        top = log.frames[int(log.scroll_y)].rpc_id
        log.add_frames(frame(i) for i in range(50, 55))
        await pilot.pause()
        assert log.frames[int(log.scroll_y)].rpc_id == top


async def test_rpc_log_shows_hostile_text_literally() -> None:
    app = LogHost()
    async with app.run_test(size=(200, 20)) as pilot:
        log = app.query_one(RpcLog)
        log.add_frames(
            [
                frame(1, method="[bold red]m\x1b[2J", task_id="\u202eid", error=HOSTILE),
                frame(2, http_status=503, error="Service Unavailable"),
            ]
        )
        await pilot.pause()
        shown = screen_text(app)
        assert "[bold red]m" in shown
        assert "✗" in shown and "503" in shown


# --- stylesheet --------------------------------------------------------------------------------


class StyledHost(App[None]):
    """All widgets under the shipped stylesheet, laid out the way the App will lay them out."""

    CSS_PATH = Path(__file__).resolve().parents[2] / "styles" / "app.tcss"

    def compose(self) -> ComposeResult:
        yield Static("summary", id="summary")
        with Vertical(id="main"):
            yield TaskTable(id="tasks")
            yield TaskDetail(id="detail")
        yield RpcLog(id="rpc-log")


async def test_stylesheet_lays_out_every_widget() -> None:
    app = StyledHost()
    async with app.run_test(size=(160, 40)) as pilot:
        table = app.query_one(TaskTable)
        table.sync({"a": watched("a")}, ["a"], NOW)
        await pilot.pause()
        rpc_log = app.query_one(RpcLog)
        assert rpc_log.display is False
        app.screen.add_class("-show-rpc", "-wide")
        await pilot.pause()
        assert rpc_log.display is True and rpc_log.size.height > 0
        detail = app.query_one(TaskDetail)
        assert detail.region.x > table.region.x  # side by side when wide
