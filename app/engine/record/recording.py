"""The taskscope recording format: NDJSON lines for frames, task events and user actions.

`recorder.py` writes these lines and `replay.py` reads them back; both go through the encoders and
decoders here, so a recorded `Frame` or `TaskEvent` comes back equal to what was seen live.

Every line is one JSON object with a `type` and a wall-clock `at` (seconds since the epoch):

- `header`: a recording session starts (`format`, `version`, `face`: "tui" or "cli"; `servers`:
  the names of the servers watched together, when there are several).
- `session`: the connection opened (`server`: name, version, transport, protocolVersion, label,
  serverKey; `capabilities`: the resolved tasks wire; `readonly`).
- `frame`: one JSON-RPC frame in or out (`frame`: the redacted frame).
- `event`: one poller `TaskEvent` (`event`: kind, taskId, source, task, inputRequest, ...).
- `action`: something the user asked for (`action`: create, call, cancel, answer, refused, ...;
  `taskId`; `details`). The App's own actions, which send nothing, are recorded too, so a replay
  tells the same story: `restored` (the ids an earlier run remembered, adopted at start-up:
  `details.tasks`, each `id`, `tool` and what that run last saw: `wire`, `status`, `createdAt`,
  `lastUpdatedAt` in seconds since the epoch, `ttl` in ms), `cleared` (`C`) and `forgot` (`f`)
  (`details.tasks`: each `id` whose row was removed).
- `connection`: the connection was lost, is being reopened, came back or was given up
  (`connection`: `kind` lost, reconnecting, reconnected or gave_up; `attempt`; `delaySeconds`;
  `detail`), what the header's state shows.

With several servers in one session, each `session`, `frame`, `event`, `action` and `connection`
line also names its server (`serverName`), and its task ids are that server's own.

Readers skip (and name) a line they do not know, so a file with `connection` lines still replays
in a taskscope older than them; a file without them or the App's actions replays as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

from app.engine.rpc.reconnect import ConnectionEvent, ConnectionEventKind
from app.engine.rpc.rpc_types import Frame
from app.engine.tasks.contract import TasksCapabilities
from app.engine.tasks.events import EventKind, NextPoll, PacingTerm, Source, TaskEvent
from app.engine.tasks.server_keys import server_name
from app.engine.tasks.wire import UNDECLARED_TOOL_CALLS

FORMAT = "taskscope-recording"
VERSION = 1

Face = Literal["tui", "cli"]
LineType = Literal["header", "session", "frame", "event", "action", "connection"]

SERVER_NAME_KEY = "serverName"
"""The key naming the server of a line, when the session watched several."""
MAX_SERVER_NAME = 200
"""A recorded server name longer than this is cut (a hand-edited or hostile file)."""
LATEST_MOMENT = 253_402_300_799.0
"""9999-12-31 23:59:59 UTC, the last second a `datetime` holds: a recorded time (an `at`, a next
poll) past it, or before 1970, is no time any clock or export could show."""

_EVENT_KINDS: frozenset[str] = frozenset(get_args(EventKind))
_SOURCES: frozenset[str] = frozenset(get_args(Source))
_TERMS: frozenset[str] = frozenset(get_args(PacingTerm))


class BadLine(ValueError):
    """A recording line that is not a valid entry of this format; the reason says why."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Who the server is, how we reach it and which tasks wire it speaks: what the App's header
    shows and a recording's `session` line keeps (built from the handshake's `ServerInfo`)."""

    server_name: str
    server_version: str
    transport: str
    protocol_version: str
    capabilities: TasksCapabilities
    label: str
    server_key: str
    """Identifies the server across runs (its URL or command line); keys the known-task store."""
    readonly: bool = False
    """Creating, cancelling and answering are refused (`--readonly`, or a replay)."""
    era: dict[str, Any] = field(default_factory=dict)
    """How the era was decided (`EraDecision.as_json()`); empty in older recordings."""
    replay: bool = False
    """The tasks come from a recording, not from a live server (never written to a recording)."""
    several: tuple[str, ...] = ()
    """The names of the servers watched together (empty: one server); never recorded."""
    several_keys: tuple[tuple[str, str], ...] = ()
    """Each of those servers' names with its own `server_key` (as when it is opened alone), for
    the known-task store; never recorded."""


@dataclass(frozen=True, slots=True)
class Header:
    """The first line of each recording session (a file may hold several, appended)."""

    at: float
    face: str
    command: str | None = None
    servers: tuple[str, ...] = ()
    """The servers watched together (empty: one server)."""


@dataclass(frozen=True, slots=True)
class Opened:
    """The connection of a recording session opened, with this server and wire."""

    at: float
    info: SessionInfo
    server: str | None = None
    """Which of several servers opened (None: the one server)."""


@dataclass(frozen=True, slots=True)
class Action:
    """A user action (sent, or refused by read-only mode) with what the user gave it."""

    at: float
    action: str
    task_id: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    server: str | None = None
    """Which of several servers it was sent to (None: the one server)."""


@dataclass(frozen=True, slots=True)
class RecordedFrame:
    """A JSON-RPC frame as it was logged."""

    at: float
    frame: Frame
    server: str | None = None
    """Which of several servers it went to or came from (None: the one server)."""


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """A poller event as it was delivered."""

    at: float
    event: TaskEvent
    server: str | None = None
    """Which of several servers' tasks it is about (None: the one server)."""


@dataclass(frozen=True, slots=True)
class ConnectionChange:
    """The connection was lost, is being reopened, came back or was given up (as the engine's
    `ConnectionEvent` said it)."""

    at: float
    kind: ConnectionEventKind
    attempt: int = 0
    delay_s: float | None = None
    detail: str | None = None
    server: str | None = None
    """Which of several servers' connection it is (None: the one server)."""


CONNECTION_KINDS = frozenset(get_args(ConnectionEventKind))

Entry = Header | Opened | Action | RecordedFrame | RecordedEvent | ConnectionChange


# -- encoding -----------------------------------------------------------------------------------


def header_line(
    at: float, face: Face, command: str | None, servers: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The `header` line that opens a recording session."""
    line: dict[str, Any] = {
        "type": "header",
        "at": at,
        "format": FORMAT,
        "version": VERSION,
        "face": face,
    }
    if command:
        line["command"] = command
    if servers:
        line["servers"] = list(servers)
    return line


def session_line(at: float, info: SessionInfo) -> dict[str, Any]:
    """The `session` line written once the connection is open."""
    return {
        "type": "session",
        "at": at,
        "server": {
            "name": info.server_name,
            "version": info.server_version,
            "transport": info.transport,
            "protocolVersion": info.protocol_version,
            "label": info.label,
            "serverKey": info.server_key,
        },
        "capabilities": info.capabilities.as_json(),
        "readonly": info.readonly,
        "era": info.era,
    }


def frame_line(frame: Frame) -> dict[str, Any]:
    """A `frame` line: every field of the (already redacted) frame."""
    return {"type": "frame", "at": frame.at, "frame": frame_json(frame)}


def frame_json(frame: Frame) -> dict[str, Any]:
    """One frame as a JSON object (also the line format of `--trace-frames`)."""
    return {
        "direction": frame.direction,
        "at": frame.at,
        "method": frame.method,
        "id": frame.rpc_id,
        "taskId": frame.task_id,
        "reason": frame.reason,
        "latencyMs": frame.latency_ms,
        "httpStatus": frame.http_status,
        "headers": frame.headers,
        "message": frame.message,
        "raw": frame.raw,
        "error": frame.error,
        "exchange": frame.exchange,
        "purpose": frame.purpose,
    }


def event_line(event: TaskEvent) -> dict[str, Any]:
    """An `event` line: the event with its task and input request as plain JSON."""
    body: dict[str, Any] = {"kind": event.kind, "taskId": event.task_id, "source": event.source}
    if event.task is not None:
        body["task"] = event.task.model_dump(mode="json")
    if event.detail is not None:
        body["detail"] = event.detail
    if event.previous_status is not None:
        body["previousStatus"] = event.previous_status
    if event.input_request is not None:
        body["inputRequest"] = event.input_request.model_dump(mode="json")
    if event.next_poll is not None:
        body["nextPoll"] = {"delay": event.next_poll.delay, "term": event.next_poll.term}
    if event.frame is not None:
        body["frame"] = event.frame
    return {"type": "event", "at": event.at, "event": body}


def action_line(
    at: float, action: str, task_id: str | None, details: dict[str, Any]
) -> dict[str, Any]:
    """An `action` line: what the user asked for, the task it concerns and its particulars."""
    return {"type": "action", "at": at, "action": action, "taskId": task_id, "details": details}


def connection_line(event: ConnectionEvent) -> dict[str, Any]:
    """A `connection` line: what happened to the connection, as the header shows it."""
    body: dict[str, Any] = {"kind": event.kind, "attempt": event.attempt}
    if event.delay_s is not None:
        body["delaySeconds"] = event.delay_s
    if event.detail is not None:
        body["detail"] = event.detail
    return {"type": "connection", "at": event.at, "connection": body}


MAX_ACTION_TASKS = 10_000
"""Tasks one of the App's own actions names at most when read (a hand-edited file may list any
number)."""


def action_tasks(action: Action) -> list[tuple[str, dict[str, Any]]]:
    """Each task an App action (`restored`, `cleared`, `forgot`) names in `details.tasks`: its id
    with its particulars; entries without a string id are passed over."""
    listed = action.details.get("tasks")
    named: list[tuple[str, dict[str, Any]]] = []
    for task in listed[:MAX_ACTION_TASKS] if isinstance(listed, list) else []:
        task_id = task.get("id") if isinstance(task, dict) else None
        if isinstance(task_id, str) and task_id:
            named.append((task_id, task))
    return named


# -- decoding -----------------------------------------------------------------------------------


def decode(line: Any) -> Entry:
    """One parsed JSON line as an entry; raises BadLine when it does not fit the format."""
    from pydantic import ValidationError  # pydantic loads only when a recording is read

    if not isinstance(line, dict):
        raise BadLine("not a JSON object")
    kind = line.get("type")
    at = _number(line.get("at"), "at")
    if at is None:
        raise BadLine("missing or non-numeric `at`")
    _check_moment(at, "`at`")
    server = _server(line.get(SERVER_NAME_KEY))
    try:
        if kind == "header":
            return _header(line, at)
        if kind == "session":
            return Opened(at, _session(line), server)
        if kind == "frame":
            return RecordedFrame(at, _frame(_object(line, "frame"), at), server)
        if kind == "event":
            return RecordedEvent(at, _event(_object(line, "event"), at), server)
        if kind == "action":
            return _action(line, at, server)
        if kind == "connection":
            return _connection(_object(line, "connection"), at, server)
    except (ValidationError, TypeError, ValueError) as exc:
        if isinstance(exc, BadLine):
            raise
        raise BadLine(f"{kind} line: {exc}") from exc
    raise BadLine(f"unknown line type {_shown(kind)}")


def _header(line: dict[str, Any], at: float) -> Header:
    if line.get("format") != FORMAT:
        raise BadLine(f"not a {FORMAT} header")
    version = line.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise BadLine(f"recording format version {_shown(version)} is newer than this taskscope")
    command = line.get("command")
    servers = line.get("servers")
    names = servers if isinstance(servers, list) else []
    return Header(
        at,
        field_text(line.get("face")),
        command if isinstance(command, str) else None,
        tuple(dict.fromkeys(name for name in map(_server, names) if name is not None)),
    )


def _server(value: Any) -> str | None:
    """A server's name as a recording line gives it: a non-empty string fit for a row key
    (anything else is read as no server)."""
    if not isinstance(value, str) or not value:
        return None
    return server_name(value[:MAX_SERVER_NAME])


def _session(line: dict[str, Any]) -> SessionInfo:
    server = _object(line, "server")
    declared = _object(line, "capabilities")
    wire = declared.get("wire")
    if wire not in ("legacy", "extension", "none"):
        raise BadLine(f"unknown tasks wire {_shown(wire)}")
    capabilities = TasksCapabilities(
        wire=wire,
        tool_calls=declared.get("toolCalls") is True,
        list=declared.get("list") is True,
        cancel=declared.get("cancel") is True,
        update=declared.get("update") is True,
        inline_result=declared.get("inlineResult") is True,
        assumed=_assumed(declared.get("assumed")),
    )
    return SessionInfo(
        server_name=field_text(server.get("name")),
        server_version=field_text(server.get("version")),
        transport=field_text(server.get("transport")),
        protocol_version=field_text(server.get("protocolVersion")),
        capabilities=capabilities,
        label=field_text(server.get("label")),
        server_key=field_text(server.get("serverKey")),
        readonly=line.get("readonly") is True,
        era=era if isinstance(era := line.get("era"), dict) else {},
    )


def _frame(body: dict[str, Any], at: float) -> Frame:
    direction = body.get("direction")
    if direction not in ("in", "out"):
        raise BadLine(f"frame direction {_shown(direction)}")
    message = body.get("message")
    headers = body.get("headers")
    rpc_id = body.get("id")
    return Frame(
        direction=direction,
        message=message if isinstance(message, dict) else None,
        raw=_text(body.get("raw")),
        at=at,
        method=_text(body.get("method")),
        rpc_id=rpc_id if isinstance(rpc_id, str | int) and not isinstance(rpc_id, bool) else None,
        task_id=_text(body.get("taskId")),
        reason=_text(body.get("reason")),
        latency_ms=_number(body.get("latencyMs"), "latencyMs"),
        http_status=_integer(body.get("httpStatus")),
        headers={k: field_text(v) for k, v in headers.items()} if isinstance(headers, dict) else {},
        error=_text(body.get("error")),
        exchange=_integer(body.get("exchange")),
        purpose=_text(body.get("purpose")),
    )


def _event(body: dict[str, Any], at: float) -> TaskEvent:
    from app.engine.tasks.models import InputRequest, Task

    kind = body.get("kind")
    source = body.get("source")
    if kind not in _EVENT_KINDS:
        raise BadLine(f"unknown event kind {_shown(kind)}")
    if source not in _SOURCES:
        raise BadLine(f"unknown event source {_shown(source)}")
    task = body.get("task")
    request = body.get("inputRequest")
    return TaskEvent(
        kind=kind,
        task_id=field_text(body.get("taskId")),
        task=Task.model_validate(task) if isinstance(task, dict) else None,
        at=at,
        source=source,
        detail=_text(body.get("detail")),
        previous_status=_text(body.get("previousStatus")),
        input_request=InputRequest.model_validate(request) if isinstance(request, dict) else None,
        next_poll=_next_poll(body.get("nextPoll"), at),
        frame=body.get("frame"),
    )


def _next_poll(value: Any, at: float) -> NextPoll | None:
    """The recorded delay and term; `due` is only meaningful live, so it becomes `at + delay`."""
    if not isinstance(value, dict):
        return None
    delay = _number(value.get("delay"), "nextPoll.delay")
    term = value.get("term")
    if delay is None or term not in _TERMS:
        return None
    _check_moment(at + delay, "the next poll (`nextPoll.delay`)")
    return NextPoll(due=at + delay, delay=delay, term=term)


def _action(line: dict[str, Any], at: float, server: str | None) -> Action:
    action = line.get("action")
    if not isinstance(action, str) or not action:
        raise BadLine("action line without an action")
    details = line.get("details")
    return Action(
        at,
        action,
        _text(line.get("taskId")),
        details if isinstance(details, dict) else {},
        server,
    )


def _connection(body: dict[str, Any], at: float, server: str | None) -> ConnectionChange:
    kind = body.get("kind")
    if not isinstance(kind, str) or kind not in CONNECTION_KINDS:
        raise BadLine(f"unknown connection change {_shown(kind)}")
    attempt = _integer(body.get("attempt"))
    return ConnectionChange(
        at,
        cast(ConnectionEventKind, kind),
        attempt if attempt is not None and attempt >= 0 else 0,
        _number(body.get("delaySeconds"), "delaySeconds"),
        _text(body.get("detail")),
        server,
    )


def _object(line: dict[str, Any], key: str) -> dict[str, Any]:
    value = line.get(key)
    if not isinstance(value, dict):
        raise BadLine(f"`{key}` is not an object")
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _assumed(recorded: Any) -> tuple[str, ...]:
    """The declarations `--wire` assumed, of those taskscope can assume (a file may hold any)."""
    names = recorded if isinstance(recorded, list) else []
    return (UNDECLARED_TOOL_CALLS,) if UNDECLARED_TOOL_CALLS in names else ()


def field_text(value: Any) -> str:
    """A recorded field read as text: a string as it is, a number as Python writes it, anything
    else (missing, `null`, an object or a list of any depth) empty."""
    if isinstance(value, str):
        return value
    return str(value) if isinstance(value, int | float) else ""


def _shown(value: Any) -> str:
    """A recorded value as a reason names it: a string or number quoted, cut to 40 characters;
    anything else (of any depth) by its kind."""
    if isinstance(value, str | int | float):
        text = repr(field_text(value))
        return text if len(text) <= 40 else text[:39] + "…"
    return "null" if value is None else "an object" if isinstance(value, dict) else "a list"


def _number(value: Any, name: str) -> float | None:
    """A recorded number as a float (None: not a number); raises BadLine for one no float holds
    (10^400, `1e999`, `NaN`)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise BadLine(f"`{name}` is not a finite number")
    return number


def _check_moment(at: float, what: str) -> None:
    """Raise BadLine when `at` is no time between 1970 and `LATEST_MOMENT`."""
    if not 0 <= at <= LATEST_MOMENT:
        raise BadLine(f"{what} is {at:g} s since 1970: not a time in the years 1970 to 9999")


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
