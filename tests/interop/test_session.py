"""The engine session against independent servers: the per-wire verbs that only work on the
connection that made the task (legacy `tasks/cancel`, `tasks/result`, `tasks/list`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from app.engine.rpc.session import EngineSession
from app.engine.rpc.targets import HttpTarget, StdioTarget, Target
from app.engine.tasks.models import Task
from tests.interop.catalog import Server, Transport, case_id, cases

POLLS = 120


def engine_target(case: tuple[Server, Transport], server_url: Any) -> Target:
    server, transport = case
    if transport == "http":
        return HttpTarget(url=server_url(server.name))
    assert server.stdio is not None
    return StdioTarget(command=server.stdio())


async def until_terminal(session: EngineSession, task: Task) -> Task:
    """Poll (at the server's pace, bounded) until the task ends."""
    for _ in range(POLLS):
        if task.is_terminal:
            return task
        await asyncio.sleep((task.poll_interval_ms or 1000) / 1000)
        task = await session.adapter.get(task.task_id, reason="poll")
    raise AssertionError(f"task {task.task_id} still {task.status} after {POLLS} polls")


@pytest.mark.parametrize("case", cases("finishes", wire="legacy"), ids=case_id)
async def test_legacy_result_and_list_on_the_connection_that_made_the_task(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    server, _ = case
    assert server.finishes is not None
    session = EngineSession(engine_target(case, server_url))
    await session.open()
    try:
        call = server.finishes
        outcome = await session.adapter.create(call.tool, call.arguments, ttl_ms=60_000)
        assert outcome.task is not None, outcome.sync_result
        done = await until_terminal(session, outcome.task)
        assert done.status == "completed"
        result = await session.adapter.fetch_result(done.task_id)
        assert call.expect in json.dumps(result)
        if server.lists:
            listed = await session.adapter.list_tasks()
            assert done.task_id in [task.task_id for task in listed]
    finally:
        await session.close()


@pytest.mark.parametrize("case", cases("slow", wire="legacy"), ids=case_id)
async def test_legacy_cancel_answers_with_the_cancelled_task(
    case: tuple[Server, Transport], server_url: Any
) -> None:
    server, _ = case
    assert server.slow is not None
    session = EngineSession(engine_target(case, server_url))
    await session.open()
    try:
        outcome = await session.adapter.create(server.slow.tool, server.slow.arguments, ttl_ms=None)
        assert outcome.task is not None
        cancelled = await session.adapter.cancel(outcome.task.task_id)
        assert cancelled is not None and cancelled.status == "cancelled"
        again = await session.adapter.get(outcome.task.task_id, reason="user")
        assert again.status == "cancelled"
    finally:
        await session.close()
