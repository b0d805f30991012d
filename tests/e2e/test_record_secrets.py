"""Secrets never reach a recording, an export, the RPC log, a screenshot or an error message: runs
with `--bearer`, a custom header named by `--redact`, against a real HTTP demo server; every file
and output is searched for the secret values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.record.export import render, task_lives
from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.replay import read_recording
from app.engine.rpc.targets import url_target
from app.engine.safety.redact import REDACTED
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from tests.support.demo_servers import REPO_ROOT, free_port
from tests.support.tui_helpers import SIZE, connected, only_task, wait_for
from widgets.arguments_form import CreateRequest
from widgets.rpc_log import RpcLog

pytestmark = pytest.mark.timeout(90)

BEARER = "sk-live-7Hq2Zp9Xv4Lm"
API_KEY = "apikey-3141592653"
SECRETS = (BEARER, API_KEY)


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


def secret_flags(url: str) -> tuple[str, ...]:
    return (
        "--url",
        url,
        "--bearer",
        BEARER,
        "--header",
        f"X-Api-Key: {API_KEY}",
        "--redact",
        "X-Api-Key",
    )


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text


def test_cli_recording_trace_and_exports_hold_no_secret(tmp_path: Path, extension_url: str) -> None:
    record, trace = tmp_path / "rec.ndjson", tmp_path / "trace.ndjson"
    run = cli(
        "tools",
        "call",
        *secret_flags(extension_url),
        "--tool-name",
        "build_report",
        "--task",
        "--task-watch",
        "--record",
        str(record),
        "--trace-frames",
        str(trace),
    )
    assert run.returncode == 0, run.stderr
    recording = read_recording(record)
    sent_headers = [f.headers for f in recording.frames if f.direction == "out" and f.headers]
    assert sent_headers, "the HTTP frames carry their headers"
    assert all(h.get("Authorization", h.get("authorization")) == REDACTED for h in sent_headers)
    assert all(h.get("X-Api-Key", h.get("x-api-key")) == REDACTED for h in sent_headers)
    (task_id,) = recording.task_ids
    exports = [
        cli("tasks", "export", "--task-id", task_id, "--from-recording", str(record), "--format", f)
        for f in ("md", "json")
    ]
    for export in exports:
        assert export.returncode == 0, export.stderr
    assert_no_secret(
        record.read_text(),
        trace.read_text(),
        run.stdout,
        run.stderr,
        *(e.stdout for e in exports),
    )


def test_cli_error_message_for_an_unreachable_server_holds_no_secret(tmp_path: Path) -> None:
    record = tmp_path / "rec.ndjson"
    url = f"http://127.0.0.1:{free_port()}/mcp"
    run = cli("tasks", "capabilities", *secret_flags(url), "--record", str(record))
    assert run.returncode == 1
    assert json.loads(run.stderr.strip().splitlines()[-1])["error"]["code"] == "CONNECTION_FAILED"
    assert_no_secret(run.stderr, record.read_text())


async def test_tui_recording_rpc_log_screenshot_and_export_hold_no_secret(
    tmp_path: Path, extension_url: str
) -> None:
    target = url_target(extension_url, [f"X-Api-Key: {API_KEY}"], BEARER, "streamable")
    record = tmp_path / "tui.ndjson"
    recorder = Recorder.to_file(record, redactor_for(target, ["X-Api-Key"]), face="tui")
    source = LiveSource(target, redact=["X-Api-Key"], recorder=recorder)
    app = TaskscopeApp(source, remember_tasks=False, history=recorder.history)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("build_report", {}, None, True))
        await wait_for(pilot, lambda: app.tasks.tasks and only_task(app).settled)
        await pilot.press("L")
        await pilot.pause(0.5)
        log = app.query_one(RpcLog)
        lines = [log.line_text(i).plain for i in range(len(log.frames))]
        frames = [json.dumps(f.headers) + json.dumps(f.message) for f in log.frames]
        screenshot = app.export_screenshot()
        assert app.history is not None
        lives = task_lives(app.history(), [only_task(app).task_id])
        exports = [render(lives, "md"), render(lives, "json")]
    recorder.close()
    assert_no_secret(record.read_text(), screenshot, *lines, *frames, *exports)
