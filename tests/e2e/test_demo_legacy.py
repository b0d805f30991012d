"""End-to-end tests of the legacy-wire (2025-11-25) demo server.

The server runs as a real subprocess (`python -m app.demo --wire legacy`) over stdio or Streamable
HTTP; the `mcp` SDK client drives it (task-augmented `tools/call` goes through the raw dispatcher,
as the typed layer cannot carry it), and every inbound frame is recorded so that notifications and
server-to-client requests can be checked as they were on the wire.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

from app.demo.legacy_tasks import InvalidCursor, TaskStore
from tests.support.demo_servers import REPO_ROOT, SharedServers, start_http_demo, stdio_demo_command

RELATED = "io.modelcontextprotocol/related-task"
ISO_MS_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
FAST = ("--speed", "20", "--poll-interval-ms", "50", "--page-size", "2")

Transport = Callable[[], AbstractAsyncContextManager[Any]]


@dataclass
class LegacyProbe:
    """One initialized legacy session plus every frame the server sent on it."""

    session: ClientSession
    dispatcher: JSONRPCDispatcher[Any]
    frames: list[dict[str, Any]]
    questions: list[tuple[dict[str, Any] | None, str]] = field(default_factory=list)
    """(`_meta`, method) of every server-to-client request, in arrival order."""

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.dispatcher.send_raw_request(method, params)

    async def error(self, method: str, params: dict[str, Any]) -> types.ErrorData:
        with pytest.raises(MCPError) as caught:
            await self.call(method, params)
        return caught.value.error

    async def create(self, name: str, arguments: dict[str, Any] | None = None, **extra: Any) -> Any:
        task = {"ttl": extra.pop("ttl")} if "ttl" in extra else {}
        params = {"name": name, "arguments": arguments or {}, "task": task, **extra}
        created = await self.call("tools/call", params)
        return created["task"]

    async def wait_status(self, task_id: str, *statuses: str, timeout: float = 15) -> Any:
        """Poll `tasks/get` at the server's `pollInterval` until the status is one of `statuses`."""
        with anyio.fail_after(timeout):
            while True:
                task = await self.call("tasks/get", {"taskId": task_id})
                if task["status"] in statuses:
                    return task
                await anyio.sleep(task["pollInterval"] / 1000)

    def notifications(self, method: str) -> list[dict[str, Any]]:
        return [f.get("params", {}) for f in self.frames if f.get("method") == method]

    async def wait_for_notification(
        self, method: str, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5
    ) -> dict[str, Any]:
        with anyio.fail_after(timeout):
            while True:
                for params in self.notifications(method):
                    if predicate(params):
                        return params
                await anyio.sleep(0.02)


def _answer_form(params: types.ElicitRequestParams) -> types.ElicitResult:
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="accept")
    if "Approve" in params.message:
        return types.ElicitResult(action="accept", content={"approve": True})
    if "roll out" in params.message:
        return types.ElicitResult(action="accept", content={"window": "now"})
    return types.ElicitResult(action="decline")


