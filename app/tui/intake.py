"""What the App does with a batch of poller events: fold them into its task state, remember new
tasks, and tell the user what needs them (a finished task, a question, an unknown id)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.safety.sanitize import middle_line, one_line
from app.tui.notes import Note
from app.tui.toast_room import modal_open
from app.tui.verbs.answer import answer_roots, answer_stray
from widgets.plain import toast

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.notifications import SeverityLevel

    from app.engine.tasks.events import TaskEvent
    from app.engine.tasks.models import InputRequest
    from app.tui.host import Intake


INPUT_NEEDED = "Input needed"
TASK_FINISHED = "Task finished"


def _questions_summary(count: int, errors: int) -> str:
    return f"{count:,} new questions  (enter on a row; i: inbox)"


def _finished_summary(count: int, errors: int) -> str:
    failed = f", {errors:,} failed" if errors else ""
    return f"{count:,} tasks finished{failed}"


NOTE_SUMMARIES = {INPUT_NEEDED: _questions_summary, TASK_FINISHED: _finished_summary}
"""What one merged note says for each title the App announces under."""


def apply_events(app: Intake, events: Iterable[TaskEvent]) -> bool:
    """Apply the events in order, then show the notes that are due; whether the task list
    changed."""
    changed = False
    seen: dict[str, TaskEvent] = {}
    for event in events:
        if event.input_request is not None and not event.task_id:
            _stray_input(app, event.input_request)
            continue
        if event.task_id in app.dismissed:
            continue
        wire = _session_wire(app, event.server) if event.kind == "expired" else None
        changed |= app.tasks.apply(event, session_wire=wire)
        if event.kind in REMEMBERED_KINDS and event.task_id not in app.synthetic:
            seen[event.task_id] = event
        _after_event(app, event)
    _remember(app, [event for task_id, event in seen.items() if _kept(app, task_id)])
    _show_due_notes(app)
    return changed


def _session_wire(app: Intake, server: str | None) -> str | None:
    """The wire this session speaks to the server (`server`: which of several; None: the one
    server), which a remembered task's "not found" is read by when its store entry kept none."""
    from app.view.source import SourceUnavailable

    if server is None:
        return app.info.capabilities.wire if app.info is not None else None
    try:
        return app.source.server(server)[1].capabilities.wire
    except SourceUnavailable:
        return None


def _kept(app: Intake, task_id: str) -> bool:
    """Still shown and known to the server (a gone task's id was dropped from the store)."""
    watched = app.tasks.get(task_id)
    return watched is not None and not watched.gone


REMEMBERED_KINDS = frozenset({"created", "transition"})
"""Events after which the known-task store keeps what was seen of the task (once a batch): a
new task and each change of status, not every progress step (a write of a 500-task store takes
~14 ms on the App's loop)."""


def _remember(app: Intake, events: list[TaskEvent]) -> None:
    """Keep each task's id, tool and what was last seen of it for the next run: one write for
    the batch, not one per event."""
    if app.known is None or not events:
        return
    from app.engine.tasks.last_seen import last_seen_of
    from app.view.known_tasks import KnownTask

    app.known.remember_all(
        [
            KnownTask(
                event.task_id,
                event.task.tool_name if event.task is not None else None,
                last_seen_of(event.task) if event.task is not None else None,
            )
            for event in events
        ]
    )


def _after_event(app: Intake, event: TaskEvent) -> None:
    task_id = event.task_id
    if event.kind == "expired":
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
            title=TASK_FINISHED,
            severity="error" if event.task.status == "failed" else "information",
        )


def announce(app: Intake, message: str, *, title: str, severity: SeverityLevel) -> None:
    """A note for the user, merged with the others of its title that come in the same few
    seconds (a replay stays quiet: it shows what happened, nothing waits on the user)."""
    if app.info is not None and app.info.replay:
        return
    app.notes.add(Note(title, message, severity))


def _show_due_notes(app: Intake) -> None:
    """A toast and the terminal bell for each merged note that is due, each unless the config
    file turned it off. Nothing toasts over a modal: while one is open a question only rings
    (the header counts it, the inbox lists it) and finished tasks wait, merged, until it
    closes."""
    covered = modal_open(app)
    for note in app.notes.due(held={TASK_FINISHED} if covered else ()):
        if app.config.toasts and not covered:
            toast(app, note.message, title=note.title, severity=note.severity)
        if app.config.bell:
            app.bell()


def _is_roots(request: InputRequest) -> bool:
    """A `roots/list` request: answered from the configuration, never put to the user."""
    from app.engine.tasks.models import InputKind

    return request.kind is InputKind.ROOTS


def _announce_input(app: Intake, task_id: str, request: InputRequest) -> None:
    """A task waits on the user: remember the request and announce it once; a `roots/list` is
    answered at once from the configuration instead (nobody is asked)."""
    app.inputs.asked(task_id, request, app.clock())
    if app.readonly or not app.inputs.announce_once(task_id, request):
        return
    if _is_roots(request):
        answer_roots(app, request)
        return
    question = one_line(request.message or request.method, 80)
    announce(
        app,
        f"{middle_line(task_id, 24)} needs input: {question}  (enter on its row; i: inbox)",
        title=INPUT_NEEDED,
        severity="warning",
    )


def _stray_input(app: Intake, request: InputRequest) -> None:
    """A question outside any watched task (asked during a call): open it at once, unless
    another is open already (a call may ask thousands at once): then it waits in the inbox."""
    if not app.inputs.announce_once("", request):
        return
    if _is_roots(request):
        if not app.readonly:
            answer_roots(app, request)
        return
    app.inputs.keep_stray(request, app.clock())
    if app.inputs.stray_open:
        question = one_line(request.message or request.method, 80)
        announce(
            app, f"A call asks: {question}  (i: inbox)", title=INPUT_NEEDED, severity="warning"
        )
        return
    if app.config.bell:
        app.bell()
    answer_stray(app, request)
