"""A call answered synchronously has no task on the server, so nothing of a task's lifetime: no
TTL left in its row, no TTL or poll interval in its overview (a dash, not `∞` or "unlimited")."""

from __future__ import annotations

import io

from rich.console import Console

from app.engine.tasks.models import Task
from app.view.formatting import format_ttl_left
from app.view.watched import WatchedTask
from tests.support.watched_tasks import NOW
from widgets.detail_overview import overview_table


def synchronous_row() -> WatchedTask:
    """The row `n` makes of a synchronous answer (as `verbs/create` builds it)."""
    answer = {"content": [{"type": "text", "text": "Lisbon: 21 °C"}]}
    task = Task(
        task_id="sync-1",
        wire="legacy",
        status="completed",
        result=answer,
        result_source="synchronous",
        tool_name="lookup_weather",
        raw=answer,
    )
    return WatchedTask(
        task_id="sync-1",
        task=task,
        tool_name="lookup_weather",
        first_seen=NOW,
        last_change=NOW,
        last_event=NOW,
        synchronous=True,
    )


def overview_rows(watched: WatchedTask) -> dict[str, str]:
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(overview_table(watched))
    rows = {}
    for line in console.export_text().splitlines():
        name, _, value = line.strip().partition("  ")
        rows[name] = value.strip()
    return rows


def test_a_synchronous_row_shows_no_ttl_left() -> None:
    assert format_ttl_left(synchronous_row(), NOW) == "—"


def test_a_synchronous_overview_has_no_ttl_or_poll_interval() -> None:
    rows = overview_rows(synchronous_row())
    assert rows["ttl"] == "—"
    assert rows["poll interval"] == "—"