@asynccontextmanager
async def legacy_probe(transport: Transport) -> AsyncIterator[LegacyProbe]:
    """Open `transport`, record every inbound frame, initialize at 2025-11-25 and yield a probe."""
    async with transport() as (read, write):
        relay_send, relay_receive = anyio.create_memory_object_stream[Any](1000)
        frames: list[dict[str, Any]] = []
        questions: list[tuple[dict[str, Any] | None, str]] = []

        async def pump() -> None:
            async with relay_send:
                async for item in read:
                    message = getattr(item, "message", None)
                    if message is not None:
                        frame = message.model_dump(by_alias=True, mode="json", exclude_none=True)
                        frames.append(frame)
                        if "id" in frame and "method" in frame:
                            meta = (frame.get("params") or {}).get("_meta")
                            questions.append((meta, frame["method"]))
                    try:
                        await relay_send.send(item)
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                        return  # the session closed; late frames have nobody to go to

        async def on_elicit(
            ctx: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            return _answer_form(params)

        async def on_sample(
            ctx: ClientRequestContext, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult:
            text = types.TextContent(type="text", text="Servers run jobs; clients poll.")
            return types.CreateMessageResult(role="assistant", content=text, model="test-model")

        async def on_roots(ctx: ClientRequestContext) -> types.ListRootsResult:
            return types.ListRootsResult(roots=[types.Root(uri="file:///srv/workspace")])

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(relay_receive, write)
            async with ClientSession(
                dispatcher=dispatcher,
                elicitation_callback=on_elicit,
                sampling_callback=on_sample,
                list_roots_callback=on_roots,
            ) as session:
                await session.initialize()
                yield LegacyProbe(session, dispatcher, frames, questions)
            group.cancel_scope.cancel()


def stdio_transport(*extra: str) -> Transport:
    command = stdio_demo_command("legacy", *FAST, *extra)
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=REPO_ROOT)
    return lambda: stdio_client(params)


def http_transport(url: str) -> Transport:
    return lambda: streamable_http_client(url)


@pytest.fixture(scope="module")
def http_url(shared_servers: SharedServers) -> str:
    return shared_servers.demo("legacy", *FAST)


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> Transport:
    if request.param == "stdio":
        return stdio_transport()
    return http_transport(request.getfixturevalue("http_url"))


async def test_stdio_answers_discover_with_method_not_found_then_initializes() -> None:
    command = stdio_demo_command("legacy", *FAST)
    discover = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
    initialize = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    async with await anyio.open_process(command, cwd=REPO_ROOT) as process:
        assert process.stdin is not None and process.stdout is not None
        lines = anyio.streams.text.TextReceiveStream(process.stdout)
        buffer = ""

        async def reply() -> dict[str, Any]:
            nonlocal buffer
            with anyio.fail_after(20):
                while "\n" not in buffer:
                    buffer += await lines.receive()
            line, buffer = buffer.split("\n", 1)
            return dict(json.loads(line))

        await process.stdin.send((json.dumps(discover) + "\n").encode())
        assert (await reply())["error"]["code"] == -32601
        await process.stdin.send((json.dumps(initialize) + "\n").encode())
        result = (await reply())["result"]
        assert result["protocolVersion"] == "2025-11-25"
        assert result["capabilities"]["tasks"] == {
            "list": {},
            "cancel": {},
            "requests": {"tools": {"call": {}}},
        }
        await process.stdin.aclose()


async def test_http_discover_is_method_not_found_so_auto_clients_fall_back(http_url: str) -> None:
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": envelope}}
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover",
    }
    async with httpx.AsyncClient() as http:
        response = await http.post(http_url, json=body, headers=headers)
    assert response.json()["error"]["code"] == -32601
    async with Client(http_url) as client:
        assert client.protocol_version == "2025-11-25"
        tasks = client.server_capabilities.tasks if client.server_capabilities else None
        assert tasks is not None and tasks.requests is not None


