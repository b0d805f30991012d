"""`r`: poll the chosen tasks now, and say how many polls went out and why the others did not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.tui.problems import describe
from app.tui.targets import targets as chosen_tasks
from widgets.plain import toast

if TYPE_CHECKING:
    from app.tui.host import Polling


def poll_now(app: Polling) -> None:
    """Poll every chosen open task at once (a finished or synchronous one is not polled)."""
    from app.view.formatting import STATUS_WORDS
    from app.view.poll_feedback import poll_feedback

    if app.readonly:
        toast(app, "Read-only: a recording is not polled.", severity="warning")
        return
    chosen = chosen_tasks(app)
    synchronous = [w for w in chosen if w.task_id in app.synthetic]
    finished = [w for w in chosen if w.settled and w.task_id not in app.synthetic]
    open_ids = [w.task_id for w in chosen if not w.settled and w.task_id not in app.synthetic]
    try:
        polled = sum(app.source.poll_now(task_id) for task_id in open_ids)
    except Exception as exc:
        toast(app, describe(exc), severity="error")
        return
    feedback = poll_feedback(
        polled,
        [STATUS_WORDS.get(w.status, w.status) for w in finished],
        len(open_ids) - polled,
        len(synchronous),
    )
    toast(
        app,
        feedback.message,
        severity="warning" if feedback.warning else "information",
        timeout=4 if feedback.warning else 2,
    )
