"""Brings the App's widgets in line with its state: the list and the time view, the detail pane
and the header. The App calls it when its state changes (its reactives' watchers, a batch of
events, the clock); nothing here changes state other than what the widgets were last given."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Container
from textual.widgets import Static

from app.tui.created_row import select_created_row
from widgets.header_bar import HeaderBar, HeaderState, ListView

if TYPE_CHECKING:
    from app.tui.host import Shown


class Redraw:
    """The App's widgets, redrawn from its state."""

    def __init__(self, app: Shown) -> None:
        self._app = app
        self._table_synced_at = float("-inf")

    def view(self) -> None:
        """Redraw the list (and the time view), the detail pane and the header."""
        app = self._app
        order = app.shown_ids()
        app.marked &= set(app.tasks.tasks)
        self._lists(order)
        select_created_row(app)
        self.detail(app.table.selected_task_id)
        self.header(len(order))

    def clock(self) -> None:
        """Redraw the clock cells and the connection state.

        The clock cells are skipped when a batch of events redrew the table within the last tick.
        """
        app = self._app
        recently = time.monotonic() - self._table_synced_at < app.tick_interval * 0.9
        if app.tasks.tasks and not recently:
            self._lists(app.shown_ids())
        self.header()

    def _lists(self, order: Sequence[str]) -> None:
        app = self._app
        app.table.sync(app.tasks.tasks, order, app.clock(), app.marked)
        self._table_synced_at = time.monotonic()
        self.time_view(order)

    def time_view(self, order: Sequence[str] | None = None) -> None:
        """Bring the time view up to date with the list (only while it is shown)."""
        app = self._app
        view = app.time_view
        if view is None or not app.time_view_shown:
            return
        view.sync(
            app.tasks.tasks,
            app.shown_ids() if order is None else order,
            app.clock(),
            app.marked,
            selected=app.table.selected_task_id,
        )

    def detail(self, task_id: str | None) -> None:
        """Show the task in the detail pane, building the pane when a task is first shown."""
        app = self._app
        watched = app.tasks.get(task_id) if task_id is not None else None
        detail = app.detail_pane
        if detail is None:
            if watched is None:
                return
            from widgets.task_detail import TaskDetail

            detail = app.detail_pane = TaskDetail(id="task-detail")
            pane = app.query_one("#detail", Container)
            pane.query_one("#detail-hint").remove()
            pane.mount(detail)
        detail.watched = watched

    def problem(self, title: str) -> None:
        """The whole problem, wrapped, where a task would be shown (the header has room for
        only its start); once a task is shown the pane is the task's."""
        app = self._app
        if app.detail_pane is None and app.problem:
            text = Text(title + "\n\n", style="bold")
            text.append(app.problem)
            app.query_one("#detail-hint", Static).update(text)

    def header(self, shown: int | None = None) -> None:
        """Give the header the state it shows (`shown`: how many rows the list shows)."""
        app = self._app
        connection = "failed" if app.failed else app.source.connection_state()
        if app.info is None and connection == "connected":
            connection = "connecting"
        query = app.list_query
        advertised = app.source.advertised()
        app.query_one(HeaderBar).state = HeaderState(
            info=app.info,
            connection=connection,
            connection_note=None if app.failed else app.source.connection_note(),
            tasks_withheld=advertised is not None and not advertised.declares_tasks,
            problem=app.problem,
            summary=app.tasks.summary(),
            view=ListView(
                shown=len(app.shown_ids()) if shown is None else shown,
                paused=app.paused,
                filter_text=query.text,
                faults_only=query.filter.faults_only,
                sort=query.sort,
                descending=query.descending,
                marked=len(app.marked),
            ),
        )
