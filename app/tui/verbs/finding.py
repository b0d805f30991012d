"""Which tasks are watched: `l` imports `tasks/list`, `a` adopts an id, `f` forgets the chosen
tasks and "Clear forgotten" drops the rows the server no longer knows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.engine.safety.sanitize import one_line
from app.tui.problems import describe
from app.tui.targets import target_ids
from widgets.plain import toast

if TYPE_CHECKING:
    from app.engine.record.recording import SessionInfo
    from app.tui.host import Watching
    from app.view.known_tasks import KnownTasks, KnownTasksOfServers


def watch_on_connect(app: Watching, info: SessionInfo) -> None:
    """On connecting: adopt the tasks remembered for this server, and import `tasks/list` where
    the server has one (quietly: only new tasks are worth a toast)."""
    if app.remember_tasks:
        from app.view.known_tasks import KnownTasks, KnownTasksOfServers

        several = dict(info.several_keys)
        app.known = KnownTasksOfServers(several) if several else KnownTasks(info.server_key)
        _resume_known(app, app.known)
    capabilities = info.capabilities
    if capabilities.wire == "legacy" and capabilities.list:
        import_list(app, quiet=True)


def _resume_known(app: Watching, known: KnownTasks | KnownTasksOfServers) -> None:
    """Adopt every task id remembered for this server; the poller finds out which live."""
    from app.view.source import SourceUnavailable

    entries = known.load()
    app.tasks.known_before(entries)
    app.source.journal("restored", {entry.task_id: entry.as_json() for entry in entries})
    left: list[str] = []
    for entry in entries:
        try:
            app.source.adopt(entry.task_id, entry.tool)
        except SourceUnavailable:  # its server is not watched now, or cannot be used
            left.append(entry.task_id)
    if left:
        count = len(left)
        toast(
            app,
            f"{count} remembered task{'s' if count != 1 else ''} not watched: "
            "their server is not among these, or cannot be used.",
            timeout=6,
        )


def list_tasks(app: Watching) -> None:
    """Watch every task the server lists, forgotten ones too (legacy wire only)."""
    capabilities = app.info.capabilities if app.info else None
    if capabilities is None or capabilities.wire != "legacy" or not capabilities.list:
        toast(app, "This server has no tasks/list; press a to adopt a task id.", severity="warning")
        return
    app.dismissed &= app.synthetic
    import_list(app, quiet=False)


def import_list(app: Watching, *, quiet: bool) -> None:
    """Run `tasks/list` in a worker; `quiet` says nothing when it found no new task."""
    app.run_worker(_import(app, quiet), group="actions", exit_on_error=False, name="tasks/list")


async def _import(app: Watching, quiet: bool) -> None:
    try:
        count = await app.source.list_tasks()
    except Exception as exc:
        toast(app, describe(exc), title="tasks/list failed", severity="error")
        return
    if count or not quiet:
        toast(app, f"tasks/list: {count} new task{'s' if count != 1 else ''}", timeout=3)


def adopt_task(app: Watching) -> None:
    """Ask for a task id (and, when several servers are watched, whose) and watch it."""
    app.run_worker(_adopt(app), group="actions", exit_on_error=False, name="adopt")


async def _adopt(app: Watching) -> None:
    from app.engine.tasks.server_keys import row_key
    from widgets.confirm import TextPrompt

    server = None
    if app.source.servers():
        from app.tui.server_choice import picker_states
        from widgets.server_picker import ServerPicker

        server = await app.push_screen_wait(
            ServerPicker("Adopt on which server?", picker_states(app))
        )
        if server is None:
            return
    where = "this server" if server is None else one_line(server, 40)
    prompt = TextPrompt(
        "Adopt a task id", f"Paste the id of a task on {where}.", placeholder="task id"
    )
    task_id = await app.push_screen_wait(prompt)
    if task_id is None:
        return
    key = task_id if server is None else row_key(server, task_id)
    app.dismissed.discard(key)
    try:
        watching = app.source.adopt(key)
    except Exception as exc:
        toast(app, describe(exc), title="Adopt", severity="error")
        return
    shown = one_line(key, 60)
    toast(app, f"Watching {shown}" if watching else f"{shown} is already watched")


def forget_tasks(app: Watching) -> None:
    """Stop watching the chosen tasks and drop their rows and remembered ids."""
    targets = target_ids(app)
    for task_id in targets:
        if task_id not in app.synthetic:
            app.source.forget(task_id)
    _drop_rows(app, targets, "forgot")
    if targets:
        app.refresh_view()
        toast(app, f"Forgot {len(targets)} task{'s' if len(targets) != 1 else ''}", timeout=3)


def clear_gone(app: Watching) -> None:
    """Remove every row the server no longer knows (forgotten, expired, not found), and their
    ids from the known-task store."""
    gone = [watched.task_id for watched in app.tasks.tasks.values() if watched.gone]
    _drop_rows(app, gone, "cleared")
    app.refresh_view()
    count = len(gone)
    toast(app, f"Cleared {count} row{'s' if count != 1 else ''} the server no longer knows")


def replay_action(app: Watching, action: str, tasks: Mapping[str, Mapping[str, Any]]) -> None:
    """Carry out again an action a recording holds that the App carried out itself: note the
    restored ids (with what the earlier run saw of each), or drop the cleared or forgotten rows."""
    if action == "restored":
        from app.engine.tasks.last_seen import last_seen_from_json
        from app.view.known_tasks import KnownTask

        app.tasks.known_before(
            KnownTask(
                key,
                tool if isinstance(tool := task.get("tool"), str) else None,
                last_seen_from_json(task),
            )
            for key, task in tasks.items()
        )
        return
    _drop_rows(app, list(tasks), None)
    app.refresh_view()


def _drop_rows(app: Watching, task_ids: list[str], action: str | None) -> None:
    """Drop the tasks' rows and marks; later events about them are ignored. `action` names
    what the user did, for the recording (None: a replay doing it again)."""
    if action is not None and task_ids:
        app.source.journal(action, {task_id: {} for task_id in task_ids})
    for task_id in task_ids:
        app.dismissed.add(task_id)
        app.tasks.forget(task_id)
        app.marked.discard(task_id)
    if app.known is not None and task_ids:
        app.known.drop(set(task_ids))
