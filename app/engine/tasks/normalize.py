"""Lenient parsing of task payloads from either wire into the normalized models.

Servers in the wild disagree on key names (`ttl` vs `ttlMs`), shapes (nested vs flat create
results) and types (numbers as strings). Harmless variants are accepted and recorded in a `Variants`
log, so the user can see what a server did; what cannot be accepted raises `ProtocolViolation`.
Every number is bounded here, where it enters: none too large for a date, a float or a timer passes.
A violation's reason quotes a server value cut short (`reprlib`); its frame keeps the value whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from reprlib import repr as short_repr
from typing import Any, Literal, cast

from app.engine.polling.pacing import LONGEST_DELAY_MS
from app.engine.rpc.envelopes import meta_task_id
from app.engine.safety.deep_json import LongInteger
from app.engine.tasks.models import (
    KNOWN_STATUSES,
    RELATED_TASK_META,
    InputKind,
    InputRequest,
    ProtocolViolation,
    Task,
    TaskError,
    TaskStatus,
    Wire,
)
from app.engine.tasks.protocol_keys import TASK_STUB_KEYS

_KEYS: dict[Wire, dict[str, tuple[str, str]]] = {
    "legacy": {"ttl": ("ttl", "ttlMs"), "poll": ("pollInterval", "pollIntervalMs")},
    "extension": {"ttl": ("ttlMs", "ttl"), "poll": ("pollIntervalMs", "pollInterval")},
}
_TOOL_RESULT_KEYS = ("content", "structuredContent", "isError")
LONGEST_TTL_MS = 100 * 365 * 86_400_000
"""A TTL beyond a century is read as unlimited: JavaScript servers send `Number.MAX_SAFE_INTEGER`
(9007199254740991 ms, 285,000 years) to mean "forever", and no clock shows a date that far off."""


class Variants:
    """Which tolerated wire variants a server has shown, with how often each was seen."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def note(self, variant: str) -> None:
        self.seen[variant] = self.seen.get(variant, 0) + 1

    def __contains__(self, variant: object) -> bool:
        return variant in self.seen


@dataclass(frozen=True, slots=True)
class ParsedCreate:
    """What a `tools/call` answer is: a task, a synchronous result, or an MRTR input round."""

    kind: Literal["task", "sync", "input_required"]
    task: Task | None = None
    sync_result: dict[str, Any] | None = None
    input_requests: tuple[InputRequest, ...] = ()
    request_state: str | None = None


def _note(variants: Variants | None, variant: str) -> None:
    if variants is not None:
        variants.note(variant)


def task_from_payload(
    obj: Any,
    *,
    wire: Wire,
    variants: Variants | None = None,
    frame: Any = None,
    tool_name: str | None = None,
) -> Task:
    """A flat task object (with inline result, error or inputRequests) as a normalized `Task`."""
    frame = obj if frame is None else frame
    if not isinstance(obj, dict):
        raise ProtocolViolation("task payload is not a JSON object", frame)
    task_id = obj.get("taskId")
    if not isinstance(task_id, str) or not task_id:
        raise ProtocolViolation("taskId is missing or not a non-empty string", frame)
    status = obj.get("status")
    if not isinstance(status, str) or status not in KNOWN_STATUSES:
        raise ProtocolViolation(f"unknown task status {short_repr(status)}", frame)
    preferred_ttl, other_ttl = _KEYS[wire]["ttl"]
    preferred_poll, other_poll = _KEYS[wire]["poll"]
    ttl_ms = _ttl(obj, preferred_ttl, other_ttl, variants, frame)
    poll_ms = _poll_interval(obj, preferred_poll, other_poll, variants)
    result, result_source = _inline_result(obj, status, wire, variants, frame)
    return Task(
        task_id=task_id,
        wire=wire,
        status=cast(TaskStatus, status),
        status_message=_status_message(obj, variants),
        created_at=_timestamp(obj, "createdAt", variants),
        last_updated_at=_timestamp(obj, "lastUpdatedAt", variants),
        ttl_ms=ttl_ms,
        poll_interval_ms=poll_ms,
        result=result,
        result_source=result_source,
        error=_inline_error(obj, status, wire, variants, frame),
        input_requests=_inline_inputs(obj, status, task_id, wire, variants, frame),
        tool_name=tool_name,
        raw=obj,
    )


