"""How watch events look in headless output: one plain stderr line each, every server string
sanitized. (A task as JSON is `app.engine.tasks.task_json`, shared with the TUI.)
"""

from __future__ import annotations

from app.engine.safety import deep_json
from app.engine.safety.sanitize import clean_text
from app.engine.tasks.events import TaskEvent

FRAME_EXCERPT = 400


def event_line(event: TaskEvent) -> str | None:
    """One line describing a watch event for stderr, or None for events not worth a line."""
    who = f"task {clean_text(event.task_id)}" if event.task_id else "server"
    task = event.task
    kind = event.kind
    if kind == "polled":
        return None
    if kind in ("created", "transition", "changed") and task is not None:
        status: str = task.status
        if kind == "transition" and event.previous_status:
            status = f"{clean_text(event.previous_status)} → {task.status}"
        line = f"{who}: {status}"
        if kind == "created":
            line = f"{who} watched: {status}"
        if task.status_message:
            line += f" — {clean_text(task.status_message, max_len=300)}"
        if task.progress is not None:
            total = f"/{task.progress.total:g}" if task.progress.total is not None else ""
            line += f" [{task.progress.progress:g}{total}]"
        return line + _next_poll(event)
    if kind == "input_needed" and event.input_request is not None:
        request = event.input_request
        text = clean_text(request.message or request.params.get("message", ""), max_len=300)
        return f"{who} needs input ({clean_text(request.method)}): {text}".rstrip(": ")
    if kind == "input_answered":
        return f"{who}: input answered"
    if kind == "result" and task is not None:
        if task.error is not None:
            return f"{who}: error {task.error.code}: {clean_text(task.error.message, max_len=300)}"
        return f"{who}: result received" + (" (isError)" if task.is_tool_error else "")
    if kind == "error":
        return f"{who}: request failed: {clean_text(event.detail, max_len=300)}" + _next_poll(event)
    if kind == "violation":
        return f"{who}: protocol violation: {clean_text(event.detail, max_len=300)}" + _frame(event)
    if kind == "expired":
        return f"{who}: unknown to the server or expired ({clean_text(event.detail, max_len=300)})"
    if kind == "stopped":
        return f"{who}: watch ended ({clean_text(event.detail)})"
    return None


def _next_poll(event: TaskEvent) -> str:
    if event.next_poll is None:
        return ""
    return f" (next poll in {event.next_poll.delay:.2f}s, {event.next_poll.term})"


def _frame(event: TaskEvent) -> str:
    if event.frame is None:
        return ""
    try:
        text = deep_json.dumps(event.frame, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(event.frame)
    return f"; frame: {clean_text(text, max_len=FRAME_EXCERPT)}"
