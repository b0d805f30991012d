"""Answering what the server asks: `enter` on a waiting task's row, `i` the inbox of every
question, a question outside any task opened at once, and `roots/list` answered from `--root`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from widgets.plain import toast

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest
    from app.tui.host import Answering
    from widgets.input_inbox import InboxEntry


def answer_selected(app: Answering) -> None:
    """Open the selected task's pending questions one after another, in the order the server
    asked them; Later (or a failed send) stops there."""
    selected = app.table.selected_task_id
    watched = app.tasks.get(selected) if selected is not None else None
    if selected is None or watched is None:
        return
    if app.inputs.pending(watched) is None:
        toast(app, "This task is not waiting for an answer.", severity="warning")
        return
    app.run_worker(
        answer_in_order(app, selected), group="input", exit_on_error=False, name="answer"
    )


async def answer_in_order(app: Answering, task_id: str) -> None:
    """Answer the task's pending questions in asking order until none is left or one is put off."""
    answered: set[str] = set()
    while (watched := app.tasks.get(task_id)) is not None:
        request = app.inputs.pending(watched, skip=answered)
        if request is None or await answer_request(app, request) is None:
            return
        answered.add(request.key)


def answer_stray(app: Answering, request: InputRequest) -> None:
    """Open a question outside any task at once; until it closes, the others asked meanwhile
    wait in the inbox (`PendingInputs.stray_open`)."""
    inputs = app.inputs
    inputs.stray_open = True

    async def run() -> None:
        try:
            await answer_request(app, request)
        finally:
            inputs.stray_open = False

    app.run_worker(run(), group="input", exit_on_error=False, name="answer")


def answer_roots(app: Answering, request: InputRequest) -> None:
    """Answer a `roots/list` from `--root` at once; the timeline says what was sent (a question
    outside any task gets a short toast saying so)."""

    async def send() -> None:
        sent = await app.source.answer_roots(request)
        if sent is not None and not request.task_id and app.config.toasts:
            toast(app, sent, title="roots/list", timeout=4)

    app.run_worker(send(), group="input", exit_on_error=False, name="roots/list")


async def answer_request(app: Answering, request: InputRequest) -> dict[str, Any] | None:
    """Open the modal for one input request (the input modals' entry point); call it from a
    worker. The acknowledged response, or None when nothing was sent."""
    from app.tui.inputs import open_input

    if app.readonly:
        toast(app, "Read-only: answers are not sent.", severity="warning")
        return None
    app.clear_notifications()  # the toasts would cover the modal's buttons
    inputs = app.inputs

    async def submit(response: dict[str, Any]) -> None:
        await app.source.answer(request, response)

    async def reject() -> bool:
        rejected = await app.source.reject(request)
        if rejected:
            inputs.drop_stray(request)
        return rejected

    def keep_draft(draft: dict[str, Any]) -> None:
        inputs.keep_draft(request, draft)

    answered = await open_input(
        app,
        request,
        submit=submit,
        server=server_of(app, request),
        draft=inputs.take_draft(request) or app.source.staged_answer(request),
        reject=reject,
        keep_draft=keep_draft,
    )
    if request.task_id is None and inputs.is_stray(request):
        if answered is not None:
            inputs.drop_stray(request)
        else:
            toast(app, "Put off: the question waits in the inbox (i).", timeout=4)
    return answered


def inbox_entries(app: Answering) -> list[InboxEntry]:
    """Every input request a watched task is waiting on, with when it was first seen."""
    from widgets.input_inbox import InboxEntry

    pending = app.inputs.entries(app.tasks.tasks.values(), app.clock())
    return [InboxEntry(request, server_of(app, request), arrived) for request, arrived in pending]


def server_of(app: Answering, request: InputRequest) -> str:
    """The name of the server that asked `request`: one of several (its row keys say which),
    else the one watched."""
    names = app.source.servers()
    if names:
        from app.engine.tasks.server_keys import split_key

        found = split_key(request.key, set(names))
        if found is not None:
            return found[0]
    return app.info.server_name if app.info else ""


def open_inbox(app: Answering) -> None:
    """`i`: the inbox of every pending question."""
    from widgets.input_inbox import InputInbox

    async def open_entry(entry: InboxEntry) -> dict[str, Any] | None:
        return await answer_request(app, entry.request)

    several_servers = len(app.source.servers()) > 1
    app.push_screen(
        InputInbox(inbox_entries(app), open_entry, clock=app.clock, several_servers=several_servers)
    )


def refresh_inbox(app: Answering) -> None:
    """Bring an open inbox up to date with the tasks."""
    if len(app.screen_stack) < 2:
        return  # only the main screen: no inbox is open (nor its module loaded)
    from widgets.input_inbox import InputInbox

    for screen in app.screen_stack:
        if isinstance(screen, InputInbox):
            screen.set_entries(inbox_entries(app))
