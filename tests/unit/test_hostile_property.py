"""Property tests: random and mutated frames through the normalizer and the list/detail render path.

The normalizer must turn any payload into a `Task` or a `ProtocolViolation`, nothing else. Whatever
it accepts, and whatever frame a violation carries, must render in the task list and the detail
pane as inert text: no escape, control or bidi character survives, at any nesting depth.
"""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console, RenderableType
from rich.style import Style
from rich.text import Text

from app.demo.hostile_modes import BIDI, CONTROLS, ESCAPES, MARKUP
from app.engine.safety import deep_json
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import ProtocolViolation, Task, Wire
from app.engine.tasks.parse import (
    create_from_result,
    task_from_answer,
    task_from_notification,
)
from app.view.formatting import format_age, format_next_poll, format_since, format_ttl_left
from app.view.state import WatchedTask, apply_event
from widgets.detail_overview import overview_table
from widgets.detail_result import result_text
from widgets.detail_timeline import timeline_text
from widgets.json_text import json_text
from widgets.task_cells import static_cells

FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
"""Nothing a terminal acts on, and no invisible bidi or zero-width character (newline is ours)."""

hostile_pieces = st.sampled_from([ESCAPES, MARKUP, CONTROLS, BIDI, "\ud800", "\x1b", "\x9b"])
any_text = st.text(alphabet=st.characters(blacklist_categories=()), max_size=40)
texts = st.one_of(any_text, hostile_pieces, st.lists(hostile_pieces, max_size=4).map("".join))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), texts)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)


def nested(levels: int) -> Any:
    """A value nested `levels` deep, built without recursion."""
    value: Any = "bottom"
    for level in range(levels):
        value = {"nested": value} if level % 2 else [value]
    return value


deep_values = st.integers(min_value=1, max_value=1500).map(nested)
FIELDS = [
    "taskId",
    "status",
    "statusMessage",
    "createdAt",
    "lastUpdatedAt",
    "ttl",
    "ttlMs",
    "pollInterval",
    "pollIntervalMs",
    "result",
    "error",
    "inputRequests",
    "resultType",
    "task",
]
field_values = st.one_of(
    json_values,
    deep_values,
    st.sampled_from(["working", "input_required", "completed", "failed", "cancelled", "paused"]),
    st.fixed_dictionaries({"content": st.lists(json_values, max_size=3), "isError": scalars}),
    st.dictionaries(texts, st.fixed_dictionaries({"method": texts, "params": json_values})),
    deep_values.map(lambda value: {"content": [], "structuredContent": value}),
)
DEEP_COMPLETED = {
    "taskId": "t-1",
    "status": "completed",
    "ttlMs": None,
    "result": {"structuredContent": nested(1200)},
}


@st.composite
def task_payloads(draw: st.DrawFn) -> dict[str, Any]:
    """A valid-looking task payload with some fields replaced by anything at all."""
    payload: dict[str, Any] = {
        "taskId": "t-1",
        "status": draw(st.sampled_from(["working", "input_required", "completed", "failed"])),
        "statusMessage": draw(texts),
        "createdAt": "2026-08-01T10:30:00Z",
        "lastUpdatedAt": "2026-08-01T10:30:05Z",
        "ttlMs": 60000,
        "pollIntervalMs": 500,
    }
    payload.update(draw(st.dictionaries(st.sampled_from(FIELDS), field_values, max_size=4)))
    for key in draw(st.lists(st.sampled_from(FIELDS), max_size=2)):
        payload.pop(key, None)
    return payload


wires = st.sampled_from(["legacy", "extension"])


def normalize(payload: dict[str, Any], wire: Wire) -> Task | ProtocolViolation:
    task_id = payload.get("taskId")
    try:
        return task_from_answer(
            payload, wire=wire, task_id=task_id if isinstance(task_id, str) else "t-1"
        )
    except ProtocolViolation as violation:
        return violation


@settings(max_examples=300, deadline=None)
@given(payload=task_payloads(), wire=wires)
def test_normalizer_answers_with_a_task_or_a_violation(payload: dict[str, Any], wire: Wire) -> None:
    outcome = normalize(payload, wire)
    assert isinstance(outcome, Task | ProtocolViolation)
    for parse in (
        lambda: create_from_result(payload, wire=wire, tool_name="t"),
        lambda: task_from_notification(payload, wire=wire),
    ):
        with contextlib.suppress(ProtocolViolation):
            parse()


