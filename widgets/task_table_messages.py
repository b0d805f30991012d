"""What the task table tells the App: the highlighted task changed, or a task was chosen (handled
as `on_task_table_task_selected` and `on_task_table_task_chosen`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from widgets.task_table import TaskTable


class TaskTableMessage(Message):
    """A message about one task of the table (never posted itself: `@on` matches subclasses)."""

    def __init__(self, table: TaskTable, task_id: str | None) -> None:
        super().__init__()
        self.table = table
        self.task_id = task_id

    @property
    def control(self) -> TaskTable:
        return self.table


class TaskSelected(TaskTableMessage, namespace="task_table"):
    """The highlighted task changed (None when the table became empty)."""


class TaskChosen(TaskTableMessage, namespace="task_table"):
    """Enter, or a click on the highlighted row, chose the task under the cursor."""

    task_id: str

    def __init__(self, table: TaskTable, task_id: str) -> None:
        super().__init__(table, task_id)
