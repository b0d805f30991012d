"""The JSON taskscope copies, saves and exports for a set of watched tasks, and for one RPC
exchange.

`tasks_json` is what `y` copies and `w` saves: each task as the protocol names its fields plus
the server's raw last state; `exchange_json` what they copy and save from the exchange view.
`export_json` adds what only this client saw: the watch status, counters and timeline.
`shown_lives` is what `e` exports: each task's recorded life, or what the TUI shows of a task the
recording has nothing on. All are plain data; writing goes through `write_json`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from app.engine.record.export import TaskLife, latest_server, task_lives
from app.engine.record.recording import Entry, SessionInfo
from app.engine.safety.unsafe_chars import safe_json
from app.engine.tasks.server_keys import bare_id
from app.engine.tasks.task_json import task_json
from app.view.exchanges import Exchange
from app.view.state import WatchedTask


def watched_json(watched: WatchedTask) -> dict[str, Any]:
    """One task as JSON: the normalized fields, the display status and the raw server state."""
    document: dict[str, Any] = {"taskId": watched.server_task_id, "displayStatus": watched.status}
    if watched.task is not None:
        document.update(task_json(watched.task))
        document["raw"] = watched.task.raw
    if watched.server is not None:  # several servers: the ids as the server gave them
        document["server"] = watched.server
        document["taskId"] = watched.server_task_id
        for question in document.get("inputRequests", ()):
            for field in ("key", "taskId"):
                if isinstance(question.get(field), str):
                    question[field] = bare_id(question[field], watched.server)
    if watched.tool_name and "toolName" not in document:
        document["toolName"] = watched.tool_name
    if watched.synchronous:
        document["answeredSynchronously"] = True
    if watched.cancel_requested:
        document["cancelRequested"] = True
    return document


def tasks_json(tasks: Iterable[WatchedTask]) -> str:
    """The tasks as indented JSON: one object for one task, a list for several."""
    documents = [watched_json(watched) for watched in tasks]
    value: Any = documents[0] if len(documents) == 1 else documents
    return safe_json(value, pretty=True)


def export_json(tasks: Iterable[WatchedTask], *, server: str, at: float) -> str:
    """An export file: the server, the moment, and every task with its watch history."""
    exported = []
    for watched in tasks:
        document = watched_json(watched)
        document["watch"] = {
            "firstSeen": watched.first_seen,
            "lastChange": watched.last_change,
            "polls": watched.polls,
            "errors": watched.errors,
            "lastError": watched.last_error,
            "violation": watched.violation.reason if watched.violation else None,
            "stopped": watched.stopped,
            "timeline": [
                {
                    "at": entry.at,
                    "kind": entry.kind,
                    "source": entry.source,
                    "status": entry.status,
                    "detail": entry.detail,
                    "diff": entry.diff.lines() if entry.diff else None,
                }
                for entry in watched.timeline
            ],
        }
        exported.append(document)
    envelope = {"server": server, "exportedAt": at, "tasks": exported}
    return safe_json(envelope, pretty=True)


def shown_lives(entries: Sequence[Entry], tasks: Sequence[WatchedTask]) -> list[TaskLife]:
    """Each task's life as recorded, or, for a task the recording knows nothing of (a call
    answered synchronously never became a watched task), as the TUI shows it: the server, its
    timeline entries, its final state and result."""
    lives = task_lives(entries, [watched.task_id for watched in tasks])
    return [
        _shown_life(watched, latest_server(entries, watched.server))
        if not life.steps and life.final is None
        else life
        for life, watched in zip(lives, tasks, strict=True)
    ]


def _shown_life(watched: WatchedTask, server: SessionInfo | None) -> TaskLife:
    return TaskLife(
        watched.server_task_id, server, tuple(watched.timeline), watched.task, watched.server
    )


def default_path(prefix: str, at: float, suffix: str = "json") -> str:
    """A file name in the working directory such as `taskscope-export-20261130-021500.json`
    (`at`: the wall clock, also in a replay, whose clock stands still)."""
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(at))}.{suffix}"


def write_json(path: str, text: str) -> Path:
    """Write `text` to `path` (user home expanded) and return where it went."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text + "\n", encoding="utf-8")
    return target.resolve()


def exchange_json(exchange: Exchange) -> str:
    """One RPC exchange as indented JSON, what the exchange view copies and saves: why it was
    sent, the latency, and each frame as `--trace-frames` writes it (already redacted)."""
    from app.engine.record.recording import frame_json

    first = exchange.frames[0]
    document: dict[str, Any] = {
        "method": first.method,
        "taskId": first.task_id,
        "purpose": first.purpose,
        "latencyMs": exchange.response.latency_ms if exchange.response else None,
        "request": frame_json(exchange.request) if exchange.request else None,
        "response": frame_json(exchange.response) if exchange.response else None,
    }
    return safe_json(document, pretty=True)
