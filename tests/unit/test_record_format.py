"""Recording format, recorder and player: pure logic, no server (the end-to-end runs are in
test_record_e2e.py)."""

from __future__ import annotations

import dataclasses
import io
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from app.engine.record.export import render, task_lives
from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.recording import (
    Action,
    BadLine,
    ConnectionChange,
    Header,
    Opened,
    RecordedEvent,
    RecordedFrame,
    SessionInfo,
    connection_line,
    decode,
    event_line,
    frame_line,
    session_line,
)
from app.engine.record.replay import (
    MAX_REPLAY_WAIT_S,
    RecordingError,
    ReplayClock,
    parse_recording,
    play,
    read_recording,
)
from app.engine.rpc.reconnect import ConnectionEvent
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import url_target
from app.engine.safety import deep_json
from app.engine.safety.redact import REDACTED, Redactor
from app.engine.tasks.contract import TasksCapabilities
from app.engine.tasks.events import NextPoll, TaskEvent
from app.engine.tasks.models import InputKind, InputRequest, Task
from tests.support.hostile_files import (
    BAD_RECORDING_LINES,
    FIRST_BAD_LINE,
    RECORDING,
    hostile_recording,
)

SECRET = "tok-9f8e7d6c5b4a"

QUESTION = InputRequest(
    key="approval",
    kind=InputKind.FORM,
    method="elicitation/create",
    params={"message": "Approve?", "requestedSchema": {"type": "object", "properties": {}}},
    wire="extension",
    task_id="t-1",
    message="Approve?",
)

TASK = Task(
    task_id="t-1",
    wire="extension",
    status="input_required",
    status_message="waiting",
    created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    ttl_ms=60_000,
    poll_interval_ms=500,
    input_requests=(QUESTION,),
    tool_name="deploy_release",
    raw={"taskId": "t-1", "status": "input_required"},
)

INFO = SessionInfo(
    server_name="demo",
    server_version="1.0",
    transport="http",
    protocol_version="2026-07-28",
    capabilities=TasksCapabilities(wire="extension", tool_calls=True, cancel=True, update=True),
    label="http://127.0.0.1:1/mcp",
    server_key="url:http://127.0.0.1:1/mcp",
)


def a_frame(at: float = 100.0) -> Frame:
    return Frame(
        direction="in",
        message={"jsonrpc": "2.0", "id": 3, "result": {"taskId": "t-1"}},
        raw='{"jsonrpc":"2.0","id":3,"result":{"taskId":"t-1"}}',
        at=at,
        method="tasks/get",
        rpc_id=3,
        task_id="t-1",
        reason="poll",
        latency_ms=12.5,
        http_status=200,
        headers={"content-type": "application/json"},
        error=None,
    )


def an_event(kind: str = "transition", at: float = 101.0) -> TaskEvent:
    return TaskEvent(
        kind=kind,  # type: ignore[arg-type]
        task_id="t-1",
        task=TASK,
        at=at,
        source="poll",
        detail="why",
        previous_status="working",
        input_request=QUESTION,
        next_poll=NextPoll(due=7.0, delay=0.5, term="server"),
        frame={"bad": True},
    )


def test_a_frame_survives_the_round_trip() -> None:
    entry = decode(json.loads(json.dumps(frame_line(a_frame()))))
    assert entry == RecordedFrame(100.0, a_frame())


def test_an_event_survives_the_round_trip_with_its_task_and_question() -> None:
    entry = decode(json.loads(json.dumps(event_line(an_event()))))
    assert isinstance(entry, RecordedEvent)
    event = entry.event
    assert event.task == TASK and event.input_request == QUESTION
    assert (event.kind, event.detail, event.previous_status, event.frame) == (
        "transition",
        "why",
        "working",
        {"bad": True},
    )
    # `due` is a live monotonic time; the replayed one is the wall-clock estimate.
    assert event.next_poll == NextPoll(due=101.5, delay=0.5, term="server")


