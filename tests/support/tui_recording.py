"""A fixed recording for App tests and snapshots: tasks in every state, frames, tools, one clock.

Everything is pinned (ids, times, the clock the App reads), so screenshots do not change from run
to run. `recorded_app()` builds the App on a `RecordedSource` of it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.engine.record.recording import SessionInfo
from app.engine.rpc.purpose import request_purpose
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.tool_info import ToolInfo
from app.engine.tasks.contract import TasksCapabilities
from app.engine.tasks.events import EventKind, NextPoll, Source, TaskEvent
from app.engine.tasks.models import InputKind, InputRequest, Progress, Task, TaskError
from app.tui.app import TaskscopeApp
from app.tui.config import TuiConfig
from app.tui.recorded import RecordedSource

NOW = 1_795_000_000.0
"""The App's frozen wall clock (2026-11-18 UTC); every recorded moment is a little before it."""

INFO = SessionInfo(
    server_name="taskscope-demo-extension",
    server_version="0.1.0",
    transport="http",
    protocol_version="2026-07-28",
    capabilities=TasksCapabilities(
        wire="extension", tool_calls=True, cancel=True, update=True, inline_result=True
    ),
    label="http://127.0.0.1:8765/mcp",
    server_key="url:http://127.0.0.1:8765/mcp",
)

TOOLS = (
    ToolInfo(
        "build_report",
        "Builds the quarterly report (~3 s, with progress).",
        {
            "type": "object",
            "properties": {
                "quarter": {"type": "string", "enum": ["Q1", "Q2", "Q3", "Q4"], "default": "Q3"},
                "pages": {"type": "integer", "minimum": 1, "maximum": 50, "title": "Pages"},
                "draft": {"type": "boolean", "title": "Draft", "default": True},
            },
            "required": ["quarter"],
        },
        None,
    ),
    ToolInfo(
        "migrate_database",
        "Migrates database tables one per second; cancel it when bored.",
        {"type": "object", "properties": {"tables": {"type": "integer", "default": 60}}},
        None,
    ),
    ToolInfo("lookup_weather", "Current weather for a city (answers at once).", {}, None),
)


def _when(seconds_before_now: float) -> datetime:
    return datetime.fromtimestamp(NOW - seconds_before_now, tz=UTC)


def _task(task_id: str, tool: str, status: Any, message: str, age: float, **extra: Any) -> Task:
    raw: dict[str, Any] = {
        "taskId": task_id,
        "status": status,
        "statusMessage": message,
        "createdAt": _when(age).isoformat(),
        "lastUpdatedAt": _when(min(age, 3.0)).isoformat(),
        "ttlMs": 600_000,
        "pollIntervalMs": 2000,
    }
    for key in ("result", "error"):
        value = extra.get(key)
        if value is not None:
            raw[key] = value.model_dump() if isinstance(value, TaskError) else value
    return Task(
        task_id=task_id,
        wire="extension",
        status=status,
        status_message=message,
        created_at=_when(age),
        last_updated_at=_when(min(age, 3.0)),
        ttl_ms=600_000,
        poll_interval_ms=2000,
        tool_name=tool,
        raw=raw,
        **extra,
    )


def _event(
    kind: EventKind,
    task: Task | None,
    at_before_now: float,
    *,
    task_id: str | None = None,
    source: Source = "poll",
    detail: str | None = None,
    delay: float | None = None,
) -> TaskEvent:
    at = NOW - at_before_now
    next_poll = NextPoll(due=at + delay, delay=delay, term="server") if delay else None
    return TaskEvent(
        kind=kind,
        task_id=task_id or (task.task_id if task else ""),
        task=task,
        at=at,
        source=source,
        detail=detail,
        next_poll=next_poll,
    )


APPROVAL = InputRequest(
    key="approve",
    kind=InputKind.FORM,
    method="elicitation/create",
    params={
        "mode": "form",
        "message": "Approve the rollout of 2.4.0?",
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    },
    wire="extension",
    task_id="tk-deploy-7f3a",
    message="Approve the rollout of 2.4.0?",
)


