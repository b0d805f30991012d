"""`--record FILE`: every frame, task event and user action appended to a file as NDJSON.

One line per entry (see `recording.py` for the format), written and flushed as it happens so a
recording survives a crash or Ctrl-C; any nesting depth is written, and a lone surrogate (which
UTF-8 cannot hold) is escaped, so no server value stops a recording; so is every control and
invisible character (`unsafe_chars`), so a recording shown in a terminal hides nothing. Every line
goes through the connection's redactor first, so the bearer token, `Authorization` and `--redact`
headers never reach the file, even when a server echoes them back inside a result. The recorder
also keeps the task history (events other than plain polls, and actions) in memory, which is
what the TUI exports from.
"""

from __future__ import annotations

import copy
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from app.engine.record.recording import (
    SERVER_NAME_KEY,
    BadLine,
    Entry,
    Face,
    SessionInfo,
    action_line,
    connection_line,
    decode,
    event_line,
    frame_line,
    header_line,
    session_line,
)
from app.engine.rpc.reconnect import ConnectionEvent
from app.engine.rpc.rpc_types import Frame, ServerInfo
from app.engine.rpc.targets import HttpTarget, Target
from app.engine.safety.redact import Redactor, hide_learned
from app.engine.safety.unsafe_chars import safe_json
from app.engine.tasks.contract import TasksCapabilities
from app.engine.tasks.events import TaskEvent

log = logging.getLogger(__name__)

HISTORY_CAP = 20_000
"""How many history entries (non-poll events, actions) are kept in memory for export."""

EventSink = Callable[[TaskEvent], None]


def server_key(target: Target) -> str:
    """A stable name for a server across runs: its URL, or its command line, with every learned
    secret (a value its config took from the environment) redacted, so it can be kept in a file
    and stays the same when the secret changes."""
    if isinstance(target, HttpTarget):
        return hide_learned(f"url:{target.url}")
    return hide_learned("command:" + " ".join(target.command))


def session_info(
    info: ServerInfo,
    capabilities: TasksCapabilities,
    target: Target,
    *,
    readonly: bool,
    key: str | None = None,
) -> SessionInfo:
    """What a `session` line records about an open connection (`key` overrides `server_key`)."""
    return SessionInfo(
        server_name=info.name,
        server_version=info.version,
        transport=info.transport,
        protocol_version=info.protocol_version,
        capabilities=capabilities,
        label=target.label,
        server_key=key or server_key(target),
        readonly=readonly,
        era=info.era_decision.as_json() if info.era_decision is not None else {},
    )


def redactor_for(target: Target | None, names: Sequence[str] = ()) -> Redactor:
    """The same redactor the connection to `target` uses: bearer, its headers and `--redact`
    (no `target`: the `--redact` names alone, for a session of several servers, each of which
    adds its own through `Recorder.for_server`)."""
    headers = target.headers if isinstance(target, HttpTarget) else None
    bearer = target.bearer if isinstance(target, HttpTarget) else None
    return Redactor.build(names, [bearer], headers)


class _Journal:
    """The file and in-memory history every recorder of one session writes to."""

    def __init__(self, sink: TextIO | None, clock: Callable[[], float]) -> None:
        self.sink = sink
        self.clock = clock
        self.history: deque[dict[str, Any] | tuple[TaskEvent, Recorder]] = deque(maxlen=HISTORY_CAP)
        """Redacted lines; without a file, events as they came with the recorder that saw them
        (encoded when read)."""
        self.failure: str | None = None


