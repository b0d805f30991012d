"""`taskscope replay FILE`: the App on a recording, with no server, always read-only.

`ReplaySource` is the static `RecordedSource` paced like the original run: frames and events
arrive in their recorded order, the recorded gaps divided by `speed` (or all at once), so the list,
details, timeline and RPC log end up as they were. A recording of several servers is renamed to
row keys as it plays (`server_rename`), as the live inspector renamed it, so the replay shows the
Server column, the `server:` filter and the server pane as the session did.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

from app.engine.record.recording import (
    Action,
    ConnectionChange,
    Entry,
    Header,
    RecordedEvent,
    RecordedFrame,
    SessionInfo,
    action_tasks,
)
from app.engine.record.replay import Recording, ReplayClock, play
from app.engine.rpc.reconnect import ConnectionEvent
from app.engine.safety.sanitize import clean_text
from app.engine.tasks.contract import TasksCapabilities
from app.engine.tasks.server_keys import row_key
from app.tui.multi import overall_state, servers_note, several_info
from app.tui.recorded import RecordedSource
from app.tui.server_rename import ServerRenamer
from app.view.source import ConnectionState, SourceUnavailable, TaskSource

MAX_NOTE_CHARS = 200
"""A recorded connection detail is cut to this in the header."""


def replayed_info(info: SessionInfo | None, path: str, servers: Sequence[str] = ()) -> SessionInfo:
    """The header info of a replay: the recorded server (or the set of `servers`), marked as a
    read-only replay."""
    if servers:
        return several_info(servers, label=path, readonly=True, replay=True)
    if info is None:
        return SessionInfo(
            server_name="recording",
            server_version="",
            transport="replay",
            protocol_version="",
            capabilities=TasksCapabilities(wire="none"),
            label=path,
            server_key=f"replay:{path}",
            readonly=True,
            replay=True,
        )
    return dataclasses.replace(info, readonly=True, replay=True)


APP_ACTIONS = frozenset({"restored", "cleared", "forgot"})
"""The recorded actions the App carried out itself, which a replay carries out again."""
CONNECTION_STATES: dict[str, ConnectionState] = {
    "lost": "reconnecting",
    "reconnecting": "reconnecting",
    "reconnected": "connected",
    "gave_up": "failed",
}


class RecordedConnection:
    """What a recorded server's connection last did, read on the replay's clock: connected
    until a `connection` line says otherwise (`connected`: the server opened at all)."""

    def __init__(self, clock: ReplayClock, *, connected: bool = True) -> None:
        self.change: ConnectionChange | None = None
        self._clock = clock
        self._connected = connected

    def state(self) -> ConnectionState:
        if self.change is None:
            return "connected" if self._connected else "failed"
        return CONNECTION_STATES[self.change.kind]

    def note(self) -> str | None:
        """ "reconnecting in 4 s (attempt 3)" as the header said it at this point of the
        recording (None once reconnected)."""
        change = self.change
        if change is None or change.kind == "reconnected":
            return None
        event = ConnectionEvent(
            change.kind, change.at, change.attempt, change.delay_s, change.detail
        )
        return clean_text(event.describe(self._clock()), max_len=MAX_NOTE_CHARS)


class ReplayedServer(RecordedSource):
    """One of several recorded servers, for the server pane: what it said when it connected,
    and what its connection did since."""

    def __init__(self, info: SessionInfo, connection: RecordedConnection) -> None:
        super().__init__(info)
        self.connection = connection

    def connection_state(self) -> ConnectionState:
        return self.connection.state()

    def connection_note(self) -> str | None:
        return self.connection.note()


class ReplaySource(RecordedSource):
    """A `RecordedSource` that plays a recording at `speed` (None: everything at once), on the
    recorded clock (`clock`: what the App reads the time from)."""

    def __init__(self, recording: Recording, path: str, *, speed: float | None = 1.0) -> None:
        names = recording.servers
        super().__init__(replayed_info(recording.info, path, names))
        self.recording = recording
        self.speed = speed
        self.clock = ReplayClock()
        """The replay's time: ages, TTLs and the time view count on the recorded clock."""
        self._renamer = ServerRenamer()
        self._connections: dict[str | None, RecordedConnection] = {
            None: RecordedConnection(self.clock)
        }
        """What each server's connection did, as recorded (None: the one server)."""
        self._servers: dict[str, ReplayedServer | None] = {}
        """Each recorded server, for the server pane: what it said when it connected (None: it
        never did in the recording)."""
        for name in names:
            info = recording.server_info(name)
            connection = RecordedConnection(self.clock, connected=info is not None)
            self._connections[name] = connection
            self._servers[name] = (
                None if info is None else ReplayedServer(replayed_info(info, path), connection)
            )
        first = next((entry.at for entry in recording.entries if entry.at), None)
        if first is not None:
            self.clock.stand(first)

    async def run(self) -> None:
        """Play the recording in order and pace, then wait until cancelled."""
        await play(self.recording.entries, self._deliver, speed=self.speed, clock=self.clock)
        await asyncio.Event().wait()

    def _deliver(self, entry: Entry) -> None:
        """Hand one entry to the App, renamed to its row keys when it names its server."""
        assert self._on_event is not None and self._on_frame is not None
        server = entry.server if not isinstance(entry, Header) else None
        if isinstance(entry, RecordedFrame):
            frame = entry.frame
            self._on_frame(frame if server is None else self._renamer.frame(server, frame))
        elif isinstance(entry, RecordedEvent):
            event = entry.event
            self._on_event(event if server is None else self._renamer.event(server, event))
        elif isinstance(entry, Action) and entry.action in APP_ACTIONS:
            self._replay_action(entry)
        elif isinstance(entry, ConnectionChange) and server in self._connections:
            self._connections[server].change = entry

    def _replay_action(self, action: Action) -> None:
        """Tell the App of an action it carried out itself, its ids renamed to row keys."""
        tasks = {
            task_id if action.server is None else row_key(action.server, task_id): task
            for task_id, task in action_tasks(action)
        }
        if tasks and self._on_action is not None:
            self._on_action(action.action, tasks)

    def connection_state(self) -> ConnectionState:
        """What the recorded connection last did: connected, reconnecting, or given up (with
        several servers, the best of theirs)."""
        if self._servers:
            names = self._servers
            return overall_state([self._connections[name].state() for name in names])
        return self._connections[None].state()

    def connection_note(self) -> str | None:
        """What the recorded connection was doing (reconnecting, given up), on the replay's
        clock, or with several servers how many were connected and the state of each other;
        then how many lines of the file were skipped as bad, and the first of them (the command
        named each on stderr)."""
        if self._servers:
            states = {name: self._connections[name].state() for name in self._servers}
            note: str | None = servers_note(states)
        else:
            note = self._connections[None].note()
        notes = [note] if note else []
        recording = self.recording
        if recording.problems:
            noun = "line" if recording.skipped == 1 else "lines"
            notes.append(f"skipped {recording.skipped:,} bad {noun} ({recording.problems[0]})")
        return " · ".join(notes) or None

    def servers(self) -> Sequence[str]:
        return tuple(self._servers)

    def server(self, name: str) -> tuple[TaskSource, SessionInfo]:
        source = self._servers.get(name)
        if source is None:
            raise SourceUnavailable(f"{name} never connected in this recording")
        return source, source.info
