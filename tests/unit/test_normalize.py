"""The normalizers on every payload variant of the protocol reference, and what they refuse."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from app.engine.tasks.extension_parse import check_ack
from app.engine.tasks.legacy_parse import (
    input_request_from_server_request,
    related_task_id,
    tasks_from_list,
)
from app.engine.tasks.models import InputKind, ProtocolViolation, TaskError
from app.engine.tasks.normalize import Variants, task_error_from
from app.engine.tasks.parse import (
    create_from_result,
    task_from_answer,
    task_from_notification,
    task_from_payload,
)

LEGACY_ID = "3f5c2a9e-7d1b-4c8e-9a40-5b6f0e2d1c77"
EXT_ID = "786512e2-9e0d-44bd-8f29-789f320fe840"
FAILED_ID = "786512e2-9e0d-44bd-8f29-789f820fe840"  # the reference's failure examples use this id


def j(text: str) -> Any:
    return json.loads(text)


# --- legacy shapes (reference §5.1-5.3) -------------------------------------------------------


def test_legacy_nested_create_result() -> None:
    payload = j(
        '{"task":{"taskId":"3f5c2a9e-7d1b-4c8e-9a40-5b6f0e2d1c77","status":"working",'
        '"statusMessage":"The operation is now in progress.","createdAt":"2025-11-25T10:30:00Z",'
        '"lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":600000,"pollInterval":2000},'
        '"_meta":{"io.modelcontextprotocol/model-immediate-response":"Deployment started."}}'
    )
    variants = Variants()
    parsed = create_from_result(payload, wire="legacy", tool_name="deploy", variants=variants)
    assert parsed.kind == "task" and parsed.task is not None
    task = parsed.task
    assert task.task_id == LEGACY_ID and task.status == "working" and task.wire == "legacy"
    assert task.ttl_ms == 600000 and task.poll_interval_ms == 2000
    assert task.created_at == datetime(2025, 11, 25, 10, 30, tzinfo=UTC)
    assert task.status_message == "The operation is now in progress."
    assert task.tool_name == "deploy"
    assert task.raw == payload["task"]
    assert variants.seen == {}


def test_legacy_flat_create_result_is_accepted_and_noted() -> None:
    variants = Variants()
    payload = {"taskId": "t1", "status": "working", "ttl": None, "createdAt": "x"}
    parsed = create_from_result(payload, wire="legacy", tool_name="x", variants=variants)
    assert parsed.task is not None and parsed.task.task_id == "t1"
    assert "tools/call: flat CreateTaskResult on the legacy wire" in variants
    assert "ttl: null (unlimited)" in variants
    assert "createdAt: unparseable timestamp ignored" in variants


def test_legacy_plain_call_tool_result_is_synchronous() -> None:
    payload = {"content": [{"type": "text", "text": "hi"}], "isError": False}
    parsed = create_from_result(payload, wire="legacy", tool_name="x")
    assert parsed.kind == "sync" and parsed.sync_result == payload and parsed.task is None


def test_output_schema_tool_creation_is_never_validated_as_a_tool_result() -> None:
    """A task-creating answer has no structuredContent; it must parse as a task anyway."""
    payload = {"task": {"taskId": "t", "status": "working", "ttl": 1000}}
    assert create_from_result(payload, wire="legacy", tool_name="typed").kind == "task"
    flat = {"resultType": "task", "taskId": "t", "status": "working", "ttlMs": 1000}
    assert create_from_result(flat, wire="extension", tool_name="typed").kind == "task"


def test_legacy_create_with_neither_shape_is_a_violation() -> None:
    with pytest.raises(ProtocolViolation) as caught:
        create_from_result({}, wire="legacy", tool_name="x")
    assert caught.value.frame == {}


def test_legacy_get_input_required() -> None:
    payload = j(
        '{"taskId":"3f5c2a9e-7d1b-4c8e-9a40-5b6f0e2d1c77","status":"input_required",'
        '"statusMessage":"Waiting for approval","createdAt":"2025-11-25T10:30:00Z",'
        '"lastUpdatedAt":"2025-11-25T10:30:09Z","ttl":600000,"pollInterval":2000}'
    )
    task = task_from_answer(payload, wire="legacy", task_id=LEGACY_ID)
    assert task.status == "input_required" and task.input_requests == ()
    assert task.last_updated_at == datetime(2025, 11, 25, 10, 30, 9, tzinfo=UTC)


def test_legacy_failed_has_no_inline_error() -> None:
    payload = j(
        '{"taskId":"786512e2-9e0d-44bd-8f29-789f820fe840","status":"failed",'
        '"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000,'
        '"statusMessage":"Tool execution failed: API rate limit exceeded"}'
    )
    variants = Variants()
    task = task_from_answer(
        payload, wire="legacy", task_id="786512e2-9e0d-44bd-8f29-789f820fe840", variants=variants
    )
    assert task.status == "failed" and task.error is None and task.result is None
    assert variants.seen == {}


def test_legacy_cancel_result() -> None:
    payload = j(
        '{"taskId":"9b1e","status":"cancelled",'
        '"statusMessage":"The task was cancelled by request.",'
        '"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000,'
        '"pollInterval":5000}'
    )
    task = task_from_answer(payload, wire="legacy", task_id="9b1e", method="tasks/cancel")
    assert task.status == "cancelled" and task.poll_interval_ms == 5000


def test_legacy_list_page() -> None:
    payload = j(
        '{"tasks":[{"taskId":"3f5c2a9e-7d1b-4c8e-9a40-5b6f0e2d1c77","status":"completed",'
        '"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":600000}],'
        '"nextCursor":"next-page-cursor"}'
    )
    tasks, cursor = tasks_from_list(payload)
    assert [task.task_id for task in tasks] == [LEGACY_ID] and cursor == "next-page-cursor"
    assert tasks_from_list({"tasks": []}) == ([], None)


@pytest.mark.parametrize(
    "payload", [{"tasks": "no"}, {}, {"tasks": [], "nextCursor": 3}, {"tasks": [{"status": "x"}]}]
)
def test_bad_list_pages_are_violations(payload: dict[str, Any]) -> None:
    with pytest.raises(ProtocolViolation):
        tasks_from_list(payload)


def test_legacy_status_notification_strips_meta() -> None:
    params = j(
        '{"taskId":"3f5c2a9e-7d1b-4c8e-9a40-5b6f0e2d1c77","status":"working",'
        '"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:20Z","ttl":600000,'
        '"pollInterval":2000,"_meta":{"x":1}}'
    )
    task = task_from_notification(params, wire="legacy")
    assert task.status == "working" and "_meta" not in task.raw


def test_legacy_elicitation_request_with_related_task() -> None:
    frame = j(
        '{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"mode":"form",'
        '"message":"Approve production deploy?","requestedSchema":{"type":"object","properties":'
        '{"approve":{"type":"boolean","title":"Approve"}},"required":["approve"]},"_meta":'
        '{"io.modelcontextprotocol/related-task":{"taskId":"3f5c2a9e-7d1b-4c8e-9a40-5b6f0e2d1c77"}}}}'
    )
    request = input_request_from_server_request(frame["method"], frame["params"], frame["id"])
    assert request.key == "srv-1" and request.task_id == LEGACY_ID
    assert request.kind is InputKind.FORM and request.message == "Approve production deploy?"
    assert request.requested_schema is not None and request.wire == "legacy"


def test_legacy_url_elicitation_and_untied_requests() -> None:
    url = input_request_from_server_request(
        "elicitation/create",
        {"mode": "url", "message": "Connect", "elicitationId": "e", "url": "https://x/y"},
        7,
    )
    assert url.kind is InputKind.URL and url.key == "7" and url.task_id is None
    assert url.url == "https://x/y"
    roots = input_request_from_server_request("roots/list", None, 8)
    assert roots.kind is InputKind.ROOTS and roots.params == {}
    sampling = input_request_from_server_request("sampling/createMessage", {"messages": []}, 9)
    assert sampling.kind is InputKind.SAMPLING
    odd = input_request_from_server_request("elicitation/create", {"mode": "video"}, 10)
    assert odd.kind is InputKind.UNKNOWN


def test_related_task_id_ignores_bad_meta() -> None:
    assert (
        related_task_id({"_meta": {"io.modelcontextprotocol/related-task": {"taskId": 3}}}) is None
    )
    assert related_task_id({"_meta": "x"}) is None


# --- extension shapes (reference §5.4-5.6) ----------------------------------------------------


def test_extension_flat_create_result() -> None:
    payload = j(
        '{"resultType":"task","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working",'
        '"statusMessage":"The operation is now in progress.","createdAt":"2026-08-01T10:30:00Z",'
        '"lastUpdatedAt":"2026-08-01T10:30:00Z","ttlMs":3600000,"pollIntervalMs":5000}'
    )
    variants = Variants()
    parsed = create_from_result(payload, wire="extension", tool_name="deploy", variants=variants)
    assert parsed.task is not None and parsed.task.task_id == EXT_ID
    assert parsed.task.ttl_ms == 3600000 and parsed.task.poll_interval_ms == 5000
    assert parsed.task.wire == "extension" and variants.seen == {}


def test_extension_nested_create_result_is_noted() -> None:
    variants = Variants()
    payload = {"resultType": "task", "task": {"taskId": "t", "status": "working", "ttlMs": None}}
    parsed = create_from_result(payload, wire="extension", tool_name="x", variants=variants)
    assert parsed.task is not None and parsed.task.task_id == "t"
    assert "tools/call: nested {task: …} CreateTaskResult on the extension wire" in variants


def test_extension_task_without_result_type_is_still_a_task() -> None:
    variants = Variants()
    payload = {"taskId": "t", "status": "working", "ttlMs": 5}
    parsed = create_from_result(payload, wire="extension", tool_name="x", variants=variants)
    assert parsed.kind == "task"
    assert "tools/call: CreateTaskResult without resultType" in variants


def test_extension_synchronous_answers() -> None:
    complete = j(
        '{"resultType":"complete","content":[{"type":"text","text":"Hello, World!"}],'
        '"isError":false}'
    )
    assert create_from_result(complete, wire="extension", tool_name="x").kind == "sync"
    variants = Variants()
    bare = {"content": []}
    parsed = create_from_result(bare, wire="extension", tool_name="x", variants=variants)
    assert parsed.kind == "sync" and parsed.sync_result == bare
    assert "tools/call: result without resultType (read as complete)" in variants


def test_extension_mrtr_round() -> None:
    payload = j(
        '{"resultType":"input_required","inputRequests":{"user_name":{"method":"elicitation/create",'
        '"params":{"message":"Your name?","requestedSchema":{"type":"object","properties":'
        '{"name":{"type":"string"}},"required":["name"]}}}},"requestState":"eyJzdGVwIjoxfQ"}'
    )
    parsed = create_from_result(payload, wire="extension", tool_name="greet_later")
    assert parsed.kind == "input_required" and parsed.request_state == "eyJzdGVwIjoxfQ"
    (request,) = parsed.input_requests
    assert request.key == "user_name" and request.task_id is None
    assert request.kind is InputKind.FORM and request.message == "Your name?"


def test_extension_unknown_result_type_is_a_violation() -> None:
    with pytest.raises(ProtocolViolation, match="resultType"):
        create_from_result({"resultType": "later"}, wire="extension", tool_name="x")


def test_extension_input_required_get() -> None:
    payload = j(
        '{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840",'
        '"status":"input_required","statusMessage":"Waiting for approval and account link",'
        '"createdAt":"2026-08-01T10:30:00Z","lastUpdatedAt":"2026-08-01T10:30:09Z",'
        '"ttlMs":3600000,"pollIntervalMs":5000,"inputRequests":{"approve":{"method":'
        '"elicitation/create","params":{"mode":"form","message":"Approve production deploy?",'
        '"requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean","title":'
        '"Approve"},"note":{"type":"string","maxLength":200}},"required":["approve"]}}},'
        '"link":{"method":"elicitation/create","params":{"mode":"url","message":'
        '"Link your cloud account to continue.","url":"https://mcp.example.com/ui/link"}}}}'
    )
    task = task_from_answer(payload, wire="extension", task_id=EXT_ID)
    approve, link = task.input_requests
    assert (approve.key, approve.kind, approve.task_id) == ("approve", InputKind.FORM, EXT_ID)
    assert (link.key, link.kind, link.url) == (
        "link",
        InputKind.URL,
        "https://mcp.example.com/ui/link",
    )


def test_extension_sampling_and_roots_entries() -> None:
    entries = j(
        '{"capital":{"method":"sampling/createMessage","params":{"messages":[{"role":"user",'
        '"content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}},'
        '"where":{"method":"roots/list"}}'
    )
    payload = {"taskId": "t", "status": "input_required", "ttlMs": 1, "inputRequests": entries}
    capital, where = task_from_payload(payload, wire="extension").input_requests
    assert capital.kind is InputKind.SAMPLING and where.kind is InputKind.ROOTS
    assert where.params == {}


def test_extension_completed_inline_result_and_is_error() -> None:
    payload = j(
        '{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f820fe840","status":'
        '"completed","createdAt":"2026-08-01T10:30:00Z","lastUpdatedAt":"2026-08-01T10:40:00Z",'
        '"ttlMs":3600000,"result":{"content":[{"type":"text","text":'
        '"Failed to process request: invalid input"}],"isError":true}}'
    )
    task = task_from_answer(payload, wire="extension", task_id=FAILED_ID)
    assert task.status == "completed" and task.is_tool_error
    assert task.result_source == "inline" and task.error is None


def test_extension_failed_inline_error() -> None:
    payload = j(
        '{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f820fe840","status":"failed",'
        '"createdAt":"2026-08-01T10:30:00Z","lastUpdatedAt":"2026-08-01T10:40:00Z","ttlMs":3600000,'
        '"statusMessage":"Tool execution failed: API rate limit exceeded","error":'
        '{"code":-32603,"message":"API rate limit exceeded"}}'
    )
    task = task_from_answer(payload, wire="extension", task_id=FAILED_ID)
    assert task.error == TaskError(code=-32603, message="API rate limit exceeded")
    assert task.result is None


def test_extension_listen_notification() -> None:
    params = j(
        '{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"},"taskId":"786512e2-9e0d-'
        '44bd-8f29-789f320fe840","status":"completed","createdAt":"2026-08-01T10:30:00Z",'
        '"lastUpdatedAt":"2026-08-01T10:31:00Z","ttlMs":3600000,"pollIntervalMs":5000,"result":'
        '{"content":[{"type":"text","text":"Deployed build 42 to prod"}],"isError":false}}'
    )
    task = task_from_notification(params, wire="extension")
    assert task.status == "completed" and task.result is not None


@pytest.mark.parametrize(
    ("payload", "variant"),
    [
        ({"resultType": "task"}, "tasks/get: resultType 'task' instead of 'complete'"),
        ({}, "tasks/get: result without resultType"),
    ],
)
def test_extension_get_result_type_variants(payload: dict[str, Any], variant: str) -> None:
    variants = Variants()
    body = {**payload, "taskId": "t", "status": "working", "ttlMs": 1}
    task_from_answer(body, wire="extension", task_id="t", variants=variants)
    assert variant in variants


def test_extension_get_unknown_result_type_is_a_violation() -> None:
    body = {"resultType": "stream", "taskId": "t", "status": "working", "ttlMs": 1}
    with pytest.raises(ProtocolViolation):
        task_from_answer(body, wire="extension", task_id="t")


def test_nested_get_result_is_unwrapped_and_noted() -> None:
    variants = Variants()
    payload = {"task": {"taskId": "t", "status": "working", "ttl": 1}}
    task = task_from_answer(payload, wire="legacy", task_id="t", variants=variants)
    assert task.task_id == "t" and "tasks/get: nested {task: …} result" in variants


@pytest.mark.parametrize(
    "payload",
    [
        {"resultType": "complete"},
        {"resultType": "complete", "taskId": "t"},
    ],
)
def test_extension_acks(payload: dict[str, Any]) -> None:
    check_ack(payload, method="tasks/update")


def test_empty_ack_is_tolerated_and_noted() -> None:
    variants = Variants()
    check_ack({}, method="tasks/cancel", variants=variants)
    assert "tasks/cancel: ack without resultType" in variants


@pytest.mark.parametrize("payload", [[], {"resultType": "task"}])
def test_bad_acks(payload: Any) -> None:
    with pytest.raises(ProtocolViolation):
        check_ack(payload, method="tasks/update")


# --- lenient fields ---------------------------------------------------------------------------


def base(**fields: Any) -> dict[str, Any]:
    return {"taskId": "t", "status": "working", **fields}


@pytest.mark.parametrize(
    ("wire", "fields", "ttl", "poll", "variant"),
    [
        ("extension", {"ttl": 5, "pollInterval": 7}, 5, 7, "ttl instead of ttlMs"),
        (
            "extension",
            {"ttlMs": 5, "pollInterval": 7},
            5,
            7,
            "pollInterval instead of pollIntervalMs",
        ),
        ("legacy", {"ttlMs": 5, "pollIntervalMs": 7}, 5, 7, "ttlMs instead of ttl"),
        ("legacy", {"ttl": 5, "ttlMs": 9}, 5, None, "both ttl and ttlMs sent; ttl used"),
        ("legacy", {"ttl": "600000"}, 600000, None, "ttl: number sent as a string"),
        ("legacy", {"ttl": 1000.0}, 1000, None, "ttl: number sent as a float"),
        (
            "legacy",
            {"ttl": 1, "pollInterval": 2.6},
            1,
            3,
            "pollInterval: fractional milliseconds rounded",
        ),
        (
            "legacy",
            {"ttl": 1, "pollInterval": "soon"},
            1,
            None,
            "pollInterval: unusable value ignored",
        ),
        ("legacy", {"ttl": 1, "pollInterval": 0}, 1, None, "pollInterval: unusable value ignored"),
        (
            "legacy",
            {"ttl": 1, "pollInterval": None},
            1,
            None,
            "pollInterval: unusable value ignored",
        ),
        ("legacy", {}, None, None, "ttl key missing"),
        ("extension", {"ttlMs": None}, None, None, "ttlMs: null (unlimited)"),
    ],
)
def test_ttl_and_poll_interval_variants(
    wire: Any, fields: dict[str, Any], ttl: int | None, poll: int | None, variant: str
) -> None:
    variants = Variants()
    task = task_from_payload(base(**fields), wire=wire, variants=variants)
    assert (task.ttl_ms, task.poll_interval_ms) == (ttl, poll)
    assert variant in variants


@pytest.mark.parametrize("ttl", ["forever", True, [], {"ms": 1}, -5, float("nan")])
def test_unusable_ttl_is_a_violation(ttl: Any) -> None:
    with pytest.raises(ProtocolViolation, match="ttl"):
        task_from_payload(base(ttl=ttl), wire="legacy")


@pytest.mark.parametrize(
    ("value", "expected", "variant"),
    [
        ("2025-11-25T10:30:00+02:00", datetime(2025, 11, 25, 8, 30, tzinfo=UTC), None),
        ("2025-11-25T10:30:00", datetime(2025, 11, 25, 10, 30, tzinfo=UTC), "no time zone"),
        ("yesterday", None, "unparseable"),
        (1764066600, None, "not a string"),
    ],
)
def test_timestamps(value: Any, expected: datetime | None, variant: str | None) -> None:
    variants = Variants()
    task = task_from_payload(base(ttl=1, createdAt=value), wire="legacy", variants=variants)
    assert task.created_at == expected
    notes = [seen for seen in variants.seen if seen.startswith("createdAt")]
    assert notes == ([] if variant is None else [next(n for n in notes if variant in n)])


def test_non_string_status_message_is_dropped() -> None:
    variants = Variants()
    task = task_from_payload(base(ttl=1, statusMessage=5), wire="legacy", variants=variants)
    assert task.status_message is None and "statusMessage: not a string, ignored" in variants


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ([], "not a JSON object"),
        ({"status": "working"}, "taskId"),
        ({"taskId": 42, "status": "working"}, "taskId"),
        ({"taskId": "", "status": "working"}, "taskId"),
        ({"taskId": "t", "status": "paused"}, "status"),
        ({"taskId": "t"}, "status"),
        ({"taskId": "t", "status": "completed", "result": "done"}, "inline result"),
        ({"taskId": "t", "status": "failed", "error": "boom"}, "inline error"),
        ({"taskId": "t", "status": "input_required", "inputRequests": []}, "inputRequests"),
    ],
)
def test_violations(payload: Any, reason: str) -> None:
    with pytest.raises(ProtocolViolation, match=reason) as caught:
        task_from_payload(payload, wire="extension")
    assert caught.value.frame == payload


def test_get_answer_for_another_task_is_a_violation() -> None:
    payload = {"taskId": "other", "status": "working", "ttl": 1}
    with pytest.raises(ProtocolViolation, match="answered with task 'other'"):
        task_from_answer(payload, wire="legacy", task_id="mine")


def test_extension_oddities_are_noted_not_refused() -> None:
    variants = Variants()
    failed = base(status="failed", ttlMs=1, result={"content": [], "isError": True})
    task = task_from_payload(failed, wire="extension", variants=variants)
    assert task.result is not None and "failed task carries a result" in variants
    assert "failed task without an inline error" in variants
    completed = task_from_payload(
        base(status="completed", ttlMs=1), wire="extension", variants=variants
    )
    assert completed.result is None and "completed task without an inline result" in variants
    waiting = task_from_payload(
        base(status="input_required", ttlMs=1), wire="extension", variants=variants
    )
    assert waiting.input_requests == () and "input_required task without inputRequests" in variants
    stray = base(ttlMs=1, inputRequests={"k": {"method": "roots/list"}}, result={}, error={})
    working = task_from_payload(stray, wire="extension", variants=variants)
    assert working.input_requests == () and working.result is None and working.error is None
    assert "inputRequests on a working task ignored" in variants


def test_inline_result_with_result_type_and_related_task_meta_is_noted() -> None:
    variants = Variants()
    result = {
        "resultType": "complete",
        "content": [],
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}},
    }
    task_from_payload(
        base(status="completed", ttlMs=1, result=result), wire="extension", variants=variants
    )
    assert "inline result carries resultType" in variants
    assert "inline result carries related-task _meta" in variants


def test_malformed_input_entries_become_unknown() -> None:
    variants = Variants()
    payload = base(
        status="input_required",
        ttlMs=1,
        inputRequests={"a": 3, "b": {"method": "x/y", "params": 4}},
    )
    a, b = task_from_payload(payload, wire="extension", variants=variants).input_requests
    assert a.kind is InputKind.UNKNOWN and a.method == "" and b.kind is InputKind.UNKNOWN
    assert "input request without a method" in variants


def test_task_error_from_lenient_objects() -> None:
    assert task_error_from({"code": -32603, "message": "x", "data": {"a": 1}}) == TaskError(
        code=-32603, message="x", data={"a": 1}
    )
    assert task_error_from({"code": "bad"}) == TaskError(code=None, message="")
    assert task_error_from("boom") == TaskError(message="boom")
