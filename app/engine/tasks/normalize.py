"""Lenient parsing of task payloads, shared by both wires, into the normalized models.

Servers in the wild disagree on key names (`ttl` vs `ttlMs`), shapes (nested vs flat create
results) and types (numbers as strings). Harmless variants are accepted and recorded in a `Variants`
log, so the user can see what a server did; what cannot be accepted raises `ProtocolViolation`.
Every number is bounded here, where it enters: none too large for a date, a float or a timer passes.
A violation's reason quotes a server value cut short (`reprlib`); its frame keeps the value whole.
What differs between the wires is a `WireRules` value, kept with each wire's own shapes
(`legacy_parse`, `extension_parse`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from reprlib import repr as short_repr
from typing import TYPE_CHECKING, Any, Literal, cast

from app.engine.polling.pacing import LONGEST_DELAY_MS
from app.engine.safety.deep_json import LongInteger
from app.engine.tasks.kinds import KNOWN_STATUSES, InputKind, ProtocolViolation, TaskStatus, Wire
from app.engine.tasks.protocol_keys import RELATED_TASK_META

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task, TaskError

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


ResultTypeCheck = Callable[[dict[str, Any], str, "Variants | None"], None]
"""How a wire judges a task answer's `resultType` (payload, method, variants); raises
`ProtocolViolation` for one it cannot accept."""


@dataclass(frozen=True, slots=True)
class WireRules:
    """What one wire expects of a task object: its preferred key names, whether results, errors
    and input requests come inline, and how it judges a task answer's `resultType`."""

    wire: Wire
    ttl_keys: tuple[str, str]
    poll_keys: tuple[str, str]
    inline_outcomes: bool
    check_result_type: ResultTypeCheck


@dataclass(frozen=True, slots=True)
class ParsedCreate:
    """What a `tools/call` answer is: a task, a synchronous result, or an MRTR input round."""

    kind: Literal["task", "sync", "input_required"]
    task: Task | None = None
    sync_result: dict[str, Any] | None = None
    input_requests: tuple[InputRequest, ...] = ()
    request_state: str | None = None


def note(variants: Variants | None, variant: str) -> None:
    """Record a tolerated variant, when the caller keeps a log."""
    if variants is not None:
        variants.note(variant)


def json_object(payload: Any, what: str) -> dict[str, Any]:
    """`payload` when it is a JSON object; else a violation naming `what` it should have been."""
    if not isinstance(payload, dict):
        raise ProtocolViolation(f"{what} is not a JSON object", payload)
    return payload


def parse_task(
    obj: Any,
    rules: WireRules,
    *,
    variants: Variants | None = None,
    frame: Any = None,
    tool_name: str | None = None,
) -> Task:
    """A flat task object (with inline result, error or inputRequests) as a normalized `Task`."""
    from app.engine.tasks.models import Task  # pydantic loads with the first task

    frame = obj if frame is None else frame
    if not isinstance(obj, dict):
        raise ProtocolViolation("task payload is not a JSON object", frame)
    task_id = obj.get("taskId")
    if not isinstance(task_id, str) or not task_id:
        raise ProtocolViolation("taskId is missing or not a non-empty string", frame)
    status = obj.get("status")
    if not isinstance(status, str) or status not in KNOWN_STATUSES:
        raise ProtocolViolation(f"unknown task status {short_repr(status)}", frame)
    preferred_ttl, other_ttl = rules.ttl_keys
    preferred_poll, other_poll = rules.poll_keys
    ttl_ms = _ttl(obj, preferred_ttl, other_ttl, variants, frame)
    poll_ms = _poll_interval(obj, preferred_poll, other_poll, variants)
    result, result_source = _inline_result(obj, status, rules, variants, frame)
    return Task(
        task_id=task_id,
        wire=rules.wire,
        status=cast(TaskStatus, status),
        status_message=_status_message(obj, variants),
        created_at=_timestamp(obj, "createdAt", variants),
        last_updated_at=_timestamp(obj, "lastUpdatedAt", variants),
        ttl_ms=ttl_ms,
        poll_interval_ms=poll_ms,
        result=result,
        result_source=result_source,
        error=_inline_error(obj, status, rules, variants, frame),
        input_requests=_inline_inputs(obj, status, task_id, rules, variants, frame),
        tool_name=tool_name,
        raw=obj,
    )


