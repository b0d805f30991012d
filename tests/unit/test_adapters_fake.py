"""Adapter logic the demo servers never trigger, against a scripted in-memory connection."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any, cast

import pytest

from app.engine.rpc.advertised import ClientCapabilities
from app.engine.rpc.connection import Connection
from app.engine.rpc.paging import ListingTooLong
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.transports.base import TransportError
from app.engine.tasks import extension as extension_wire
from app.engine.tasks import mrtr
from app.engine.tasks.base import task_unknown
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.contract import TasksCapabilities, TaskUnknown
from app.engine.tasks.factory import ExtensionAdapter, LegacyAdapter, NoTasksAdapter
from app.engine.tasks.models import InputKind, InputRequest, ProtocolViolation

LEGACY = TasksCapabilities(wire="legacy", tool_calls=True, list=True, cancel=True)
EXTENSION = TasksCapabilities(
    wire="extension", tool_calls=True, cancel=True, update=True, inline_result=True
)
Reply = dict[str, Any] | BaseException | Callable[[dict[str, Any] | None], Awaitable[Any]]


class ScriptedConnection:
    """Answers each method from a queue of replies and records what was sent."""

    request_timeout = 30.0
    info = SimpleNamespace(era="modern")
    received_chars = 0
    advertised = ClientCapabilities()

    def __init__(self, **replies: list[Reply]) -> None:
        self.replies = {method.replace("__", "/"): list(queue) for method, queue in replies.items()}
        self.sent: list[tuple[str, dict[str, Any] | None]] = []
        self.handlers: dict[str, Any] = {}
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []

    async def request(
        self, method: str, params: dict[str, Any] | None = None, **_options: Any
    ) -> dict[str, Any]:
        self.sent.append((method, params))
        reply = self.replies[method].pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            return cast(dict[str, Any], await reply(params))
        return reply

    def set_request_handler(self, method: str, handler: Any) -> None:
        self.handlers[method] = handler

    def add_notification_handler(self, handler: Callable[[str, dict[str, Any]], None]) -> None:
        self.listeners.append(handler)

    def push(self, method: str, params: dict[str, Any]) -> None:
        for listener in self.listeners:
            listener(method, params)

    def methods(self) -> list[str]:
        return [method for method, _ in self.sent]


def legacy(connection: ScriptedConnection, caps: TasksCapabilities = LEGACY) -> LegacyAdapter:
    return LegacyAdapter(cast(Connection, connection), caps)


def extension(connection: ScriptedConnection) -> ExtensionAdapter:
    return ExtensionAdapter(cast(Connection, connection), EXTENSION)


def task(task_id: str = "t1", status: str = "working", **fields: Any) -> dict[str, Any]:
    return {"taskId": task_id, "status": status, "ttl": 1000, "ttlMs": 1000, **fields}


async def never(_params: dict[str, Any] | None) -> Any:
    await asyncio.Event().wait()


@pytest.mark.parametrize(
    ("code", "message", "verb", "unknown"),
    [
        (-32602, "Failed to retrieve task: Task not found", "tasks/get", True),
        (-32602, "Task has expired", "tasks/get", True),
        (-32603, "Task 123 not found", "tasks/get", True),
        (-32603, "database exploded", "tasks/get", False),
        (
            -32602,
            "Cannot cancel task: already in terminal status 'completed'",
            "tasks/cancel",
            False,
        ),
        (-32602, "Task not found", "tasks/cancel", True),
        (-32603, "Task abc has no result stored", "tasks/result", False),
        (-32602, "Invalid widget size", "tasks/result", False),  # the tool's own error
        (-32602, "Task not found", "tasks/result", True),
        (-32601, "Method not found", "tasks/get", False),
    ],
)
def test_unknown_task_errors(code: int, message: str, verb: str, unknown: bool) -> None:
    found = task_unknown(RpcError(code, message), "t1", verb)
    assert (found is not None) is unknown
    if found is not None:
        assert found.task_id == "t1" and message in found.detail


async def test_legacy_internal_error_not_found_is_task_unknown() -> None:
    connection = ScriptedConnection(tasks__get=[RpcError(-32603, "Task t1 not found")])
    with pytest.raises(TaskUnknown):
        await legacy(connection).get("t1")


async def test_legacy_get_for_another_task_is_a_violation() -> None:
    connection = ScriptedConnection(tasks__get=[task("other")])
    with pytest.raises(ProtocolViolation):
        await legacy(connection).get("t1")


async def test_legacy_list_with_a_repeated_cursor_stops() -> None:
    page = {"tasks": [task()], "nextCursor": "c1"}
    connection = ScriptedConnection(tasks__list=[page, page])
    with pytest.raises(ListingTooLong, match="twice"):
        await legacy(connection).list_tasks()
    assert connection.methods() == ["tasks/list", "tasks/list"]


async def test_legacy_result_stream_is_reopened_only_after_a_transport_failure() -> None:
    connection = ScriptedConnection(
        tasks__get=[task(status="input_required")] * 3,
        tasks__result=[TransportError("closed", "stream dropped"), never],
    )
    adapter = legacy(connection)
    await adapter.get("t1")
    await asyncio.sleep(0)
    await adapter.get("t1")  # the first stream failed: open another
    await asyncio.sleep(0)
    await adapter.get("t1")  # the second one is still open: nothing new
    await asyncio.sleep(0)
    assert connection.methods().count("tasks/result") == 2
    await adapter.close()


async def test_legacy_notifications_and_progress() -> None:
    connection = ScriptedConnection()
    adapter = legacy(connection)
    statuses: list[dict[str, Any]] = []
    progress: list[tuple[str, dict[str, Any]]] = []
    adapter.on_status(statuses.append)
    adapter.on_progress(lambda task_id, params: progress.append((task_id, params)))

    async def create(params: dict[str, Any] | None) -> dict[str, Any]:
        assert params is not None
        token = params["_meta"]["progressToken"]
        connection.push("notifications/progress", {"progressToken": token, "progress": 1})
        return {"task": task()}

    connection.replies["tools/call"] = [create]
    connection.replies["tasks/get"] = [task()]
    outcome = await adapter.create("job", {})
    assert outcome.task is not None and outcome.task.progress is not None
    assert progress == []  # it came before the task id was known; it is still attached
    connection.push("notifications/progress", {"progressToken": "someone-else", "progress": 5})
    token = connection.sent[0][1]["_meta"]["progressToken"]  # type: ignore[index]
    connection.push("notifications/progress", {"progressToken": token, "progress": 2, "total": 4})
    connection.push("notifications/tasks/status", task(status="completed"))
    connection.push("notifications/tasks", task())  # not a legacy notification
    assert progress == [("t1", {"progressToken": token, "progress": 2, "total": 4})]
    assert statuses == [task(status="completed")]
    latest = await adapter.get("t1")
    assert latest.progress is not None and latest.progress.total == 4


async def test_legacy_create_gives_up_when_the_server_is_silent() -> None:
    connection = ScriptedConnection(tools__call=[never])
    connection.request_timeout = 0.05
    with pytest.raises(TransportError) as caught:
        await legacy(connection).create("job", {})
    assert caught.value.kind == "timeout"


async def test_legacy_create_waits_while_its_question_is_open() -> None:
    connection = ScriptedConnection()
    connection.request_timeout = 0.05
    adapter = legacy(connection)
    released = asyncio.Event()

    async def create(_params: dict[str, Any] | None) -> dict[str, Any]:
        answer = asyncio.ensure_future(
            connection.handlers["elicitation/create"](
                {"message": "?"}, {"id": 4, "method": "elicitation/create"}
            )
        )
        await released.wait()
        assert await answer == {"action": "accept"}
        return {"task": task()}

    connection.replies["tools/call"] = [create]
    creating = asyncio.create_task(adapter.create("job", {}))
    await asyncio.sleep(0.2)  # four request windows: the open question keeps the call alive
    assert not creating.done()
    (question,) = adapter.pending_inputs()
    assert question.task_id is None and question.key == "4"
    await adapter.answer(question, {"action": "accept"})
    released.set()
    outcome = await creating
    assert outcome.task is not None


async def test_legacy_answer_many_needs_pending_keys() -> None:
    connection = ScriptedConnection()
    adapter = legacy(connection)
    with pytest.raises(LookupError):
        await adapter.answer_many("t1", {"1": {"action": "cancel"}})


async def test_extension_failed_update_keeps_the_answer_for_a_retry() -> None:
    waiting = task(
        status="input_required",
        inputRequests={"k1": {"method": "elicitation/create", "params": {"message": "Name?"}}},
    )
    connection = ScriptedConnection(
        tasks__get=[waiting, waiting],
        tasks__update=[TransportError("timeout", "slow"), {"resultType": "complete"}],
    )
    adapter = extension(connection)
    (request,) = (await adapter.get("t1")).input_requests
    assert request.kind is InputKind.FORM
    answer = {"action": "accept", "content": {"name": "Ada"}}
    with pytest.raises(TransportError):
        await adapter.answer(request, answer)
    assert adapter.pending_inputs() == [request]
    assert adapter.broker.staged_answer(request) == answer
    assert (await adapter.get("t1")).input_requests == (request,)
    await adapter.answer(request, answer)
    assert adapter.pending_inputs() == []
    await adapter.answer(request, answer)  # acknowledged: never sent again
    assert connection.methods().count("tasks/update") == 2


async def test_extension_cancel_tolerates_an_empty_ack() -> None:
    connection = ScriptedConnection(tasks__cancel=[{}])
    adapter = extension(connection)
    assert await adapter.cancel("t1") is None
    assert "tasks/cancel: ack without resultType" in adapter.variants


async def test_extension_listen_acknowledged_then_pushes() -> None:
    connection = ScriptedConnection()
    adapter = extension(connection)
    statuses: list[dict[str, Any]] = []
    adapter.on_status(statuses.append)

    async def listen(params: dict[str, Any] | None) -> Any:
        assert params == {"notifications": {"taskIds": ["t1", "t2"]}}
        connection.push("notifications/subscriptions/acknowledged", params)
        await asyncio.Event().wait()

    connection.replies["subscriptions/listen"] = [listen]
    assert await adapter.start_listening(["t1", "t2"]) is True
    connection.push("notifications/tasks", task(status="completed"))
    connection.push("notifications/tasks/status", task())  # the legacy one is not ours
    assert statuses == [task(status="completed")]
    await adapter.close()


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        (RpcError(-32601, "Method not found"), False),
        ({"resultType": "complete"}, False),
        (RpcError(-32021, "Missing required client capability"), RpcError),
        (TransportError("closed", "gone"), TransportError),
    ],
)
async def test_extension_listen_refusals(reply: Reply, outcome: Any) -> None:
    connection = ScriptedConnection(subscriptions__listen=[reply])
    adapter = extension(connection)
    if outcome is False:
        assert await adapter.start_listening(["t1"]) is False
    else:
        with pytest.raises(outcome):
            await adapter.start_listening(["t1"])


async def test_extension_listen_without_ack_gives_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extension_wire, "LISTEN_ACK_TIMEOUT", 0.05)
    connection = ScriptedConnection(subscriptions__listen=[never])
    adapter = extension(connection)
    assert await adapter.start_listening(["t1"]) is False
    assert adapter._listen is None


async def test_extension_mrtr_loop_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mrtr, "MAX_INPUT_ROUNDS", 2)
    round_trip = {
        "resultType": "input_required",
        "inputRequests": {"k": {"method": "roots/list"}},
        "requestState": "s",
    }
    connection = ScriptedConnection(tools__call=[round_trip, round_trip])
    adapter = extension(connection)

    def answer(request: InputRequest) -> None:
        asyncio.get_running_loop().create_task(adapter.answer(request, {"roots": []}))

    adapter.on_input(answer)
    with pytest.raises(ProtocolViolation, match="more than 2"):
        await adapter.create("loop", {})
    retry = connection.sent[1][1]
    assert retry is not None and retry["requestState"] == "s"
    assert retry["inputResponses"] == {"k": {"roots": []}}


async def test_no_tasks_adapter_answers_mrtr_rounds_on_the_modern_era() -> None:
    round_trip = {
        "resultType": "input_required",
        "inputRequests": {"who": {"method": "elicitation/create", "params": {"message": "Who?"}}},
    }
    final = {"resultType": "complete", "content": [{"type": "text", "text": "hi Ada"}]}
    connection = ScriptedConnection(tools__call=[round_trip, final])
    adapter = NoTasksAdapter(cast(Connection, connection), TasksCapabilities(wire="none"))

    def answer(request: InputRequest) -> None:
        reply = {"action": "accept", "content": {"name": "Ada"}}
        asyncio.get_running_loop().create_task(adapter.answer(request, reply))

    adapter.on_input(answer)
    assert await adapter.call_tool("greet", {}) == final
    retry = connection.sent[1][1]
    assert retry is not None and "requestState" not in retry
    assert retry["inputResponses"] == {"who": {"action": "accept", "content": {"name": "Ada"}}}


async def test_legacy_questions_past_the_broker_bound_are_refused_with_an_error() -> None:
    connection = ScriptedConnection()
    adapter = LegacyAdapter(cast(Connection, connection), LEGACY, InputBroker(max_open=2))
    meta = {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}

    def ask(key: str) -> Awaitable[dict[str, Any]]:
        frame = {"id": key, "method": "elicitation/create"}
        return cast(
            Awaitable[dict[str, Any]],
            connection.handlers[frame["method"]]({"message": "?", "_meta": meta}, frame),
        )

    waiting = [asyncio.ensure_future(ask(key)) for key in ("q1", "q2")]
    await asyncio.sleep(0)
    with pytest.raises(RpcError, match="too many open questions: 2 already wait"):
        await ask("q3")
    assert [request.key for request in adapter.pending_inputs()] == ["q1", "q2"]
    for answer in waiting:
        answer.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