async def test_tools_list_carries_task_support_and_schemas(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        listing = await probe.call("tools/list", {})
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert tools["lookup_weather"]["execution"] == {"taskSupport": "forbidden"}
    assert tools["build_report"]["execution"] == {"taskSupport": "optional"}
    assert tools["nightly_backup"]["execution"] == {"taskSupport": "required"}
    assert tools["analyze_logs"]["outputSchema"]["required"] == ["errors", "warnings", "top_source"]
    assert tools["build_report"]["inputSchema"]["properties"]["quarter"]["default"] == "Q3"
    assert "fetch_quote" not in tools


async def test_task_completes_with_progress_and_status_notifications(transport: Transport) -> None:
    async with legacy_probe(transport) as probe:
        created = await probe.call(
            "tools/call",
            {
                "name": "build_report",
                "arguments": {"quarter": "Q2"},
                "task": {"ttl": 30_000},
                "_meta": {"progressToken": "report-1"},
            },
        )
        task = created["task"]
        assert task["status"] == "working"
        assert task["ttl"] == 30_000 and task["pollInterval"] == 50
        assert ISO_MS_Z.match(task["createdAt"]) and ISO_MS_Z.match(task["lastUpdatedAt"])
        assert created["_meta"]["io.modelcontextprotocol/model-immediate-response"]
        result = await probe.call("tasks/result", {"taskId": task["taskId"]})
        assert result["content"][0]["text"].startswith("Report for Q2")
        assert result["_meta"][RELATED] == {"taskId": task["taskId"]}
        done = await probe.call("tasks/get", {"taskId": task["taskId"]})
        assert done["status"] == "completed" and done["createdAt"] == task["createdAt"]
        await probe.wait_for_notification(
            "notifications/tasks/status",
            lambda p: p["taskId"] == task["taskId"] and p["status"] == "completed",
        )
        progress = [
            p
            for p in probe.notifications("notifications/progress")
            if p["progressToken"] == "report-1"
        ]
        assert [p["progress"] for p in progress] == [0, 1, 2, 3]
        assert progress[0]["total"] == 3


async def test_ttl_defaults_to_the_server_maximum_and_is_capped(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        assert (await probe.create("nightly_backup"))["ttl"] == 600_000
        assert (await probe.create("nightly_backup", ttl=10**9))["ttl"] == 600_000
        assert (await probe.create("nightly_backup", ttl=5_000))["ttl"] == 5_000
        bad = await probe.error("tools/call", {"name": "nightly_backup", "task": {"ttl": "soon"}})
        assert bad.code == -32602


async def test_protocol_failure_fails_the_task_and_tasks_result_returns_the_error(
    http_url: str,
) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        task = await probe.create("sync_inventory")
        failed = await probe.wait_status(task["taskId"], "failed", "completed")
        assert failed["status"] == "failed"
        assert "upstream returned 502" in failed["statusMessage"]
        error = await probe.error("tasks/result", {"taskId": task["taskId"]})
        assert error.code == -32603
        assert error.message == "Inventory service unavailable: upstream returned 502"


async def test_tool_error_fails_the_task_and_tasks_result_returns_the_result(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        task = await probe.create("validate_config")
        failed = await probe.wait_status(task["taskId"], "failed", "completed")
        assert failed["status"] == "failed"
        result = await probe.call("tasks/result", {"taskId": task["taskId"]})
        assert result["isError"] is True
        assert "replcas" in result["content"][0]["text"]
        assert result["_meta"][RELATED] == {"taskId": task["taskId"]}


async def test_cancel_moves_to_cancelled_and_a_second_cancel_is_rejected(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        task = await probe.create("migrate_database", {"tables": 5000})
        cancelled = await probe.call("tasks/cancel", {"taskId": task["taskId"]})
        assert cancelled["status"] == "cancelled" and cancelled["taskId"] == task["taskId"]
        assert (await probe.call("tasks/get", {"taskId": task["taskId"]}))["status"] == "cancelled"
        again = await probe.error("tasks/cancel", {"taskId": task["taskId"]})
        assert again.code == -32602
        assert again.message == "Cannot cancel task: already in terminal status 'cancelled'"
        assert (await probe.error("tasks/result", {"taskId": task["taskId"]})).code == -32603
        unknown = await probe.error("tasks/cancel", {"taskId": "no-such-task"})
        assert (unknown.code, unknown.message) == (-32602, "Task not found")
        await anyio.sleep(0.2)
        assert (await probe.call("tasks/get", {"taskId": task["taskId"]}))["status"] == "cancelled"


async def test_tasks_list_paginates_with_an_opaque_cursor(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        created = [(await probe.create("validate_config"))["taskId"] for _ in range(5)]
        seen: list[str] = []
        pages: list[int] = []
        cursor: str | None = None
        while True:
            page = await probe.call("tasks/list", {"cursor": cursor} if cursor else {})
            pages.append(len(page["tasks"]))
            seen.extend(task["taskId"] for task in page["tasks"])
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert pages == [2, 2, 1]
        assert seen == created
        assert (await probe.error("tasks/list", {"cursor": "not-a-cursor"})).code == -32602


async def test_questions_arrive_only_on_the_tasks_result_stream(transport: Transport) -> None:
    async with legacy_probe(transport) as probe:
        task = await probe.create("deploy_release", {"version": "3.0.0"})
        waiting = await probe.wait_status(task["taskId"], "input_required")
        assert "Approve the rollout of 3.0.0?" in waiting["statusMessage"]
        await anyio.sleep(0.2)
        assert probe.questions == []
        result = await probe.call("tasks/result", {"taskId": task["taskId"]})
        assert result["content"][0]["text"] == "Release 3.0.0 scheduled: now."
        assert result["_meta"][RELATED] == {"taskId": task["taskId"]}
        assert [method for _, method in probe.questions] == ["elicitation/create"] * 2
        assert all(
            meta and meta[RELATED] == {"taskId": task["taskId"]} for meta, _ in probe.questions
        )
        statuses = [
            p["status"]
            for p in probe.notifications("notifications/tasks/status")
            if p["taskId"] == task["taskId"]
        ]
        assert statuses[:2] == ["input_required", "working"]


async def test_sampling_roots_and_url_elicitation_are_asked_for_tasks(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        summary = await probe.create("summarize_text", {"text": "long text"})
        roots = await probe.create("index_workspace")
        account = await probe.create("connect_account")
        results = [
            await probe.call("tasks/result", {"taskId": t["taskId"]})
            for t in (summary, roots, account)
        ]
        assert results[0]["content"][0]["text"] == "Summary: Servers run jobs; clients poll."
        assert results[1]["content"][0]["text"] == "Indexed 1 root(s): file:///srv/workspace"
        assert results[2]["content"][0]["text"] == "Account linked."
        url_frames = [f for f in probe.frames if f.get("method") == "elicitation/create"]
        assert url_frames[0]["params"]["mode"] == "url" and url_frames[0]["params"]["elicitationId"]


async def test_standalone_channel_asks_without_tasks_result() -> None:
    with start_http_demo("legacy", *FAST, "--elicit-channel", "standalone") as (url, _):
        async with legacy_probe(http_transport(url)) as probe:
            task = await probe.create("deploy_release")
            done = await probe.wait_status(task["taskId"], "completed", "failed")
            assert done["status"] == "completed"
            assert len(probe.questions) == 2
            assert all(
                meta and meta[RELATED] == {"taskId": task["taskId"]} for meta, _ in probe.questions
            )
            result = await probe.call("tasks/result", {"taskId": task["taskId"]})
            assert result["content"][0]["text"] == "Release 2.4.0 scheduled: now."


async def test_call_channel_asks_before_the_task_is_created() -> None:
    with start_http_demo("legacy", *FAST, "--elicit-channel", "call") as (url, _):
        async with legacy_probe(http_transport(url)) as probe:
            task = await probe.create("deploy_release")
            assert len(probe.questions) == 2
            assert all(not meta or RELATED not in meta for meta, _ in probe.questions)
            assert task["status"] in ("working", "completed")
            result = await probe.call("tasks/result", {"taskId": task["taskId"]})
            assert result["content"][0]["text"] == "Release 2.4.0 scheduled: now."
            statuses = {p["status"] for p in probe.notifications("notifications/tasks/status")}
            assert "input_required" not in statuses
            report = await probe.create("build_report")
            assert report["status"] == "working"


async def test_plain_calls_run_synchronously(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        required = await probe.error("tools/call", {"name": "nightly_backup", "arguments": {}})
        assert required.code == -32601 and "requires task augmentation" in required.message
        forbidden = await probe.error(
            "tools/call", {"name": "lookup_weather", "arguments": {}, "task": {}}
        )
        assert forbidden.code == -32601
        weather = await probe.call("tools/call", {"name": "lookup_weather", "arguments": {}})
        assert weather["content"][0]["text"].startswith("Lisbon")
        deploy = await probe.call("tools/call", {"name": "deploy_release", "arguments": {}})
        assert deploy["content"][0]["text"] == "Release 2.4.0 scheduled: now."
        assert len(probe.questions) == 2
        assert all(not meta or RELATED not in meta for meta, _ in probe.questions)
        failure = await probe.error("tools/call", {"name": "sync_inventory", "arguments": {}})
        assert failure.code == -32603
        unknown = await probe.error("tools/call", {"name": "nope", "arguments": {}, "task": {}})
        assert unknown.code == -32602


async def test_tasks_are_bound_to_their_http_session(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as owner:
        task = await owner.create("migrate_database", {"tables": 5000})
        async with legacy_probe(http_transport(http_url)) as stranger:
            assert (await stranger.error("tasks/get", {"taskId": task["taskId"]})).code == -32602
            assert (await stranger.error("tasks/cancel", {"taskId": task["taskId"]})).code == -32602
            assert (await stranger.call("tasks/list", {}))["tasks"] == []
        assert (await owner.call("tasks/get", {"taskId": task["taskId"]}))["status"] == "working"
        await owner.call("tasks/cancel", {"taskId": task["taskId"]})


async def test_expired_tasks_are_purged(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        task = await probe.create("migrate_database", {"tables": 5000}, ttl=300)
        with anyio.fail_after(5):
            while True:
                try:
                    await probe.call("tasks/get", {"taskId": task["taskId"]})
                except MCPError as error:
                    assert error.error.code == -32602
                    break
                await anyio.sleep(0.1)
        assert (await probe.call("tasks/list", {}))["tasks"] == []


def _sse_json(response: httpx.Response) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("application/json"):
        return dict(response.json())
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    return dict(json.loads([d for d in data if d][-1]))


async def test_every_nth_tasks_get_is_rate_limited() -> None:
    extra = ("--rate-limit-every", "3", "--retry-after", "2")
    with start_http_demo("legacy", *FAST, *extra) as (url, _):
        headers = {"accept": "application/json, text/event-stream"}
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        async with httpx.AsyncClient(timeout=10) as http:
            response = await http.post(url, json=init, headers=headers)
            headers["mcp-session-id"] = response.headers["mcp-session-id"]
            headers["mcp-protocol-version"] = "2025-11-25"
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await http.post(url, json=initialized, headers=headers)
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "migrate_database", "arguments": {}, "task": {}},
            }
            task_id = _sse_json(await http.post(url, json=call, headers=headers))["result"]["task"][
                "taskId"
            ]
            codes: list[int] = []
            for request_id in range(3, 9):
                get = {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "tasks/get",
                    "params": {"taskId": task_id},
                }
                response = await http.post(url, json=get, headers=headers)
                codes.append(response.status_code)
                if response.status_code == 429:
                    assert response.headers["retry-after"] == "2"
                else:
                    assert _sse_json(response)["result"]["taskId"] == task_id
            assert codes == [200, 200, 429, 200, 200, 429]
            listing = {"jsonrpc": "2.0", "id": 9, "method": "tasks/list", "params": {}}
            assert (await http.post(url, json=listing, headers=headers)).status_code == 200


async def test_bad_input_gets_errors_and_the_server_keeps_serving(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        bad_calls = [
            {"name": "build_report", "task": "soon"},
            {"name": "build_report", "arguments": [1, 2], "task": {}},
            {"arguments": {}, "task": {}},
            {"name": "build_report", "task": {"ttl": -5}},
        ]
        for params in bad_calls:
            assert (await probe.error("tools/call", params)).code == -32602
        assert (await probe.error("tasks/get", {})).code == -32602
        assert (await probe.error("tasks/result", {"taskId": 42})).code == -32602
        broken = await probe.create("migrate_database", {"tables": "many"})
        failed = await probe.wait_status(broken["taskId"], "failed", "completed")
        assert failed["status"] == "failed"
        assert (await probe.error("tasks/result", {"taskId": broken["taskId"]})).code == -32603
        assert (await probe.create("nightly_backup"))["status"] == "working"


def test_terminal_records_never_change() -> None:
    store = TaskStore()
    record = store.new_record("stdio", ttl_ms=1_000, poll_interval_ms=50)
    assert record.transition("input_required", "Waiting") is True
    assert record.transition("input_required", "Waiting") is False
    assert record.transition("cancelled", "Stopped") is True
    assert record.transition("completed", "Done") is False
    record.set_message("late news")
    assert (record.status, record.status_message) == ("cancelled", "Stopped")
    assert record.wire()["ttl"] == 1_000


def test_store_pages_by_owner_and_purges_expired_records() -> None:
    store = TaskStore()
    mine = [store.new_record("a", ttl_ms=60_000, poll_interval_ms=50) for _ in range(3)]
    theirs = store.new_record("b", ttl_ms=60_000, poll_interval_ms=50)
    for record in [*mine, theirs]:
        store.add(record)
    first, cursor = store.page("a", None, 2)
    assert first == mine[:2] and cursor is not None
    second, end = store.page("a", cursor, 2)
    assert second == mine[2:] and end is None
    assert store.get("a", theirs.task_id) is None
    for bad in ("not-a-cursor", "YWZ0ZXI6eA==", "!!!"):
        with pytest.raises(InvalidCursor):
            store.page("a", bad, 2)
    assert store.purge_expired(mine[0].created_at + 59) == []
    purged = store.purge_expired(theirs.created_at + 61)
    assert {r.task_id for r in purged} == {r.task_id for r in [*mine, theirs]}
    assert all(r.expired for r in purged)
    assert store.page("a", None, 2) == ([], None)


# ------------------------------------------------------------------ protocol fixes


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


def _modern_post(method: str, params: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": method,
        "params": {**params, "_meta": MODERN_META},
    }
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    }
    if name is not None:
        headers["mcp-name"] = name
    return {"body": body, "headers": headers}


@pytest.mark.parametrize(
    ("method", "params", "name"),
    [
        ("tools/list", {}, None),
        ("tools/call", {"name": "lookup_weather", "arguments": {"city": "Oslo"}}, "lookup_weather"),
        ("tools/call", {"name": "build_report", "arguments": {}, "task": {}}, "build_report"),
        ("tools/call", {"name": "deploy_release", "arguments": {}}, "deploy_release"),
        ("tasks/list", {}, None),
    ],
)
async def test_http_modern_requests_are_refused_with_the_handshake_versions(
    http_url: str, method: str, params: dict[str, Any], name: str | None
) -> None:
    """Only `server/discover` gets -32601; the SDK would otherwise serve the rest statelessly
    (a legacy `CreateTaskResult` without `resultType`, questions with no back-channel)."""
    request = _modern_post(method, params, name)
    async with httpx.AsyncClient(timeout=10) as http:
        response = await http.post(http_url, json=request["body"], headers=request["headers"])
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == "2026-07-28"
    assert "2025-11-25" in error["data"]["supported"]
    assert "2026-07-28" not in error["data"]["supported"]


async def _stdio_exchange(messages: list[dict[str, Any]], *extra: str) -> list[dict[str, Any]]:
    """Send each message to a fresh stdio legacy server; return the reply to each request."""
    command = stdio_demo_command("legacy", *FAST, *extra)
    replies: list[dict[str, Any]] = []
    async with await anyio.open_process(command, cwd=REPO_ROOT) as process:
        assert process.stdin is not None and process.stdout is not None
        lines = anyio.streams.text.TextReceiveStream(process.stdout)
        buffer = ""
        for message in messages:
            await process.stdin.send((json.dumps(message) + "\n").encode())
            if "id" not in message:
                continue
            with anyio.fail_after(20):
                while "\n" not in buffer:
                    buffer += await lines.receive()
            line, buffer = buffer.split("\n", 1)
            replies.append(dict(json.loads(line)))
        await process.stdin.aclose()
    return replies


INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 10,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


async def test_stdio_modern_requests_are_refused_but_discover_is_method_not_found() -> None:
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": MODERN_META}}
    discover = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "server/discover",
        "params": {"_meta": MODERN_META},
    }
    refused, not_found = await _stdio_exchange([listing, discover])
    assert refused["error"]["code"] == -32022
    assert refused["error"]["data"]["requested"] == "2026-07-28"
    assert not_found["error"]["code"] == -32601


async def test_stdio_task_augmented_call_before_initialize_is_refused_and_creates_nothing() -> None:
    early = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "migrate_database", "arguments": {}, "task": {}},
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    listing = {"jsonrpc": "2.0", "id": 11, "method": "tasks/list", "params": {}}
    refused, init, tasks = await _stdio_exchange([early, INITIALIZE, initialized, listing])
    assert refused["error"]["code"] == -32602
    assert init["result"]["protocolVersion"] == "2025-11-25"
    assert tasks["result"]["tasks"] == []


async def _raw_legacy_session(
    http: httpx.AsyncClient, url: str, capabilities: dict[str, Any]
) -> dict[str, str]:
    """Initialize a raw HTTP session declaring `capabilities`; return its request headers."""
    headers = {"accept": "application/json, text/event-stream"}
    init = {**INITIALIZE, "params": {**INITIALIZE["params"], "capabilities": capabilities}}
    response = await http.post(url, json=init, headers=headers)
    headers["mcp-session-id"] = response.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-11-25"
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await http.post(url, json=initialized, headers=headers)
    return headers


async def test_questions_the_client_cannot_answer_are_never_sent(http_url: str) -> None:
    """Form-only elicitation (`elicitation: {}`), no sampling, no roots: the URL elicitation,
    the sampling request and `roots/list` are not sent (the call would hang on them: nobody
    answers here), and the jobs carry on as if refused."""
    expected = {
        "connect_account": "Account not linked (cancel).",
        "summarize_text": "The client declined to sample.",
        "index_workspace": "No roots were given; nothing indexed.",
    }
    async with httpx.AsyncClient(timeout=10) as http:
        headers = await _raw_legacy_session(http, http_url, {"elicitation": {}})
        for request_id, (tool, text) in enumerate(expected.items(), start=20):
            call = {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": tool, "arguments": {}},
            }
            response = await http.post(http_url, json=call, headers=headers)
            assert '"method":"elicitation/create"' not in response.text.replace(" ", "")
            assert _sse_json(response)["result"]["content"][0]["text"] == text
        task_call = {
            "jsonrpc": "2.0",
            "id": 30,
            "method": "tools/call",
            "params": {"name": "summarize_text", "arguments": {}, "task": {}},
        }
        created = _sse_json(await http.post(http_url, json=task_call, headers=headers))
        task_id = created["result"]["task"]["taskId"]
        result_call = {
            "jsonrpc": "2.0",
            "id": 31,
            "method": "tasks/result",
            "params": {"taskId": task_id},
        }
        response = await http.post(http_url, json=result_call, headers=headers)
        assert "sampling/createMessage" not in response.text
        assert _sse_json(response)["result"]["isError"] is True


# ------------------------------------------------------------------ conformance fixtures


async def test_conformance_flag_adds_the_everything_server_tools() -> None:
    with start_http_demo("legacy", *FAST, "--conformance") as (url, _):
        async with legacy_probe(http_transport(url)) as probe:
            tools = {tool["name"]: tool for tool in (await probe.call("tools/list", {}))["tools"]}
            assert {"test_simple_text", "test_sampling", "json_schema_2020_12_tool"} <= set(tools)
            assert "greet" not in tools and "slow_compute" not in tools
            schema = tools["json_schema_2020_12_tool"]["inputSchema"]
            assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
            assert schema["$defs"]["address"]["$anchor"] == "addressDef"
            assert schema["additionalProperties"] is False

            text = await probe.call("tools/call", {"name": "test_simple_text"})
            assert text["content"] == [
                {"type": "text", "text": "This is a simple text response for testing."}
            ]
            mixed = await probe.call("tools/call", {"name": "test_multiple_content_types"})
            assert [block["type"] for block in mixed["content"]] == ["text", "image", "resource"]
            error = await probe.call("tools/call", {"name": "test_error_handling"})
            assert error["isError"] is True

            await probe.call(
                "tools/call",
                {"name": "test_tool_with_progress", "_meta": {"progressToken": "conf-1"}},
            )
            progress = [
                p["progress"]
                for p in probe.notifications("notifications/progress")
                if p["progressToken"] == "conf-1"
            ]
            assert progress == [0, 50, 100]

            sampled = await probe.call(
                "tools/call", {"name": "test_sampling", "arguments": {"prompt": "Hi"}}
            )
            text_block = sampled["content"][0]["text"]
            assert text_block == "LLM response: Servers run jobs; clients poll."
            await probe.call("tools/call", {"name": "test_elicitation_sep1330_enums"})
            asked = [f for f in probe.frames if f.get("method") == "elicitation/create"][-1]
            properties = asked["params"]["requestedSchema"]["properties"]
            assert set(properties) == {
                "untitledSingle",
                "titledSingle",
                "legacyEnum",
                "untitledMulti",
                "titledMulti",
            }


async def test_default_catalogue_has_no_conformance_tools(http_url: str) -> None:
    async with legacy_probe(http_transport(http_url)) as probe:
        names = {tool["name"] for tool in (await probe.call("tools/list", {}))["tools"]}
    assert not {name for name in names if name.startswith("test_")}
