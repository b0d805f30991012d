"""Command palette entries: "go to task" over every watched task, plus the App's main actions.

Task ids, tools and messages are server text; they reach the palette as plain `Text` or `Content`
(`one_line`, `highlight`), never as markup: Textual parses a `str` hit, and `Matcher.highlight`
its candidate, as markup.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider

from app.engine.safety.sanitize import one_line
from app.view.formatting import status_label
from widgets.plain import highlight

if TYPE_CHECKING:
    from app.tui.app import TaskscopeApp


def task_title(task_id: str, tool: str | None, status: str) -> str:
    """`go to task <id> · <tool> · <status>`, cleaned onto one line."""
    return one_line(f"go to task {task_id} · {tool or '—'} · {status_label(status)}", 100)


class TaskCommands(Provider):
    """Jump to any watched task by id, tool or status."""

    @property
    def taskscope(self) -> TaskscopeApp:
        return cast("TaskscopeApp", self.app)

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
