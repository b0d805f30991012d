"""Unit tests of the TUI state: the event reducer, filters, sort orders and the JSON diff."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.tasks.events import EventKind, NextPoll, Source, TaskEvent
from app.engine.tasks.models import InputKind, InputRequest, Progress, Task, TaskStatus, Wire
from app.view.state import (
    DiffEntry,
    TasksState,
    apply_event,
    json_diff,
    ordered_ids,
    parse_filter,
)

T0 = 1_800_000_000.0


def make_task(
    task_id: str = "t-1",
    status: TaskStatus = "working",
    *,
    wire: Wire = "extension",
    message: str | None = None,
    tool: str | None = "deploy",
    created: float | None = T0,
    ttl_ms: int | None = None,
    result: dict[str, Any] | None = None,
    inputs: tuple[str, ...] = (),
    result_source: Any = None,
    updated: float | None = None,
) -> Task:
    raw: dict[str, Any] = {"taskId": task_id, "status": status}
    if message is not None:
        raw["statusMessage"] = message
    if result is not None:
        raw["result"] = result
    if updated is not None:
        raw["lastUpdatedAt"] = updated
    return Task(
        task_id=task_id,
        wire=wire,
        status=status,
        status_message=message,
        created_at=datetime.fromtimestamp(created, UTC) if created is not None else None,
        ttl_ms=ttl_ms,
        result=result,
        result_source=result_source,
        input_requests=tuple(make_request(key, task_id, wire) for key in inputs),
        tool_name=tool,
        raw=raw,
    )


def make_request(key: str, task_id: str = "t-1", wire: Wire = "extension") -> InputRequest:
    return InputRequest(
        key=key,
        kind=InputKind.FORM,
        method="elicitation/create",
        params={"message": "Approve?"},
        wire=wire,
        task_id=task_id,
        message="Approve?",
    )


def event(
    kind: EventKind,
    task: Task | None,
    at: float,
    *,
    task_id: str | None = None,
    source: Source = "poll",
    detail: str | None = None,
    next_poll: NextPoll | None = None,
    request: InputRequest | None = None,
    frame: object | None = None,
) -> TaskEvent:
    return TaskEvent(
        kind=kind,
        task_id=task_id or (task.task_id if task else "t-1"),
        task=task,
        at=at,
        source=source,
        detail=detail,
        input_request=request,
        next_poll=next_poll,
        frame=frame,
    )


# --- reducer -----------------------------------------------------------------------------------


def test_created_then_transition_records_timeline_and_diff() -> None:
    state = TasksState()
    assert state.apply(event("created", make_task(), T0, source="create"))
    assert state.apply(event("transition", make_task(status="completed"), T0 + 5))
    watched = state.tasks["t-1"]
    assert watched.status == "completed"
    assert watched.tool_name == "deploy"
    assert watched.first_seen == T0 and watched.last_change == T0 + 5
    assert [entry.kind for entry in watched.timeline] == ["created", "transition"]
    diff = watched.timeline[-1].diff
    assert diff is not None
    assert diff.entries == (DiffEntry("changed", "status", '"working"', '"completed"'),)


def test_plain_poll_keeps_last_change_and_adds_no_timeline_entry() -> None:
    state = TasksState()
    state.apply(event("created", make_task(), T0, source="create"))
    nxt = NextPoll(due=100.0, delay=2.0, term="server")
    state.apply(event("polled", make_task(updated=T0 + 3), T0 + 3, next_poll=nxt))
    watched = state.tasks["t-1"]
    assert watched.last_change == T0
    assert watched.last_event == T0 + 3
    assert len(watched.timeline) == 1
    assert watched.polls == 1
    assert watched.next_poll == nxt
    assert watched.next_poll_at == T0 + 5


def test_material_change_inside_a_poll_counts_as_change() -> None:
    state = TasksState()
    state.apply(event("created", make_task(), T0))
    state.apply(event("polled", make_task(message="halfway"), T0 + 1))
    watched = state.tasks["t-1"]
    assert watched.last_change == T0 + 1
    assert watched.timeline[-1].kind == "changed"


def test_failed_poll_marks_row_keeps_task_and_next_good_poll_clears() -> None:
    state = TasksState()
    state.apply(event("created", make_task(message="m"), T0))
    state.apply(event("error", None, T0 + 1, task_id="t-1", detail="HTTP 503"))
    watched = state.tasks["t-1"]
    assert watched.last_error == "HTTP 503" and watched.erroring
    assert watched.task is not None and watched.task.status_message == "m"
    assert state.summary().latest_error == "HTTP 503"
    state.apply(event("polled", make_task(message="m"), T0 + 2))
    watched = state.tasks["t-1"]
    assert watched.last_error is None and not watched.erroring
    assert watched.timeline[-1].kind == "recovered"
    assert watched.errors == 1


def test_violation_keeps_frame_until_next_good_poll() -> None:
    state = TasksState()
    state.apply(event("created", make_task(), T0))
    frame = {"result": {"status": "bogus"}}
    state.apply(event("violation", None, T0 + 1, detail="unknown status", frame=frame))
    watched = state.tasks["t-1"]
    assert watched.violation is not None
    assert watched.violation.reason == "unknown status"
    assert watched.violation.frame is frame
    assert watched.status == "working"
    state.apply(event("polled", make_task(), T0 + 2))
    assert state.tasks["t-1"].violation is None


def test_cancel_requested_shows_beside_real_status_until_terminal() -> None:
    state = TasksState()
    state.apply(event("created", make_task(), T0))
    assert state.request_cancel("t-1", T0 + 1)
    state.apply(event("polled", make_task(), T0 + 2))
    watched = state.tasks["t-1"]
    assert watched.cancel_requested and watched.status == "working"
    # Cooperative cancel may end in completed rather than cancelled: show what the server says.
    state.apply(event("transition", make_task(status="completed"), T0 + 3))
    watched = state.tasks["t-1"]
    assert not watched.cancel_requested and watched.status == "completed"
    assert not state.request_cancel("t-1", T0 + 4)


def test_synchronous_answer_is_marked() -> None:
    state = TasksState()
    task = make_task(status="completed", result={"content": []}, result_source="synchronous")
    state.apply(event("created", task, T0, source="create"))
    watched = state.tasks["t-1"]
    assert watched.synchronous and watched.settled


def test_expired_versus_forgotten_depends_on_ttl() -> None:
    state = TasksState()
    state.apply(event("created", make_task("a", ttl_ms=1000), T0))
    state.apply(event("created", make_task("b", ttl_ms=60_000), T0))
    state.apply(event("expired", None, T0 + 2, task_id="a"))
    state.apply(event("expired", None, T0 + 2, task_id="b"))
    assert state.tasks["a"].status == "expired"
    assert state.tasks["b"].status == "forgotten"
    assert state.tasks["b"].timeline[-1].kind == "forgotten"
    assert state.tasks["a"].is_fault and state.tasks["a"].next_poll is None


def test_legacy_inputs_tracked_by_key_extension_by_snapshot() -> None:
    state = TasksState()
    legacy = make_task("L", wire="legacy", status="input_required")
    state.apply(event("created", legacy, T0))
    request = make_request("srv-1", "L", "legacy")
    state.apply(event("input_needed", legacy, T0 + 1, request=request, source="stream"))
    assert state.tasks["L"].pending_input_count == 1
    state.apply(event("input_answered", legacy, T0 + 2, request=request, source="user"))
    assert state.tasks["L"].pending_input_count == 0

    ext = make_task("E", status="input_required", inputs=("approve", "name"))
    state.apply(event("created", ext, T0))
    assert state.tasks["E"].pending_inputs == {"approve", "name"}
    state.apply(event("input_answered", ext, T0 + 1, request=make_request("approve", "E")))
    # The server re-sends the whole snapshot before it consumes the answer: never re-prompt.
    state.apply(event("polled", ext, T0 + 2))
    assert state.tasks["E"].pending_inputs == {"name"}
    state.apply(event("transition", make_task("E", status="completed"), T0 + 3))
    assert state.tasks["E"].pending_input_count == 0


def test_timeline_is_bounded() -> None:
    state = TasksState(timeline_cap=5)
    state.apply(event("created", make_task(), T0))
    for step in range(20):
        state.apply(event("changed", make_task(message=f"step {step}"), T0 + step + 1))
    timeline = state.tasks["t-1"].timeline
    assert len(timeline) == 5
    assert timeline[-1].at == T0 + 20


def test_event_for_unknown_id_creates_a_row() -> None:
    watched = apply_event(None, event("error", None, T0, task_id="adopted", detail="timeout"))
    assert watched.status == "unknown" and watched.last_error == "timeout"


def test_apply_all_reports_only_changed_ids() -> None:
    state = TasksState()
    state.apply_all([event("created", make_task(i), T0) for i in ("a", "b", "c")])
    changed = state.apply_all(
        [
            event("polled", make_task("a"), T0 + 1),
            event("changed", make_task("b", message="x"), T0 + 1),
        ]
    )
    assert changed == {"a", "b"}


def test_a_forgotten_task_stays_forgotten_until_watched_again() -> None:
    state = TasksState()
    state.apply(event("created", make_task("a"), T0))
    assert state.forget("a")
    assert not state.apply(event("changed", make_task("a", message="late"), T0 + 1))
    assert "a" not in state
    assert state.apply(event("created", make_task("a"), T0 + 2, source="list"))
    assert state.tasks["a"].timeline[0].source == "list"


def test_stopped_clears_next_poll() -> None:
    state = TasksState()
    nxt = NextPoll(due=1.0, delay=1.0, term="backoff")
    state.apply(event("created", make_task(), T0, next_poll=nxt))
    state.apply(event("stopped", None, T0 + 1, detail="aborted", source="user"))
    watched = state.tasks["t-1"]
    assert watched.stopped == "aborted" and watched.next_poll_at is None


# --- filters and sort ------------------------------------------------------------------------


def _state_for_filters() -> TasksState:
    state = TasksState()
    state.apply(event("created", make_task("alpha-1", tool="deploy", message="pushing"), T0))
    state.apply(event("created", make_task("beta-2", "failed", tool="build"), T0 + 1))
    state.apply(event("created", make_task("gamma-3", "input_required", tool="deploy"), T0 + 2))
    state.apply(event("created", make_task("delta-4", "completed", tool="long job"), T0 + 3))
    return state


def test_filter_tokens_combine() -> None:
    tasks = _state_for_filters().tasks
    assert ordered_ids(tasks, task_filter=parse_filter("tool:deploy")) == ["alpha-1", "gamma-3"]
    assert ordered_ids(tasks, task_filter=parse_filter("tool:deploy status:input")) == ["gamma-3"]
    assert ordered_ids(tasks, task_filter=parse_filter("id:BETA")) == ["beta-2"]
    assert ordered_ids(tasks, task_filter=parse_filter("pushing")) == ["alpha-1"]
    assert ordered_ids(tasks, task_filter=parse_filter('tool:"long job"')) == ["delta-4"]
    assert ordered_ids(tasks, task_filter=parse_filter("status:failed,completed")) == [
        "beta-2",
        "delta-4",
    ]
    assert ordered_ids(tasks, task_filter=parse_filter("!status:completed !tool:deploy")) == [
        "beta-2"
    ]


def test_filter_parser_tolerates_bad_input() -> None:
    parsed = parse_filter('tool:"unclosed  status:  weird:value')
    fields = [(term.field, term.value) for term in parsed.terms]
    assert ("text", "weird:value") in fields
    assert parse_filter("").is_empty


def test_faults_only() -> None:
    state = _state_for_filters()
    state.apply(event("error", None, T0 + 5, task_id="alpha-1", detail="boom"))
    faults = state.view(parse_filter("", faults_only=True))
    assert faults == ["alpha-1", "beta-2", "gamma-3"]


def test_sort_orders_are_stable() -> None:
    state = _state_for_filters()
    state.apply(event("changed", make_task("beta-2", "failed", tool="build", message="x"), T0 + 9))
    assert state.view(sort="status") == ["gamma-3", "beta-2", "alpha-1", "delta-4"]
    assert state.view(sort="tool") == ["beta-2", "alpha-1", "gamma-3", "delta-4"]
    assert state.view(sort="last_change", descending=True)[0] == "beta-2"
    assert state.view(sort="age") == ["alpha-1", "beta-2", "gamma-3", "delta-4"]
    assert state.view() == ["alpha-1", "beta-2", "gamma-3", "delta-4"]


# --- diff ------------------------------------------------------------------------------------


def test_json_diff_paths() -> None:
    before = {"a": 1, "b": {"c": [1, 2, 3]}, "gone": True, "odd key": 1}
    after = {"a": 2, "b": {"c": [1, 5]}, "new": "x", "odd key": 2}
    lines = json_diff(before, after).lines()
    assert lines == [
        '+ new: "x"',
        "- gone: true",
        "~ a: 1 → 2",
        "- b.c[2]: 3",
        "~ b.c[1]: 2 → 5",
        '~ ["odd key"]: 1 → 2',
    ]


def test_json_diff_type_change_and_equal() -> None:
    assert not json_diff({"a": [1]}, {"a": [1]})
    assert json_diff({"a": 1}, {"a": 1.5}).entries[0].op == "changed"
    assert json_diff({"a": True}, {"a": 1}).entries[0].op == "changed"
    assert json_diff(1, "1").entries[0].path == "(root)"


def test_json_diff_caps_entries_and_values() -> None:
    after = {f"k{i}": "v" * 500 for i in range(100)}
    diff = json_diff({}, after, max_entries=10, value_width=20)
    assert len(diff.entries) == 10 and diff.omitted == 90
    assert all(len(entry.after or "") <= 20 for entry in diff.entries)
    assert diff.lines()[-1] == "… 90 more"


def test_json_diff_handles_deep_nesting_without_recursion() -> None:
    deep_a: Any = "leaf"
    deep_b: Any = "other"
    for _ in range(5000):
        deep_a, deep_b = [deep_a], [deep_b]
    diff = json_diff(deep_a, deep_b)
    assert diff.entries[0].op == "changed"
    assert diff.entries[0].path.endswith("[0]")


# --- header summary ----------------------------------------------------------------------------

_STEP = st.tuples(
    st.sampled_from(["created", "polled", "transition", "error", "violation", "cancel", "forget"]),
    st.sampled_from(["a", "b", "c", "d"]),
    st.sampled_from(["working", "input_required", "completed", "failed"]),
    st.integers(min_value=0, max_value=3),
)


@given(st.lists(_STEP, max_size=40))
@settings(max_examples=150, deadline=None)
def test_running_summary_equals_a_walk_over_every_task(steps: list[Any]) -> None:
    state = TasksState()
    for kind, task_id, status, tick in steps:
        at = T0 + tick  # few distinct times, so ties for the latest error are common
        task = make_task(task_id, status)
        if kind == "cancel":
            state.request_cancel(task_id, at)
        elif kind == "forget":
            state.forget(task_id)
        elif kind in ("error", "violation"):
            state.apply(event(kind, None, at, task_id=task_id, detail=f"{task_id} {tick}"))
        else:
            state.apply(event(kind, task, at))
        assert state.summary() == state.summary(list(state.tasks))


def test_latest_error_tie_goes_to_the_first_task_as_a_walk_would() -> None:
    state = TasksState()
    state.apply(event("created", make_task("a"), T0))
    state.apply(event("created", make_task("b"), T0))
    state.apply(event("error", None, T0 + 1, task_id="b", detail="b failed"))
    state.apply(event("error", None, T0 + 1, task_id="a", detail="a failed"))
    assert state.summary().latest_error == "a failed"
    state.forget("a")
    assert state.summary().latest_error == "b failed"


def test_the_same_id_on_two_servers_is_two_rows_filtered_by_server() -> None:
    """Several servers: the row key names the server, `id:` matches the server's own id and
    `server:` the server (comma for either, `!` for neither)."""
    from dataclasses import replace

    from app.engine.tasks.server_keys import row_key

    state = TasksState()
    for server, at in (("github", T0), ("linear", T0 + 1)):
        created = event("created", make_task("task-1", tool="deploy"), at)
        state.apply(replace(created, task_id=row_key(server, "task-1"), server=server))
    state.apply(event("created", make_task("solo-9"), T0 + 2))
    tasks = state.tasks
    assert list(tasks) == ["github · task-1", "linear · task-1", "solo-9"]
    assert [watched.server_task_id for watched in tasks.values()] == ["task-1", "task-1", "solo-9"]
    assert ordered_ids(tasks, task_filter=parse_filter("server:git")) == ["github · task-1"]
    assert ordered_ids(tasks, task_filter=parse_filter("server:git,lin")) == [
        "github · task-1",
        "linear · task-1",
    ]
    assert ordered_ids(tasks, task_filter=parse_filter("!server:github")) == [
        "linear · task-1",
        "solo-9",
    ]
    assert ordered_ids(tasks, task_filter=parse_filter("id:github")) == []
    assert ordered_ids(tasks, task_filter=parse_filter("github")) == ["github · task-1"]


def test_a_progress_notification_shows_what_it_changed_in_the_timeline() -> None:
    task = make_task(wire="legacy")
    watched = apply_event(None, event("created", task, T0))
    notified = task.model_copy(update={"progress": Progress(progress=3, total=10, message="3/10")})
    watched = apply_event(watched, event("changed", notified, T0 + 1, source="notification"))
    entry = watched.timeline[-1]
    assert (entry.kind, entry.source) == ("changed", "notification")
    assert entry.diff is not None
    assert "+ progressNotification: " in entry.diff.lines()[0]
    again = notified.model_copy(update={"progress": Progress(progress=4, total=10)})
    watched = apply_event(watched, event("changed", again, T0 + 2, source="notification"))
    assert watched.timeline[-1].diff is not None
    assert "~ progressNotification.progress: 3.0 → 4.0" in watched.timeline[-1].diff.lines()


def test_a_change_with_nothing_to_show_adds_no_timeline_row() -> None:
    task = make_task(wire="legacy")
    watched = apply_event(None, event("created", task, T0))
    asked = task.model_copy(update={"input_requests": (make_request("q1", wire="legacy"),)})
    after = apply_event(watched, event("changed", asked, T0 + 1, source="notification"))
    assert after.timeline == watched.timeline  # the question has its own row when asked
