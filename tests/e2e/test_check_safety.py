"""`taskscope check` is safe by default, proven from the frames it sent (`--trace-frames`): it
calls only the `--tool-name` tool and the official suite's fixture tools the server lists, every
task it created has ended or been cancelled when it ends, and a task it could not cancel is
reported as left behind, end to end."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from app.engine.check.run_state import FIXTURE_TOOLS
from tests.support.cli_helpers import run_cli

pytestmark = pytest.mark.slow

TERMINAL = {"completed", "failed", "cancelled"}


def demo(wire: str, *demo_args: str) -> str:
    return shlex.join([sys.executable, "-m", "app.demo", "--wire", wire, *demo_args])


def refusing(wire: str, *demo_args: str) -> str:
    module = "tests.support.servers.cancel_refusing"
    return shlex.join([sys.executable, "-m", module, "--wire", wire, "--", *demo_args])


def checked(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """Run check with a frame trace: the exit code, the JSON report and every frame."""
    trace = tmp_path / "frames.ndjson"
    run = run_cli(
        "check",
        *args,
        "--format",
        "json",
        "--timeout-ms",
        "8000",
        "--trace-frames",
        str(trace),
        timeout=300,
    )
    assert "Traceback" not in run.stderr, run.stderr
    frames = [json.loads(line) for line in trace.read_text().splitlines()]
    return run.code, json.loads(run.stdout), frames


def sent(frames: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [
        f
        for f in frames
        if f["direction"] == "out" and (f["message"] or {}).get("method") == method
    ]


def answers(frames: list[dict[str, Any]], method: str) -> list[tuple[dict[str, Any], Any]]:
    """Each request of `method` with the message that answered it (None when none did)."""
    replies = {f["exchange"]: f["message"] for f in frames if f["direction"] == "in"}
    return [(f, replies.get(f["exchange"])) for f in sent(frames, method)]


def listed_tools(frames: list[dict[str, Any]]) -> set[str]:
    names: set[str] = set()
    for _, reply in answers(frames, "tools/list"):
        for tool in ((reply or {}).get("result") or {}).get("tools", []):
            names.add(tool["name"])
    return names


def called_tools(frames: list[dict[str, Any]]) -> set[str]:
    return {f["message"]["params"]["name"] for f in sent(frames, "tools/call")}


def created_tasks(frames: list[dict[str, Any]]) -> set[str]:
    """The ids of the tasks the run's tools/calls created (either wire's CreateTaskResult)."""
    made: set[str] = set()
    for _, reply in answers(frames, "tools/call"):
        result = (reply or {}).get("result") or {}
        task = result.get("task") if isinstance(result.get("task"), dict) else result
        if isinstance(task.get("taskId"), str) and "status" in task:
            made.add(task["taskId"])
    return made


def ended_tasks(frames: list[dict[str, Any]]) -> set[str]:
    """Tasks some answer or notification showed terminal, or whose cancel was accepted."""
    ended: set[str] = set()
    for frame in frames:
        message = frame["message"] or {}
        if frame["direction"] != "in":
            continue
        for part in (message.get("result"), message.get("params")):
            if isinstance(part, dict):
                task = part.get("task") if isinstance(part.get("task"), dict) else part
                if task.get("status") in TERMINAL and isinstance(task.get("taskId"), str):
                    ended.add(task["taskId"])
    for request, reply in answers(frames, "tasks/cancel"):
        if reply is not None and "result" in reply:
            ended.add(request["message"]["params"]["taskId"])
    return ended


@pytest.mark.parametrize(
    ("wire", "demo_args"),
    [("legacy", ()), ("extension", ()), ("extension", ("--conformance",))],
    ids=["legacy", "extension", "extension-fixtures"],
)
def test_check_calls_only_its_tool_and_the_listed_fixtures_and_ends_every_task(
    wire: str, demo_args: tuple[str, ...], tmp_path: Path
) -> None:
    code, document, frames = checked(
        tmp_path, "--command", demo(wire, *demo_args), "--tool-name", "provision_server"
    )
    assert code == 0, document
    listed = listed_tools(frames)
    allowed = {"provision_server"} | (set(FIXTURE_TOOLS) & listed)
    assert listed - allowed, "the demo lists other tools, which check must leave alone"
    called = called_tools(frames)
    assert "provision_server" in called
    assert called <= allowed, called - allowed
    made = created_tasks(frames)
    assert made, "the run created tasks"
    assert made <= ended_tasks(frames), made - ended_tasks(frames)
    assert "tasksLeftBehind" not in document
    resolvable = next(c for c in document["checks"] if c["id"] == "tasks-wire-resolvable")
    cited = resolvable["evidence"][0]
    handshake = {"legacy": "initialize", "extension": "server/discover"}[wire]
    assert cited["method"] == handshake and cited["exchange"] is not None, cited
    assert any(
        f["exchange"] == cited["exchange"] and f["direction"] == "in" and f["method"] == handshake
        for f in frames
    ), "the handshake evidence names a frame the trace holds"


def test_without_a_tool_check_calls_only_listed_fixtures(tmp_path: Path) -> None:
    code, document, frames = checked(tmp_path, "--command", demo("legacy"))
    assert code == 3, document
    assert called_tools(frames) == set()
    assert listed_tools(frames)


def test_a_task_the_server_will_not_cancel_is_reported_left_behind(tmp_path: Path) -> None:
    code, document, frames = checked(tmp_path, "--command", refusing("extension", "--conformance"))
    assert code == 1, document
    left = set(document["tasksLeftBehind"])
    assert left and left <= created_tasks(frames)
    clean_up = [
        (request, reply)
        for request, reply in answers(frames, "tasks/cancel")
        if "clean up" in str(request["reason"])
    ]
    tried = {request["message"]["params"]["taskId"] for request, _ in clean_up}
    assert left <= tried
    assert all(reply is not None and "error" in reply for _, reply in clean_up)
    assert not left & ended_tasks(frames)
