"""The two widgets the main list area can show, with the bindings that act on marked (or
selected) tasks: the task table and the time view, which shares the table's selection."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from app.tui.bindings import LIST_BINDINGS
from widgets.task_table import TaskTable
from widgets.time_view import TimeView


class TaskList(TaskTable):
    """The task table with the bindings that act on marked (or selected) tasks."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS


class TaskTimeline(TimeView):
    """The time view with the same bulk-action bindings as the list (they act on its selection,
    which is the list's); enter on a bar answers its task's question, as on a list row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *LIST_BINDINGS,
        Binding("enter", "app.choose_selected", "Answer", show=False),
    ]