def task_from_answer(
    payload: Any,
    *,
    wire: Wire,
    task_id: str,
    method: str = "tasks/get",
    variants: Variants | None = None,
) -> Task:
    """A `tasks/get` (or legacy `tasks/cancel`) result; its taskId must be the one asked for."""
    if not isinstance(payload, dict):
        raise ProtocolViolation(f"{method} result is not a JSON object", payload)
    body = payload
    if "taskId" not in payload and isinstance(payload.get("task"), dict):
        _note(variants, f"{method}: nested {{task: …}} result")
        body = payload["task"]
    _check_result_type(payload, wire, method, variants)
    task = task_from_payload(body, wire=wire, variants=variants, frame=payload)
    if task.task_id != task_id:
        raise ProtocolViolation(
            f"{method} for {short_repr(task_id)} answered with task {short_repr(task.task_id)}",
            payload,
        )
    return task


def task_from_notification(params: Any, *, wire: Wire, variants: Variants | None = None) -> Task:
    """The task in a legacy `notifications/tasks/status` or an extension `notifications/tasks`."""
    if not isinstance(params, dict):
        raise ProtocolViolation("task notification params are not a JSON object", params)
    body = {key: value for key, value in params.items() if key != "_meta"}
    return task_from_payload(body, wire=wire, variants=variants, frame=params)


def tasks_from_list(
    payload: Any, *, variants: Variants | None = None
) -> tuple[list[Task], str | None]:
    """One legacy `tasks/list` page: its tasks and the next cursor (None on the last page)."""
    if not isinstance(payload, dict):
        raise ProtocolViolation("tasks/list result is not a JSON object", payload)
    entries = payload.get("tasks")
    if not isinstance(entries, list):
        raise ProtocolViolation("tasks/list result has no tasks array", payload)
    tasks = [
        task_from_payload(entry, wire="legacy", variants=variants, frame=payload)
        for entry in entries
    ]
    cursor = payload.get("nextCursor")
    if cursor is not None and not isinstance(cursor, str):
        raise ProtocolViolation("tasks/list nextCursor is not a string", payload)
    return tasks, cursor or None


def create_from_result(
    payload: Any, *, wire: Wire, tool_name: str, variants: Variants | None = None
) -> ParsedCreate:
    """Classify a `tools/call` answer; a task creation is never validated as a tool result."""
    if not isinstance(payload, dict):
        raise ProtocolViolation("tools/call result is not a JSON object", payload)
    if wire == "legacy":
        return _legacy_create(payload, tool_name, variants)
    return _extension_create(payload, tool_name, variants)


def _legacy_create(payload: dict[str, Any], tool: str, variants: Variants | None) -> ParsedCreate:
    nested = payload.get("task")
    if isinstance(nested, dict):
        task = task_from_payload(
            nested, wire="legacy", variants=variants, frame=payload, tool_name=tool
        )
        return ParsedCreate(kind="task", task=task)
    if "taskId" in payload and "status" in payload:
        _note(variants, "tools/call: flat CreateTaskResult on the legacy wire")
        task = task_from_payload(payload, wire="legacy", variants=variants, tool_name=tool)
        return ParsedCreate(kind="task", task=task)
    stub = _task_stub(payload)
    if stub is not None:
        key, body = stub
        _note(variants, f"tools/call: the task came as _meta[{key!r}] on a tool result")
        task = task_from_payload(
            body, wire="legacy", variants=variants, frame=payload, tool_name=tool
        )
        return ParsedCreate(kind="task", task=task)
    if any(key in payload for key in _TOOL_RESULT_KEYS):
        return ParsedCreate(kind="sync", sync_result=payload)
    raise ProtocolViolation("tools/call answered with neither a task nor a tool result", payload)