def parse_answer(
    payload: Any,
    rules: WireRules,
    *,
    task_id: str,
    method: str = "tasks/get",
    variants: Variants | None = None,
) -> Task:
    """A `tasks/get` (or legacy `tasks/cancel`) result; its taskId must be the one asked for."""
    payload = json_object(payload, f"{method} result")
    body = payload
    if "taskId" not in payload and isinstance(payload.get("task"), dict):
        note(variants, f"{method}: nested {{task: …}} result")
        body = payload["task"]
    rules.check_result_type(payload, method, variants)
    task = parse_task(body, rules, variants=variants, frame=payload)
    if task.task_id != task_id:
        raise ProtocolViolation(
            f"{method} for {short_repr(task_id)} answered with task {short_repr(task.task_id)}",
            payload,
        )
    return task


def parse_notification(params: Any, rules: WireRules, *, variants: Variants | None = None) -> Task:
    """The task in a legacy `notifications/tasks/status` or an extension `notifications/tasks`."""
    if not isinstance(params, dict):
        raise ProtocolViolation("task notification params are not a JSON object", params)
    body = {key: value for key, value in params.items() if key != "_meta"}
    return parse_task(body, rules, variants=variants, frame=params)


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


def task_error_from(error: Any) -> TaskError:
    """A JSON-RPC error object (inline on the extension, or from `tasks/result`) as TaskError."""
    from app.engine.tasks.models import TaskError  # pydantic loads with the first task

    if not isinstance(error, dict):
        return TaskError(message=str(error))
    code = error.get("code")
    message = error.get("message")
    return TaskError(
        code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        message=message if isinstance(message, str) else "",
        data=error.get("data"),
    )


def _ttl(
    obj: dict[str, Any], preferred: str, other: str, variants: Variants | None, frame: Any
) -> int | None:
    """The task's TTL in ms: a required, nullable key; a wrong type cannot be accepted, and one
    beyond `LONGEST_TTL_MS` is read as unlimited (noted)."""
    key = _pick_key(obj, preferred, other, variants)
    if key is None:
        note(variants, f"{preferred} key missing")
        return None
    value = obj[key]
    if value is None:
        note(variants, f"{key}: null (unlimited)")
        return None
    number = _coerce_ms(value, key, variants)
    if number is None or number < 0:
        raise ProtocolViolation(f"{key} is not a non-negative integer: {short_repr(value)}", frame)
    if number > LONGEST_TTL_MS:
        note(variants, f"{key}: more than a century, read as unlimited")
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
        note(variants, f"{key}: unusable value ignored")
        return None
    if number > LONGEST_DELAY_MS:
        note(variants, f"{key}: longer than a week, a week used")
        return LONGEST_DELAY_MS
    return int(number)


def _pick_key(
    obj: dict[str, Any], preferred: str, other: str, variants: Variants | None
) -> str | None:
    if preferred in obj:
        if other in obj:
            note(variants, f"both {preferred} and {other} sent; {preferred} used")
        return preferred
    if other in obj:
        note(variants, f"{other} instead of {preferred}")
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
    note(variants, f"{key}: number sent as {origin}")
    if math.isinf(number):
        return number
    if not number.is_integer():
        note(variants, f"{key}: fractional milliseconds rounded")
    return round(number)


