"""Helpers shared by the adapter end-to-end tests of both wires."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal

from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import HttpTarget, StdioTarget
from app.engine.tasks.contract import TasksAdapter
from app.engine.tasks.models import Task
from tests.support.demo_servers import start_http_demo, stdio_demo_command


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


Transport = Literal["stdio", "http"]
FAST = ("--speed", "20", "--poll-interval-ms", "100")


@asynccontextmanager
async def demo_connection(
    wire: Literal["legacy", "extension"], transport: Transport, *extra: str
) -> AsyncIterator[Connection]:
    """An open connection to the demo server of `wire`, in that wire's era, over `transport`."""
    era: Literal["legacy", "modern"] = "legacy" if wire == "legacy" else "modern"
    if transport == "stdio":
        target = StdioTarget(command=stdio_demo_command(wire, *FAST, *extra))
        async with Connection(target, era=era) as connection:
            yield connection
        return
    with start_http_demo(wire, *FAST, *extra) as (url, _process):
        async with Connection(HttpTarget(url=url), era=era) as connection:
            yield connection


def record_requests(connection: Connection) -> list[dict[str, Any]]:
    """Every request (and notification) this client sends from now on."""
    sent: list[dict[str, Any]] = []

    def listen(frame: Frame) -> None:
        if frame.direction == "out" and frame.message and "method" in frame.message:
            sent.append(frame.message)

    connection.add_frame_listener(listen)
    return sent
