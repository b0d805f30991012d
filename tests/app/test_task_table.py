"""TaskTable on the Line API: what a sync, a cursor move or a repaint costs (rows rendered, lines
refreshed), the cursor bindings, the mouse, the header, marks and theme colours.

A tiny App mounts one table; rows are rendered through the module's `row_line`, which the tests
count to tell a cached strip from a fresh one.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.geometry import Region

import widgets.task_table as task_table
from app.engine.tasks.events import NextPoll
from tests.support.watched_tasks import NOW, watched
from widgets.task_cells import MARK_GLYPH
from widgets.task_table import HEADER_HEIGHT, TaskTable

SIZE = (200, 20)
VISIBLE_ROWS = SIZE[1] - HEADER_HEIGHT  # 200 columns: every column fits, no horizontal scrollbar


class TableHost(App[None]):
    """Mounts one TaskTable; records the tasks it selected and chose."""

    def __init__(self) -> None:
        super().__init__()
        self.selections: list[str | None] = []
        self.chosen: list[str] = []

    def compose(self) -> ComposeResult:
        yield TaskTable(id="tasks")

    def on_task_table_task_selected(self, message: TaskTable.TaskSelected) -> None:
        self.selections.append(message.task_id)

    def on_task_table_task_chosen(self, message: TaskTable.TaskChosen) -> None:
        self.chosen.append(message.task_id)


def many(count: int, **extra: Any) -> dict[str, Any]:
    return {f"t-{i:04d}": watched(f"t-{i:04d}", **extra) for i in range(count)}


class RowCounter:
    """Counts rows laid out by `row_line` (the one place a row is rendered through Rich)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = task_table.row_line

        def counting(*args: Any) -> Any:
            self.count += 1
            return original(*args)

        monkeypatch.setattr(task_table, "row_line", counting)


def screen_text(app: App[Any]) -> str:
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def test_a_repaint_with_nothing_changed_renders_no_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        rows = many(50)
        table.sync(rows, list(rows), NOW)
        await pilot.pause()
        counter = RowCounter(monkeypatch)
        table.refresh()
        await pilot.pause()
        assert counter.count == 0


async def test_sync_of_1000_rows_with_250_changed_renders_only_visible_changed_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        rows = many(1000)
        order = list(rows)
        table.sync(rows, order, NOW)
        await pilot.pause()
        counter = RowCounter(monkeypatch)
        refreshed: list[int] = []
        original_refresh_line = table.refresh_line

        def spy(y: int) -> None:
            refreshed.append(y)
            original_refresh_line(y)

        monkeypatch.setattr(table, "refresh_line", spy)
        changed = order[3::4]  # 250 rows, a few of them on screen (rows 3, 7, 11, 15)
        for task_id in changed:
            rows[task_id] = watched(task_id, message="step 2")
        table.sync(rows, order, NOW)
        assert counter.count == 0  # nothing is rendered by the sync itself
        on_screen = [index for index in range(VISIBLE_ROWS) if order[index] in changed]
        assert sorted(set(refreshed)) == [index + HEADER_HEIGHT for index in on_screen]
        await pilot.pause()
        assert counter.count == len(on_screen)
        assert table.get_cell(changed[-1], "message").plain == "step 2"


