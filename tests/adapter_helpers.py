"""Helpers shared by the adapter end-to-end tests of both wires."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from app.engine.adapter import TasksAdapter
from app.engine.models import Task


async def poll_until(
    adapter: TasksAdapter, task_id: str, done: Callable[[Task], bool], timeout: float = 15.0
) -> Task:
    """Poll at the server's pace until `done(task)`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        task = await adapter.get(task_id)
        if done(task):
            return task
        assert loop.time() < deadline, f"task still {task.status}: {task.status_message}"
        await asyncio.sleep((task.poll_interval_ms or 1000) / 1000)


def terminal(task: Task) -> bool:
    return task.is_terminal
