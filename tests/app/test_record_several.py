"""A session of several servers recorded, replayed and exported: the inspector opened on a config
file of a legacy demo over stdio and an extension demo over HTTP (its bearer in the config),
`--record` to one file. Every line names its server; the replay shows the same rows, servers and
question as the live session; `tasks export` names the server of each task and step; `e` in the
live session exports every task with its server; the bearer is nowhere."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from rich.text import Text

from app.cli.args import parse
from app.cli.target import tui_servers
from app.engine.record.export import render
from app.engine.record.recorder import Recorder
from app.engine.record.replay import read_recording
from app.engine.safety.redact import Redactor
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import Task
from app.tui.app import TaskscopeApp
from app.tui.replay import ReplaySource
from app.tui.run import LiveLoader, TuiOptions
from app.tui.startup import DeferredSource
from app.view.export import shown_lives
from tests.support.demo_servers import REPO_ROOT, start_http_demo, stdio_demo_command
from tests.support.tui_helpers import SIZE, create_on, server_pane_text, servers_up, wait_for
from widgets.header_bar import HeaderBar

pytestmark = pytest.mark.timeout(120)

BEARER = "sk-several-9Qw2Er7Ty"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


def rows(app: TaskscopeApp) -> dict[str, tuple[str | None, str, str]]:
    """Each row key with its server, status and the table's Server cell."""
    shown: dict[str, tuple[str | None, str, str]] = {}
    for key, watched in app.tasks.tasks.items():
        value = app.table.get_cell(key, "server")
        cell = value.plain if isinstance(value, Text) else str(value)
        shown[key] = (watched.server, str(watched.status), cell)
    return shown


def export(record: Path, *task_ids: str, fmt: str = "md") -> subprocess.CompletedProcess[str]:
    flags = [part for task_id in task_ids for part in ("--task-id", task_id)]
    command = ["tasks", "export", *flags, "--from-recording", str(record), "--format", fmt]
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *command],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )


