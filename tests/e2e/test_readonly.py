"""`--readonly` on both faces, against real demo servers: create, plain call, cancel and answer are
refused by the engine's guard before anything is sent (checked in the frames), the CLI exits 1
with READONLY, and the TUI hides those bindings and says "read-only" in its header."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.engine.record.replay import read_recording
from app.engine.rpc.guard import ReadOnlyRefused
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.view.source import SourceUnavailable
from tests.support.demo_servers import REPO_ROOT
from tests.support.tui_helpers import SIZE, connected, http_target, only_task, wait_for
from widgets.arguments_form import ArgumentsForm
from widgets.confirm import ConfirmModal
from widgets.header_bar import HeaderBar
from widgets.input_form import InputForm
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(90)

MUTATING = {"tools/call", "tasks/cancel", "tasks/update"}
ANSWERS = [
    {
        "match": {"message": "Approve"},
        "response": {"action": "accept", "content": {"approve": True}},
    },
    {"match": {"message": "^When"}, "response": {"action": "accept", "content": {"window": "now"}}},
]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )


def sent(trace: Path) -> list[str]:
    lines = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    return [f["method"] for f in lines if f["direction"] == "out" and f["method"]]


def error_of(run: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return dict(json.loads(run.stderr.strip().splitlines()[-1])["error"])


def create_task(url: str, tool: str) -> str:
    """A task created by an ordinary (writable) run, for the read-only runs to look at."""
    run = cli("tools", "call", "--url", url, "--tool-name", tool, "--task")
    assert run.returncode == 0, run.stderr
    return str(json.loads(run.stdout)["taskId"])


@pytest.mark.parametrize(
    "extra",
    [(), ("--task",), ("--task", "--task-watch")],
    ids=["plain-call", "task", "task-watch"],
)
@pytest.mark.parametrize("wire", ["legacy", "extension"])
def test_cli_refuses_tool_calls_without_sending_them(
    tmp_path: Path, wire: str, extra: tuple[str, ...]
) -> None:
    trace, record = tmp_path / "trace.ndjson", tmp_path / "rec.ndjson"
    run = cli(
        "tools",
        "call",
        "--demo",
        wire,
        "--tool-name",
        "build_report",
        *extra,
        "--readonly",
        "--trace-frames",
        str(trace),
        "--record",
        str(record),
    )
    assert run.returncode == 1, run.stderr
    error = error_of(run)
    assert error["code"] == "READONLY" and error["details"]["sent"] is False
    assert "initialize" in sent(trace) or "server/discover" in sent(trace)
    assert not MUTATING & set(sent(trace))
    refused = [a for a in read_recording(record).actions if a.action == "refused"]
    assert [a.details["verb"] for a in refused] == ["call" if not extra else "create"]


def test_cli_refuses_cancel_without_sending_it(tmp_path: Path, extension_url: str) -> None:
    task_id = create_task(extension_url, "migrate_database")
    trace = tmp_path / "trace.ndjson"
    run = cli(
        "tasks",
        "cancel",
        "--url",
        extension_url,
        "--task-id",
        task_id,
        "--readonly",
        "--trace-frames",
        str(trace),
    )
    assert run.returncode == 1
    assert error_of(run)["code"] == "READONLY" and error_of(run)["details"]["taskId"] == task_id
    assert not MUTATING & set(sent(trace))
    still = cli("tasks", "get", "--url", extension_url, "--task-id", task_id)
    assert json.loads(still.stdout)["task"]["status"] == "working"


def test_cli_watch_refuses_to_answer_without_sending(tmp_path: Path, extension_url: str) -> None:
    task_id = create_task(extension_url, "deploy_release")
    answers, trace = tmp_path / "answers.json", tmp_path / "trace.ndjson"
    answers.write_text(json.dumps(ANSWERS))
    run = cli(
        "tasks",
        "watch",
        "--url",
        extension_url,
        "--task-id",
        task_id,
        "--answers",
        str(answers),
        "--readonly",
        "--trace-frames",
        str(trace),
    )
    assert run.returncode == 1, run.stderr
    assert json.loads(run.stdout)["outcome"] == "readonly"
    assert '"READONLY"' in run.stderr
    assert "tasks/get" in sent(trace) and not MUTATING & set(sent(trace))


def test_cli_update_is_refused_after_only_reading(tmp_path: Path, extension_url: str) -> None:
    task_id = create_task(extension_url, "deploy_release")
    trace = tmp_path / "trace.ndjson"
    responses: dict[str, Any] = {}
    for _ in range(50):  # the question appears on a later poll
        got = json.loads(cli("tasks", "get", "--url", extension_url, "--task-id", task_id).stdout)
        requests = got["task"].get("inputRequests", [])
        if requests:
            responses = {r["key"]: {"action": "decline"} for r in requests}
            break
    assert responses
    run = cli(
        "tasks",
        "update",
        "--url",
        extension_url,
        "--task-id",
        task_id,
        "--input-responses",
        json.dumps(responses),
        "--readonly",
        "--trace-frames",
        str(trace),
    )
    assert run.returncode == 1 and error_of(run)["code"] == "READONLY"
    assert sent(trace).count("tasks/get") >= 1 and not MUTATING & set(sent(trace))


async def test_tui_hides_mutating_bindings_and_refuses_in_the_engine(extension_url: str) -> None:
    task_id = create_task(extension_url, "deploy_release")
    app = TaskscopeApp(LiveSource(http_target(extension_url), readonly=True), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert "read-only" in app.query_one(HeaderBar).header_text().plain
        assert app.readonly
        assert not any(
            app.check_action(a, ()) for a in ("new_task", "cancel_tasks", "answer_input")
        )
        assert app.source.adopt(task_id)
        await wait_for(pilot, lambda: app.tasks.tasks and only_task(app).pending_inputs)
        for key in ("n", "x", "I"):
            await pilot.press(key)
            await pilot.pause(0.2)
            assert not isinstance(app.screen, ToolPicker | ArgumentsForm | ConfirmModal | InputForm)
        with pytest.raises(ReadOnlyRefused):
            await app.source.create("build_report", {}, ttl_ms=None, as_task=True)
        with pytest.raises(ReadOnlyRefused):
            await app.source.create("build_report", {}, ttl_ms=None, as_task=False)
        with pytest.raises(ReadOnlyRefused):
            await app.source.cancel(task_id)
        task = only_task(app).task
        assert task is not None and task.input_requests
        with pytest.raises(SourceUnavailable):
            await app.source.answer(task.input_requests[0], {"action": "decline"})
        await pilot.pause(0.5)
        out = {f.method for f in app.rpc_frames if f.direction == "out"}
        assert "tasks/get" in out and not MUTATING & out
        assert only_task(app).status == "input_required"
