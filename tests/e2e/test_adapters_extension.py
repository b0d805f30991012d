"""The SEP-2663 extension adapter end to end against the extension demo server, stdio and HTTP."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import RpcError
from app.engine.tasks.contract import TasksCapabilities, TaskUnknown, VerbUnsupported
from app.engine.tasks.factory import ExtensionAdapter, make_adapter
from app.engine.tasks.models import InputKind, InputRequest, Task, TaskError
from tests.support.adapter_helpers import (
    Transport,
    demo_connection,
    poll_until,
    record_requests,
    terminal,
)


def extension_demo(transport: Transport, *extra: str) -> AbstractAsyncContextManager[Connection]:
    """An open extension-era connection to the extension demo server."""
    return demo_connection("extension", transport, *extra)


def extension_adapter(connection: Connection) -> ExtensionAdapter:
    adapter = make_adapter(connection)
    assert isinstance(adapter, ExtensionAdapter)
    return adapter


async def created(adapter: ExtensionAdapter, tool: str, **arguments: Any) -> Task:
    outcome = await adapter.create(tool, arguments)
    assert outcome.task is not None and outcome.sync_result is None, outcome.raw
    return outcome.task


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_create_get_completed_inline(transport: Transport) -> None:
    async with extension_demo(transport) as connection:
        sent = record_requests(connection)
        adapter = extension_adapter(connection)
        assert adapter.capabilities == TasksCapabilities(
            wire="extension", tool_calls=True, cancel=True, update=True, inline_result=True
        )
        task = await created(adapter, "build_report", quarter="Q4")
        assert task.wire == "extension" and task.tool_name == "build_report"
        done = await poll_until(adapter, task.task_id, terminal)
        assert done.status == "completed" and done.result_source == "inline"
        assert done.result is not None and "Q4" in done.result["content"][0]["text"]
        assert done.tool_name == "build_report"
        call = next(message for message in sent if message["method"] == "tools/call")
        assert "task" not in call["params"]  # the legacy opt-in is never sent on this wire
        assert adapter.variants.seen == {}
        await adapter.close()


async def test_protocol_error_is_failed_with_inline_error() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        task = await created(adapter, "sync_inventory")
        done = await poll_until(adapter, task.task_id, terminal)
        assert done.status == "failed" and done.result is None
        assert isinstance(done.error, TaskError) and done.error.code == -32603
        assert "Inventory" in done.error.message
        await adapter.close()


async def test_tool_error_is_completed_with_is_error() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        task = await created(adapter, "validate_config")
        done = await poll_until(adapter, task.task_id, terminal)
        assert done.status == "completed" and done.is_tool_error and done.error is None
        await adapter.close()


async def test_cancel_is_an_ack_and_the_status_follows() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        task = await created(adapter, "migrate_database", tables=500)
        assert await adapter.cancel(task.task_id) is None
        done = await poll_until(adapter, task.task_id, terminal)
        assert done.status == "cancelled"
        assert await adapter.cancel(task.task_id) is None  # terminal: still an ack
        await adapter.close()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_input_requests_are_answered_in_one_update(transport: Transport) -> None:
    async with extension_demo(transport) as connection:
        sent = record_requests(connection)
        adapter = extension_adapter(connection)
        announced: list[InputRequest] = []
        adapter.on_input(announced.append)
        task = await created(adapter, "deploy_release", version="5.1")
        waiting = await poll_until(adapter, task.task_id, lambda t: len(t.input_requests) == 2)
        again = await adapter.get(task.task_id)
        assert again.input_requests == waiting.input_requests
        assert [request.key for request in announced] == [r.key for r in waiting.input_requests]
        responses = {
            request.key: (
                {"action": "accept", "content": {"approve": True}}
                if "Approve" in request.message
                else {"action": "accept", "content": {"window": "weekend"}}
            )
            for request in waiting.input_requests
        }
        await adapter.answer_many(task.task_id, responses)
        updates = [message for message in sent if message["method"] == "tasks/update"]
        assert len(updates) == 1
        assert updates[0]["params"]["inputResponses"] == responses
        assert adapter.pending_inputs() == []
        await adapter.answer_many(task.task_id, responses)  # answered keys are never resent
        assert len([m for m in sent if m["method"] == "tasks/update"]) == 1
        done = await poll_until(adapter, task.task_id, terminal)
        assert done.result is not None
        assert done.result["content"][0]["text"] == "Release 5.1 scheduled: weekend."
        assert len(announced) == 2
        await adapter.close()


async def test_single_answers_url_sampling_and_roots() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        link = await created(adapter, "connect_account")
        roots = await created(adapter, "index_workspace")
        (consent,) = (
            await poll_until(adapter, link.task_id, lambda t: bool(t.input_requests))
        ).input_requests
        assert consent.kind is InputKind.URL and consent.url is not None
        await adapter.answer(consent, {"action": "accept"})
        (where,) = (
            await poll_until(adapter, roots.task_id, lambda t: bool(t.input_requests))
        ).input_requests
        assert where.kind is InputKind.ROOTS
        await adapter.answer(where, {"roots": [{"uri": "file:///projects/demo", "name": "demo"}]})
        done = await poll_until(adapter, link.task_id, terminal)
        assert done.result is not None and done.result["content"][0]["text"] == "Account linked."
        done = await poll_until(adapter, roots.task_id, terminal)
        assert (
            done.result is not None and "file:///projects/demo" in done.result["content"][0]["text"]
        )
        await adapter.close()


async def test_a_request_cannot_be_rejected_on_the_extension_wire() -> None:
    async with extension_demo("stdio") as connection:
        sent = record_requests(connection)
        adapter = extension_adapter(connection)
        roots = await created(adapter, "index_workspace")
        (where,) = (
            await poll_until(adapter, roots.task_id, lambda t: bool(t.input_requests))
        ).input_requests
        assert await adapter.reject(where) is False
        assert adapter.pending_inputs() == [where]
        assert not [m for m in sent if m.get("method") == "tasks/update"]
        await adapter.close()


async def test_output_schema_tool_runs_as_a_task() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        task = await created(adapter, "analyze_logs")
        done = await poll_until(adapter, task.task_id, terminal)
        assert done.result is not None and done.result["structuredContent"]["errors"] == 3
        await adapter.close()


async def test_the_server_may_answer_at_once() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        weather = await adapter.create("lookup_weather", {"city": "Faro"})
        assert weather.task is None and weather.sync_result is not None
        assert weather.sync_result["content"][0]["text"].startswith("Faro")
        first = await created(adapter, "fetch_quote", symbol="XYZ")
        await poll_until(adapter, first.task_id, terminal)
        cached = await adapter.create("fetch_quote", {"symbol": "XYZ"})
        assert cached.task is None and cached.sync_result is not None
        await adapter.close()


async def test_synchronous_call_answers_mrtr_rounds_through_the_broker() -> None:
    async with extension_demo("stdio") as connection:
        sent = record_requests(connection)
        adapter = extension_adapter(connection)
        announced: list[InputRequest] = []

        def answer_at_once(request: InputRequest) -> None:
            announced.append(request)
            content = {"approve": True} if "Approve" in request.message else {"window": "now"}
            asyncio.get_running_loop().create_task(
                adapter.answer(request, {"action": "accept", "content": content})
            )

        adapter.on_input(answer_at_once)
        result = await adapter.call_tool("deploy_release", {"version": "7"})
        assert result["content"][0]["text"] == "Release 7 scheduled: now."
        assert len(announced) == 2 and all(request.task_id is None for request in announced)
        calls = [message for message in sent if message["method"] == "tools/call"]
        assert len(calls) == 2 and "inputResponses" in calls[1]["params"]
        extensions = calls[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
        assert "io.modelcontextprotocol/tasks" not in extensions.get("extensions", {})
        assert adapter.pending_inputs() == []
        await adapter.close()


async def test_task_only_tool_refuses_a_synchronous_call() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        with pytest.raises(RpcError) as caught:
            await adapter.call_tool("migrate_database", {})
        assert caught.value.code == -32021
        await adapter.close()


async def test_unknown_ids_are_task_unknown() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        with pytest.raises(TaskUnknown):
            await adapter.get("no-such-task")
        with pytest.raises(TaskUnknown):
            await adapter.cancel("no-such-task")
        with pytest.raises(TaskUnknown):
            await adapter.answer_many("no-such-task", {"k": {"action": "cancel"}})
        await adapter.close()


async def test_verbs_the_extension_lacks_are_refused_before_sending() -> None:
    async with extension_demo("stdio") as connection:
        sent = record_requests(connection)
        adapter = extension_adapter(connection)
        with pytest.raises(VerbUnsupported):
            await adapter.list_tasks()
        with pytest.raises(VerbUnsupported):
            await adapter.fetch_result("anything")
        assert sent == []
        await adapter.close()


async def test_listening_falls_back_to_polling() -> None:
    async with extension_demo("stdio") as connection:
        adapter = extension_adapter(connection)
        task = await created(adapter, "build_report")
        assert await adapter.start_listening([task.task_id]) is False
        await adapter.close()