def test_recorder_writes_header_session_frames_events_and_actions_flushed() -> None:
    sink = io.StringIO()
    recorder = Recorder(Redactor(), sink, face="cli", command="tasks watch", clock=lambda: 50.0)
    recorder.opened(INFO)
    recorder.frame(a_frame())
    seen: list[TaskEvent] = []
    recorder.tee(seen.append)(an_event())
    recorder.action("cancel", "t-1")
    lines = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert [line["type"] for line in lines] == ["header", "session", "frame", "event", "action"]
    assert lines[0]["format"] == "taskscope-recording" and lines[0]["command"] == "tasks watch"
    assert seen == [an_event()]
    recording = parse_recording(sink.getvalue().splitlines())
    assert recording.info == INFO
    assert recording.problems == ()
    assert recording.task_ids == ["t-1"]
    assert recording.actions == [Action(50.0, "cancel", "t-1", {})]


def test_history_keeps_sessions_actions_and_events_but_not_plain_polls() -> None:
    recorder = Recorder(Redactor(), None, face="tui", clock=lambda: 1.0)
    recorder.opened(INFO)
    recorder.frame(a_frame())
    recorder.event(an_event("polled"))
    recorder.event(an_event("transition"))
    recorder.action("answer", "t-1", key="approval", response={"action": "accept"})
    kinds = [type(entry).__name__ for entry in recorder.history()]
    assert kinds == ["Opened", "RecordedEvent", "Action"]


def test_secrets_are_redacted_everywhere_in_a_line_even_inside_results() -> None:
    target = url_target("http://127.0.0.1:1/mcp", ["X-Api-Key: key-1234567"], SECRET, "streamable")
    sink = io.StringIO()
    recorder = Recorder(redactor_for(target, ["x-api-key"]), sink, face="cli")
    echoed = TASK.model_copy(update={"result": {"echo": f"Bearer {SECRET} and key-1234567"}})
    recorder.event(TaskEvent("result", "t-1", echoed, 5.0, "poll"))
    recorder.action("answer", "t-1", response={"content": {"token": SECRET}})
    text = sink.getvalue()
    assert SECRET not in text and "key-1234567" not in text
    assert text.count(REDACTED) == 3


def test_connection_changes_and_the_apps_own_actions_are_recorded_redacted() -> None:
    """A connection's detail (an error may quote a header or token) and the ids of `restored`
    and `cleared` go through the same redactor as every other line."""
    target = url_target("http://127.0.0.1:1/mcp", ["X-Api-Key: key-1234567"], SECRET, "streamable")
    sink = io.StringIO()
    recorder = Recorder(redactor_for(target, ["x-api-key"]), sink, face="tui")
    recorder.connection(ConnectionEvent("lost", 3.0, detail=f"401 for Bearer {SECRET}"))
    recorder.action("restored", None, tasks=[{"id": f"t-{SECRET}", "tool": "key-1234567"}])
    recorder.action("cleared", None, tasks=[{"id": f"t-{SECRET}"}])
    text = sink.getvalue()
    assert SECRET not in text and "key-1234567" not in text
    assert text.count(REDACTED) == 4
    kinds = [json.loads(line)["type"] for line in text.splitlines()]
    assert kinds == ["header", "connection", "action", "action"]


def test_a_write_failure_stops_recording_without_raising(tmp_path: Path) -> None:
    path = tmp_path / "rec.ndjson"
    recorder = Recorder.to_file(path, Redactor(), face="cli")
    recorder._journal.sink.close()  # type: ignore[union-attr]  # the file vanished under us
    recorder.frame(a_frame())
    assert recorder.failure is not None and "recording stopped" in recorder.failure


def test_recorder_appends_and_the_reader_sees_both_sessions(tmp_path: Path) -> None:
    path = tmp_path / "rec.ndjson"
    for _ in range(2):
        recorder = Recorder.to_file(path, Redactor(), face="cli")
        recorder.frame(a_frame())
        recorder.close()
    recording = read_recording(path)
    assert [type(entry) for entry in recording.entries] == [
        Header,
        RecordedFrame,
        Header,
        RecordedFrame,
    ]


