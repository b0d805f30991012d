"""The wire shapes the checks hold a server to, as pure functions: each returns the problems it
found in words (an empty list when the shape is right), never raises on what a server sent."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

STATUSES = frozenset({"working", "input_required", "completed", "failed", "cancelled"})
TERMINAL = frozenset({"completed", "failed", "cancelled"})
LEGAL_MOVES: dict[str, frozenset[str]] = {
    "working": frozenset({"input_required", "completed", "failed", "cancelled"}),
    "input_required": frozenset({"working", "completed", "failed", "cancelled"}),
}
"""Where each non-terminal status may go (both wires); a terminal status goes nowhere."""
RELATED_TASK_KEYS = ("io.modelcontextprotocol/related-task", "modelcontextprotocol.io/related-task")


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_iso_timestamp(value: Any) -> bool:
    """An ISO 8601 date-time (`2026-07-28T10:00:00Z`, with or without fractions or offset)."""
    if not isinstance(value, str) or "T" not in value.upper():
        return False
    try:
        datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        return False
    return True


def common_task_problems(task: Any) -> list[str]:
    """What both wires require of a task: an id, a known status, ISO timestamps."""
    if not isinstance(task, dict):
        return [f"the task is {type(task).__name__}, not a JSON object"]
    problems = []
    if not isinstance(task.get("taskId"), str) or not task.get("taskId"):
        problems.append("taskId is missing or not a non-empty string")
    if task.get("status") not in STATUSES:
        problems.append(f"status {task.get('status')!r} is not one of the five task statuses")
    for key in ("createdAt", "lastUpdatedAt"):
        if key not in task:
            problems.append(f"{key} is missing")
        elif not is_iso_timestamp(task[key]):
            problems.append(f"{key} {task[key]!r} is not an ISO 8601 date-time")
    if "statusMessage" in task and not isinstance(task["statusMessage"], str):
        problems.append("statusMessage is not a string")
    return problems


def legacy_task_problems(task: Any) -> list[str]:
    """A 2025-11-25 `Task`: the common fields, `ttl` present as an integer or null (null means
    unlimited and passes), `pollInterval` an integer when present."""
    problems = common_task_problems(task)
    if not isinstance(task, dict):
        return problems
    if "ttl" not in task:
        problems.append("ttl is missing (it is required, null meaning unlimited)")
    elif task["ttl"] is not None and not is_integer(task["ttl"]):
        problems.append(f"ttl {task['ttl']!r} is neither an integer nor null")
    if "pollInterval" in task and not is_integer(task["pollInterval"]):
        problems.append(f"pollInterval {task['pollInterval']!r} is not an integer")
    return problems


def extension_field_problems(task: Any) -> list[str]:
    """SEP-2663's field names: `ttlMs` present as null or a positive integer, `pollIntervalMs` a
    positive integer when present, and never the legacy `ttl` / `pollInterval`."""
    if not isinstance(task, dict):
        return []
    problems = []
    if "ttlMs" not in task:
        problems.append("ttlMs is missing (it is required, null meaning unlimited)")
    elif task["ttlMs"] is not None and not (is_integer(task["ttlMs"]) and task["ttlMs"] > 0):
        problems.append(f"ttlMs {task['ttlMs']!r} is neither a positive integer nor null")
    if "pollIntervalMs" in task and not (
        is_integer(task["pollIntervalMs"]) and task["pollIntervalMs"] > 0
    ):
        problems.append(f"pollIntervalMs {task['pollIntervalMs']!r} is not a positive integer")
    problems.extend(
        f"the legacy field {key} is present" for key in ("ttl", "pollInterval") if key in task
    )
    return problems


def status_payload_problems(task: Any) -> list[str]:
    """SEP-2663's DetailedTask: `inputRequests` on input_required, an inline `result` object on
    completed, a JSON-RPC `error` (and no `result`) on failed, and neither `result` nor `error`
    on a task still working or input_required (WorkingTask and InputRequiredTask have none)."""
    if not isinstance(task, dict):
        return []
    status = task.get("status")
    problems = []
    if status == "input_required" and not isinstance(task.get("inputRequests"), dict):
        problems.append("an input_required task has no inputRequests object")
    if status in ("working", "input_required"):
        problems.extend(
            f"a task still {status} carries {key} (only a completed task has a result, only a "
            "failed one an error)"
            for key in ("result", "error")
            if task.get(key) is not None
        )
    if status == "completed" and not isinstance(task.get("result"), dict):
        problems.append("a completed task has no inline result object")
    if status == "failed":
        error = task.get("error")
        if not isinstance(error, dict):
            problems.append("a failed task has no error object")
        else:
            if not is_integer(error.get("code")):
                problems.append("the failed task's error has no integer code")
            if not isinstance(error.get("message"), str):
                problems.append("the failed task's error has no message")
        if "result" in task:
            problems.append("a failed task carries a result")
    return problems


def related_task_meta(result: Any) -> str | None:
    """The related-task key a result's `_meta` carries, if any."""
    meta = result.get("_meta") if isinstance(result, dict) else None
    if not isinstance(meta, dict):
        return None
    return next((key for key in RELATED_TASK_KEYS if key in meta), None)


def illegal_moves(statuses: list[str]) -> list[str]:
    """Each step of an observed status sequence that the state machine forbids (repeats of the
    same status are no move)."""
    problems = []
    for before, after in itertools.pairwise(statuses):
        if before == after:
            continue
        if before in TERMINAL:
            problems.append(f"{before} → {after}: a terminal status changed")
        elif after not in LEGAL_MOVES.get(before, frozenset()):
            problems.append(f"{before} → {after} is not a legal transition")
    return problems


def call_tool_result_problems(result: Any) -> list[str]:
    """A `CallToolResult`: a `content` list (and `isError` a boolean when present)."""
    if not isinstance(result, dict):
        return ["the result is not a JSON object"]
    problems = []
    if not isinstance(result.get("content"), list):
        problems.append("the result has no content list")
    if "isError" in result and not isinstance(result["isError"], bool):
        problems.append("isError is not a boolean")
    return problems
