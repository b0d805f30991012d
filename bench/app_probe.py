"""Watches a running `TaskscopeApp` from inside its process: which screen frames repainted the task
table (or the time view), and how long a key press takes to reach the screen.

It wraps two methods on the live instances (the screen's compositor refresh and the watched
widget's `render_lines`), so every figure comes from frames Textual really composed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from app.tui.app import TaskscopeApp
from widgets.task_table import TaskTable
from widgets.time_view import TimeView

TaskListWidget = TaskTable | TimeView
"""A widget that shows the task list: the table, or the time view."""


class FrameMeter:
    """Counts frames that repainted `widget` (the task table by default) and resolves waiters on
    the next such frame."""

    def __init__(self, app: TaskscopeApp, widget: TaskListWidget | None = None) -> None:
        self.app = app
        self.widget: TaskListWidget = app.table if widget is None else widget
        self.repaints: list[float] = []
        self._table_rendered = False
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[float]]] = []
        table = self.widget
        render_lines = table.render_lines
        screen = app.screen
        compositor_refresh = screen._compositor_refresh

        def counting_render_lines(*args: Any, **kwargs: Any) -> Any:
            self._table_rendered = True
            return render_lines(*args, **kwargs)

        def counting_refresh() -> None:
            self._table_rendered = False
            compositor_refresh()
            if not self._table_rendered:
                return
            now = time.perf_counter()
            self.repaints.append(now)
            for waiter in list(self._waiters):
                check, future = waiter
                if not future.done() and check():
                    future.set_result(now)
                    self._waiters.remove(waiter)

        table.render_lines = counting_render_lines  # type: ignore[method-assign]
        screen._compositor_refresh = counting_refresh  # type: ignore[method-assign]

    def repaints_between(self, start: float, end: float) -> int:
        """Frames that repainted the table in [start, end) (perf_counter seconds)."""
        return sum(start <= at < end for at in self.repaints)

    def next_table_frame(self, check: Callable[[], bool]) -> asyncio.Future[float]:
        """A future resolved with the time of the first table frame for which `check()` holds."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append((check, future))
        return future


async def key_latency(pilot: Pilot[Any], meter: FrameMeter, timeout: float = 10.0) -> float:
    """Press down (or up near the end) on the meter's widget; seconds until that frame was
    shown."""
    table = meter.widget
    before = table.cursor_row
    key, expected = ("down", before + 1) if before + 1 < table.row_count else ("up", before - 1)
    if before >= 10:
        key, expected = "up", before - 1
    shown = meter.next_table_frame(lambda: table.cursor_row == expected)
    start = time.perf_counter()
    pressing = asyncio.ensure_future(pilot.press(key))
    try:
        at = await asyncio.wait_for(shown, timeout)
    finally:
        await pressing
    return at - start
