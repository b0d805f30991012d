"""The legacy (2025-11-25) adapter end to end against the legacy demo server, stdio and HTTP."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import Frame, RpcError
from app.engine.tasks.contract import TasksCapabilities, TaskUnknown, VerbUnsupported
from app.engine.tasks.factory import LegacyAdapter, make_adapter
from app.engine.tasks.models import RELATED_TASK_META, InputKind, InputRequest, TaskError
from tests.support.adapter_helpers import (
    Transport,
    demo_connection,
    poll_until,
    record_requests,
    terminal,
)


def legacy_demo(transport: Transport, *extra: str) -> AbstractAsyncContextManager[Connection]:
    """An open legacy-era connection to the legacy demo server."""
    return demo_connection("legacy", transport, *extra)


def record_responses(connection: Connection) -> list[dict[str, Any]]:
    """Every answer this client sends to a server request."""
    sent: list[dict[str, Any]] = []

    def listen(frame: Frame) -> None:
        if frame.direction == "out" and frame.message and "method" not in frame.message:
            sent.append(frame.message)

    connection.add_frame_listener(listen)
    return sent


def legacy_adapter(connection: Connection) -> LegacyAdapter:
    adapter = make_adapter(connection)
    assert isinstance(adapter, LegacyAdapter)
    return adapter


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_create_get_completed_with_progress_and_fetched_result(transport: Transport) -> None:
    async with legacy_demo(transport) as connection:
        sent = record_requests(connection)
        adapter = legacy_adapter(connection)
        assert adapter.capabilities == TasksCapabilities(
            wire="legacy", tool_calls=True, list=True, cancel=True
        )
        progress: list[tuple[str, dict[str, Any]]] = []
        adapter.on_progress(lambda task_id, params: progress.append((task_id, params)))
        outcome = await adapter.create("build_report", {"quarter": "Q2"}, ttl_ms=120_000)
        assert outcome.task is not None and outcome.sync_result is None
        assert outcome.task.status == "working" and outcome.task.tool_name == "build_report"
        call = next(message for message in sent if message["method"] == "tools/call")
        assert call["params"]["task"] == {"ttl": 120_000}
        token = call["params"]["_meta"]["progressToken"]
        task = await poll_until(adapter, outcome.task.task_id, terminal)
        assert task.status == "completed" and task.tool_name == "build_report"
        assert task.progress is not None and task.progress.total == 3
        assert progress and {task_id for task_id, _ in progress} == {task.task_id}
        assert all(params["progressToken"] == token for _, params in progress)
        result = await adapter.fetch_result(task.task_id)
        assert "Report for Q2" in result["content"][0]["text"]
        assert result["_meta"][RELATED_TASK_META] == {"taskId": task.task_id}
        await adapter.close()


async def test_no_ttl_sends_an_empty_task_object() -> None:
    async with legacy_demo("stdio") as connection:
        sent = record_requests(connection)
        adapter = legacy_adapter(connection)
        outcome = await adapter.create("build_report", {})
        assert outcome.task is not None and outcome.task.ttl_ms == 600_000
        assert sent[-1]["params"]["task"] == {}
        await adapter.close()


async def test_protocol_error_fails_the_task_and_the_result_is_the_error() -> None:
    async with legacy_demo("stdio") as connection:
        adapter = legacy_adapter(connection)
        outcome = await adapter.create("sync_inventory", {})
        assert outcome.task is not None
        task = await poll_until(adapter, outcome.task.task_id, terminal)
        assert task.status == "failed"
        with pytest.raises(RpcError) as caught:
            await adapter.fetch_result(task.task_id)
        assert caught.value.code == -32603 and "Inventory" in caught.value.message
        again = await adapter.get(task.task_id)  # the fetched outcome is kept on the task
        assert again.error == TaskError(code=-32603, message=caught.value.message)
        await adapter.close()


async def test_tool_error_also_fails_the_task_but_the_result_is_a_tool_result() -> None:
    async with legacy_demo("stdio") as connection:
        adapter = legacy_adapter(connection)
        outcome = await adapter.create("validate_config", {})
        assert outcome.task is not None
        task = await poll_until(adapter, outcome.task.task_id, terminal)
        assert task.status == "failed"
        result = await adapter.fetch_result(task.task_id)
        assert result["isError"] is True
        kept = await adapter.get(task.task_id)
        assert kept.is_tool_error and kept.result_source == "fetched" and kept.error is None
        await adapter.close()


async def test_cancel_returns_the_cancelled_task_and_a_terminal_cancel_is_refused() -> None:
    async with legacy_demo("stdio") as connection:
        adapter = legacy_adapter(connection)
        outcome = await adapter.create("migrate_database", {"tables": 100})
        assert outcome.task is not None
        cancelled = await adapter.cancel(outcome.task.task_id)
        assert cancelled is not None and cancelled.status == "cancelled"
        assert cancelled.tool_name == "migrate_database"
        with pytest.raises(RpcError) as caught:
            await adapter.cancel(outcome.task.task_id)
        assert caught.value.code == -32602  # terminal, not unknown
        await adapter.close()


async def test_list_walks_every_page() -> None:
    async with legacy_demo("stdio", "--page-size", "2") as connection:
        sent = record_requests(connection)
        adapter = legacy_adapter(connection)
        created = [await adapter.create("migrate_database", {"tables": 50}) for _ in range(5)]
        ids = [outcome.task.task_id for outcome in created if outcome.task is not None]
        listed = await adapter.list_tasks()
        assert [task.task_id for task in listed] == ids
        assert all(task.tool_name == "migrate_database" for task in listed)
        pages = [message for message in sent if message["method"] == "tasks/list"]
        assert len(pages) == 3
        assert "params" not in pages[0] or "cursor" not in pages[0]["params"]
        assert all(isinstance(page["params"]["cursor"], str) for page in pages[1:])
        await adapter.close()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_questions_come_on_the_result_stream_and_are_answered_through_the_broker(
    transport: Transport,
) -> None:
    async with legacy_demo(transport) as connection:
        sent = record_requests(connection)
        answers_sent = record_responses(connection)
        adapter = legacy_adapter(connection)
        announced: list[InputRequest] = []
        adapter.on_input(announced.append)
        outcome = await adapter.create("deploy_release", {"version": "3.0"})
        assert outcome.task is not None
        task_id = outcome.task.task_id
        waiting = await poll_until(adapter, task_id, lambda task: len(task.input_requests) == 2)
        assert waiting.status == "input_required"
        assert [request.task_id for request in announced] == [task_id, task_id]
        assert all(request.kind is InputKind.FORM for request in announced)
        results = [message for message in sent if message["method"] == "tasks/result"]
        assert len(results) == 1  # one stream per task, however often it is polled
        for request in waiting.input_requests:
            if "Approve" in request.message:
                await adapter.answer(request, {"action": "accept", "content": {"approve": True}})
            else:
                await adapter.answer(request, {"action": "accept", "content": {"window": "now"}})
        task = await poll_until(adapter, task_id, terminal)
        assert task.status == "completed" and task.input_requests == ()
        assert len(announced) == 2  # never re-announced by later polls
        result = await adapter.fetch_result(task_id)
        assert result["content"][0]["text"] == "Release 3.0 scheduled: now."
        assert len([m for m in sent if m["method"] == "tasks/result"]) == 1  # result was kept
        stamped = [answer for answer in answers_sent if "result" in answer]
        assert len(stamped) == 2
        assert all(
            answer["result"]["_meta"][RELATED_TASK_META] == {"taskId": task_id}
            for answer in stamped
        )
        await adapter.close()


async def test_answer_many_sampling_and_roots() -> None:
    async with legacy_demo("stdio") as connection:
        adapter = legacy_adapter(connection)
        summary = await adapter.create("summarize_text", {"text": "long text"})
        roots = await adapter.create("index_workspace", {})
        assert summary.task is not None and roots.task is not None
        asked = await poll_until(adapter, summary.task.task_id, lambda t: bool(t.input_requests))
        (sampling,) = asked.input_requests
        assert sampling.kind is InputKind.SAMPLING
        reply = {
            "role": "assistant",
            "content": {"type": "text", "text": "Short."},
            "model": "human",
            "stopReason": "endTurn",
        }
        await adapter.answer_many(summary.task.task_id, {sampling.key: reply})
        asked = await poll_until(adapter, roots.task.task_id, lambda t: bool(t.input_requests))
        (roots_request,) = asked.input_requests
        assert roots_request.kind is InputKind.ROOTS
        await adapter.answer(roots_request, {"roots": [{"uri": "file:///src", "name": "src"}]})
        done = await poll_until(adapter, summary.task.task_id, terminal)
        assert (await adapter.fetch_result(done.task_id))["content"][0]["text"] == "Summary: Short."
        done = await poll_until(adapter, roots.task.task_id, terminal)
        result = await adapter.fetch_result(done.task_id)
        assert "Indexed 1 root(s): file:///src" in result["content"][0]["text"]
        await adapter.close()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_declined_sampling_request_gets_an_error_reply_and_the_task_finishes(
    transport: Transport,
) -> None:
    async with legacy_demo(transport) as connection:
        answers = record_responses(connection)
        adapter = legacy_adapter(connection)
        summary = await adapter.create("summarize_text", {"text": "long text"})
        assert summary.task is not None
        task_id = summary.task.task_id
        asked = await poll_until(adapter, task_id, lambda t: bool(t.input_requests))
        (sampling,) = asked.input_requests
        assert await adapter.reject(sampling) is True
        assert adapter.pending_inputs() == []
        done = await poll_until(adapter, task_id, terminal)
        assert done.status == "failed"  # the tool's isError result fails the task
        result = await adapter.fetch_result(task_id)
        assert result["isError"] is True
        assert result["content"][0]["text"] == "The client declined to sample."
        (reply,) = [a for a in answers if str(a.get("id")) == sampling.key]
        assert reply["error"] == {"code": -1, "message": "User rejected sampling request"}
        assert "result" not in reply
        await adapter.close()


async def test_questions_on_the_standalone_stream() -> None:
    async with legacy_demo("stdio", "--elicit-channel", "standalone") as connection:
        adapter = legacy_adapter(connection)
        outcome = await adapter.create("connect_account", {})
        assert outcome.task is not None
        asked = await poll_until(adapter, outcome.task.task_id, lambda t: bool(t.input_requests))
        (request,) = asked.input_requests
        assert request.kind is InputKind.URL and request.url is not None
        await adapter.answer(request, {"action": "accept"})
        task = await poll_until(adapter, outcome.task.task_id, terminal)
        result = await adapter.fetch_result(task.task_id)
        assert result["content"][0]["text"] == "Account linked."
        await adapter.close()


async def test_questions_on_the_call_stream_before_the_task_exists() -> None:
    async with legacy_demo("stdio", "--elicit-channel", "call") as connection:
        adapter = legacy_adapter(connection)
        announced: list[InputRequest] = []

        def answer_at_once(request: InputRequest) -> None:
            announced.append(request)
            asyncio.get_running_loop().create_task(
                adapter.answer(request, {"action": "accept", "content": {"approve": True}})
            )

        adapter.on_input(answer_at_once)
        outcome = await adapter.create("deploy_release", {"version": "9"})
        assert outcome.task is not None
        assert announced and all(request.task_id is None for request in announced)
        task = await poll_until(adapter, outcome.task.task_id, terminal)
        assert task.status == "completed"
        await adapter.close()


async def test_output_schema_tool_runs_as_a_task() -> None:
    async with legacy_demo("stdio") as connection:
        adapter = legacy_adapter(connection)
        outcome = await adapter.create("analyze_logs", {})
        assert outcome.task is not None
        task = await poll_until(adapter, outcome.task.task_id, terminal)
        result = await adapter.fetch_result(task.task_id)
        assert result["structuredContent"]["top_source"] == "api-gateway"
        await adapter.close()


async def test_unknown_ids_are_task_unknown() -> None:
    async with legacy_demo("stdio") as connection:
        adapter = legacy_adapter(connection)
        with pytest.raises(TaskUnknown):
            await adapter.get("no-such-task")
        with pytest.raises(TaskUnknown):
            await adapter.cancel("no-such-task")
        with pytest.raises(TaskUnknown):
            await adapter.fetch_result("no-such-task")
        await adapter.close()


async def test_undeclared_verbs_are_refused_before_sending() -> None:
    async with legacy_demo("stdio") as connection:
        sent = record_requests(connection)
        adapter = LegacyAdapter(connection, TasksCapabilities(wire="legacy"))
        with pytest.raises(VerbUnsupported):
            await adapter.list_tasks()
        with pytest.raises(VerbUnsupported):
            await adapter.cancel("anything")
        with pytest.raises(VerbUnsupported):
            await adapter.create("build_report", {})
        assert sent == []
        assert await adapter.start_listening(["x"]) is False


async def test_synchronous_calls() -> None:
    async with legacy_demo("stdio") as connection:
        adapter = legacy_adapter(connection)
        weather = await adapter.call_tool("lookup_weather", {"city": "Porto"})
        assert weather["content"][0]["text"].startswith("Porto")
        with pytest.raises(RpcError) as caught:
            await adapter.create("lookup_weather", {})  # taskSupport forbidden
        assert caught.value.code == -32601
        with pytest.raises(RpcError):
            await adapter.call_tool("nightly_backup", {})  # taskSupport required
        await adapter.close()