class Recorder:
    """Writes recording lines to `sink` (if any) and keeps the task history for export.

    With several servers, each server's connection writes through its own `for_server` recorder:
    the same file and history, its own redactor, and every line naming the server. A write
    failure (disk full, file removed) never stops the command: the recorder stops writing, keeps
    the message in `failure` and logs it once.
    """

    def __init__(
        self,
        redactor: Redactor,
        sink: TextIO | None = None,
        *,
        face: Face,
        command: str | None = None,
        clock: Callable[[], float] = time.time,
        servers: Sequence[str] = (),
    ) -> None:
        self._redactor = redactor
        self._journal = _Journal(sink, clock)
        self._server: str | None = None
        self._write(header_line(clock(), face, command, tuple(servers)), keep=False)

    @classmethod
    def to_file(
        cls,
        path: str | Path,
        redactor: Redactor,
        *,
        face: Face,
        command: str | None = None,
        servers: Sequence[str] = (),
    ) -> Recorder:
        """A recorder appending to `path` (created if missing); raises OSError if it cannot."""
        sink = Path(path).expanduser().open("a", encoding="utf-8")
        return cls(redactor, sink, face=face, command=command, servers=servers)

    def for_server(self, name: str, redactor: Redactor) -> Recorder:
        """A recorder of the same session for the server `name`, redacting with `redactor`
        (that server's secrets) as well as this one's."""
        child = copy.copy(self)  # the same journal: one file, one history
        child._redactor = redactor.joined(self._redactor)
        child._server = name
        return child

    @property
    def failure(self) -> str | None:
        """Why the file stopped being written, if it did."""
        return self._journal.failure

    def opened(self, info: SessionInfo) -> None:
        """Record that the connection opened on this server and wire."""
        self._write(session_line(self._journal.clock(), info), keep=True)

    def frame(self, frame: Frame) -> None:
        """Record one frame (a connection frame listener); without a file there is nothing to
        do, since frames are not kept in the history (this is on every poll's path)."""
        if self._journal.sink is None:
            return
        self._write(frame_line(frame), keep=False)

    def event(self, event: TaskEvent) -> None:
        """Record one poller event (without a file, "polled" events are not kept, so skipped).

        Without a file the event itself is kept and only encoded if the history is read (an
        export): events and their tasks are immutable, so the line comes out the same.
        """
        keep = event.kind != "polled"
        if self._journal.sink is None:
            if keep:
                self._journal.history.append((event, self))
            return
        self._write(event_line(event), keep=keep)

    def action(self, action: str, task_id: str | None = None, **details: Any) -> None:
        """Record something the user asked for (sent or refused) with its particulars."""
        self._write(action_line(self._journal.clock(), action, task_id, details), keep=True)

    def connection(self, event: ConnectionEvent) -> None:
        """Record what happened to the connection (a connection listener)."""
        self._write(connection_line(event), keep=False)

    def tee(self, sink: EventSink) -> EventSink:
        """An event sink that records each event, then hands it to `sink`."""

        def both(event: TaskEvent) -> None:
            self.event(event)
            sink(event)

        return both

    def history(self) -> list[Entry]:
        """The session, non-poll events and actions seen so far (redacted), oldest first."""
        entries: list[Entry] = []
        for kept in list(self._journal.history):
            line = kept if isinstance(kept, dict) else kept[1]._redacted(event_line(kept[0]))
            try:
                entries.append(decode(line))
            except BadLine:
                log.debug("history line does not decode: %r", line.get("type"))
        return entries

    def close(self) -> None:
        """Close the file; later entries are kept in memory only."""
        if self._journal.sink is not None:
            self._journal.sink.close()
            self._journal.sink = None

    def _redacted(self, line: dict[str, Any]) -> Any:
        """The line with every secret hidden, then naming this recorder's server (if any): the
        name is a config key, the same in every line and in the header."""
        redacted = self._redactor.value(line)
        if self._server is None:
            return redacted
        return {**redacted, SERVER_NAME_KEY: self._server}

    def _write(self, line: dict[str, Any], *, keep: bool) -> None:
        journal = self._journal
        redacted = self._redacted(line)
        if keep:
            journal.history.append(redacted)
        if journal.sink is None:
            return
        try:
            journal.sink.write(safe_json(redacted) + "\n")
            journal.sink.flush()
        except (OSError, ValueError) as exc:
            journal.failure = f"recording stopped: {exc}"
            log.warning("%s", journal.failure)
            journal.sink = None
