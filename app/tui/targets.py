"""Which tasks a list action acts on: the marked ones in list order, else the selected one."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.tui.host import Chosen
    from app.view.watched import WatchedTask


def target_ids(app: Chosen) -> list[str]:
    """The marked tasks in list order, or the selected one when nothing is marked."""
    if app.marked:
        shown = app.shown_ids()
        ordered = [task_id for task_id in shown if task_id in app.marked]
        return ordered + sorted(app.marked - set(ordered))
    selected = app.table.selected_task_id
    return [selected] if selected is not None else []


def targets(app: Chosen) -> list[WatchedTask]:
    """The watched tasks of `target_ids`."""
    found = (app.tasks.get(task_id) for task_id in target_ids(app))
    return [watched for watched in found if watched is not None]
