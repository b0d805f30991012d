"""The headless watches across a lost connection: stderr lines and exit codes.

`taskscope` runs as a real subprocess against the hostile server, which kills itself instead of
answering the second poll. Over stdio the session respawns it (the new process does not know the
task: expired, or lost with the old session on the legacy wire); over HTTP nothing comes back, so
the watch ends unreachable (exit 1) after the bounded attempts.
"""

from __future__ import annotations

import shlex

import pytest

from app.engine.rpc.reconnect import LOST_WITH_OLD_SESSION
from tests.support.demo_servers import hostile_command, start_http_hostile
from tests.support.hostile_cli import Run, taskscope, watch_job

pytestmark = pytest.mark.timeout(90)

WIRES = ["legacy", "extension"]


def reconnect_lines(run: Run) -> list[str]:
    """The stderr lines about the connection itself, in order."""
    starts = ("connection lost", "reconnecting in", "reconnected after", "gave up reconnecting")
    return [line for line in run.stderr.splitlines() if line.startswith(starts)]


@pytest.mark.parametrize("wire", WIRES)
def test_stdio_server_killed_is_respawned_and_the_task_is_gone(wire: str) -> None:
    run = watch_job(["--command", shlex.join(hostile_command(wire, "killed"))])
    assert run.code == 1, run.stderr
    lost, reconnecting, reconnected = reconnect_lines(run)
    assert lost.startswith("connection lost: ") and "exited with code -9" in lost
    assert reconnecting == "reconnecting in 1 s (attempt 1)"
    assert reconnected == "reconnected after 1 attempt"
    document = run.document
    assert document["outcome"] == "expired"
    assert document["task"]["status"] == "working" and document["task"]["statusMessage"] == "step 1"
    if wire == "legacy":
        assert document["detail"].startswith(LOST_WITH_OLD_SESSION)
    else:
        assert document["detail"] == "expired"


@pytest.mark.parametrize("wire", WIRES)
def test_http_server_gone_is_unreachable_after_bounded_attempts(wire: str) -> None:
    with start_http_hostile(wire, "killed") as (url, _process):
        run = watch_job(["--url", url], "--reconnect-attempts", "2")
    assert run.code == 1, run.stderr
    lines = reconnect_lines(run)
    assert [line.split(":")[0].split(" (")[0] for line in lines] == [
        "connection lost",
        "reconnecting in 1 s",
        "reconnecting in 2 s",
        "gave up reconnecting",
    ]
    assert lines[1].endswith("(attempt 1)") and lines[2].endswith("(attempt 2)")
    document = run.document
    assert document["outcome"] == "unreachable"
    assert document["detail"].startswith("gave up reconnecting: ")
    assert "ConnectError" in document["detail"]
    assert document["task"]["statusMessage"] == "step 1"


def test_tasks_watch_is_unreachable_after_bounded_attempts() -> None:
    with start_http_hostile("extension", "killed") as (url, _process):
        created = taskscope("tools", "call", "--url", url, "--tool-name", "job", "--task")
        assert created.code == 0, created.stderr
        task_id = created.document["taskId"]
        run = taskscope(
            "tasks", "watch", "--url", url, "--task-id", task_id, "--reconnect-attempts", "1"
        )
    assert run.code == 1, run.stderr
    assert [line.split(":")[0] for line in reconnect_lines(run)] == [
        "connection lost",
        "reconnecting in 1 s (attempt 1)",
        "gave up reconnecting",
    ]
    assert run.document["outcome"] == "unreachable"


def test_negative_reconnect_attempts_is_a_usage_error() -> None:
    run = taskscope(
        "tasks",
        "get",
        "--url",
        "http://127.0.0.1:1/mcp",
        "--task-id",
        "t",
        "--reconnect-attempts",
        "-1",
    )
    assert run.code == 2
    assert "must not be negative" in run.error["message"]
