"""Plain-text formatting of durations, sizes, clocks and statuses for the TUI's cells.

Pure functions on our own numbers and enums; server text never passes through here (it goes
through `app.engine.safety.sanitize`), so these strings are safe to show as they are.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.engine.safety.sanitize import one_line
from app.view.state import SortKey, WatchedTask

if TYPE_CHECKING:  # annotations only: the TUI's first frame does not load pydantic
    from app.engine.tasks.contract import TasksCapabilities
    from app.engine.tasks.models import Progress, Task

STATUS_GLYPHS: dict[str, str] = {
    "working": "◐",
    "input_required": "?",
    "completed": "●",
    "failed": "✗",
    "cancelled": "○",
    "expired": "⊘",
    "forgotten": "∅",
    "not_found": "∄",
    "not_visible": "◌",
    "unknown": "·",
}
"""One glyph per display status; always shown with the word, so colour is never the only cue."""

STATUS_WORDS: dict[str, str] = {
    "working": "working",
    "input_required": "input",
    "completed": "completed",
    "failed": "failed",
    "cancelled": "cancelled",
    "expired": "expired",
    "forgotten": "forgotten",
    "not_found": "not found",
    "not_visible": "not visible",
    "unknown": "unknown",
}
"""Short words for the status column (`input_required` is spelled `input` to fit)."""


def status_label(status: str) -> str:
    """Glyph and word, e.g. `◐ working`; unknown statuses keep their own (already clean) name."""
    return f"{STATUS_GLYPHS.get(status, '·')} {STATUS_WORDS.get(status, status)}"


def format_duration(seconds: float) -> str:
    """A compact duration: `0.4s`, `12s`, `3m04s`, `2h05m`, `3d04h`; negatives count as zero."""
    seconds = max(seconds, 0.0)
    if seconds < 10:
        return f"{seconds:.1f}s"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h{minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours:02d}h"


UNKNOWN_TIME = "—"
"""A clock cell whose moment is not known (a restored task no run told the time of)."""


def format_age(watched: WatchedTask, now: float) -> str:
    """How long ago the task was created (by the server's `createdAt` when known; `—` for a
    restored task whose creation no run saw)."""
    if not watched.created_known:
        return UNKNOWN_TIME
    return format_duration(now - watched.created_at)


def format_changed(watched: WatchedTask, now: float) -> str:
    """How long ago the task last changed (`—` for a restored task whose last change no run
    saw)."""
    if not watched.changed_known:
        return UNKNOWN_TIME
    return format_duration(now - watched.changed_at)


def format_since(at: float, now: float) -> str:
    """How long ago a wall-clock moment was, e.g. `12s`."""
    return format_duration(now - at)


def format_ttl_left(watched: WatchedTask, now: float) -> str:
    """Time until the server may purge the task: `∞` without a TTL, `elapsed` once past it, `—`
    with no task (not answered yet, or a call answered synchronously: nothing to purge)."""
    if watched.synchronous or not watched.ttl_known:
        return UNKNOWN_TIME
    expires_at = watched.expires_at
    if expires_at is None:
        return "∞"
    left = expires_at - now
    return format_duration(left) if left > 0 else "elapsed"


PACING_WORDS: dict[str, str] = {
    "server": "server",
    "user": "you",
    "backoff": "backoff",
    "retry-after": "retry-after",
    "floor": "floor",
    "notification": "hint",
}
"""How the "next poll" column names the pacing term that set the delay."""


def format_next_poll(watched: WatchedTask, now: float) -> str:
    """`in 2.5s · server` until the next poll, `due · backoff` when late, `—` when not polling."""
    if watched.next_poll is None or watched.next_poll_at is None or watched.settled:
        return "—"
    term = PACING_WORDS.get(watched.next_poll.term, watched.next_poll.term)
    left = watched.next_poll_at - now
    if left <= 0:
        return f"due · {term}"
    return f"{format_duration(left)} · {term}"


def format_progress(progress: Progress | None) -> str:
    """`45%` with a total, `12` without one, empty when the server sent no progress."""
    if progress is None:
        return ""
    if progress.total:
        return f"{min(progress.progress / progress.total, 1.0):.0%}"
    return f"{progress.progress:g}"


def format_task_progress(task: Task | None) -> str:
    """The progress a task shows: the last reported one, and `100%` once it completed (servers
    tend to send their last progress a step before the end); a failed or cancelled task keeps the
    progress it stopped at."""
    if task is None:
        return ""
    progress = task.progress
    if task.status == "completed" and progress is not None and progress.total:
        return "100%"
    return format_progress(progress)


SORT_WORDS: dict[SortKey, tuple[str, str, str]] = {
    "age": ("age", "oldest first", "newest first"),
    "last_change": ("changed", "earliest first", "latest first"),
    "status": ("status", "input first", "completed first"),
    "tool": ("tool", "A→Z", "Z→A"),
}
"""Per sort key: its name in the header, then the order in words ascending and descending (by
`task_filter.sort_key`: creation and change times, status rank, tool name)."""


def sort_label(key: SortKey, descending: bool) -> str:
    """The header's words for a sort, e.g. `age (newest first)`."""
    name, ascending_words, descending_words = SORT_WORDS[key]
    return f"{name} ({descending_words if descending else ascending_words})"