def test_bad_lines_are_skipped_and_reported_and_a_cut_last_line_is_tolerated() -> None:
    header = json.dumps({"type": "header", "at": 1, "format": "taskscope-recording", "version": 1})
    frame = json.dumps(frame_line(a_frame()))
    recording = parse_recording([header, "not json", '{"type": "weird", "at": 2}', "", frame[:30]])
    assert recording.entries == (Header(1.0, ""),)
    assert [problem.split(":")[0] for problem in recording.problems] == [
        "line 2",
        "line 3",
        "line 5",
    ]


def test_a_file_without_a_header_or_a_newer_version_is_not_a_recording(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="no taskscope recording"):
        parse_recording([json.dumps(frame_line(a_frame()))])
    newer = {"type": "header", "at": 1, "format": "taskscope-recording", "version": 99}
    with pytest.raises(RecordingError):
        parse_recording([json.dumps(newer)])
    with pytest.raises(RecordingError, match="cannot read"):
        read_recording(tmp_path / "missing.ndjson")


async def test_play_waits_the_recorded_gaps_divided_by_speed_and_skips_session_gaps() -> None:
    entries = [
        Header(0.0, "cli"),
        Opened(10.0, INFO),
        RecordedFrame(10.0, a_frame(10.0)),
        RecordedEvent(12.0, an_event(at=12.0)),
        Header(500.0, "cli"),
        RecordedFrame(501.0, a_frame(501.0)),
    ]
    slept: list[float] = []
    delivered: list[str] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    await play(
        entries,
        lambda entry: delivered.append(f"{type(entry).__name__} {entry.at:g}"),
        speed=4,
        sleep=sleep,
    )
    assert delivered == [
        "Opened 10",
        "RecordedFrame 10",
        "RecordedEvent 12",
        "RecordedFrame 501",
    ]
    assert slept == [0.5]  # (12 - 10) / 4; the 488 s before the second session is skipped

    slept.clear()
    await play(entries, lambda _entry: None, speed=None, sleep=sleep)
    assert slept == []


async def test_an_idle_stretch_plays_in_a_bounded_wait_while_the_replay_clock_crosses_it() -> None:
    entries = [
        Header(0.0, "cli"),
        RecordedFrame(10.0, a_frame(10.0)),
        RecordedFrame(3610.0, a_frame(3610.0)),
    ]
    ticks = iter([100.0, 100.0 + MAX_REPLAY_WAIT_S / 2])
    clock = ReplayClock(monotonic=lambda: next(ticks))
    seen: list[tuple[float, float]] = []

    async def sleep(seconds: float) -> None:
        seen.append((seconds, clock()))  # halfway through the shortened wait

    read: list[float] = []
    await play(entries, lambda _entry: read.append(clock()), speed=1, sleep=sleep, clock=clock)
    assert seen == [(MAX_REPLAY_WAIT_S, 1810.0)]  # an hour's gap: halfway is half an hour on
    assert read == [10.0, 3610.0]  # each entry on its recorded moment
    assert clock() == 3610.0  # and the clock stands at the last one


def test_a_connection_line_reads_back_as_written() -> None:
    event = ConnectionEvent("reconnecting", 12.5, attempt=2, delay_s=4.0, detail="lost")
    entry = decode(json.loads(json.dumps(connection_line(event))))
    assert entry == ConnectionChange(12.5, "reconnecting", 2, 4.0, "lost")
    with pytest.raises(BadLine, match="unknown connection change"):
        decode({"type": "connection", "at": 1.0, "connection": {"kind": "exploded"}})


def test_history_without_a_file_equals_the_history_written_with_one() -> None:
    kept = Recorder(
        redactor_for(url_target("http://127.0.0.1:1/mcp", [], SECRET, "streamable")),
        None,
        face="tui",
        clock=lambda: 1.0,
    )
    written = Recorder(
        redactor_for(url_target("http://127.0.0.1:1/mcp", [], SECRET, "streamable")),
        io.StringIO(),
        face="tui",
        clock=lambda: 1.0,
    )
    echoed = TASK.model_copy(update={"result": {"echo": f"Bearer {SECRET}"}})
    for recorder in (kept, written):
        recorder.event(an_event("transition"))
        recorder.event(TaskEvent("result", "t-1", echoed, 5.0, "poll"))
    assert kept.history() == written.history()
    assert SECRET not in repr(kept.history())


