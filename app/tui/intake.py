"""What the App does with a batch of poller events: fold them into its task state, remember new
tasks, and tell the user what needs them (a finished task, a question, an unknown id)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.safety.sanitize import middle_line, one_line
from app.tui.verbs.answer import answer, answer_roots
from widgets.plain import toast

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.notifications import SeverityLevel

    from app.engine.tasks.events import TaskEvent
    from app.engine.tasks.models import InputRequest
    from app.tui.app import TaskscopeApp


def apply_events(app: TaskscopeApp, events: Iterable[TaskEvent]) -> bool:
    """Apply the events in order; whether the task list changed."""
    changed = False
    for event in events:
        if event.input_request is not None and not event.task_id:
            _stray_input(app, event.input_request)
            continue
        if event.task_id in app.dismissed:
            continue
        changed |= app.tasks.apply(event)
        _after_event(app, event)
    return changed


def _after_event(app: TaskscopeApp, event: TaskEvent) -> None:
    task_id = event.task_id
    if event.kind == "created" and task_id not in app.synthetic and app.known is not None:
        tool = event.task.tool_name if event.task is not None else None
        app.known.remember(task_id, tool)
    elif event.kind == "expired":
        if app.known is not None:
            app.known.drop({task_id})
        watched = app.tasks.get(task_id)
        if watched is not None and watched.not_found:
            toast(
                app,
                f"The server does not know the id {one_line(task_id, 40)}.",
                title="Not found",
                severity="warning",
            )
    elif event.kind == "input_needed" and event.input_request is not None:
        _announce_input(app, task_id, event.input_request)
    elif event.kind == "transition" and event.task is not None and event.task.is_terminal:
        announce(
            app,
            f"{middle_line(task_id, 24)} {event.task.status}",
            title="Task finished",
            severity="error" if event.task.status == "failed" else "information",
        )


def announce(app: TaskscopeApp, message: str, *, title: str, severity: SeverityLevel) -> None:
    """A toast and the terminal bell, each unless the config file turned it off (a replay stays
    quiet: it shows what happened, nothing waits on the user)."""
    if app.info is not None and app.info.replay:
        return
    if app.config.toasts:
        toast(app, message, title=title, severity=severity)
    if app.config.bell:
        app.bell()


def _is_roots(request: InputRequest) -> bool:
    """A `roots/list` request: answered from the configuration, never put to the user."""
    from app.engine.tasks.models import InputKind

    return request.kind is InputKind.ROOTS


def _announce_input(app: TaskscopeApp, task_id: str, request: InputRequest) -> None:
    """A task waits on the user: remember the request, toast and ring the bell once; a
    `roots/list` is answered at once from the configuration instead (nobody is asked)."""
    app.inputs.asked(task_id, request, app.clock())
    if app.readonly or not app.inputs.announce_once(task_id, request):
        return
    if _is_roots(request):
        answer_roots(app, request)
        return
    if len(app.screen_stack) > 1:
        if app.config.bell:  # a modal is open: no toast over its buttons; the header counts it
            app.bell()
        return
    question = one_line(request.message or request.method, 80)
    announce(
        app,
        f"{middle_line(task_id, 24)} needs input: {question}  (enter on its row; i: inbox)",
        title="Input needed",
        severity="warning",
    )


def _stray_input(app: TaskscopeApp, request: InputRequest) -> None:
    """A question outside any watched task (asked during a call): open it at once."""
    if not app.inputs.announce_once("", request):
        return
    if _is_roots(request):
        if not app.readonly:
            answer_roots(app, request)
        return
    app.inputs.keep_stray(request, app.clock())
    if app.config.bell:
        app.bell()
    answer(app, request)
