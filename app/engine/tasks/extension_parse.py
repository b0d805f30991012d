"""The extension wire's shapes (SEP-2663): its key names, `resultType`, `tools/call` answers (a
task, a result, or an MRTR input round) and the empty acknowledgements of update and cancel.

Field-level leniency is shared with the legacy wire (`normalize`); what is extension-only lives
here.
"""

from __future__ import annotations

from reprlib import repr as short_repr
from typing import Any

from app.engine.tasks.kinds import ProtocolViolation
from app.engine.tasks.normalize import (
    ParsedCreate,
    Variants,
    WireRules,
    input_map,
    json_object,
    note,
    parse_task,
)


def _check_result_type(payload: dict[str, Any], method: str, variants: Variants | None) -> None:
    """A task answer's `resultType` must be `complete`; a missing one or `task` is noted."""
    result_type = payload.get("resultType")
    if result_type is None:
        note(variants, f"{method}: result without resultType")
    elif result_type == "task":
        note(variants, f"{method}: resultType 'task' instead of 'complete'")
    elif result_type != "complete":
        raise ProtocolViolation(f"{method}: unknown resultType {short_repr(result_type)}", payload)


EXTENSION_RULES = WireRules(
    wire="extension",
    ttl_keys=("ttlMs", "ttl"),
    poll_keys=("pollIntervalMs", "pollInterval"),
    inline_outcomes=True,
    check_result_type=_check_result_type,
)


def extension_create(payload: Any, tool: str, variants: Variants | None = None) -> ParsedCreate:
    """An extension `tools/call` answer: a task, an MRTR input round, or a complete result."""
    payload = json_object(payload, "tools/call result")
    result_type = payload.get("resultType")
    looks_like_task = "taskId" in payload and "status" in payload
    if result_type == "task" or (result_type is None and looks_like_task):
        if result_type is None:
            note(variants, "tools/call: CreateTaskResult without resultType")
        body = payload
        if not looks_like_task and isinstance(payload.get("task"), dict):
            note(variants, "tools/call: nested {task: …} CreateTaskResult on the extension wire")
            body = payload["task"]
        task = parse_task(body, EXTENSION_RULES, variants=variants, frame=payload, tool_name=tool)
        return ParsedCreate(kind="task", task=task)
    if result_type == "input_required":
        state = payload.get("requestState")
        if state is not None and not isinstance(state, str):
            raise ProtocolViolation("requestState is not a string", payload)
        requests = input_map(payload.get("inputRequests", {}), None, variants, payload)
        return ParsedCreate(kind="input_required", input_requests=requests, request_state=state)
    if result_type is None:
        note(variants, "tools/call: result without resultType (read as complete)")
    elif result_type != "complete":
        raise ProtocolViolation(
            f"tools/call: unknown resultType {short_repr(result_type)}", payload
        )
    return ParsedCreate(kind="sync", sync_result=payload)


def check_ack(payload: Any, *, method: str, variants: Variants | None = None) -> None:
    """An extension empty acknowledgement (`tasks/update`, `tasks/cancel`); `{}` is tolerated."""
    payload = json_object(payload, f"{method} result")
    result_type = payload.get("resultType")
    if result_type is None:
        note(variants, f"{method}: ack without resultType")
    elif result_type != "complete":
        raise ProtocolViolation(
            f"{method}: unexpected resultType {short_repr(result_type)}", payload
        )