def _timestamp(obj: dict[str, Any], key: str, variants: Variants | None) -> datetime | None:
    """An ISO 8601 timestamp; missing or unparseable ones become None (noted), never a violation."""
    value = obj.get(key)
    if value is None:
        note(variants, f"{key} missing")
        return None
    if not isinstance(value, str):
        note(variants, f"{key}: not a string, ignored")
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        note(variants, f"{key}: unparseable timestamp ignored")
        return None
    if parsed.tzinfo is None:
        note(variants, f"{key}: no time zone, read as UTC")
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def _status_message(obj: dict[str, Any], variants: Variants | None) -> str | None:
    value = obj.get("statusMessage")
    if value is None or isinstance(value, str):
        return value
    note(variants, "statusMessage: not a string, ignored")
    return None


def _inline_result(
    obj: dict[str, Any], status: str, rules: WireRules, variants: Variants | None, frame: Any
) -> tuple[dict[str, Any] | None, Literal["inline"] | None]:
    """The inline `result` (completed tasks; a failed one carrying it is noted)."""
    if "result" not in obj:
        if status == "completed" and rules.inline_outcomes:
            note(variants, "completed task without an inline result")
        return None, None
    value = obj["result"]
    if not isinstance(value, dict):
        raise ProtocolViolation("inline result is not a JSON object", frame)
    if not rules.inline_outcomes:
        note(variants, f"inline result on the {rules.wire} wire")
    if status not in ("completed", "failed"):
        note(variants, f"inline result on a {status} task ignored")
        return None, None
    if status == "failed":
        note(variants, "failed task carries a result")
    if "resultType" in value:
        note(variants, "inline result carries resultType")
    meta = value.get("_meta")
    if isinstance(meta, dict) and RELATED_TASK_META in meta:
        note(variants, "inline result carries related-task _meta")
    return value, "inline"


def _inline_error(
    obj: dict[str, Any], status: str, rules: WireRules, variants: Variants | None, frame: Any
) -> TaskError | None:
    """The inline `error` of a failed task."""
    if "error" not in obj:
        if status == "failed" and rules.inline_outcomes:
            note(variants, "failed task without an inline error")
        return None
    value = obj["error"]
    if not isinstance(value, dict):
        raise ProtocolViolation("inline error is not a JSON object", frame)
    if status != "failed":
        note(variants, f"inline error on a {status} task ignored")
        return None
    if not isinstance(value.get("code"), int) or not isinstance(value.get("message"), str):
        note(variants, "inline error without an integer code and a message")
    return task_error_from(value)


def _inline_inputs(
    obj: dict[str, Any],
    status: str,
    task_id: str,
    rules: WireRules,
    variants: Variants | None,
    frame: Any,
) -> tuple[InputRequest, ...]:
    """The inline `inputRequests` map of an input_required task."""
    if "inputRequests" not in obj:
        if status == "input_required" and rules.inline_outcomes:
            note(variants, "input_required task without inputRequests")
        return ()
    if status != "input_required":
        note(variants, f"inputRequests on a {status} task ignored")
        return ()
    return input_map(obj["inputRequests"], task_id, variants, frame)


def input_map(
    value: Any, task_id: str | None, variants: Variants | None, frame: Any
) -> tuple[InputRequest, ...]:
    """An extension `{key: {method, params}}` map as InputRequests; an entry of unknown shape is
    kind UNKNOWN."""
    from app.engine.tasks.models import InputRequest  # pydantic loads with the first task

    if not isinstance(value, dict):
        raise ProtocolViolation("inputRequests is not a JSON object", frame)
    requests = []
    for key, entry in value.items():
        method = entry.get("method") if isinstance(entry, dict) else None
        params = entry.get("params") if isinstance(entry, dict) else None
        if not isinstance(method, str):
            note(variants, "input request without a method")
            method = ""
        if not isinstance(params, dict):
            if params is not None:
                note(variants, "input request params not an object")
            params = {}
        requests.append(
            InputRequest(
                key=key,
                kind=input_kind(method, params),
                method=method,
                params=params,
                wire="extension",
                task_id=task_id,
                message=input_message(params),
            )
        )
    return tuple(requests)


def input_message(params: dict[str, Any]) -> str:
    """The `message` an input request's params carry, or "" when there is none."""
    message = params.get("message")
    return message if isinstance(message, str) else ""