async def test_a_new_time_repaints_only_rows_whose_clocks_read_differently(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        rows = many(3)
        next_poll = NextPoll(due=0.0, delay=4.0, term="server")
        ticking = watched("tick", next_poll=next_poll, next_poll_at=NOW + 4)
        rows["tick"] = ticking
        table.sync(rows, list(rows), NOW + 0.5)
        await pilot.pause()
        counter = RowCounter(monkeypatch)
        table.sync(rows, list(rows), NOW + 0.51)  # no clock reads differently yet
        await pilot.pause()
        assert counter.count == 0
        table.sync(rows, list(rows), NOW + 2)  # "changed" and "next poll" move
        await pilot.pause()
        assert counter.count == 4
        assert table.get_cell("tick", "next").plain.startswith("2.0s")


async def test_moving_the_cursor_renders_two_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        table.focus()
        rows = many(100)
        table.sync(rows, list(rows), NOW)
        await pilot.pause()
        counter = RowCounter(monkeypatch)
        await pilot.press("down")
        await pilot.pause()
        assert table.cursor_row == 1 and table.selected_task_id == "t-0001"
        assert counter.count == 2
        assert app.selections[-1] == "t-0001"


async def test_cursor_bindings_move_and_keep_the_cursor_on_screen() -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        table.focus()
        rows = many(100)
        table.sync(rows, list(rows), NOW)
        await pilot.pause()

        def on_screen() -> bool:
            first = int(table.scroll_y)
            return first <= table.cursor_row < first + VISIBLE_ROWS

        await pilot.press("end")
        assert table.cursor_row == 99 and on_screen()
        await pilot.press("home")
        assert table.cursor_row == 0 and table.scroll_y == 0
        await pilot.press("pagedown")
        assert table.cursor_row == VISIBLE_ROWS and on_screen()
        await pilot.press("pagedown", "pageup")
        assert table.cursor_row == VISIBLE_ROWS and on_screen()
        await pilot.press("up", "up")
        assert table.cursor_row == VISIBLE_ROWS - 2 and on_screen()
        await pilot.press("ctrl+end")
        assert table.selected_task_id == "t-0099"
        await pilot.press("down")  # stays on the last row
        assert table.cursor_row == 99
        await pilot.press("ctrl+home", "up")
        assert table.cursor_row == 0
        await pilot.pause()
        assert app.selections[-1] == "t-0000"


async def test_enter_and_a_click_on_the_highlighted_row_choose_it() -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        table.focus()
        rows = many(5)
        table.sync(rows, list(rows), NOW)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.chosen == ["t-0000"]
        await pilot.click(TaskTable, offset=(20, HEADER_HEIGHT + 2))
        await pilot.pause()
        assert table.selected_task_id == "t-0002" and app.chosen == ["t-0000"]
        await pilot.click(TaskTable, offset=(20, HEADER_HEIGHT + 2))
        await pilot.pause()
        assert app.chosen == ["t-0000", "t-0002"]
        await pilot.click(TaskTable, offset=(20, 0))  # the header selects nothing
        await pilot.click(TaskTable, offset=(20, HEADER_HEIGHT + 10))  # below the last row
        await pilot.pause()
        assert table.selected_task_id == "t-0002"


async def test_the_wheel_scrolls_and_a_click_picks_the_row_under_it() -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        rows = many(100)
        table.sync(rows, list(rows), NOW)
        await pilot.pause()
        table.post_message(events.MouseScrollDown(table, 20, 5, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert table.scroll_y > 0
        await pilot.click(TaskTable, offset=(20, HEADER_HEIGHT))
        await pilot.pause()
        assert table.selected_task_id == table.order[int(table.scroll_y)] != "t-0000"


async def test_header_marks_and_hostile_text_are_shown_literally() -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        rows = many(3)
        rows["[b]x"] = watched("[b]x", message="[bold red]not markup\x1b[2J")
        next_poll = NextPoll(due=0.0, delay=4.0, term="server")
        rows["tick"] = watched("tick", next_poll=next_poll, next_poll_at=NOW + 4)
        table.sync(rows, list(rows), NOW, marked={"t-0001"})
        await pilot.pause()
        text = screen_text(app)
        for label in ("Status", "Tool", "Task", "Age", "Changed", "TTL left", "Next poll"):
            assert label in text
        assert "[bold red]not markup" in text and "[b]x" in text
        assert table.get_cell("t-0001", "mark").plain == MARK_GLYPH
        assert table.get_cell("t-0000", "mark").plain == ""
        table.sync(rows, list(rows), NOW, marked=set())
        await pilot.pause()
        assert table.get_cell("t-0001", "mark").plain == ""
        assert MARK_GLYPH not in screen_text(app)


async def test_a_theme_change_recolours_every_row_and_repaints() -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        rows = {"f": watched("f", "failed"), **many(50)}
        table.sync(rows, list(rows), NOW)
        await pilot.pause()
        before = table.get_cell("f", "status").style
        off_screen_before = table.get_cell("t-0049", "status").style
        first_line = table.render_lines(Region(0, 0, SIZE[0], 2))[1]
        app.theme = "textual-light"
        await pilot.pause()
        assert table.get_cell("f", "status").style != before
        assert table.get_cell("t-0049", "status").style != off_screen_before
        repainted = table.render_lines(Region(0, 0, SIZE[0], 2))[1]
        assert repainted.text == first_line.text and repainted != first_line


async def test_cells_keep_their_own_colours_and_the_cursor_its_own() -> None:
    app = TableHost()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TaskTable)
        rows = {"a": watched("a"), "f": watched("f", "failed")}
        table.sync(rows, list(rows), NOW)
        await pilot.pause()
        status_colour = table.get_cell("f", "status").style.color  # type: ignore[union-attr]
        assert status_colour is not None
        failed_line = table.render_lines(Region(0, 0, SIZE[0], 3))[2]
        coloured = [segment for segment in failed_line if segment.text.strip() == "✗ failed"]
        assert coloured and coloured[0].style is not None
        assert coloured[0].style.color == status_colour
        table.select_task("f")  # on the cursor row the cursor's colour wins, as in DataTable
        await pilot.pause()
        cursor_line = table.render_lines(Region(0, 0, SIZE[0], 3))[2]
        colours = {segment.style.color for segment in cursor_line if segment.style}
        assert status_colour not in colours and len(colours) == 1
