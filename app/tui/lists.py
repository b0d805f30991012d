"""The task table as the main list area shows it, with the bindings that act on marked (or
selected) tasks (the time view, the area's other widget, is `app.tui.timeline`)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType

from app.tui.bindings import LIST_BINDINGS
from widgets.task_table import TaskTable


class TaskList(TaskTable):
    """The task table with the bindings that act on marked (or selected) tasks."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS
