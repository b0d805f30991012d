"""One task's life as a bug-report attachment: creation, transitions, questions, answers, result.

`task_lives` reads recording entries (a recording file, or the recorder's in-memory history) and
gathers, per task, every step worth reporting; plain polls are left out. `lives_markdown` and
`lives_json` render several tasks together (marked rows export as one document). Both renderings
are deterministic for a given recording, and every server string in the Markdown is cleaned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from app.engine.record.history import LifeStep
from app.engine.record.recording import (
    LATEST_MOMENT,
    Action,
    Entry,
    Opened,
    RecordedEvent,
    SessionInfo,
    action_tasks,
    field_text,
)
from app.engine.safety import deep_json
from app.engine.safety.markdown import cell, code, inline, plain
from app.engine.safety.sanitize import clean_text
from app.engine.tasks.gone import GoneKind, gone_detail, gone_kind, seen_on_legacy
from app.engine.tasks.last_seen import LastSeen, last_seen_from_json
from app.engine.tasks.models import Task
from app.engine.tasks.server_keys import task_key
from app.engine.tasks.task_json import task_json

EXPORT_FORMAT = "taskscope-export"
EXPORT_VERSION = 1

ExportFormat = Literal["md", "json"]

_ACTION_KINDS = {"cancel": "cancel requested", "answer": "answer", "reject": "rejected"}


@dataclass(frozen=True, slots=True)
class TaskLife:
    """Everything reported about one task, with its last good state."""

    task_id: str
    """The id the server gave it."""
    server: SessionInfo | None
    steps: tuple[LifeStep, ...]
    final: Task | None
    server_name: str | None = None
    """Which of several servers it ran on (None: the one server)."""

    @property
    def tool(self) -> str | None:
        if self.final is not None and self.final.tool_name:
            return self.final.tool_name
        created = [s for s in self.steps if s.kind == "create requested" and s.detail]
        return created[0].detail if created else None

    @property
    def started_at(self) -> float | None:
        return self.steps[0].at if self.steps else None


def task_lives(entries: Iterable[Entry], keys: Sequence[str]) -> list[TaskLife]:
    """The life of each task of `keys` (in that order) as recorded in `entries`; a key is a
    task's id, or with several servers its row key (`server_keys.task_key`)."""
    steps: dict[str, list[LifeStep]] = {key: [] for key in keys}
    finals: dict[str, Task] = {}
    servers: dict[str, SessionInfo | None] = {}
    origins: dict[str, tuple[str | None, str]] = {}
    opened: dict[str | None, SessionInfo] = {}
    restored: dict[str, LastSeen | None] = {}
    """Tasks an earlier run remembered (the `restored` action), with what it saw of each."""
    lost: dict[str, GoneKind] = {}
    """What became of each task the server stopped knowing."""
    for entry in entries:
        if isinstance(entry, Opened):
            opened[entry.server] = entry.info
            continue
        if isinstance(entry, Action) and entry.action == "restored":
            restored.update(_restored(entry))
            continue
        if isinstance(entry, RecordedEvent):
            task_id: str | None = entry.event.task_id
        elif isinstance(entry, Action):
            task_id = entry.task_id
        else:
            continue
        key = task_key(entry.server, task_id) if task_id else None
        if key not in steps:
            continue
        servers.setdefault(key, opened.get(entry.server))
        origins.setdefault(key, (entry.server, task_id or ""))
        if isinstance(entry, RecordedEvent):
            if entry.event.task is not None:
                finals[key] = entry.event.task
            if entry.event.kind == "expired":
                session = opened.get(entry.server)
                wire = session.capabilities.wire if session is not None else None
                lost[key] = _gone(entry, finals.get(key), restored, key, wire)
            step = _event_step(entry, lost.get(key))
            if step is not None:
                steps[key].append(step)
        else:
            steps[key].extend(_action_steps(entry))
    lives = []
    for key in keys:
        server_name, task_id = origins.get(key, (None, key))
        life = TaskLife(task_id, servers.get(key), tuple(steps[key]), finals.get(key), server_name)
        lives.append(life)
    return lives


def latest_server(entries: Iterable[Entry], name: str | None = None) -> SessionInfo | None:
    """The server of the last session the entries opened (of the server `name`, with several);
    None when they opened none."""
    server: SessionInfo | None = None
    for entry in entries:
        if isinstance(entry, Opened) and entry.server == name:
            server = entry.info
    return server


def _restored(entry: Action) -> Iterator[tuple[str, LastSeen | None]]:
    """Each task a `restored` action names, by its key, with what the earlier run saw of it."""
    for task_id, task in action_tasks(entry):
        yield task_key(entry.server, task_id), last_seen_from_json(task)


