"""`n`: pick a tool, fill in its arguments and call it; a synchronous answer becomes a row."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine.safety.sanitize import one_line
from app.engine.tasks.server_keys import task_key
from app.tui.created_row import await_created_row
from app.tui.legacy_era_note import note_if_no_back_channel
from app.tui.messages import TaskEventsArrived
from app.tui.problems import describe
from widgets.plain import toast

if TYPE_CHECKING:
    from app.tui.host import Creating
    from app.tui.server_choice import ChosenServer
    from widgets.arguments_form import CreateRequest


def new_task(app: Creating) -> None:
    """Start the tool picker, the form and the call in a worker (they wait on the user)."""
    app.run_worker(_pick_and_create(app), group="actions", exit_on_error=False, name="new task")


async def _pick_and_create(app: Creating) -> None:
    """Server (when several are watched), tool picker, then arguments form, then the call."""
    from app.tui.server_choice import choose_server
    from widgets.arguments_form import ArgumentsForm
    from widgets.tool_picker import NO_TOOL, ToolPicker

    chosen = await choose_server(app, "New task on which server?")
    if chosen is None:
        return
    try:
        tools = await chosen.source.list_tools()
    except Exception as exc:
        toast(app, describe(exc), title="tools/list failed", severity="error")
        return
    tool = await app.push_screen_wait(ToolPicker(tools, server=chosen.name))
    if tool is None or tool is NO_TOOL:
        return
    capabilities = chosen.info.capabilities
    form = ArgumentsForm(
        tool,
        legacy=capabilities.wire != "extension",
        can_create_tasks=capabilities.tool_calls,
    )
    request = await app.push_screen_wait(form)
    if request is not None:
        await create_task(app, request, chosen)


async def create_task(
    app: Creating, request: CreateRequest, on: ChosenServer | None = None
) -> None:
    """Run one tool call on the chosen server (the one watched, by default); a task is watched,
    a synchronous answer becomes a finished row."""
    source = on.source if on is not None else app.source
    info = on.info if on is not None else app.info
    try:
        outcome = await source.create(
            request.tool, request.arguments, ttl_ms=request.ttl_ms, as_task=request.as_task
        )
    except Exception as exc:
        toast(app, describe(exc), title=f"{one_line(request.tool, 40)} failed", severity="error")
        note_if_no_back_channel(app, info, exc)
        return
    if outcome.task is not None:
        await_created_row(app, task_key(on.name if on is not None else None, outcome.task.task_id))
        toast(app, f"Task {one_line(outcome.task.task_id, 40)} created", timeout=3)
        return
    _show_synchronous(app, request.tool, outcome.sync_result or {}, on)
    note_if_no_back_channel(app, info, outcome.sync_result or {})


def _show_synchronous(
    app: Creating, tool: str, result: dict[str, Any], on: ChosenServer | None
) -> None:
    """A call answered at once: a finished row marked "answered synchronously" (on the row of
    its server, when several are watched)."""
    from app.engine.tasks.events import TaskEvent
    from app.engine.tasks.models import Task

    info = on.info if on is not None else app.info
    server = on.name if on is not None else None
    task_id = task_key(server, f"sync-{len(app.synthetic) + 1}")
    app.synthetic.add(task_id)
    await_created_row(app, task_id)
    extension = info is not None and info.capabilities.wire == "extension"
    task = Task(
        task_id=task_id,
        wire="extension" if extension else "legacy",
        status="completed",
        result=result,
        result_source="synchronous",
        tool_name=tool,
        raw=result,
    )
    now = app.clock()
    app.post_message(
        TaskEventsArrived(
            [
                TaskEvent("created", task_id, task, now, "create", server=server),
                TaskEvent("result", task_id, task, now, "create", server=server),
                TaskEvent(
                    "stopped", task_id, task, now, "create", detail="completed", server=server
                ),
            ]
        )
    )
    toast(app, f"{one_line(tool, 40)} answered synchronously (no task)", timeout=3)