@settings(max_examples=200, deadline=None)
@given(frame=json_values, wire=wires)
def test_normalizer_takes_any_json_value(frame: Any, wire: Wire) -> None:
    with contextlib.suppress(ProtocolViolation):
        task_from_answer(frame, wire=wire, task_id="t-1")


def plain_cells(watched: WatchedTask) -> dict[str, Text]:
    """The task list's cells without a running App (styles are plain)."""
    return static_cells(watched, False, lambda _variable: Style())


def rendered(renderable: RenderableType) -> str:
    """What a terminal would receive for `renderable` (no colour, so every byte is text)."""
    sink = io.StringIO()
    Console(file=sink, width=100, color_system=None, legacy_windows=False).print(renderable)
    return sink.getvalue()


def events_for(outcome: Task | ProtocolViolation, payload: Any) -> list[TaskEvent]:
    """A good state, then the outcome: a change to the accepted task (so the timeline diffs the
    two raw states), or a violation carrying the offending frame."""
    good = Task(task_id="t-1", wire="extension", status="working", raw={"taskId": "t-1"})
    if isinstance(outcome, Task):
        return [
            TaskEvent("created", "t-1", good, 0.0, "create"),
            TaskEvent("changed", "t-1", outcome, 1.0, "poll"),
        ]
    return [
        TaskEvent("created", "t-1", good, 0.0, "create"),
        TaskEvent("violation", "t-1", good, 1.0, "poll", detail=outcome.reason, frame=payload),
    ]


def render_everything(watched: WatchedTask) -> list[str]:
    cells = plain_cells(watched).values()
    task = watched.task
    outputs = [cell.plain for cell in cells]
    outputs += [
        format_age(watched, 5.0),
        format_since(watched.last_change, 5.0),
        format_ttl_left(watched, 5.0),
        format_next_poll(watched, 5.0),
    ]
    outputs += [
        rendered(overview_table(watched)),
        rendered(result_text(task)),
        rendered(timeline_text(watched)),
        rendered(json_text(task.raw if task else None)),
        rendered(json_text(watched.violation.frame if watched.violation else None)),
    ]
    return outputs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=task_payloads(), wire=wires)
def test_list_and_detail_render_any_outcome_as_inert_text(
    payload: dict[str, Any], wire: Wire
) -> None:
    watched: WatchedTask | None = None
    for event in events_for(normalize(payload, wire), payload):
        watched = apply_event(watched, event)
    assert watched is not None
    for output in render_everything(watched):
        assert not FORBIDDEN.search(output), output[:200]
        assert "\ud800" not in output


@settings(max_examples=60, deadline=None)
@given(frame=st.one_of(json_values, deep_values), text=texts)
def test_violation_frames_of_any_shape_render(frame: Any, text: str) -> None:
    """Mutated frames (deep, hostile) shown as the offending frame, and as table messages."""
    good = Task(task_id="t-1", wire="legacy", status="working", status_message=text, raw={})
    watched = apply_event(None, TaskEvent("created", "t-1", good, 0.0, "create"))
    watched = apply_event(
        watched, TaskEvent("violation", "t-1", good, 1.0, "poll", detail=text, frame=frame)
    )
    for output in render_everything(watched):
        assert not FORBIDDEN.search(output)
    assert deep_json.dumps(frame, default=str)  # the frame itself stays printable


def test_deep_result_diffs_and_renders() -> None:
    """A result 1,200 levels deep: accepted, diffed into the timeline, rendered (the generated
    cases above rarely reach that depth; hypothesis cannot print such an example itself)."""
    outcome = normalize(DEEP_COMPLETED, "extension")
    assert isinstance(outcome, Task)
    watched: WatchedTask | None = None
    for event in events_for(outcome, DEEP_COMPLETED):
        watched = apply_event(watched, event)
    assert watched is not None and watched.timeline[-1].diff
    assert "+ result: " in watched.timeline[-1].diff.lines()[-1]
    for output in render_everything(watched):
        assert not FORBIDDEN.search(output)


def test_markup_stays_literal_in_cells_and_detail() -> None:
    task = Task(
        task_id="t-1",
        wire="extension",
        status="completed",
        status_message=MARKUP,
        result={"content": [{"type": "text", "text": MARKUP}]},
        raw={},
    )
    watched = apply_event(None, TaskEvent("created", "t-1", task, 0.0, "create"))
    message = plain_cells(watched)["message"]
    assert isinstance(message, Text) and message.plain.startswith("[bold red]loud[/bold red]")
    assert "[bold red]loud[/bold red] [link=https://evil.example]click[/link]" in rendered(
        result_text(task)
    )
