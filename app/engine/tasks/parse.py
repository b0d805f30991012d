"""Task payloads parsed by wire name: the entry points for callers that hold a `Wire` value
(the poller's notifications, the adapters' memo, the headless commands), each handing the
payload to that wire's rules (`legacy_parse`, `extension_parse`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine.tasks.extension_parse import EXTENSION_RULES, extension_create
from app.engine.tasks.kinds import Wire
from app.engine.tasks.legacy_parse import LEGACY_RULES, legacy_create
from app.engine.tasks.normalize import (
    ParsedCreate,
    Variants,
    WireRules,
    parse_answer,
    parse_notification,
    parse_task,
)

if TYPE_CHECKING:
    from app.engine.tasks.models import Task

RULES: dict[Wire, WireRules] = {"legacy": LEGACY_RULES, "extension": EXTENSION_RULES}


def task_from_payload(
    obj: Any,
    *,
    wire: Wire,
    variants: Variants | None = None,
    frame: Any = None,
    tool_name: str | None = None,
) -> Task:
    """A flat task object of `wire` as a normalized `Task` (see `normalize.parse_task`)."""
    return parse_task(obj, RULES[wire], variants=variants, frame=frame, tool_name=tool_name)


def task_from_answer(
    payload: Any,
    *,
    wire: Wire,
    task_id: str,
    method: str = "tasks/get",
    variants: Variants | None = None,
) -> Task:
    """A `tasks/get` (or legacy `tasks/cancel`) result; its taskId must be the one asked for."""
    return parse_answer(payload, RULES[wire], task_id=task_id, method=method, variants=variants)


def task_from_notification(params: Any, *, wire: Wire, variants: Variants | None = None) -> Task:
    """The task in a legacy `notifications/tasks/status` or an extension `notifications/tasks`."""
    return parse_notification(params, RULES[wire], variants=variants)


def create_from_result(
    payload: Any, *, wire: Wire, tool_name: str, variants: Variants | None = None
) -> ParsedCreate:
    """Classify a `tools/call` answer; a task creation is never validated as a tool result."""
    create = legacy_create if wire == "legacy" else extension_create
    return create(payload, tool_name, variants)
