"""Command palette entries: "go to task" over every watched task, plus the App's main actions.

Task ids, tools and messages are server text; they reach the palette as plain `Text` or `Content`
(`one_line`, `highlight`), never as markup: Textual parses a `str` hit, and `Matcher.highlight`
its candidate, as markup.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider

from app.engine.safety.sanitize import one_line
from app.view.formatting import status_label
from widgets.plain import highlight

if TYPE_CHECKING:
    from app.tui.host import Palette


def app_commands(app: Palette) -> Iterator[SystemCommand]:
    """The App's own entries in the palette, after Textual's (no New task when read-only)."""
    if not app.readonly:
        yield SystemCommand("New task", "Pick a tool and run it", app.action_new_task)
    yield SystemCommand("Adopt task id", "Watch a task by its id", app.action_adopt_task)
    yield SystemCommand("List tasks", "Import tasks/list (legacy wire)", app.action_list_tasks)
    yield SystemCommand("Pause / resume polling", "Toggle the poller", app.action_toggle_pause)
    yield SystemCommand("Faults only", "Show only tasks needing care", app.action_toggle_faults)
    yield SystemCommand("RPC log", "Show or hide the frame log", app.action_toggle_log)
    yield SystemCommand(
        "Server details",
        "Identity, era, tasks wire, connection and sign-in of the server",
        app.action_show_server,
    )
    yield SystemCommand(
        "Advertised capabilities",
        "What taskscope tells the server it can do as a client: withhold tasks and more",
        app.action_advertised_capabilities,
    )
    yield SystemCommand(
        "Time view",
        "Every task as a bar on a time axis, or back to the list",
        app.action_toggle_time_view,
    )
    yield SystemCommand(
        "Clear forgotten",
        "Remove the rows of tasks the server no longer knows",
        app.action_clear_gone,
    )
    if not app.readonly:
        yield SystemCommand(
            "Check this server",
            "taskscope check on a connection of its own: a verdict per spec rule, with evidence",
            app.action_check_server,
        )
        yield SystemCommand(
            "Sign out",
            "Forget this server's OAuth sign-in; the next refusal signs in again",
            app.action_sign_out,
        )


def task_title(task_id: str, tool: str | None, status: str) -> str:
    """`go to task <id> · <tool> · <status>`, cleaned onto one line."""
    return one_line(f"go to task {task_id} · {tool or '—'} · {status_label(status)}", 100)


class TaskCommands(Provider):
    """Jump to any watched task by id, tool or status."""

    @property
    def taskscope(self) -> Palette:
        return cast("Palette", self.app)  # the App this provider serves

    async def discover(self) -> Hits:
        app = self.taskscope
        for watched in list(app.tasks.tasks.values())[:50]:
            title = task_title(watched.task_id, watched.tool_name, watched.status)
            yield DiscoveryHit(Text(title), partial(app.go_to_task, watched.task_id))

    async def search(self, query: str) -> Hits:
        app = self.taskscope
        matcher = self.matcher(query)
        for watched in list(app.tasks.tasks.values()):
            title = task_title(watched.task_id, watched.tool_name, watched.status)
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score,
                    highlight(matcher, title),
                    partial(app.go_to_task, watched.task_id),
                    help="select this task",
                )
