"""The legacy wire's shapes (experimental 2025-11-25): its key names, `tools/call` answers (nested,
flat, or announced in a tool result's `_meta`), `tasks/list` pages and server-to-client requests.

Field-level leniency is shared with the extension (`normalize`); what is legacy-only lives here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine.rpc.envelopes import meta_task_id
from app.engine.tasks.kinds import ProtocolViolation
from app.engine.tasks.normalize import (
    ParsedCreate,
    Variants,
    WireRules,
    input_kind,
    input_message,
    json_object,
    note,
    parse_task,
)
from app.engine.tasks.protocol_keys import TASK_STUB_KEYS

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task

_TOOL_RESULT_KEYS = ("content", "structuredContent", "isError")


def _check_result_type(payload: dict[str, Any], method: str, variants: Variants | None) -> None:
    """The legacy wire has no `resultType`; one sent anyway is only noted."""
    if payload.get("resultType") is not None:
        note(variants, f"{method}: resultType on the legacy wire")


LEGACY_RULES = WireRules(
    wire="legacy",
    ttl_keys=("ttl", "ttlMs"),
    poll_keys=("pollInterval", "pollIntervalMs"),
    inline_outcomes=False,
    check_result_type=_check_result_type,
)


def legacy_create(payload: Any, tool: str, variants: Variants | None = None) -> ParsedCreate:
    """A legacy `tools/call` answer: a task (nested, flat or as `_meta`) or a plain tool result."""
    payload = json_object(payload, "tools/call result")
    nested = payload.get("task")
    if isinstance(nested, dict):
        task = parse_task(nested, LEGACY_RULES, variants=variants, frame=payload, tool_name=tool)
        return ParsedCreate(kind="task", task=task)
    if "taskId" in payload and "status" in payload:
        note(variants, "tools/call: flat CreateTaskResult on the legacy wire")
        task = parse_task(payload, LEGACY_RULES, variants=variants, tool_name=tool)
        return ParsedCreate(kind="task", task=task)
    stub = task_stub(payload)
    if stub is not None:
        key, body = stub
        note(variants, f"tools/call: the task came as _meta[{key!r}] on a tool result")
        task = parse_task(body, LEGACY_RULES, variants=variants, frame=payload, tool_name=tool)
        return ParsedCreate(kind="task", task=task)
    if any(key in payload for key in _TOOL_RESULT_KEYS):
        return ParsedCreate(kind="sync", sync_result=payload)
    raise ProtocolViolation("tools/call answered with neither a task nor a tool result", payload)


def task_stub(payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A task announced in a tool result's `_meta` (key and body), as older SDKs answer."""
    meta = payload.get("_meta")
    if not isinstance(meta, dict):
        return None
    for key in TASK_STUB_KEYS:
        body = meta.get(key)
        if isinstance(body, dict) and isinstance(body.get("taskId"), str) and "status" in body:
            return key, body
    return None


def tasks_from_list(
    payload: Any, *, variants: Variants | None = None
) -> tuple[list[Task], str | None]:
    """One legacy `tasks/list` page: its tasks and the next cursor (None on the last page)."""
    payload = json_object(payload, "tasks/list result")
    entries = payload.get("tasks")
    if not isinstance(entries, list):
        raise ProtocolViolation("tasks/list result has no tasks array", payload)
    tasks = [parse_task(entry, LEGACY_RULES, variants=variants, frame=payload) for entry in entries]
    cursor = payload.get("nextCursor")
    if cursor is not None and not isinstance(cursor, str):
        raise ProtocolViolation("tasks/list nextCursor is not a string", payload)
    return tasks, cursor or None


def input_request_from_server_request(
    method: str, params: dict[str, Any] | None, request_id: str | int
) -> InputRequest:
    """A legacy server-to-client request as an `InputRequest` keyed by its JSON-RPC id."""
    from app.engine.tasks.models import InputRequest  # pydantic loads with the first task

    body = params if isinstance(params, dict) else {}
    return InputRequest(
        key=str(request_id),
        kind=input_kind(method, body),
        method=method,
        params=body,
        wire="legacy",
        task_id=related_task_id(body),
        message=input_message(body),
    )


def related_task_id(params: dict[str, Any]) -> str | None:
    """The taskId in `params._meta["io.modelcontextprotocol/related-task"]` (or the older
    `modelcontextprotocol.io/related-task`), if any."""
    return meta_task_id(params.get("_meta"))
