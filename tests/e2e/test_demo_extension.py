"""The extension-wire demo server (SEP-2663) as a real subprocess, over Streamable HTTP and stdio.

HTTP tests speak raw JSON-RPC with httpx (envelope `_meta` and `Mcp-*` headers written by hand) so
every key and status code is checked exactly; stdio tests drive the server with the official `mcp`
client, as an independent implementation of the wire. Every server runs at `--speed 20` with a
50 ms poll hint, and the tests poll no faster than that hint.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any, Literal

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.client import ClaimContext, Client, ClientExtension, ClientRequestContext, ResultClaim
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from tests.support.demo_servers import REPO_ROOT, SharedServers, start_http_demo, stdio_demo_command

pytestmark = pytest.mark.timeout(60)

TASKS = "io.modelcontextprotocol/tasks"
FAST = ("--speed", "20", "--poll-interval-ms", "50")
RAW = TypeAdapter(dict[str, Any])
UNSET: Any = object()
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
}


# --------------------------------------------------------------------------- raw HTTP client


class ModernHttp:
    """A hand-rolled 2026-07-28 client: every request carries the envelope and routing headers."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.Client(timeout=10)
        self.next_id = 0

    def post(
        self,
        method: str,
        params: dict[str, Any],
        *,
        declare: bool = True,
        name: str | None = UNSET,
        capabilities: dict[str, Any] | None = None,
    ) -> httpx.Response:
        """POST one request; `name` overrides the `Mcp-Name` header (None leaves it out) and
        `capabilities` the declared client capabilities (the tasks extension is added unless
        `declare` is False)."""
        if capabilities is None:
            capabilities = {"elicitation": {"form": {}, "url": {}}}
        if declare:
            capabilities = {**capabilities, "extensions": {TASKS: {}}}
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "taskscope-tests", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }
        headers = {
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": method,
            "Accept": "application/json, text/event-stream",
        }
        if name is UNSET:
            name = params.get("taskId") or params.get("name")
        if name is not None:
            headers["Mcp-Name"] = name
        self.next_id += 1
        body = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": method,
            "params": {**params, "_meta": meta},
        }
        return self.http.post(self.url, json=body, headers=headers)

    def result(self, method: str, params: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        response = self.post(method, params, **kwargs)
        body = response.json()
        assert response.status_code == 200 and "error" not in body, body
        result: dict[str, Any] = body["result"]
        return result

    def error(
        self, method: str, params: dict[str, Any], **kwargs: Any
    ) -> tuple[int, dict[str, Any]]:
        response = self.post(method, params, **kwargs)
        body = response.json()
        assert "error" in body, body
        return response.status_code, body["error"]

    def call(
        self, tool: str, arguments: dict[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self.result("tools/call", {"name": tool, "arguments": arguments or {}}, **kwargs)

    def create(self, tool: str, arguments: dict[str, Any] | None = None) -> str:
        created = self.call(tool, arguments)
        assert created["resultType"] == "task", created
        task_id: str = created["taskId"]
        return task_id

    def get(self, task_id: str) -> dict[str, Any]:
        return self.result("tasks/get", {"taskId": task_id})

    def wait(self, task_id: str, *statuses: str, timeout: float = 10.0) -> dict[str, Any]:
        """Poll `tasks/get` at the server's hint until the status is one of `statuses`."""
        deadline = time.monotonic() + timeout
        while True:
            task = self.get(task_id)
            if task["status"] in statuses:
                return task
            assert time.monotonic() < deadline, f"still {task['status']}: {task}"
            time.sleep(task["pollIntervalMs"] / 1000)

    def update(self, task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
        """Send `tasks/update`; return the ack without its `serverInfo` `_meta`."""
        ack = self.result("tasks/update", {"taskId": task_id, "inputResponses": responses})
        return without_meta(ack)


def without_meta(result: dict[str, Any]) -> dict[str, Any]:
    """`result` without the `_meta` stamp every 2026 result carries."""
    return {key: value for key, value in result.items() if key != "_meta"}


@pytest.fixture(scope="module")
def http_url(shared_servers: SharedServers) -> str:
    return shared_servers.demo("extension", *FAST)


@pytest.fixture
def raw(http_url: str) -> Iterator[ModernHttp]:
    client = ModernHttp(http_url)
    yield client
    client.http.close()


def approval_and_window(requests: dict[str, Any]) -> tuple[str, str]:
    """The keys of `deploy_release`'s two questions, told apart by their schemas."""
    by_property = {
        next(iter(request["params"]["requestedSchema"]["properties"])): key
        for key, request in requests.items()
    }
    return by_property["approve"], by_property["window"]


APPROVE = {"action": "accept", "content": {"approve": True}}
NOW = {"action": "accept", "content": {"window": "now"}}


# --------------------------------------------------------------------------- HTTP: lifecycle


def test_discover_advertises_the_extension_and_lists_the_catalogue(raw: ModernHttp) -> None:
    discovered = raw.result("server/discover", {})
    assert discovered["capabilities"]["extensions"] == {TASKS: {}}
    assert "2026-07-28" in discovered["supportedVersions"]
    tools = {tool["name"]: tool for tool in raw.result("tools/list", {})["tools"]}
    assert "fetch_quote" in tools and "nightly_backup" not in tools
    assert tools["analyze_logs"]["outputSchema"]["required"] == ["errors", "warnings", "top_source"]
    assert all("execution" not in tool for tool in tools.values())


def test_task_is_created_flat_durable_and_completes_with_the_result_inline(raw: ModernHttp) -> None:
    created = raw.call("build_report", {"quarter": "Q2"})
    assert created["resultType"] == "task"
    assert {"task", "result", "error", "ttl", "pollInterval"}.isdisjoint(created)
    assert created["status"] == "working"
    assert created["ttlMs"] == 600_000 and created["pollIntervalMs"] == 50
    assert len(created["taskId"]) >= 20
    first = raw.get(created["taskId"])
    assert first["resultType"] == "complete" and first["status"] in {"working", "completed"}
    done = raw.wait(created["taskId"], "completed", "failed")
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"].startswith("Report for Q2")
    assert "_meta" not in done["result"]
    assert {"ttl", "pollInterval", "inputRequests", "error"}.isdisjoint(done)


def test_tool_with_output_schema_runs_as_a_task(raw: ModernHttp) -> None:
    done = raw.wait(raw.create("analyze_logs"), "completed")
    assert done["result"]["structuredContent"] == {
        "errors": 3,
        "warnings": 17,
        "top_source": "api-gateway",
    }


def test_protocol_error_fails_the_task_with_the_error_inline(raw: ModernHttp) -> None:
    failed = raw.wait(raw.create("sync_inventory"), "completed", "failed")
    assert failed["status"] == "failed"
    assert failed["error"] == {
        "code": -32603,
        "message": "Inventory service unavailable: upstream returned 502",
    }
    assert "result" not in failed
    assert "502" in failed["statusMessage"]


def test_tool_error_is_a_completed_task_with_is_error(raw: ModernHttp) -> None:
    done = raw.wait(raw.create("validate_config"), "completed", "failed")
    assert done["status"] == "completed"
    assert done["result"]["isError"] is True
    assert "error" not in done


def test_two_questions_answered_in_one_update(raw: ModernHttp) -> None:
    task_id = raw.create("deploy_release", {"version": "3.1"})
    waiting = raw.wait(task_id, "input_required")
    approval, window = approval_and_window(waiting["inputRequests"])
    assert approval.startswith(f"{task_id}:") and approval != window
    assert raw.update(task_id, {approval: APPROVE, window: NOW}) == {"resultType": "complete"}
    done = raw.wait(task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Release 3.1 scheduled: now."


def test_two_questions_answered_one_at_a_time(raw: ModernHttp) -> None:
    task_id = raw.create("deploy_release", {"version": "3.2"})
    approval, window = approval_and_window(raw.wait(task_id, "input_required")["inputRequests"])
    raw.update(task_id, {approval: APPROVE})
    partial = raw.get(task_id)
    assert partial["status"] == "input_required"
    assert list(partial["inputRequests"]) == [window]
    raw.update(task_id, {window: {"action": "accept", "content": {"window": "weekend"}}})
    done = raw.wait(task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Release 3.2 scheduled: weekend."


def test_input_keys_repeat_until_answered_and_stale_keys_are_ignored(raw: ModernHttp) -> None:
    task_id = raw.create("provision_server")
    first = raw.wait(task_id, "input_required")["inputRequests"]
    assert raw.get(task_id)["inputRequests"] == first  # same snapshot on every poll
    (key,) = first
    assert raw.update(task_id, {f"{task_id}:0000000000000000": {"action": "decline"}}) == {
        "resultType": "complete"
    }
    assert raw.get(task_id)["inputRequests"] == first
    raw.update(task_id, {key: {"action": "decline"}})
    raw.update(task_id, {key: {"action": "accept", "content": {"hostname": "late"}}})
    done = raw.wait(task_id, "completed")
    assert "inputRequests" not in done
    assert done["result"]["content"][0]["text"] == "Provisioning abandoned (decline)."


def test_cancel_is_acknowledged_then_the_task_is_cancelled(raw: ModernHttp) -> None:
    task_id = raw.create("migrate_database", {"tables": 500})
    ack = raw.result("tasks/cancel", {"taskId": task_id})
    assert without_meta(ack) == {"resultType": "complete"}
    cancelled = raw.wait(task_id, "cancelled", "completed", "failed")
    assert cancelled["status"] == "cancelled"
    assert {"result", "error", "inputRequests"}.isdisjoint(cancelled)


def test_cancel_of_a_finished_task_is_the_same_ack_and_changes_nothing(raw: ModernHttp) -> None:
    task_id = raw.create("validate_config")
    raw.wait(task_id, "completed")
    ack = raw.result("tasks/cancel", {"taskId": task_id})
    assert without_meta(ack) == {"resultType": "complete"}
    assert raw.get(task_id)["status"] == "completed"


def test_cancel_while_waiting_for_input(raw: ModernHttp) -> None:
    task_id = raw.create("connect_account")
    raw.wait(task_id, "input_required")
    raw.result("tasks/cancel", {"taskId": task_id})
    assert raw.wait(task_id, "cancelled")["status"] == "cancelled"


# --------------------------------------------------------------------------- HTTP: errors


@pytest.mark.parametrize("method", ["tasks/get", "tasks/cancel", "tasks/update"])
def test_unknown_task_id_is_invalid_params(raw: ModernHttp, method: str) -> None:
    params: dict[str, Any] = {"taskId": "no-such-task"}
    if method == "tasks/update":
        params["inputResponses"] = {}
    status, error = raw.error(method, params)
    assert error["code"] == -32602 and error["message"] == "Task not found"
    assert status == 400


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tasks/list", {}),
        ("tasks/result", {"taskId": "x"}),
        ("subscriptions/listen", {"notifications": {"taskIds": ["x"]}}),
    ],
)
def test_list_result_and_listen_do_not_exist(
    raw: ModernHttp, method: str, params: dict[str, Any]
) -> None:
    _status, error = raw.error(method, params, name=None)
    assert error["code"] == -32601


def test_tasks_methods_need_the_extension_declared_on_the_request(raw: ModernHttp) -> None:
    task_id = raw.create("validate_config")
    status, error = raw.error("tasks/get", {"taskId": task_id}, declare=False)
    assert status == 400 and error["code"] == -32021
    assert error["data"]["requiredCapabilities"]["extensions"] == {TASKS: {}}


def test_mcp_name_must_carry_the_task_id(raw: ModernHttp) -> None:
    task_id = raw.create("validate_config")
    status, error = raw.error("tasks/get", {"taskId": task_id}, name="someone-else")
    assert status == 400 and error["code"] == -32020
    assert raw.get(task_id)["taskId"] == task_id


@pytest.mark.parametrize("method", ["tasks/get", "tasks/cancel", "tasks/update"])
def test_tasks_methods_without_mcp_name_are_a_header_mismatch(raw: ModernHttp, method: str) -> None:
    """SEP-2663 makes the task id a routing name, and SEP-2243 rejects a missing one (-32020)."""
    task_id = raw.create("provision_server")
    params: dict[str, Any] = {"taskId": task_id}
    if method == "tasks/update":
        params["inputResponses"] = {}
    status, error = raw.error(method, params, name=None)
    assert status == 400 and error["code"] == -32020
    assert raw.get(task_id)["status"] != "cancelled"
    raw.result("tasks/cancel", {"taskId": task_id})


def test_mcp_name_header_name_is_case_insensitive_and_its_value_is_trimmed(
    raw: ModernHttp,
) -> None:
    """Written on a bare socket: httpx refuses to send a header value with edge whitespace."""
    task_id = raw.create("validate_config")
    body = {
        "jsonrpc": "2.0",
        "id": 99,
        "method": "tasks/get",
        "params": {"taskId": task_id, "_meta": ENVELOPE},
    }
    url = httpx.URL(raw.url)
    payload = json.dumps(body).encode()
    head = (
        f"POST {url.path} HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        "mcp-protocol-version: 2026-07-28\r\nMCP-METHOD: tasks/get\r\n"
        f"mcp-NAME: \t {task_id}  \r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection((url.host, url.port or 80), timeout=10) as sock:
        sock.sendall(head.encode() + payload)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    assert b" 200 " in status_line, reply
    answer = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert answer["result"]["taskId"] == task_id


# ------------------------------------------------------------------ HTTP: synchronous answers


def test_lookup_weather_answers_synchronously_even_to_a_declaring_client(raw: ModernHttp) -> None:
    answer = raw.call("lookup_weather", {"city": "Porto"})
    assert answer["resultType"] == "complete"
    assert answer["content"][0]["text"].startswith("Porto:")


def test_cached_quote_answers_synchronously(raw: ModernHttp) -> None:
    symbol = f"T{time.monotonic_ns() % 10_000_000}"
    first = raw.call("fetch_quote", {"symbol": symbol})
    assert first["resultType"] == "task"
    raw.wait(first["taskId"], "completed")
    second = raw.call("fetch_quote", {"symbol": symbol})
    assert second["resultType"] == "complete"
    assert second["content"][0]["text"] == f"{symbol}: 123.45 USD"


def test_without_the_extension_tools_run_synchronously(raw: ModernHttp) -> None:
    answer = raw.call("validate_config", declare=False)
    assert answer["resultType"] == "complete" and answer["isError"] is True


def test_without_the_extension_migrate_database_needs_a_task(raw: ModernHttp) -> None:
    status, error = raw.error(
        "tools/call", {"name": "migrate_database", "arguments": {}}, declare=False
    )
    assert status == 400 and error["code"] == -32021
    assert error["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}


def test_without_the_extension_questions_use_mrtr(raw: ModernHttp) -> None:
    first = raw.call("deploy_release", {"version": "4.0"}, declare=False)
    assert first["resultType"] == "input_required"
    assert set(first["inputRequests"]) == {"approval", "window"}
    final = raw.result(
        "tools/call",
        {
            "name": "deploy_release",
            "arguments": {"version": "4.0"},
            "inputResponses": {"approval": APPROVE, "window": NOW},
        },
        declare=False,
    )
    assert final["content"][0]["text"] == "Release 4.0 scheduled: now."


def test_bad_input_does_not_crash_the_server(raw: ModernHttp) -> None:
    _status, error = raw.error("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert error["code"] == -32602
    _status, error = raw.error("tasks/update", {"taskId": "x", "inputResponses": "nope"})
    assert error["code"] == -32602
    failed = raw.wait(raw.create("migrate_database", {"tables": "many"}), "failed")
    assert failed["error"]["code"] == -32603
    assert raw.call("lookup_weather")["resultType"] == "complete"


def test_cancel_is_visible_on_the_very_next_get(raw: ModernHttp) -> None:
    task_id = raw.create("migrate_database", {"tables": 500})
    raw.result("tasks/cancel", {"taskId": task_id})
    cancelled = raw.get(task_id)
    assert cancelled["status"] == "cancelled"
    assert cancelled["statusMessage"] == "Cancelled by request."


@pytest.mark.parametrize(
    ("tool", "capabilities", "required"),
    [
        ("summarize_text", {"elicitation": {}}, {"sampling": {}}),
        ("index_workspace", {"sampling": {}}, {"roots": {}}),
        ("connect_account", {"elicitation": {"form": {}}}, {"elicitation": {"url": {}}}),
        ("deploy_release", {}, {"elicitation": {}}),
    ],
)
def test_task_never_asks_what_the_creating_request_did_not_declare(
    raw: ModernHttp, tool: str, capabilities: dict[str, Any], required: dict[str, Any]
) -> None:
    """The synchronous path answers -32021 for these; a task fails with the same error instead
    of parking on a question the client declared it cannot answer."""
    created = raw.result("tools/call", {"name": tool, "arguments": {}}, capabilities=capabilities)
    assert created["resultType"] == "task"
    failed = raw.wait(created["taskId"], "failed", "completed", "input_required")
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == -32021
    assert failed["error"]["data"] == {"requiredCapabilities": required}
    assert "inputRequests" not in failed and "result" not in failed


# --------------------------------------------------------------------------- HTTP: pacing and TTL


def test_every_third_get_is_rate_limited_with_retry_after() -> None:
    with start_http_demo("extension", *FAST, "--rate-limit-every", "3", "--retry-after", "2") as (
        url,
        _process,
    ):
        raw = ModernHttp(url)
        task_id = raw.create("validate_config")
        responses = [raw.post("tasks/get", {"taskId": task_id}) for _ in range(6)]
        assert [response.status_code for response in responses] == [200, 200, 429, 200, 200, 429]
        limited = responses[2]
        assert limited.headers["Retry-After"] == "2"
        assert limited.json()["error"]["code"] == -32000
        assert raw.post("tasks/cancel", {"taskId": task_id}).status_code == 200


def test_task_is_purged_after_its_ttl() -> None:
    with start_http_demo("extension", *FAST, "--ttl-ms", "1000") as (url, _process):
        raw = ModernHttp(url)
        created = raw.call("validate_config")
        assert created["ttlMs"] == 1000
        assert raw.get(created["taskId"])["taskId"] == created["taskId"]
        time.sleep(1.3)
        _status, error = raw.error("tasks/get", {"taskId": created["taskId"]})
        assert error["code"] == -32602


def test_expiry_sweep_forgets_the_older_task_and_keeps_the_younger() -> None:
    with start_http_demo("extension", *FAST, "--ttl-ms", "1000") as (url, _process):
        raw = ModernHttp(url)
        older = raw.call("validate_config")["taskId"]
        time.sleep(0.6)
        younger = raw.call("validate_config")["taskId"]
        time.sleep(0.6)
        assert raw.get(younger)["taskId"] == younger
        _status, error = raw.error("tasks/get", {"taskId": older})
        assert error["code"] == -32602
        assert raw.get(younger)["taskId"] == younger


# --------------------------------------------------------------------------- --conformance


@pytest.fixture(scope="module")
def conformance_url(shared_servers: SharedServers) -> str:
    return shared_servers.demo("extension", *FAST, "--conformance")


@pytest.fixture
def conf(conformance_url: str) -> Iterator[ModernHttp]:
    client = ModernHttp(conformance_url)
    yield client
    client.http.close()


def test_conformance_fixtures_are_listed_only_with_the_flag(
    raw: ModernHttp, conf: ModernHttp
) -> None:
    fixtures = {
        "greet",
        "slow_compute",
        "confirm_delete",
        "multi_input",
        "failing_job",
        "protocol_error_job",
        "test_tool_with_task",
    }
    listed = {tool["name"] for tool in conf.result("tools/list", {})["tools"]}
    assert fixtures <= listed and "build_report" in listed
    assert "test_sampling" not in listed  # legacy-wire only
    default = {tool["name"] for tool in raw.result("tools/list", {})["tools"]}
    assert not fixtures & default


def test_greet_is_never_a_task_even_with_the_legacy_task_hint(conf: ModernHttp) -> None:
    params = {"name": "greet", "arguments": {"name": "sep-2243"}, "task": {"ttl": 60000}}
    answer = conf.result("tools/call", params)
    assert answer["resultType"] == "complete" and "taskId" not in answer
    assert answer["content"][0]["text"] == "Hello, sep-2243!"


def test_slow_compute_is_a_task_with_the_extension_and_synchronous_without(
    conf: ModernHttp,
) -> None:
    sync = conf.call("slow_compute", {"seconds": 0}, declare=False)
    assert sync["resultType"] == "complete" and sync["content"]
    task_id = conf.create("slow_compute", {"seconds": 60, "label": "x"})
    assert conf.result("tasks/cancel", {"taskId": task_id})["resultType"] == "complete"
    assert conf.wait(task_id, "cancelled", "completed", "failed")["status"] == "cancelled"
    done = conf.wait(conf.create("slow_compute", {"seconds": 1}), "completed")
    assert done["result"]["content"][0]["text"] == "Computed slow_compute in 1 s."


def test_failing_job_needs_the_extension_and_completes_with_is_error(conf: ModernHttp) -> None:
    status, error = conf.error(
        "tools/call", {"name": "failing_job", "arguments": {}}, declare=False
    )
    assert status == 400 and error["code"] == -32021
    assert error["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    done = conf.wait(conf.create("failing_job"), "completed", "failed")
    assert done["status"] == "completed" and done["result"]["isError"] is True


def test_protocol_error_job_fails_with_the_error_inline(conf: ModernHttp) -> None:
    failed = conf.wait(conf.create("protocol_error_job"), "completed", "failed")
    assert failed["status"] == "failed" and "result" not in failed
    assert failed["error"]["code"] == -32603


def test_multi_input_is_answered_one_key_at_a_time(conf: ModernHttp) -> None:
    task_id = conf.create("multi_input")
    first, second = conf.wait(task_id, "input_required")["inputRequests"]
    answer = {"action": "accept", "content": {"name": "partial-1", "confirm": True}}
    conf.update(task_id, {first: answer})
    partial = conf.get(task_id)
    assert partial["status"] == "input_required" and list(partial["inputRequests"]) == [second]
    conf.update(task_id, {second: answer})
    assert conf.wait(task_id, "completed")["status"] == "completed"


def test_confirm_delete_acks_unknown_keys_then_completes(conf: ModernHttp) -> None:
    task_id = conf.create("confirm_delete", {"filename": "rt.txt"})
    (key,) = conf.wait(task_id, "input_required")["inputRequests"]
    assert conf.update(task_id, {"unknown-key": {"ignored": True}}) == {"resultType": "complete"}
    conf.update(task_id, {key: {"action": "accept", "content": {"confirm": True}}})
    done = conf.wait(task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Deleted rt.txt."


def test_tool_with_task_asks_synchronously_then_becomes_a_task(conf: ModernHttp) -> None:
    first = conf.call("test_tool_with_task")
    assert first["resultType"] == "input_required" and "taskId" not in first
    (key,) = first["inputRequests"]
    assert first["inputRequests"][key]["method"] == "elicitation/create"
    params = {
        "name": "test_tool_with_task",
        "arguments": {},
        "inputResponses": {key: {"action": "accept", "content": {"name": "Alice"}}},
    }
    created = conf.result("tools/call", params)
    assert created["resultType"] == "task"
    assert {"requestState", "inputRequests"}.isdisjoint(created)
    done = conf.wait(created["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "Hello, Alice!"
    status, error = conf.error(
        "tools/call", {"name": "test_tool_with_task", "arguments": {}}, declare=False
    )
    assert status == 400 and error["code"] == -32021


# ------------------------------------------------------------------ stdio, official SDK client


class CreatedTask(types.Result):
    """SEP-2663 `CreateTaskResult` as the SDK client's claim model."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class TaskIdRequest(types.Request[dict[str, Any], str]):
    """`tasks/*` with `taskId` mirrored into `Mcp-Name`."""

    name_param = "taskId"


async def tasks_request(client: Client, method: str, **params: Any) -> dict[str, Any]:
    request = TaskIdRequest(method=method, params=params)
    return await client.session.send_request(request, RAW)


async def final_status(client: Client, task_id: str) -> str:
    """Poll `tasks/get` at the server's hint until the task is terminal; return its status."""
    for _ in range(200):
        task = await tasks_request(client, "tasks/get", taskId=task_id)
        if task["status"] in {"completed", "failed", "cancelled"}:
            return str(task["status"])
        await anyio.sleep(task["pollIntervalMs"] / 1000)
    raise AssertionError(f"task {task_id} never finished")


async def resolve_task(created: CreatedTask, context: ClaimContext) -> types.CallToolResult:
    """Poll the task at its hint, answering questions once each through the client's callbacks."""
    session, asked = context.session, set[str]()
    with anyio.fail_after(20):
        while True:
            request = TaskIdRequest(method="tasks/get", params={"taskId": created.task_id})
            task = await session.send_request(request, RAW)
            if task["status"] == "completed":
                return types.CallToolResult.model_validate(task["result"])
            assert task["status"] not in {"failed", "cancelled"}, task
            fresh = {k: v for k, v in (task.get("inputRequests") or {}).items() if k not in asked}
            responses = {}
            for key, raw_request in fresh.items():
                asked.add(key)
                input_request = TypeAdapter(types.InputRequest).validate_python(raw_request)
                ctx = ClientRequestContext(session=session, request_id=key, meta=None)
                answer = await session.dispatch_input_request(ctx, input_request)
                responses[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
            if responses:
                update = {"taskId": created.task_id, "inputResponses": responses}
                await session.send_request(TaskIdRequest(method="tasks/update", params=update), RAW)
            await anyio.sleep((task.get("pollIntervalMs") or 1000) / 1000)


class TasksClientExtension(ClientExtension):
    """Declares the tasks extension and resolves `CreateTaskResult`s by polling."""

    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=resolve_task)]


async def answer_deploy(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """Approve every rollout, tonight."""
    if "Approve" in params.message:
        return types.ElicitResult(action="accept", content={"approve": True})
    return types.ElicitResult(action="accept", content={"window": "tonight"})


def stdio_server() -> StdioServerParameters:
    command = stdio_demo_command("extension", *FAST)
    return StdioServerParameters(command=command[0], args=command[1:], cwd=REPO_ROOT)


async def test_sdk_client_over_stdio_runs_tasks_with_input() -> None:
    async with Client(
        stdio_server(), extensions=[TasksClientExtension()], elicitation_callback=answer_deploy
    ) as client:
        assert client.protocol_version == "2026-07-28"
        assert client.server_capabilities is not None
        assert client.server_capabilities.extensions == {TASKS: {}}
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["analyze_logs"].output_schema is not None

        deployed = await client.call_tool("deploy_release", {"version": "5.0"})
        assert deployed.content[0].text == "Release 5.0 scheduled: tonight."  # type: ignore[union-attr]

        created = await client.session.call_tool("analyze_logs", {}, allow_claimed=True)
        assert isinstance(created, CreatedTask) and created.status == "working"
        logs = await resolve_task(
            created,
            ClaimContext(
                session=client.session, tool_name="analyze_logs", read_timeout_seconds=None
            ),
        )
        assert logs.structured_content == {"errors": 3, "warnings": 17, "top_source": "api-gateway"}

        weather = await client.session.call_tool(
            "lookup_weather", {"city": "Oslo"}, allow_claimed=True
        )
        assert isinstance(weather, types.CallToolResult)

        migration = await client.session.call_tool(
            "migrate_database", {"tables": 500}, allow_claimed=True
        )
        assert isinstance(migration, CreatedTask)
        ack = await tasks_request(client, "tasks/cancel", taskId=migration.task_id)
        assert ack["resultType"] == "complete"
        assert await final_status(client, migration.task_id) == "cancelled"

        with pytest.raises(MCPError) as unknown:
            await tasks_request(client, "tasks/get", taskId="nope")
        assert unknown.value.error.code == -32602


async def test_sdk_client_over_stdio_without_the_extension() -> None:
    async with Client(stdio_server(), elicitation_callback=answer_deploy) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("migrate_database", {})
        assert refused.value.error.code == -32021
        deployed = await client.call_tool(
            "deploy_release", {"version": "5.1"}
        )  # MRTR, driven by the SDK
        assert deployed.content[0].text == "Release 5.1 scheduled: tonight."  # type: ignore[union-attr]
        report = await client.call_tool("build_report", {"quarter": "Q4"})
        assert report.content[0].text.startswith("Report for Q4")  # type: ignore[union-attr]


async def test_legacy_era_client_gets_plain_synchronous_tools() -> None:
    async with Client(stdio_server(), mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        assert client.server_capabilities is not None
        assert not client.server_capabilities.extensions
        report = await client.call_tool("build_report", {"quarter": "Q1"})
        assert report.content[0].text.startswith("Report for Q1")  # type: ignore[union-attr]
        with pytest.raises(MCPError) as missing:
            await tasks_request(client, "tasks/get", taskId="x")
        assert missing.value.error.code == -32601
