"""The Overview tab: every field of a watched task worth reading at a glance, one per row."""

from __future__ import annotations

import heapq
from datetime import UTC, datetime

from rich.table import Table
from rich.text import Text

from app.engine.safety.sanitize import safe_text
from app.engine.tasks.gone import NOT_VISIBLE_REASON
from app.view.formatting import (
    PACING_WORDS,
    RESULT_SOURCE_WORDS,
    format_clock,
    format_duration,
    format_task_progress,
    status_label,
)
from app.view.state import WatchedTask
from widgets.detail_styles import HEADING, MUTED
from widgets.json_text import json_text

MAX_SHOWN_INPUTS = 10
"""Questions the Overview spells out; a server may ask thousands, and all would be laid out."""


def _when(value: datetime | None) -> str:
    return value.isoformat() if value is not None else "—"


def _when_epoch(value: float | None) -> str:
    """A remembered time (seconds since the epoch) as the server's times are shown."""
    return _when(datetime.fromtimestamp(value, UTC) if value is not None else None)


def overview_table(watched: WatchedTask) -> Table:
    """The Overview tab: every field worth reading at a glance, one per row."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style=HEADING, no_wrap=True)
    grid.add_column(overflow="fold")
    task = watched.task

    def row(name: str, value: Text | str) -> None:
        grid.add_row(name, value if isinstance(value, Text) else Text(value))

    row("task", safe_text(watched.server_task_id))
    if watched.server is not None:
        row("on server", safe_text(watched.server))
    row("tool", safe_text(watched.tool_name or "—"))
    status = status_label(watched.status)
    if watched.cancel_requested:
        status += "   ⊘ cancel requested (server has not settled yet)"
    row("status", status)
    if task is not None:
        # A synchronous answer carries no task, so no tasks wire (its Task's wire is a stand-in).
        row(
            "wire",
            "none (answered synchronously, without a task)" if watched.synchronous else task.wire,
        )
        row("message", safe_text(task.status_message or "—", allow_newlines=True))
        row("created", _when(task.created_at))
        row("last updated", _when(task.last_updated_at))
        if watched.synchronous:  # no task: nothing lives on the server, nothing to purge
            ttl = "—"
        else:
            ttl = "unlimited" if task.ttl_ms is None else format_duration(task.ttl_ms / 1000)
        row("ttl", ttl)
        interval = task.poll_interval_ms
        row("poll interval", "—" if interval is None else format_duration(interval / 1000))
        if task.progress is not None:
            progress = format_task_progress(task)
            note = task.progress.message
            row("progress", safe_text(f"{progress} {note}" if note else progress))
        if task.result_source:
            row("result", RESULT_SOURCE_WORDS.get(task.result_source, task.result_source))
        if task.error is not None:
            row("error", safe_text(f"{task.error.code}: {task.error.message}"))
    elif watched.seen_before is not None:
        seen = watched.seen_before
        if seen.status is not None:
            row("last seen", f"{status_label(seen.status)} (by an earlier run)")
        row("wire", seen.wire or "—")
        row("created", _when_epoch(seen.created_at))
        row("last updated", _when_epoch(seen.last_updated_at))
        if seen.created_at is not None:
            row("ttl", "unlimited" if seen.ttl_ms is None else format_duration(seen.ttl_ms / 1000))
    if watched.synchronous:
        row("answer", "answered synchronously (no task was created)")
    if watched.next_poll is not None and watched.next_poll_at is not None:
        term = PACING_WORDS.get(watched.next_poll.term, watched.next_poll.term)
        row("next poll", f"{format_clock(watched.next_poll_at)} (set by {term})")
    polls = "poll" if watched.polls == 1 else "polls"
    row("polls", f"{watched.polls} {polls}, {watched.errors} failed")
    if watched.last_error is not None:
        row("last error", safe_text(watched.last_error, allow_newlines=True))
    if watched.violation is not None:
        reason = safe_text(watched.violation.reason)
        reason.append("   (offending frame in the Raw tab)", MUTED)
        row("violation", reason)
    if watched.not_found:
        row("server", "does not know this id (never seen alive: check it for a typo)")
    elif watched.not_visible:
        row("server", NOT_VISIBLE_REASON)
    elif watched.expired or watched.forgotten:
        if watched.expired:
            word = "expired (TTL elapsed)"
        elif watched.ttl_known:
            word = "forgotten before its TTL"
        else:  # a remembered id whose TTL no run saw
            word = "forgotten (its TTL is not known)"
        row("server", f"no longer knows the task: {word}")
    if watched.stopped is not None:
        # The server row above says what became of a task the server stopped answering for, so
        # the watch line does not say it again (or contradict it).
        stopped = "the server no longer answers for it" if watched.gone else watched.stopped
        row("watch", safe_text(f"stopped: {stopped}"))
    if watched.pending_inputs or (task is not None and task.input_requests):
        row("input", _inputs_text(watched))
    return grid


def _inputs_text(watched: WatchedTask) -> Text:
    """The task's questions, each waiting one with its whole request so it can be read before
    answering; past `MAX_SHOWN_INPUTS` only how many more there are."""
    inputs = watched.task.input_requests if watched.task is not None else ()
    listed = {request.key for request in inputs}
    unlisted = watched.pending_inputs - listed
    lines = Text()
    for request in inputs[:MAX_SHOWN_INPUTS]:
        waiting = request.key in watched.pending_inputs
        mark = "waiting" if waiting else "answered"
        lines.append_text(safe_text(f"[{request.key}] {request.method} ({mark}) "))
        lines.append_text(safe_text(request.message))
        lines.append("\n")
        if waiting:
            lines.append_text(json_text(request.params))
            lines.append("\n")
    room = max(0, MAX_SHOWN_INPUTS - len(inputs))
    for key in heapq.nsmallest(room, unlisted):
        lines.append_text(safe_text(f"[{key}] waiting\n"))
    hidden = len(inputs) + len(unlisted) - MAX_SHOWN_INPUTS
    if hidden > 0:
        lines.append(f"… and {hidden:,} more (i: the inbox lists them all)\n", MUTED)
    return lines
