"""Odd ids from a server, through the real CLI over stdio and HTTP: answered at once, kept exact.

A response id `2.0` for request 2 is that request's answer (JSON has one number type), said on
its frame, never a silent 30 s wait. A task id ending in a lone surrogate (`\\ud800`) is sent back
escaped, so the task stays pollable and the recording keeps going.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.demo.hostile_transport_modes import SURROGATE_ID
from tests.support.demo_servers import start_http_hostile
from tests.support.hostile_cli import Run, on_stdio, watch_job

pytestmark = pytest.mark.timeout(90)

WIRES = ["legacy", "extension"]
TRANSPORTS = ["stdio", "http"]


def watch_on(transport: str, wire: str, mode: str, *extra: str) -> Run:
    """`tools call --task --task-watch` of `job` on the hostile server in `mode`."""
    if transport == "stdio":
        return watch_job(on_stdio(wire, mode), *extra)
    with start_http_hostile(wire, mode) as (url, _process):  # type: ignore[arg-type]
        return watch_job(["--url", url], *extra)


def ndjson(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("wire", WIRES)
def test_a_float_response_id_answers_its_request(transport: str, wire: str, tmp_path: Path) -> None:
    trace = tmp_path / "frames.ndjson"
    run = watch_on(transport, wire, "float-id", "--trace-frames", str(trace))
    assert run.code == 0, run.stderr[-2000:]
    assert run.document["outcome"] == "completed"
    assert not run.lines("request failed")  # no 30 s wait, no "got no answer"
    frames = ndjson(trace)
    (taken,) = [f for f in frames if "the same JSON number" in (f["reason"] or "")]
    sent_id = taken["message"]["id"]
    assert isinstance(sent_id, float) and sent_id.is_integer()
    assert f"its id {sent_id!r} was read as {int(sent_id)}" in taken["reason"]
    assert taken["method"] == "tasks/get" and taken["error"] is None and taken["latencyMs"]


@pytest.mark.parametrize(
    ("transport", "wire"),
    [
        ("stdio", "legacy"),
        ("stdio", "extension"),
        ("http", "legacy"),
        ("http", "extension"),
    ],
)
def test_a_lone_surrogate_in_a_task_id_is_sent_back_escaped(
    transport: str, wire: str, tmp_path: Path
) -> None:
    record = tmp_path / "session.ndjson"
    run = watch_on(transport, wire, "surrogate-id", "--record", str(record))
    assert run.code == 0, run.stderr[-2000:]
    task_id = "task-1" + SURROGATE_ID
    assert run.document["outcome"] == "completed" and run.document["taskId"] == task_id
    assert not run.lines("request failed") and not run.lines("recording stopped")
    assert "\\ud800" in run.stdout  # escaped on stdout, never a raw surrogate
    lines = ndjson(record)
    polls = [
        line["frame"]["message"]
        for line in lines
        if line["type"] == "frame"
        and line["frame"]["direction"] == "out"
        and line["frame"]["method"] == "tasks/get"
    ]
    assert len(polls) >= 3 and all(poll["params"]["taskId"] == task_id for poll in polls)
    assert lines[-1]["type"] == "event" and lines[-1]["event"]["taskId"] == task_id