def _gone(
    entry: RecordedEvent,
    final: Task | None,
    restored: dict[str, LastSeen | None],
    key: str,
    session_wire: str | None,
) -> GoneKind:
    """What became of a task the server stopped knowing (`final`: its last good state so far;
    `restored`: the tasks an earlier run remembered, with what it saw of each; `session_wire`:
    the wire the recorded session spoke to its server)."""
    seen = restored.get(key)
    expires = final.expires_at if final is not None else None
    return gone_kind(
        entry.at,
        expires.timestamp() if expires is not None else seen.expires_at if seen else None,
        seen_here=final is not None,
        known_before=key in restored,
        legacy_before=seen_on_legacy(seen, session_wire),
        detail=entry.event.detail,
    )


def _event_step(entry: RecordedEvent, lost: GoneKind | None) -> LifeStep | None:
    """The step an event makes of a task's life (`lost`: what became of it once the server
    stopped knowing it: the poller calls that "expired" whatever it was)."""
    event = entry.event
    status = event.task.status if event.task is not None else None
    if event.kind == "polled":
        return None
    if event.kind == "expired" and lost is not None:
        detail = gone_detail(lost, event.detail)
        return LifeStep(entry.at, lost, event.source, status, detail=detail)
    if event.kind == "input_needed":
        return LifeStep(entry.at, "question", event.source, status, question=event.input_request)
    if event.kind == "input_answered":
        request = event.input_request
        key = request.key if request is not None else event.detail
        return LifeStep(entry.at, "answer acknowledged", event.source, status, detail=key)
    detail = event.detail
    if event.kind in ("created", "transition", "changed") and event.task is not None:
        detail = event.task.status_message or detail
    elif event.kind == "stopped" and detail == "expired" and lost is not None:
        detail = lost
    return LifeStep(
        entry.at,
        event.kind,
        event.source,
        status,
        previous_status=event.previous_status,
        detail=detail,
    )


def _action_steps(entry: Action) -> list[LifeStep]:
    details = entry.details
    if entry.action == "created":
        arguments = details.get("arguments")
        return [
            LifeStep(
                entry.at,
                "create requested",
                "user",
                detail=field_text(details.get("tool")) or None,
                arguments=arguments if isinstance(arguments, dict) else None,
            )
        ]
    if entry.action == "refused":
        verb = field_text(details.get("verb"))
        return [LifeStep(entry.at, "refused (read-only)", "user", detail=verb)]
    kind = _ACTION_KINDS.get(entry.action)
    if kind is None:
        return []
    response = details.get("response")
    return [
        LifeStep(
            entry.at,
            kind,
            "user",
            detail=field_text(details["key"]) if "key" in details else None,
            answer=response if isinstance(response, dict) else None,
        )
    ]


# -- JSON -----------------------------------------------------------------------------------------


def lives_json(lives: Sequence[TaskLife]) -> str:
    """The export as JSON text (non-ASCII escaped, so nothing in it can act on a terminal)."""
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "tasks": [_life_document(life) for life in lives],
    }
    return deep_json.dumps(document, indent=2, ensure_ascii=True, default=str)


def _life_document(life: TaskLife) -> dict[str, Any]:
    """One recorded life: its server, its steps, and its final state's fields (`task_json`)."""
    final = life.final
    fields = task_json(final) if final else {}
    document: dict[str, Any] = {"taskId": life.task_id}
    if life.server_name is not None:
        document["serverName"] = life.server_name
    return document | {
        "server": _server_document(life.server),
        "wire": final.wire if final else None,
        "tool": life.tool,
        "finalStatus": fields.get("status"),
        "steps": [_step_document(step, life) for step in life.steps],
        "result": fields.get("result"),
        "error": fields.get("error"),
        "lastState": final.raw if final else None,
    }


def _server_document(info: SessionInfo | None) -> dict[str, Any] | None:
    if info is None:
        return None
    return {
        "name": info.server_name,
        "version": info.server_version,
        "transport": info.transport,
        "protocolVersion": info.protocol_version,
        "wire": info.capabilities.wire,
    }


def _step_document(step: LifeStep, life: TaskLife) -> dict[str, Any]:
    start = life.started_at
    document: dict[str, Any] = {
        "serverName": life.server_name,
        "at": _iso(step.at),
        "offsetS": round(step.at - start, 3) if start is not None else 0.0,
        "kind": step.kind,
        "source": step.source,
        "status": step.status,
        "previousStatus": step.previous_status,
        "detail": step.detail,
        "arguments": step.arguments,
        "answer": step.answer,
    }
    if step.question is not None:
        document["question"] = step.question.model_dump(mode="json")
    return {key: value for key, value in document.items() if value is not None}


# -- Markdown -------------------------------------------------------------------------------------


def lives_markdown(lives: Sequence[TaskLife]) -> str:
    """The export as Markdown, one section per task, ready to paste into a bug report."""
    several = any(life.server_name is not None for life in lives)
    return "\n\n".join(_life_markdown(life, several) for life in lives).rstrip() + "\n"