def test_each_server_of_a_session_records_its_lines_under_its_name_with_its_secrets_hidden() -> (
    None
):
    sink = io.StringIO()
    session = Recorder(Redactor(), sink, face="tui", servers=["alpha", "beta"], clock=lambda: 2.0)
    alpha = session.for_server("alpha", Redactor.build(secrets=[SECRET]))
    beta = session.for_server("beta", Redactor())
    alpha.opened(INFO)
    alpha.event(
        TaskEvent(
            "result", "t-1", TASK.model_copy(update={"result": {"echo": SECRET}}), 3.0, "poll"
        )
    )
    beta.event(an_event("transition"))
    beta.action("cancel", "t-1")
    recording = parse_recording(sink.getvalue().splitlines())
    assert SECRET not in sink.getvalue()
    assert recording.entries[0] == Header(2.0, "tui", None, ("alpha", "beta"))
    assert [getattr(entry, "server", None) for entry in recording.entries] == [
        None,
        "alpha",
        "alpha",
        "beta",
        "beta",
    ]
    assert recording.servers == ("alpha", "beta")
    assert recording.server_info("alpha") == INFO and recording.server_info("beta") is None
    assert recording.task_ids == ["alpha · t-1", "beta · t-1"]
    assert recording.keys_of("t-1") == ["alpha · t-1", "beta · t-1"]
    assert recording.keys_of("beta · t-1") == ["beta · t-1"]
    assert recording.keys_of("gamma · t-1") == []
    kept = Recorder(Redactor(), None, face="tui").for_server("alpha", Redactor())
    kept.event(an_event("transition"))
    assert [entry.server for entry in kept.history() if isinstance(entry, RecordedEvent)] == [
        "alpha"
    ]


@pytest.mark.parametrize(
    ("given", "read"),
    [(7, None), ("", None), (["a"], None), ("a · b", "a - b"), ("x" * 500, "x" * 200)],
)
def test_a_recorded_server_name_that_is_not_a_plain_name_is_made_one(
    given: object, read: str | None
) -> None:
    line = {**event_line(an_event("transition")), "serverName": given}
    entry = decode(line)
    assert isinstance(entry, RecordedEvent) and entry.server == read
    header = decode(
        {
            "type": "header",
            "at": 1,
            "format": "taskscope-recording",
            "version": 1,
            "servers": [given, "ok", "ok"],
        }
    )
    assert isinstance(header, Header)
    assert header.servers == ((read, "ok") if read else ("ok",))


def test_a_file_of_a_one_server_session_then_a_several_server_one_keeps_every_task_apart() -> None:
    one = Recorder(Redactor(), io.StringIO(), face="cli", clock=lambda: 1.0)
    one.event(an_event("transition"))
    sink = one._journal.sink
    assert isinstance(sink, io.StringIO)
    several = Recorder(Redactor(), sink, face="tui", servers=["alpha", "beta"], clock=lambda: 2.0)
    several.for_server("alpha", Redactor()).event(an_event("transition"))
    several.for_server("beta", Redactor()).event(an_event("transition"))
    recording = parse_recording(sink.getvalue().splitlines())
    assert recording.servers == ("alpha", "beta")
    assert recording.task_ids == ["t-1", "alpha · t-1", "beta · t-1"]
    assert recording.keys_of("t-1") == ["t-1", "alpha · t-1", "beta · t-1"]
    assert recording.keys_of("alpha · t-1") == ["alpha · t-1"]


def test_a_server_name_is_never_redacted_even_when_a_secret_holds_it() -> None:
    sink = io.StringIO()
    session = Recorder(Redactor(), sink, face="tui", servers=["staging"])
    session.for_server("staging", Redactor.build(secrets=["staging"])).action("cancel", "t-1")
    recording = parse_recording(sink.getvalue().splitlines())
    assert recording.actions[0].server == "staging"
    assert recording.servers == ("staging",)


def test_each_hostile_line_is_skipped_and_named_and_the_rest_reads_as_without_it(
    tmp_path: Path,
) -> None:
    recording = read_recording(hostile_recording(tmp_path))
    reasons = list(BAD_RECORDING_LINES.values())
    assert len(recording.problems) == len(reasons)
    for number, (problem, (_, why)) in enumerate(zip(recording.problems, reasons, strict=True)):
        assert problem.startswith(f"line {FIRST_BAD_LINE + number}: ") and why in problem
    assert recording.entries == read_recording(RECORDING).entries


