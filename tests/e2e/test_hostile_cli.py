"""The headless commands against the hostile server: exit codes, stdout documents and stderr lines.

`taskscope` runs as a real subprocess; the hostile server runs over stdio (spawned by the CLI) or
over HTTP on a free port (so that several one-shot commands see the same tasks).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.demo.hostile_modes import DEEP_LEVELS, HUGE_MESSAGE_CHARS, SMUGGLED
from app.demo.hostile_transport_modes import RETRY_AFTER_S
from app.engine.safety import deep_json
from tests.support.demo_servers import start_http_hostile
from tests.support.hostile_cli import Run, on_stdio, taskscope, watch_job

pytestmark = pytest.mark.timeout(90)

WIRES = ["legacy", "extension"]
RAW_TERMINAL_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u202a-\u202e\u2066-\u2069\u200b\U000e0000-\U000e0fff]"
)
"""What must never reach a terminal from server text (newline and tab are ours): controls, bidi,
zero-width, soft hyphens, tag characters and supplementary variation selectors."""
ANSWERS = [
    {
        "match": {"method": "elicitation/create"},
        "response": {"action": "accept", "content": {"approve": True}},
    }
]


def assert_terminal_safe(run: Run) -> None:
    """Neither stream carries a raw escape, control or bidi character."""
    assert not RAW_TERMINAL_CONTROLS.search(run.stdout)
    assert not RAW_TERMINAL_CONTROLS.search(run.stderr)


# -- text ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_escapes_watch_prints_plain_text_and_keeps_the_data(wire: str) -> None:
    run = watch_job(on_stdio(wire, "escapes"))
    assert run.code == 0, run.stderr
    assert_terminal_safe(run)
    assert run.lines("task task-1[b]<U+202E> created on the")
    (working,) = run.lines("watched: working — started")
    for visible in ("[bold red]loud[/bold red]", "[link=https://evil.example]", "bell␇", "nul␀"):
        assert visible in working
    assert "<U+202E>gnirts desrever<U+202C>" in working and "zero<U+200B>width" in working
    assert "pwned title" not in working  # an OSC sequence is removed whole
    task = run.document["task"]
    assert task["taskId"] == "task-1\x1b[7m[b]\u202e"  # JSON escapes keep the data exact
    assert "\x1b]8;;https://evil.example/" in task["result"]["content"][0]["text"]


@pytest.mark.parametrize("wire", WIRES)
def test_invisible_tag_characters_are_escaped_in_json_text_recording_and_export(
    wire: str, tmp_path: Path
) -> None:
    record = tmp_path / "run.ndjson"
    run = watch_job(on_stdio(wire, "escapes"), "--record", str(record))
    assert run.code == 0, run.stderr
    assert_terminal_safe(run)
    assert SMUGGLED in run.document["task"]["statusMessage"]  # the data is whole
    assert "tags\\udb40\\udc01\\udb40\\udc74" in run.stdout  # escaped as UTF-16 pairs
    (working,) = run.lines("watched: working — started")
    assert "tags<U+E0001><U+E0074><U+E0061><U+E0067><U+E007F> vs<U+E0100> soft<U+00AD>" in working
    assert not RAW_TERMINAL_CONTROLS.search(record.read_text(encoding="utf-8"))
    task_id = run.document["task"]["taskId"]
    for shape in ("md", "json"):
        export = taskscope(
            "tasks", "export", "--task-id", task_id, "--from-recording", str(record),
            "--format", shape,
        )  # fmt: skip
        assert export.code == 0, export.stderr
        assert "tags" in export.stdout and not RAW_TERMINAL_CONTROLS.search(export.stdout)


@pytest.mark.parametrize("wire", WIRES)
def test_escapes_tools_list_json_is_escaped(wire: str) -> None:
    run = taskscope("tools", "list", *on_stdio(wire, "escapes"))
    assert run.code == 0
    assert_terminal_safe(run)
    names = [tool["name"] for tool in run.document["tools"]]
    assert names[0].startswith("job \x1b[31mred") and "[bold red]" in names[1]


@pytest.mark.parametrize("wire", WIRES)
def test_huge_message_is_cut_on_stderr_and_whole_in_the_document(wire: str) -> None:
    with start_http_hostile(wire, "huge-message") as (url, _process):
        created = taskscope("tools", "call", "--url", url, "--tool-name", "job", "--task")
        assert created.code == 0
        got = taskscope("tasks", "get", "--url", url, "--task-id", "task-1")
    assert got.code == 0
    message = got.document["task"]["statusMessage"]
    assert len(message) > HUGE_MESSAGE_CHARS and message.endswith(" END")
    run = watch_job(on_stdio(wire, "huge-message"))
    assert run.code == 0
    (line,) = run.lines("watched: working — BEGIN")
    assert re.search(r"… \(\+\d+ chars\) \(next poll", line) and len(line) < 400


@pytest.mark.parametrize("wire", WIRES)
def test_deep_result_prints_whole(wire: str) -> None:
    run = watch_job(on_stdio(wire, "deep-result"))
    assert run.code == 0, run.stderr[-2000:]
    assert run.document["outcome"] == "completed"
    assert deep_json.depth(run.document["task"]["result"]["structuredContent"]) == DEEP_LEVELS


@pytest.mark.parametrize("wire", WIRES)
def test_invalid_utf8_and_lone_surrogates_print_safely(wire: str) -> None:
    with start_http_hostile(wire, "invalid-utf8") as (url, _process):
        taskscope("tools", "call", "--url", url, "--tool-name", "job", "--task")
        got = taskscope("tasks", "get", "--url", url, "--task-id", "task-1")
    assert got.code == 0, got.stderr
    assert "lone \\ud800 end" in got.stdout  # escaped in JSON, never a raw surrogate
    message = got.document["task"]["statusMessage"]
    assert message == "bad \ufffd\ufffd bytes \ufffd( café \ufffd\ufffd\ufffd lone \ud800 end"
    run = watch_job(on_stdio(wire, "invalid-utf8"))
    assert run.code == 0
    assert run.lines("watched: working — bad �� bytes �( café ��� lone � end")


# -- task fields and states ------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_wrong_types_one_shot_gets(wire: str) -> None:
    """Each `tasks get` meets the next wrong-typed field: violations exit 1 with the frame."""
    with start_http_hostile(wire, "wrong-types") as (url, _process):
        taskscope("tools", "call", "--url", url, "--tool-name", "job", "--task")
        runs = [taskscope("tasks", "get", "--url", url, "--task-id", "task-1") for _ in range(4)]
    assert [run.code for run in runs] == [1, 1, 0, 0]
    assert runs[0].error["code"] == "PROTOCOL_VIOLATION"
    assert runs[0].error["message"] == "taskId is missing or not a non-empty string"
    assert runs[0].error["details"]["frame"]["taskId"] == 42
    assert runs[1].error["message"] == "unknown task status 3"
    assert "statusMessage" not in runs[2].document["task"]  # an object: dropped, not shown
    assert "createdAt" not in runs[3].document["task"]  # a number: dropped


@pytest.mark.parametrize("wire", WIRES)
def test_wrong_types_watch_survives_every_field(wire: str) -> None:
    run = watch_job(on_stdio(wire, "wrong-types"))
    assert run.code == 0 and run.document["outcome"] == "completed"
    assert len(run.lines("protocol violation:")) == 5
    assert run.lines("request failed: TransportError: tasks/get: result is not a JSON object")


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("unknown-status", "unknown task status 'paused'"),
        ("task-id-mismatch", "tasks/get for 'task-1' answered with task 'task-999'"),
    ],
)
def test_violation_then_recovery(wire: str, mode: str, reason: str) -> None:
    with start_http_hostile(wire, mode) as (url, _process):
        taskscope("tools", "call", "--url", url, "--tool-name", "job", "--task")
        bad = taskscope("tasks", "get", "--url", url, "--task-id", "task-1")
        good = taskscope("tasks", "get", "--url", url, "--task-id", "task-1")
    assert bad.code == 1 and bad.error["code"] == "PROTOCOL_VIOLATION"
    assert bad.error["message"] == reason
    assert good.code == 0 and good.document["task"]["statusMessage"] == "step 2"
    run = watch_job(on_stdio(wire, mode))
    assert run.code == 0
    (line,) = run.lines("protocol violation:")
    assert f"protocol violation: {reason}; frame: {{" in line
    assert run.lines("working — step 2")


@pytest.mark.parametrize("wire", WIRES)
def test_illegal_transition_after_completion(wire: str) -> None:
    run = watch_job(on_stdio(wire, "illegal-transition"))
    assert run.code == 0 and run.document["task"]["status"] == "completed"
    flagged = run.lines("protocol violation: status went from terminal 'completed' to 'working'")
    assert len(flagged) == (1 if wire == "legacy" else 0)


@pytest.mark.parametrize("wire", WIRES)
def test_changing_input_keys(wire: str, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(ANSWERS))
    run = watch_job(on_stdio(wire, "input-keys"), "--answers", str(answers), tool="ask")
    assert run.code == 0 and run.document["outcome"] == "completed"
    assert len(run.lines("needs input (elicitation/create)")) == (2 if wire == "extension" else 1)
    declined = watch_job(on_stdio(wire, "input-keys"), "--yes", tool="ask")
    assert declined.code == 6  # each key the server asked under is declined once
    keys = [request["key"] for request in declined.document["declinedInput"]]
    assert keys == (["q-1", "q-2"] if wire == "extension" else ["q-1"])


# -- noise, connection, process --------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("mode", ["unknown-ids", "garbage"])
def test_noise_is_ignored(wire: str, mode: str) -> None:
    run = watch_job(on_stdio(wire, mode))
    assert run.code == 0 and run.document["outcome"] == "completed"
    assert not run.lines("protocol violation") and not run.lines("request failed")


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("mode", ["drop", "killed"])
def test_stdio_server_lost_mid_poll_is_unreachable(wire: str, mode: str) -> None:
    """With reconnecting off (test_reconnect_cli covers it on)."""
    run = watch_job(on_stdio(wire, mode), "--reconnect-attempts", "0")
    assert run.code == 1
    document = run.document
    assert document["outcome"] == "unreachable"
    assert document["task"]["status"] == "working" and document["task"]["statusMessage"] == "step 1"
    gone = "server process exited with code -9" if mode == "killed" else "server connection closed"
    assert gone in document["detail"]


@pytest.mark.parametrize("wire", WIRES)
def test_http_drop_mid_poll_is_one_failed_poll(wire: str) -> None:
    with start_http_hostile(wire, "drop") as (url, _process):
        run = watch_job(["--url", url])
    assert run.code == 0 and run.document["outcome"] == "completed"
    (line,) = run.lines("request failed:")
    assert "Server disconnected without sending a response" in line
    assert line.endswith("(next poll in 1.00s, backoff)")


@pytest.mark.parametrize("wire", WIRES)
def test_http_server_killed_is_unreachable(wire: str) -> None:
    with start_http_hostile(wire, "killed") as (url, _process):
        run = watch_job(
            ["--url", url], "--max-consecutive-errors", "2", "--reconnect-attempts", "0"
        )
    assert run.code == 1 and run.document["outcome"] == "unreachable"
    assert run.document["detail"] == "2 consecutive errors"
    assert run.document["task"]["statusMessage"] == "step 1"


@pytest.mark.parametrize("wire", WIRES)
def test_silent_server_ends_in_timeout_not_a_hang(wire: str) -> None:
    run = watch_job(on_stdio(wire, "silent"), "--duration-ms", "2000")
    assert run.code == 7
    assert run.document["outcome"] == "timeout"
    assert run.document["task"]["statusMessage"] == "step 1"


@pytest.mark.slow
@pytest.mark.parametrize("wire", WIRES)
def test_retry_after_paces_the_next_poll(wire: str, tmp_path: Path) -> None:
    trace = tmp_path / "frames.ndjson"
    with start_http_hostile(wire, "rate-limit") as (url, _process):
        run = watch_job(["--url", url], "--trace-frames", str(trace))
    assert run.code == 0
    (line,) = run.lines("request failed:")
    assert "HTTP 429" in line and line.endswith(f"(next poll in {RETRY_AFTER_S:.2f}s, retry-after)")
    frames = [json.loads(text) for text in trace.read_text().splitlines()]
    refused = next(f for f in frames if f["direction"] == "in" and f["httpStatus"] == 429)
    next_poll = next(
        f
        for f in frames
        if f["direction"] == "out" and f["method"] == "tasks/get" and f["at"] > refused["at"]
    )
    assert RETRY_AFTER_S <= next_poll["at"] - refused["at"] < RETRY_AFTER_S + 0.4