def format_size(size: int) -> str:
    """A byte count as `512 B`, `12.3 kB`, `4.0 MB`."""
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("kB", "MB", "GB"):
        value /= 1000
        if value < 1000:
            return f"{value:.1f} {unit}"
    return f"{value:.1f} TB"


def format_clock(at: float) -> str:
    """A wall-clock moment as local `HH:MM:SS.mmm`."""
    whole = int(at)
    return time.strftime("%H:%M:%S", time.localtime(whole)) + f".{int((at - whole) * 1000):03d}"


def row_marks(watched: WatchedTask) -> list[tuple[str, str]]:
    """The row's badges as (text, severity) pairs, most urgent first.

    Severities are `error`, `warning`, `accent` or `muted`; the table turns them into theme colours.
    """
    marks: list[tuple[str, str]] = []
    if watched.violation is not None:
        marks.append(("‼ violation", "error"))
    if watched.last_error is not None:
        marks.append(("⚠ poll failed", "error"))
    if watched.pending_input_count:
        marks.append((f"✉ {watched.pending_input_count} input", "warning"))
    elif watched.input_waiting:
        marks.append(("✉ input", "warning"))
    if watched.cancel_requested:
        marks.append(("⊘ cancel requested", "warning"))
    if watched.task is not None and watched.task.is_tool_error:
        marks.append(("✗ tool error", "error"))
    if watched.synchronous:
        marks.append(("↯ synchronous", "accent"))
    server_done = watched.gone or (watched.task is not None and watched.task.is_terminal)
    if watched.stopped is not None and not server_done:
        marks.append(("□ not watched", "muted"))
    return marks


STATUS_COLOURS: dict[str, str] = {
    "working": "text-primary",
    "input_required": "text-warning",
    "completed": "text-success",
    "failed": "text-error",
    "cancelled": "",
    "expired": "text-error",
    "forgotten": "text-warning",
    "not_found": "text-warning",
    "not_visible": "text-warning",
    "unknown": "",
}
"""Which theme variable colours each display status; empty means dim."""

SEVERITY_COLOURS: dict[str, str] = {
    "error": "text-error",
    "warning": "text-warning",
    "accent": "text-accent",
    "success": "text-success",
    "primary": "text-primary",
    "muted": "",
}
"""Which theme variable colours each badge severity; empty means dim."""


def questions_waiting(count: int) -> str:
    """The one unit the header and the inbox count pending input in: questions, not tasks."""
    return f"{count} question{'s' if count != 1 else ''} waiting"


RESULT_SOURCE_WORDS: dict[str, str] = {
    "inline": "carried inline on tasks/get",
    "fetched": "fetched with tasks/result",
    "synchronous": "answered synchronously, with no task",
}
"""How a task's result reached us, in words (the model's `result_source`)."""


def verbs_text(capabilities: TasksCapabilities) -> str:
    """The declared sub-capabilities in words, e.g. `call list cancel`, then any declaration the
    user's `--wire` asserted that the server left out."""
    verbs = [
        ("call", capabilities.tool_calls),
        ("list", capabilities.list),
        ("cancel", capabilities.cancel),
        ("update", capabilities.update),
        ("inline-result", capabilities.inline_result),
    ]
    declared_verbs = " ".join(name for name, declared in verbs if declared) or "no verbs"
    if not capabilities.assumed:
        return declared_verbs
    return f"{declared_verbs}; undeclared {', '.join(capabilities.assumed)} assumed by --wire"


def era_tag(era: Mapping[str, Any]) -> str:
    """How the era was settled, in a few words: `auto→legacy`, `--era modern`."""
    preference = one_line(str(era.get("preference", "")), 10)
    settled = one_line(str(era.get("settled", "")), 10)
    return f"{preference}→{settled}" if preference == "auto" else f"--era {settled}"
