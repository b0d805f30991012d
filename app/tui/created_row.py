"""The row of a call made with `n` takes the cursor when it first appears, so that `enter` then
answers that task's question; unless the user moved the cursor since asking for the call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from app.tui.lists import TaskList
    from app.view.state import TasksState


@dataclass(frozen=True, slots=True)
class CreatedRow:
    """A row awaited: the created task's row key, and the task selected when it was created."""

    task_id: str
    selected_before: str | None


class Selecting(Protocol):
    """The row awaited, the tasks it is looked for in, and the list whose cursor it takes."""

    created_row: CreatedRow | None

    @property
    def tasks(self) -> TasksState: ...
    @property
    def table(self) -> TaskList: ...


def await_created_row(app: Selecting, task_id: str) -> None:
    """Select the row `task_id` once it is shown (at once, if it already is)."""
    app.created_row = CreatedRow(task_id, app.table.selected_task_id)
    select_created_row(app)


def select_created_row(app: Selecting) -> None:
    """After the list is redrawn: move the cursor to the awaited row if it has appeared; forget
    it once shown, once filtered out, or when the cursor was moved to another row meanwhile."""
    awaited = app.created_row
    if awaited is None:
        return
    selected = app.table.selected_task_id
    if selected not in (awaited.selected_before, awaited.task_id) and awaited.selected_before:
        app.created_row = None  # the user chose another row: theirs to keep
        return
    if awaited.task_id not in app.tasks.tasks:
        return
    app.created_row = None
    app.table.select_task(awaited.task_id)