def _life_markdown(life: TaskLife, several: bool) -> str:
    """One task's section; with several servers its heading and each timeline row name the
    task's server."""
    final = life.final
    on = f" on `{inline(life.server_name)}`" if life.server_name is not None else ""
    lines = [f"## Task `{inline(life.task_id)}`{on}", ""]
    facts = [
        ("Server", _server_text(life.server, life.server_name)),
        ("Wire", final.wire if final else (life.server.capabilities.wire if life.server else "")),
        ("Tool", life.tool or "—"),
        ("Created", _created(life)),
        ("Final status", final.status if final else "unknown"),
    ]
    lines += ["| | |", "|---|---|"]
    lines += [f"| {name} | {cell(value)} |" for name, value in facts]
    server_column = ("| Server ", "|---") if several else ("", "")
    lines += [
        "",
        "### Timeline",
        "",
        f"{server_column[0]}| At | +s | What | Status | Detail |",
        f"{server_column[1]}|---|---|---|---|---|",
    ]
    start = life.started_at or 0.0
    server_cell = f"| {cell(life.server_name or '—')} " if several else ""
    for step in life.steps:
        lines.append(
            f"{server_cell}| {_iso(step.at)} | {step.at - start:.3f} | {cell(_what(step))} "
            f"| {cell(_status(step))} | {cell(_step_detail(step))} |"
        )
    lines += _exchanges(life)
    lines += _outcome(final)
    return "\n".join(lines)


def _exchanges(life: TaskLife) -> list[str]:
    questions = [step.question for step in life.steps if step.question is not None]
    answers = {
        s.detail: s for s in life.steps if s.kind in ("answer", "rejected") and s.detail is not None
    }
    created = [s for s in life.steps if s.kind == "create requested" and s.arguments is not None]
    lines: list[str] = []
    if created:
        lines += ["", "### Arguments", "", *code(created[0].arguments)]
    if not questions:
        return lines
    lines += ["", "### Questions and answers"]
    for number, question in enumerate(questions, start=1):
        lines += ["", f"{number}. `{inline(question.method)}` key `{inline(question.key)}`"]
        if question.message:
            lines += ["", f"   > {plain(clean_text(question.message, max_len=2000))}"]
        schema = question.requested_schema
        if schema is not None:
            lines += ["", "   Requested schema:", "", *code(schema, indent="   ")]
        answer = answers.get(question.key)
        if answer is not None and answer.kind == "rejected":
            lines += ["", "   Declined with a JSON-RPC error."]
        elif answer is None or answer.answer is None:
            lines += ["", "   No answer was sent."]
        else:
            lines += ["", "   Answer:", "", *code(answer.answer, indent="   ")]
    return lines


def _outcome(final: Task | None) -> list[str]:
    if final is None:
        return []
    if final.error is not None:
        return ["", "### Error", "", *code(final.error.model_dump())]
    if final.result is not None:
        heading = "### Result (isError)" if final.is_tool_error else "### Result"
        return ["", heading, "", *code(final.result)]
    return []


def _what(step: LifeStep) -> str:
    if step.kind == "question" and step.question is not None:
        return f"question ({step.question.method})"
    return f"{step.kind} ({step.source})" if step.source != "poll" else step.kind


def _status(step: LifeStep) -> str:
    if step.previous_status and step.status and step.previous_status != step.status:
        return f"{step.previous_status} → {step.status}"
    return step.status or ""


def _step_detail(step: LifeStep) -> str:
    if step.question is not None:
        return f"[{step.question.key}] {step.question.message}".strip()
    return step.detail or ""


def _created(life: TaskLife) -> str:
    if life.final is not None and life.final.created_at is not None:
        return _iso(life.final.created_at.timestamp())
    return _iso(life.started_at) if life.started_at is not None else "—"


def _server_text(info: SessionInfo | None, name: str | None) -> str:
    named = f"{name}: " if name is not None else ""
    if info is None:
        return named.removesuffix(": ") or "—"
    return (
        f"{named}{info.server_name} {info.server_version} over {info.transport}, "
        f"protocol {info.protocol_version}"
    )


def _iso(at: float) -> str:
    """`at` as an ISO 8601 UTC time; one no date holds (a server's `createdAt` of the year 1 in
    a zone east of UTC) as its seconds since the epoch."""
    if not 0 <= at <= LATEST_MOMENT:
        return f"{at:.3f} s since the epoch"
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def render(lives: Sequence[TaskLife], fmt: ExportFormat) -> str:
    """The export in `fmt` ("md" or "json")."""
    return lives_markdown(lives) if fmt == "md" else lives_json(lives) + "\n"


def export_file_name(task_ids: Sequence[str], fmt: ExportFormat) -> str:
    """A file name for an export such as `taskscope-task-<id>.md` (each run of characters unfit
    for a path, such as a row key's " · ", becomes one `_`)."""
    first = re.sub(r"[^\w-]+", "_", task_ids[0])[:40]
    more = f"-and-{len(task_ids) - 1}-more" if len(task_ids) > 1 else ""
    return f"taskscope-task-{first}{more}.{fmt}"
