"""Watched tasks made from raw wire fields at a fixed clock, for the widget tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.engine.tasks.models import Task, TaskStatus
from app.view.state import WatchedTask

NOW = 1_800_000_100.0


def watched(
    task_id: str,
    status: TaskStatus = "working",
    *,
    message: str | None = None,
    tool: str = "deploy",
    **extra: Any,
) -> WatchedTask:
    raw: dict[str, Any] = {"taskId": task_id, "status": status}
    if message is not None:
        raw["statusMessage"] = message
    task = Task(
        task_id=task_id,
        wire="extension",
        status=status,
        status_message=message,
        created_at=datetime.fromtimestamp(NOW - 30, UTC),
        ttl_ms=600_000,
        tool_name=tool,
        raw=raw,
    )
    fields: dict[str, Any] = {
        "task_id": task_id,
        "task": task,
        "tool_name": tool,
        "first_seen": NOW - 30,
        "last_change": NOW - 5,
        "last_event": NOW - 1,
        **extra,
    }
    return WatchedTask(**fields)