async def test_a_recorded_session_of_several_servers_replays_and_exports_per_server(
    tmp_path: Path,
) -> None:
    record = tmp_path / "several.ndjson"
    held = socket.socket()  # bound, never listening: "down" refuses every connection
    held.bind(("127.0.0.1", 0))
    with held, start_http_demo("extension", "--speed", "20") as (extension_url, _):
        legacy = stdio_demo_command("legacy", "--speed", "20")
        config = tmp_path / "servers.json"
        entries = {
            "old": {"command": legacy[0], "args": legacy[1:]},
            "new": {"url": extension_url, "headers": {"Authorization": f"Bearer {BEARER}"}},
            "down": {"url": f"http://127.0.0.1:{held.getsockname()[1]}/mcp"},
        }
        config.write_text(json.dumps({"mcpServers": entries}))
        servers = tui_servers(parse(["--config", str(config)]).target)
        first = next(target for _, target in servers if not isinstance(target, str))
        recorder = Recorder.to_file(
            record, Redactor.build(), face="tui", command=None, servers=["old", "new", "down"]
        )
        options = TuiOptions(
            first,
            reconnect_attempts=0,  # "down" fails at once
            servers=servers,
            servers_label=str(config),
            recorder=recorder,
        )
        loader = LiveLoader(options)
        app = TaskscopeApp(DeferredSource(loader.load), remember_tasks=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.info is not None and servers_up(app, "old", "new"))
            header = app.query_one(HeaderBar)
            await wait_for(pilot, lambda: "2 of 3 · down failed" in header.header_text().plain)
            await create_on(app, "old", "build_report", quarter="Q1")
            await create_on(app, "new", "build_report", quarter="Q2")
            await create_on(app, "new", "provision_server")
            await wait_for(
                pilot,
                lambda: (
                    len(app.tasks) == 3
                    and sum(w.status == "completed" for w in app.tasks.tasks.values()) == 2
                    and any(w.pending_inputs for w in app.tasks.tasks.values())
                ),
                timeout=40,
            )
            live = rows(app)
            (asking,) = [w for w in app.tasks.tasks.values() if w.pending_inputs]
            live_questions = asking.pending_inputs
            assert app.history is not None
            exported = render(shown_lives(app.history(), list(app.tasks.tasks.values())), "md")
            await app.close_source()
        loader.close()

    # what `e` exports in the live session: every task on its server
    assert exported.count("on `old`") == 1 and exported.count("on `new`") == 2
    assert "| Server | At |" in exported

    # every line of the session names its server, and the header names the set
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["servers"] == ["old", "new", "down"]
    assert all(line.get("serverName") in ("old", "new", "down") for line in lines[1:])
    assert {line["serverName"] for line in lines if line["type"] == "session"} == {"old", "new"}
    assert BEARER not in record.read_text()

    recording = read_recording(record)
    assert recording.servers == ("old", "new", "down")
    assert set(recording.task_ids) == set(live)

    # the replay shows the same story: rows, servers, statuses, the question, the header
    replay = TaskscopeApp(ReplaySource(recording, str(record), speed=None), remember_tasks=False)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: rows(replay) == live)
        replayed = replay.tasks.tasks[asking.task_id]
        assert replayed.pending_inputs == live_questions
        assert all(key.startswith("new · ") for key in live_questions)
        replayed_header = replay.query_one(HeaderBar).header_text().plain
        assert "3 servers" in replayed_header
        assert "▶ replay: 2 of 3 · down failed" in replayed_header  # as the live header said
        await pilot.press("s")
        await wait_for(pilot, lambda: "old" in server_pane_text(replay))
        pane = server_pane_text(replay)
        assert "taskscope-demo-legacy" in pane and "taskscope-demo-extension" in pane
        assert "down never connected in this recording" in pane

    # `tasks export` by row key, or by an id, names the server of the task and of each step
    old_key = next(key for key, (server, _, _) in live.items() if server == "old")
    old_id = old_key.removeprefix("old · ")
    by_key, by_id = export(record, old_key), export(record, old_id, fmt="json")
    assert by_key.returncode == 0, by_key.stderr
    assert by_id.returncode == 0, by_id.stderr
    assert f"## Task `{old_id}` on `old`" in by_key.stdout
    (life,) = json.loads(by_id.stdout)["tasks"]
    assert life["taskId"] == old_id and life["serverName"] == "old"
    assert life["finalStatus"] == "completed"
    assert life["steps"] and all(step["serverName"] == "old" for step in life["steps"])
    missing = export(record, "no-such-task")
    assert missing.returncode == 2
    assert old_key in json.loads(missing.stderr)["error"]["details"]["recordedTaskIds"]


async def test_a_file_of_a_one_server_session_then_a_several_server_one_replays_every_task(
    tmp_path: Path,
) -> None:
    """Sessions appended to one file keep their tasks apart in the replay: the one-server
    session's task is its id, each server's task of the same id its row key."""
    path = tmp_path / "appended.ndjson"
    task = Task(task_id="t-1", wire="legacy", status="working", raw={"taskId": "t-1"})
    with path.open("a", encoding="utf-8") as sink:
        Recorder(Redactor(), sink, face="cli").event(
            TaskEvent("created", "t-1", task, 1.0, "create")
        )
        several = Recorder(Redactor(), sink, face="tui", servers=["alpha", "beta"])
        for name in ("alpha", "beta"):
            event = TaskEvent("created", "t-1", task, 2.0, "create")
            several.for_server(name, Redactor()).event(event)
    app = TaskscopeApp(
        ReplaySource(read_recording(path), str(path), speed=None), remember_tasks=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: set(app.tasks.tasks) == {"t-1", "alpha · t-1", "beta · t-1"})
        servers = {key: watched.server for key, watched in app.tasks.tasks.items()}
        assert servers == {"t-1": None, "alpha · t-1": "alpha", "beta · t-1": "beta"}
    assert export(path, "t-1").stdout.count("## Task `t-1`") == 3
