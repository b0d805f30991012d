"""Withholding client capabilities (`--withhold`, `--client-capabilities`) from the demo servers
over stdio, as a user would to see a server's fallback for a client that can do less.

Extension wire: without the per-request declaration a task-required tool answers -32021 (printed
with its data, the missing extension named, exit 1), an optional one answers at once, and
`tasks/get` answers -32021. Legacy wire: no `params.task` is sent, so a task-required tool answers
-32601 and an optional one at once; what `initialize` declares loses what is withheld.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from app.engine.tasks.protocol_keys import TASKS_EXTENSION
from tests.support.cli_helpers import Run, run_cli

pytestmark = pytest.mark.timeout(120)

WITHHOLD_TASKS = ("--withhold", "tasks")
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


def fast_demo(wire: str) -> tuple[str, str]:
    """The `--command` of a demo server of `wire` at 20 times its speed (build_report takes
    3 s of demo time)."""
    return ("--command", f"{sys.executable} -m app.demo --wire {wire} --speed 20")


def call_withholding_tasks(demo: str, tool: str, *extra: str) -> Run:
    """`tools call` of `tool` on the `--demo` server of `demo`, with tasks withheld."""
    return run_cli("tools", "call", "--demo", demo, *WITHHOLD_TASKS, "--tool-name", tool, *extra)


def sent(trace: Path, method: str) -> list[dict[str, Any]]:
    """The params of every `method` request the trace shows going out."""
    frames = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    return [
        frame["message"].get("params") or {}
        for frame in frames
        if frame["direction"] == "out" and frame["method"] == method
    ]


# -- extension wire -------------------------------------------------------------------------------


@pytest.mark.parametrize("as_task", [True, False], ids=["task", "plain"])
def test_a_task_required_tool_answers_the_missing_extension(tmp_path: Path, as_task: bool) -> None:
    trace = tmp_path / "frames.ndjson"
    task = ("--task",) if as_task else ()
    run = call_withholding_tasks(
        "extension", "migrate_database", *task, "--trace-frames", str(trace)
    )
    assert run.code == 1, run.stderr
    error = run.error
    assert error["code"] == "RPC_ERROR"
    details = error["details"]
    assert details["code"] == -32021
    assert details["data"] == {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}
    assert details["missing"] == [TASKS_EXTENSION]
    assert "which this run withheld" in details["hint"]
    assert "Traceback" not in run.stderr
    (call,) = sent(trace, "tools/call")
    assert "extensions" not in call["_meta"][CLIENT_CAPABILITIES]


def test_an_optional_tool_asked_for_a_task_answers_synchronously() -> None:
    run = call_withholding_tasks("extension", "lookup_weather", "--task")
    assert run.code == 0, run.stderr
    assert "Lisbon" in run.document["content"][0]["text"]
    assert "the server answered synchronously: no task was created" in run.stderr


def test_a_tool_that_runs_as_a_task_falls_back_to_answering_at_once() -> None:
    call = ("tools", "call", *fast_demo("extension"), "--tool-name", "build_report", "--task")
    declared = run_cli(*call)
    assert declared.code == 0, declared.stderr
    assert declared.document["status"] == "task_created"
    withheld = run_cli(*call, *WITHHOLD_TASKS)
    assert withheld.code == 0, withheld.stderr
    assert "Report for Q3" in withheld.document["content"][0]["text"]
    assert "answered synchronously" in withheld.stderr


def test_tasks_get_without_the_declaration_is_refused_with_its_answer() -> None:
    run = run_cli("tasks", "get", "--demo", "extension", *WITHHOLD_TASKS, "--task-id", "t-1")
    assert run.code == 1, run.stderr
    assert run.error["details"]["code"] == -32021
    assert run.error["details"]["missing"] == [TASKS_EXTENSION]


def test_capabilities_show_what_the_client_advertised() -> None:
    run = run_cli("tasks", "capabilities", "--demo", "extension", *WITHHOLD_TASKS)
    assert run.code == 0, run.stderr
    assert run.document["wire"] == "extension"  # the server's side is unchanged
    assert run.document["advertised"] == {
        "capabilities": {"elicitation": {"form": {}, "url": {}}, "sampling": {}},
        "withheld": ["tasks"],
        "declaresTasks": False,
    }


def test_a_replaced_object_is_what_each_request_carries(tmp_path: Path) -> None:
    trace = tmp_path / "frames.ndjson"
    capabilities = tmp_path / "capabilities.json"
    capabilities.write_text(json.dumps({"sampling": {}, "extensions": {TASKS_EXTENSION: {}}}))
    run = run_cli(
        "tools",
        "call",
        "--demo",
        "extension",
        "--client-capabilities",
        f"@{capabilities}",
        "--tool-name",
        "provision_server",
        "--trace-frames",
        str(trace),
    )
    assert run.code == 1, run.stderr
    details = run.error["details"]
    assert details["code"] == -32021 and details["missing"] == ["elicitation"]
    assert "which this run withheld" in details["hint"]
    (discover,) = sent(trace, "server/discover")
    assert discover["_meta"][CLIENT_CAPABILITIES] == json.loads(capabilities.read_text())
    (call,) = sent(trace, "tools/call")  # a plain call never declares the extension
    assert call["_meta"][CLIENT_CAPABILITIES] == {"sampling": {}}


# -- legacy wire ----------------------------------------------------------------------------------


def test_legacy_calls_go_without_params_task(tmp_path: Path) -> None:
    trace = tmp_path / "frames.ndjson"
    run = run_cli(
        "tools",
        "call",
        *fast_demo("legacy"),
        *WITHHOLD_TASKS,
        "--withhold",
        "elicitation",
        "--tool-name",
        "build_report",
        "--task",
        "--trace-frames",
        str(trace),
    )
    assert run.code == 0, run.stderr
    assert "Report for Q3" in run.document["content"][0]["text"]
    assert "answered synchronously" in run.stderr
    (call,) = sent(trace, "tools/call")
    assert "task" not in call
    (initialize,) = sent(trace, "initialize")
    assert initialize["capabilities"] == {"sampling": {}}


def test_a_legacy_task_required_tool_refuses_a_plain_call() -> None:
    run = call_withholding_tasks("legacy", "nightly_backup", "--task")
    assert run.code == 1, run.stderr
    details = run.error["details"]
    assert details["code"] == -32601
    assert details["hint"].startswith("this run withheld tasks")
    capabilities = run_cli("tasks", "capabilities", "--demo", "legacy", *WITHHOLD_TASKS)
    assert capabilities.document["advertised"]["declaresTasks"] is False


def test_check_refuses_to_withhold() -> None:
    run = run_cli("check", "--demo", "extension", *WITHHOLD_TASKS)
    assert run.code == 2
    assert run.error["code"] == "USAGE"