def test_a_field_of_any_nesting_is_read_without_recursion() -> None:
    deep = deep_json.loads("[" * 100_000 + "]" * 100_000)
    event = {**event_line(an_event("transition")), "at": 5.0}
    event["event"] = {**event["event"], "taskId": deep}
    frame = frame_line(a_frame())
    frame["frame"] = {**frame["frame"], "headers": {"x": deep}}
    session = {
        "type": "session",
        "at": 1.0,
        "server": {"name": deep},
        "capabilities": {"wire": "none"},
    }
    read_event, read_frame, opened = decode(event), decode(frame), decode(session)
    assert isinstance(read_event, RecordedEvent) and read_event.event.task_id == ""
    assert isinstance(read_frame, RecordedFrame) and read_frame.frame.headers == {"x": ""}
    assert isinstance(opened, Opened) and opened.info.server_name == ""


def test_a_recording_larger_than_its_bound_is_refused_naming_the_bound(tmp_path: Path) -> None:
    size = RECORDING.stat().st_size
    assert read_recording(RECORDING, max_bytes=size).entries
    with pytest.raises(RecordingError, match=f"{size - 1:,} bytes.*TASKSCOPE_MAX_RECORDING"):
        read_recording(RECORDING, max_bytes=size - 1)
    endless = tmp_path / "one-line.ndjson"
    endless.write_text(json.dumps({"type": "header", "at": 1}) + " " * 10_000)
    with pytest.raises(RecordingError, match="larger than"):
        read_recording(endless, max_bytes=1_000)


def test_an_export_shows_a_creation_time_no_date_can_hold_and_any_nesting() -> None:
    ancient = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14)))
    deep = deep_json.loads("[" * 100_000 + "]" * 100_000)
    task = TASK.model_copy(update={"created_at": ancient, "result": {"deep": deep}})
    lives = task_lives([RecordedEvent(5.0, TaskEvent("result", "t-1", task, 5.0, "poll"))], ["t-1"])
    assert "| Created | -62135647200.000 s since the epoch |" in render(lives, "md")
    exported = deep_json.loads(render(lives, "json"))["tasks"][0]["result"]["deep"]
    assert deep_json.depth(exported) == 100_000


def test_a_wire_legacy_assumption_survives_the_round_trip_and_nothing_else_does() -> None:
    assumed = TasksCapabilities(
        "legacy", tool_calls=True, list=True, assumed=("tasks.requests.tools.call",)
    )
    info = dataclasses.replace(INFO, protocol_version="2025-11-25", capabilities=assumed)
    line = json.loads(json.dumps(session_line(5.0, info)))
    assert decode(line) == Opened(5.0, info)
    line["capabilities"]["assumed"] = ["tasks.requests.tools.call", "[b]x[/b]" * 1000, 7]
    entry = decode(line)
    assert isinstance(entry, Opened)
    assert entry.info.capabilities.assumed == ("tasks.requests.tools.call",)


@pytest.mark.parametrize(("wire", "kind"), [("legacy", "not visible"), ("extension", "forgotten")])
def test_a_task_restored_from_an_old_store_is_read_by_the_sessions_wire(
    wire: str, kind: str
) -> None:
    """A store entry written before wires were kept holds only the id and tool: the export
    reads its "not found" by the wire the recorded session spoke, as the rows do."""
    recorder = Recorder(Redactor(), None, face="tui", clock=lambda: 1.0)
    capabilities = TasksCapabilities(wire, tool_calls=True, list=wire == "legacy")  # type: ignore[arg-type]
    recorder.opened(dataclasses.replace(INFO, capabilities=capabilities))
    recorder.action("restored", None, tasks=[{"id": "t-old", "tool": "build_report"}])
    recorder.event(TaskEvent("expired", "t-old", None, 5.0, "poll"))
    (life,) = task_lives(recorder.history(), ["t-old"])
    assert [step.kind for step in life.steps] == [kind]