def _task_stub(payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A task announced in a tool result's `_meta` (key and body), as older SDKs answer."""
    meta = payload.get("_meta")
    if not isinstance(meta, dict):
        return None
    for key in TASK_STUB_KEYS:
        body = meta.get(key)
        if isinstance(body, dict) and isinstance(body.get("taskId"), str) and "status" in body:
            return key, body
    return None


def _extension_create(
    payload: dict[str, Any], tool: str, variants: Variants | None
) -> ParsedCreate:
    result_type = payload.get("resultType")
    looks_like_task = "taskId" in payload and "status" in payload
    if result_type == "task" or (result_type is None and looks_like_task):
        if result_type is None:
            _note(variants, "tools/call: CreateTaskResult without resultType")
        body = payload
        if not looks_like_task and isinstance(payload.get("task"), dict):
            _note(variants, "tools/call: nested {task: …} CreateTaskResult on the extension wire")
            body = payload["task"]
        task = task_from_payload(
            body, wire="extension", variants=variants, frame=payload, tool_name=tool
        )
        return ParsedCreate(kind="task", task=task)
    if result_type == "input_required":
        state = payload.get("requestState")
        if state is not None and not isinstance(state, str):
            raise ProtocolViolation("requestState is not a string", payload)
        requests = _input_map(payload.get("inputRequests", {}), None, variants, payload)
        return ParsedCreate(kind="input_required", input_requests=requests, request_state=state)
    if result_type is None:
        _note(variants, "tools/call: result without resultType (read as complete)")
    elif result_type != "complete":
        raise ProtocolViolation(
            f"tools/call: unknown resultType {short_repr(result_type)}", payload
        )
    return ParsedCreate(kind="sync", sync_result=payload)


def check_ack(payload: Any, *, method: str, variants: Variants | None = None) -> None:
    """An extension empty acknowledgement (`tasks/update`, `tasks/cancel`); `{}` is tolerated."""
    if not isinstance(payload, dict):
        raise ProtocolViolation(f"{method} result is not a JSON object", payload)
    result_type = payload.get("resultType")
    if result_type is None:
        _note(variants, f"{method}: ack without resultType")
    elif result_type != "complete":
        raise ProtocolViolation(
            f"{method}: unexpected resultType {short_repr(result_type)}", payload
        )


def input_kind(method: str, params: dict[str, Any]) -> InputKind:
    """What an input request asks for, from its method and (for elicitation) `params.mode`."""
    if method == "elicitation/create":
        mode = params.get("mode", "form")
        if mode == "form":
            return InputKind.FORM
        return InputKind.URL if mode == "url" else InputKind.UNKNOWN
    if method == "sampling/createMessage":
        return InputKind.SAMPLING
    if method == "roots/list":
        return InputKind.ROOTS
    return InputKind.UNKNOWN


def input_request_from_server_request(
    method: str, params: dict[str, Any] | None, request_id: str | int
) -> InputRequest:
    """A legacy server-to-client request as an `InputRequest` keyed by its JSON-RPC id."""
    body = params if isinstance(params, dict) else {}
    return InputRequest(
        key=str(request_id),
        kind=input_kind(method, body),
        method=method,
        params=body,
        wire="legacy",
        task_id=related_task_id(body),
        message=_message(body),
    )


def related_task_id(params: dict[str, Any]) -> str | None:
    """The taskId in `params._meta["io.modelcontextprotocol/related-task"]` (or the older
    `modelcontextprotocol.io/related-task`), if any."""
    return meta_task_id(params.get("_meta"))


def task_error_from(error: Any) -> TaskError:
    """A JSON-RPC error object (inline on the extension, or from `tasks/result`) as TaskError."""
    if not isinstance(error, dict):
        return TaskError(message=str(error))
    code = error.get("code")
    message = error.get("message")
    return TaskError(
        code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        message=message if isinstance(message, str) else "",
        data=error.get("data"),
    )


def _check_result_type(
    payload: dict[str, Any], wire: Wire, method: str, variants: Variants | None
) -> None:
    result_type = payload.get("resultType")
    if wire == "legacy":
        if result_type is not None:
            _note(variants, f"{method}: resultType on the legacy wire")
        return
    if result_type is None:
        _note(variants, f"{method}: result without resultType")
    elif result_type == "task":
        _note(variants, f"{method}: resultType 'task' instead of 'complete'")
    elif result_type != "complete":
        raise ProtocolViolation(f"{method}: unknown resultType {short_repr(result_type)}", payload)


def _ttl(
    obj: dict[str, Any], preferred: str, other: str, variants: Variants | None, frame: Any
) -> int | None:
    """The task's TTL in ms: a required, nullable key; a wrong type cannot be accepted, and one
    beyond `LONGEST_TTL_MS` is read as unlimited (noted)."""
    key = _pick_key(obj, preferred, other, variants)
    if key is None:
        _note(variants, f"{preferred} key missing")
        return None
    value = obj[key]
    if value is None:
        _note(variants, f"{key}: null (unlimited)")
        return None
    number = _coerce_ms(value, key, variants)
    if number is None or number < 0:
        raise ProtocolViolation(f"{key} is not a non-negative integer: {short_repr(value)}", frame)
    if number > LONGEST_TTL_MS:
        _note(variants, f"{key}: more than a century, read as unlimited")
        return None
    return int(number)


def _poll_interval(
    obj: dict[str, Any], preferred: str, other: str, variants: Variants | None
) -> int | None:
    """The suggested poll interval in ms; optional, so an unusable value is dropped (and noted),
    and one longer than a week is cut to a week (noted): dropping it would poll at the 1 s
    default, far faster than the server asked."""
    key = _pick_key(obj, preferred, other, variants)
    if key is None:
        return None
    value = obj[key]
    number = None if value is None else _coerce_ms(value, key, variants)
    if number is None or number <= 0:
        _note(variants, f"{key}: unusable value ignored")
        return None
    if number > LONGEST_DELAY_MS:
        _note(variants, f"{key}: longer than a week, a week used")
        return LONGEST_DELAY_MS
    return int(number)


def _pick_key(
    obj: dict[str, Any], preferred: str, other: str, variants: Variants | None
) -> str | None:
    if preferred in obj:
        if other in obj:
            _note(variants, f"both {preferred} and {other} sent; {preferred} used")
        return preferred
    if other in obj:
        _note(variants, f"{other} instead of {preferred}")
        return other
    return None


def _coerce_ms(value: Any, key: str, variants: Variants | None) -> int | float | None:
    """Milliseconds from an int, a float or a numeric string (coercions are noted): an int of any
    size, or ±infinity for an infinite float, a numeric string past any float or an integer literal
    too long to parse; None for NaN and for what is no number. Callers bound the result."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, LongInteger):
        return -math.inf if value.startswith("-") else math.inf
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        origin = "a string"
    elif isinstance(value, float):
        number, origin = value, "a float"
    else:
        return None
    if math.isnan(number):
        return None
    _note(variants, f"{key}: number sent as {origin}")
    if math.isinf(number):
        return number
    if not number.is_integer():
        _note(variants, f"{key}: fractional milliseconds rounded")
    return round(number)


def _timestamp(obj: dict[str, Any], key: str, variants: Variants | None) -> datetime | None:
    """An ISO 8601 timestamp; missing or unparseable ones become None (noted), never a violation."""
    value = obj.get(key)
    if value is None:
        _note(variants, f"{key} missing")
        return None
    if not isinstance(value, str):
        _note(variants, f"{key}: not a string, ignored")
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        _note(variants, f"{key}: unparseable timestamp ignored")
        return None
    if parsed.tzinfo is None:
        _note(variants, f"{key}: no time zone, read as UTC")
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def _status_message(obj: dict[str, Any], variants: Variants | None) -> str | None:
    value = obj.get("statusMessage")
    if value is None or isinstance(value, str):
        return value
    _note(variants, "statusMessage: not a string, ignored")
    return None


def _inline_result(
    obj: dict[str, Any], status: str, wire: Wire, variants: Variants | None, frame: Any
) -> tuple[dict[str, Any] | None, Literal["inline"] | None]:
    """The extension's inline `result` (completed tasks; a failed one carrying it is noted)."""
    if "result" not in obj:
        if status == "completed" and wire == "extension":
            _note(variants, "completed task without an inline result")
        return None, None
    value = obj["result"]
    if not isinstance(value, dict):
        raise ProtocolViolation("inline result is not a JSON object", frame)
    if wire == "legacy":
        _note(variants, "inline result on the legacy wire")
    if status not in ("completed", "failed"):
        _note(variants, f"inline result on a {status} task ignored")
        return None, None
    if status == "failed":
        _note(variants, "failed task carries a result")
    if "resultType" in value:
        _note(variants, "inline result carries resultType")
    meta = value.get("_meta")
    if isinstance(meta, dict) and RELATED_TASK_META in meta:
        _note(variants, "inline result carries related-task _meta")
    return value, "inline"


def _inline_error(
    obj: dict[str, Any], status: str, wire: Wire, variants: Variants | None, frame: Any
) -> TaskError | None:
    """The extension's inline `error` of a failed task."""
    if "error" not in obj:
        if status == "failed" and wire == "extension":
            _note(variants, "failed task without an inline error")
        return None
    value = obj["error"]
    if not isinstance(value, dict):
        raise ProtocolViolation("inline error is not a JSON object", frame)
    if status != "failed":
        _note(variants, f"inline error on a {status} task ignored")
        return None
    if not isinstance(value.get("code"), int) or not isinstance(value.get("message"), str):
        _note(variants, "inline error without an integer code and a message")
    return task_error_from(value)


def _inline_inputs(
    obj: dict[str, Any],
    status: str,
    task_id: str,
    wire: Wire,
    variants: Variants | None,
    frame: Any,
) -> tuple[InputRequest, ...]:
    """The extension's `inputRequests` map of an input_required task."""
    if "inputRequests" not in obj:
        if status == "input_required" and wire == "extension":
            _note(variants, "input_required task without inputRequests")
        return ()
    if status != "input_required":
        _note(variants, f"inputRequests on a {status} task ignored")
        return ()
    return _input_map(obj["inputRequests"], task_id, variants, frame)


def _input_map(
    value: Any, task_id: str | None, variants: Variants | None, frame: Any
) -> tuple[InputRequest, ...]:
    """`{key: {method, params}}` as InputRequests; an entry of unknown shape is kind UNKNOWN."""
    if not isinstance(value, dict):
        raise ProtocolViolation("inputRequests is not a JSON object", frame)
    requests = []
    for key, entry in value.items():
        method = entry.get("method") if isinstance(entry, dict) else None
        params = entry.get("params") if isinstance(entry, dict) else None
        if not isinstance(method, str):
            _note(variants, "input request without a method")
            method = ""
        if not isinstance(params, dict):
            if params is not None:
                _note(variants, "input request params not an object")
            params = {}
        requests.append(
            InputRequest(
                key=key,
                kind=input_kind(method, params),
                method=method,
                params=params,
                wire="extension",
                task_id=task_id,
                message=_message(params),
            )
        )
    return tuple(requests)


def _message(params: dict[str, Any]) -> str:
    message = params.get("message")
    return message if isinstance(message, str) else ""
