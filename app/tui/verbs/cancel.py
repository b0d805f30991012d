"""`c`: cancel the marked (or selected) tasks that have not settled, once confirmed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from app.engine.safety.sanitize import middle_line, one_line
from app.tui.messages import CancelAcknowledged
from app.tui.problems import describe
from app.tui.targets import targets as chosen_tasks
from widgets.plain import toast

if TYPE_CHECKING:
    from app.tui.host import Cancelling

LISTED_AT_MOST = 8
"""How many tasks the confirmation names before "… and N more"."""


def cancel_tasks(app: Cancelling) -> None:
    """Ask to confirm, naming the tasks, then send one `tasks/cancel` each."""
    targets = [
        watched
        for watched in chosen_tasks(app)
        if not watched.settled and watched.task_id not in app.synthetic
    ]
    if not targets:
        toast(app, "Nothing to cancel: the chosen tasks have settled.", severity="warning")
        return
    body = Text()
    for watched in targets[:LISTED_AT_MOST]:
        body.append(f"• {one_line(watched.task_id, 40)}  {one_line(watched.tool_name or '', 30)}\n")
    if len(targets) > LISTED_AT_MOST:
        body.append(f"… and {len(targets) - LISTED_AT_MOST} more\n")
    if any(_cooperative(app, watched.task_id) for watched in targets):
        body.append("\nCancel is cooperative here: the server may still finish the task.")
    title = f"Cancel {len(targets)} task{'s' if len(targets) != 1 else ''}?"
    ids = [watched.task_id for watched in targets]

    def confirmed(yes: bool | None) -> None:
        if yes:
            send_cancel(app, ids)

    from widgets.confirm import ConfirmModal

    app.push_screen(ConfirmModal(title, body, yes="Cancel tasks", no="Keep"), confirmed)


def send_cancel(app: Cancelling, task_ids: list[str]) -> None:
    """Cancel each task in a worker; a cooperative cancel is shown as requested."""
    app.run_worker(_cancel(app, task_ids), group="actions", exit_on_error=False, name="cancel")


def _cooperative(app: Cancelling, task_id: str) -> bool:
    """Whether the task's server cancels cooperatively (the extension wire): its own wire when
    known (each of several servers has its own), else the server's."""
    watched = app.tasks.get(task_id)
    if watched is not None and watched.task is not None:
        return watched.task.wire == "extension"
    return app.info is not None and app.info.capabilities.wire == "extension"


async def _cancel(app: Cancelling, task_ids: list[str]) -> None:
    failures: list[tuple[str, str]] = []
    for task_id in task_ids:
        cooperative = _cooperative(app, task_id)
        try:
            await app.source.cancel(task_id)
        except Exception as exc:
            failures.append((task_id, describe(exc)))
            continue
        if cooperative:
            app.post_message(CancelAcknowledged(task_id, app.clock()))
    if failures:
        _tell_failures(app, failures)


def _tell_failures(app: Cancelling, failures: list[tuple[str, str]]) -> None:
    """One toast for every cancel that failed (a refused bulk cancel made one per task): the
    task and why when one failed, else how many and the first's reason."""
    task_id, reason = failures[0]
    if len(failures) == 1:
        toast(app, reason, title=f"Cancel {middle_line(task_id, 30)}", severity="error")
        return
    toast(
        app,
        f"{len(failures)} tasks were not cancelled; "
        f"the first, {middle_line(task_id, 24)}: {reason}",
        title="Cancel failed",
        severity="error",
    )
