"""What the task table's messages to the App (`TaskTable.TaskSelected`, `TaskTable.TaskChosen`)
carry: the table and the task id."""

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