def recorded_events() -> list[TaskEvent]:
    """Eight tasks: working, input, completed, failed, cancelled, erroring, expired, synchronous."""
    working = _task(
        "tk-report-01a9",
        "build_report",
        "working",
        "Rendering charts (2 of 5)",
        42.0,
        progress=Progress(progress=2, total=5, message="charts"),
    )
    waiting = _task(
        "tk-deploy-7f3a",
        "deploy_release",
        "input_required",
        "Waiting for approval",
        95.0,
        input_requests=(APPROVAL,),
    )
    completed = _task(
        "tk-logs-33c0",
        "analyze_logs",
        "completed",
        "Done",
        300.0,
        result={
            "content": [{"type": "text", "text": "3 errors, 17 warnings; most from api-gateway."}],
            "structuredContent": {"errors": 3, "warnings": 17, "top_source": "api-gateway"},
        },
        result_source="inline",
    )
    failed = _task(
        "tk-sync-90be",
        "sync_inventory",
        "failed",
        "Upstream inventory service is down",
        610.0,
        error=TaskError(code=-32603, message="upstream unavailable: 503 from inventory"),
    )
    cancelled = _task(
        "tk-migrate-5d21", "migrate_database", "cancelled", "Cancelled by request.", 1900.0
    )
    erroring = _task("tk-index-c4e8", "index_workspace", "working", "Indexing 1,204 files", 75.0)
    gone = _task("tk-backup-e012", "nightly_backup", "working", "Snapshotting volumes", 4000.0)
    synchronous = Task(
        task_id="sync-1",
        wire="extension",
        status="completed",
        result={"content": [{"type": "text", "text": "Lisbon: 21 °C, clear sky"}]},
        result_source="synchronous",
        tool_name="lookup_weather",
        raw={"content": [{"type": "text", "text": "Lisbon: 21 °C, clear sky"}]},
    )
    return [
        _event("created", working, 42.0, source="create", delay=2.0),
        _event("polled", working, 1.0, delay=2.0),
        _event("created", waiting, 95.0, source="create", delay=2.0),
        _event("created", completed, 300.0, source="create"),
        _event("result", completed, 280.0),
        _event("stopped", completed, 280.0, detail="completed"),
        _event("created", failed, 610.0, source="create"),
        _event("result", failed, 600.0),
        _event("stopped", failed, 600.0, detail="failed"),
        _event("created", cancelled, 1900.0, source="user"),
        _event("stopped", cancelled, 1800.0, detail="cancelled"),
        _event("created", erroring, 75.0, source="create", delay=4.0),
        _event("error", erroring, 2.0, detail="TransportError: timeout after 30 s", delay=4.0),
        _event("created", gone, 4000.0, source="user", delay=2.0),
        _event("expired", gone, 30.0, detail="tasks/get: Task not found (-32602)"),
        _event("stopped", gone, 30.0, detail="expired"),
        _event("created", synchronous, 12.0, source="create"),
        _event("result", synchronous, 12.0, source="create"),
        _event("stopped", synchronous, 12.0, source="create", detail="completed"),
    ]


def _frame(
    direction: Any,
    method: str | None,
    rpc_id: int,
    task_id: str | None,
    before_now: float,
    *,
    reason: str | None = None,
    latency_ms: float | None = None,
    error: str | None = None,
) -> Frame:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id}
    if method is not None:
        message.update(method=method, params={"taskId": task_id} if task_id else {})
    elif error is None and task_id is not None:
        message["result"] = {"taskId": task_id, "status": "working"}
    purpose = request_purpose(method, reason, task_id) if method and reason else None
    return Frame(
        direction=direction,
        message=message,
        raw=None,
        at=NOW - before_now,
        method=method,
        rpc_id=rpc_id,
        task_id=task_id,
        reason=reason,
        latency_ms=latency_ms,
        http_status=200,
        headers={"content-type": "application/json"},
        error=error,
        exchange=rpc_id,
        purpose=purpose,
    )


def recorded_frames() -> list[Frame]:
    """A short conversation: create, polls, a timeout, a cancel."""
    return [
        _frame("out", "tools/call", 7, None, 42.0, reason="user"),
        _frame("in", None, 7, "tk-report-01a9", 41.9, latency_ms=84.0),
        _frame("out", "tasks/get", 8, "tk-index-c4e8", 32.0, reason="poll"),
        _frame("in", None, 8, "tk-index-c4e8", 2.0, error="timeout after 30 s"),
        _frame("out", "tasks/get", 9, "tk-report-01a9", 1.2, reason="poll"),
        _frame("in", None, 9, "tk-report-01a9", 1.0, latency_ms=12.0),
        _frame("out", "tasks/get", 10, "tk-backup-e012", 30.1, reason="poll"),
        _frame("in", None, 10, "tk-backup-e012", 30.0, latency_ms=9.0, error="Task not found"),
    ]


def recorded_source() -> RecordedSource:
    return RecordedSource(INFO, recorded_events(), recorded_frames(), TOOLS)


def recorded_app(**kwargs: Any) -> TaskscopeApp:
    """The App on the recording, with a frozen clock and no remembered tasks."""
    kwargs.setdefault("remember_tasks", False)
    return TaskscopeApp(recorded_source(), clock=lambda: NOW, **kwargs)


RECORDED_TASKS = 8


def _moved(task: Task, status: Any, message: str) -> Task:
    """The same task in a later state."""
    return task.model_copy(update={"status": status, "status_message": message})


