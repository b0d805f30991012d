"""`y` copies the chosen tasks' JSON, `s` saves it, `e` exports their lives (Markdown, or JSON
for a `.json` path); the exchange view saves through `save` too, the check screen's export
through `write_file`."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from app.tui.problems import describe
from app.tui.targets import targets as chosen_tasks
from widgets.plain import toast

if TYPE_CHECKING:
    from app.tui.host import Saving, Screens


def copy_json(app: Saving) -> None:
    """Copy the chosen tasks' JSON to the clipboard (OSC 52)."""
    from app.view.export import tasks_json

    targets = chosen_tasks(app)
    if not targets:
        return
    app.copy_to_clipboard(tasks_json(targets))
    count = len(targets)
    toast(app, f"Copied the JSON of {count} task{'s' if count != 1 else ''} (OSC 52)")


def save_json(app: Saving) -> None:
    """Save the chosen tasks' JSON to a file the user names."""
    from app.view.export import default_path, tasks_json

    targets = chosen_tasks(app)
    if targets:
        save(app, tasks_json(targets), default_path("taskscope-tasks", time.time()))


def export_tasks(app: Saving) -> None:
    """Export the marked (or selected) tasks' lives: Markdown, or JSON for a `.json` path."""
    from app.engine.record.export import export_file_name, render
    from app.view.export import default_path, export_json, shown_lives
    from widgets.confirm import TextPrompt

    targets = chosen_tasks(app)
    if not targets:
        return
    if app.history is None:
        server = app.info.label if app.info else ""
        try:
            text = export_json(targets, server=server, at=app.clock())
        except Exception as exc:  # as below: refused, the App stays
            _refused(app, exc)
            return
        save(app, text, default_path("taskscope-export", time.time()))
        return
    history = app.history
    task_ids = [watched.task_id for watched in targets]

    def export(path: str | None) -> None:
        if path is None:
            return
        json_wanted = path.lower().endswith(".json")
        try:
            text = render(shown_lives(history(), targets), "json" if json_wanted else "md")
        except Exception as exc:  # whatever a hostile history does to the text, the App stays
            _refused(app, exc)
            return
        write_file(app, path, text.rstrip("\n"))

    app.push_screen(
        TextPrompt("Export to a file (.md or .json)", value=export_file_name(task_ids, "md")),
        export,
    )


def _refused(app: Saving, exc: Exception) -> None:
    """An export whose text could not be made: said in a toast, nothing written."""
    toast(app, f"Nothing written: {describe(exc)}", title="Export failed", severity="error")


def save(app: Screens, text: str, suggested: str) -> None:
    """Ask where to save `text` (offering `suggested`) and write it there."""
    from widgets.confirm import TextPrompt

    def write(path: str | None) -> None:
        if path is not None:
            write_file(app, path, text)

    app.push_screen(TextPrompt("Save JSON to a file", value=suggested), write)


def write_file(app: Screens, path: str, text: str, *, private: bool = False) -> None:
    """Write `text` to `path` in a worker thread and say where it went; `private`: as the
    user's own (0600, never through a symlink), for a report that quotes a server's frames."""
    app.run_worker(
        _write(app, path, text, private), group="actions", exit_on_error=False, name="save"
    )


async def _write(app: Screens, path: str, text: str, private: bool) -> None:
    from app.engine.paths import write_private
    from app.view.export import write_json

    try:
        if private:
            written = await asyncio.to_thread(write_private, path, text)
        else:
            written = await asyncio.to_thread(write_json, path, text)
    except OSError as exc:
        toast(app, describe(exc), title="Save failed", severity="error")
        return
    toast(app, f"Saved {written}", timeout=4)