def history_events() -> list[TaskEvent]:
    """Eight tasks with lives spread over the last ten minutes, for the time view: finished,
    asked and answered, cancelled, failed after failed polls, live with a failed poll, waiting
    on a question, expired past its TTL, and adopted (unknown until its first answer)."""
    report = _task("tk-report-01a9", "build_report", "working", "Collecting metrics", 540.0)
    deploy = _task("tk-deploy-7f3a", "deploy_release", "working", "Preparing", 400.0)
    migrate = _task("tk-migrate-5d21", "migrate_database", "working", "Table 1 of 60", 300.0)
    inventory = _task("tk-sync-90be", "sync_inventory", "working", "Reading stock", 560.0)
    index = _task("tk-index-c4e8", "index_workspace", "working", "Indexing 1,204 files", 200.0)
    provision = _task("tk-prov-3b7e", "provision_server", "working", "Starting", 90.0)
    backup = _task(
        "tk-backup-e012", "nightly_backup", "working", "Snapshotting volumes", 590.0
    ).model_copy(update={"ttl_ms": 300_000})
    adopted = _task("tk-quote-a1f0", "fetch_quote", "working", "Fetching", 150.0)
    return [
        _event("created", inventory, 560.0, source="create"),
        _event("error", inventory, 520.0, detail="TransportError: timeout after 30 s"),
        _event("error", inventory, 500.0, detail="TransportError: timeout after 30 s"),
        _event("transition", _moved(inventory, "failed", "Upstream down"), 470.0),
        _event("stopped", _moved(inventory, "failed", "Upstream down"), 470.0, detail="failed"),
        _event("created", report, 540.0, source="create"),
        _event("transition", _moved(report, "completed", "Done"), 480.0),
        _event("stopped", _moved(report, "completed", "Done"), 480.0, detail="completed"),
        _event("created", backup, 590.0, source="create"),
        _event("expired", backup, 280.0, detail="tasks/get: Task not found (-32602)"),
        _event("stopped", backup, 280.0, detail="expired"),
        _event("created", deploy, 400.0, source="create"),
        _event("transition", _moved(deploy, "input_required", "Needs approval"), 380.0),
        _event("input_needed", _moved(deploy, "input_required", "Needs approval"), 380.0),
        _event("input_answered", _moved(deploy, "input_required", "Needs approval"), 250.0),
        _event("transition", _moved(deploy, "working", "Rolling out"), 248.0),
        _event("transition", _moved(deploy, "completed", "Rolled out"), 200.0),
        _event("stopped", _moved(deploy, "completed", "Rolled out"), 200.0, detail="completed"),
        _event("created", migrate, 300.0, source="create"),
        _event("transition", _moved(migrate, "cancelled", "Cancelled by request."), 120.0),
        _event("stopped", _moved(migrate, "cancelled", "Cancelled"), 120.0, detail="cancelled"),
        _event("created", index, 200.0, source="create", delay=4.0),
        _event("error", index, 30.0, detail="TransportError: timeout after 30 s", delay=4.0),
        _event("polled", index, 1.0, delay=4.0),
        _event("created", provision, 90.0, source="create", delay=2.0),
        _event("transition", _moved(provision, "input_required", "Waiting for a spec"), 80.0),
        _event("input_needed", _moved(provision, "input_required", "Waiting for a spec"), 80.0),
        _event("created", None, 150.0, task_id="tk-quote-a1f0", source="user"),
        _event("polled", adopted, 110.0, delay=2.0),
    ]


def history_app(**kwargs: Any) -> TaskscopeApp:
    """The App on `history_events`, with the recording's frozen clock, no remembered tasks and
    no toasts (its tasks finish as it plays)."""
    kwargs.setdefault("remember_tasks", False)
    kwargs.setdefault("config", TuiConfig(toasts=False, bell=False))
    source = RecordedSource(INFO, history_events(), (), TOOLS)
    return TaskscopeApp(source, clock=lambda: NOW, **kwargs)


HISTORY_TASKS = 8


SEVERAL = ("github", "linear", "broken")


class SeveralRecordedSource(RecordedSource):
    """The recording as if from two of three servers of a config file (one failed)."""

    def connection_note(self) -> str | None:
        return "2 of 3 · broken failed"


def several_app() -> TaskscopeApp:
    """The App on the recording spread over two servers (as `MultiSource` renames them), with
    the same id on both for one task."""
    from dataclasses import replace

    from app.engine.tasks.server_keys import row_key

    servers: dict[str, str] = {}
    events = []
    for event in [*recorded_events(), *_twin_events()]:
        twin = event.task_id.endswith("#twin")
        task_id = event.task_id.removesuffix("#twin")
        server = "linear" if twin else servers.setdefault(task_id, SEVERAL[len(servers) % 2])
        key = row_key(server, task_id)
        events.append(replace(event, task_id=key, server=server))
    info = replace(
        INFO,
        server_name="3 servers",
        server_version="",
        transport="several",
        protocol_version="",
        label="~/.cursor/mcp.json",
        server_key="servers:~/.cursor/mcp.json",
        several=SEVERAL,
    )
    return TaskscopeApp(
        SeveralRecordedSource(info, events, recorded_frames(), TOOLS),
        clock=lambda: NOW,
        remember_tasks=False,
    )


def _twin_events() -> list[TaskEvent]:
    """A task on the second server with the id of one on the first."""
    twin = _task("tk-report-01a9", "build_report", "completed", "Report ready", 40.0)
    return [
        _event("created", twin, 40.0, task_id="tk-report-01a9#twin", source="create"),
        _event("stopped", twin, 20.0, task_id="tk-report-01a9#twin", detail="completed"),
    ]


SEVERAL_TASKS = RECORDED_TASKS + 1
