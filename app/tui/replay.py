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

from app.engine.record.recording import RecordedEvent, RecordedFrame, SessionInfo
from app.engine.record.replay import Recording, play
from app.engine.tasks.contract import TasksCapabilities
from app.tui.multi import several_info
from app.tui.recorded import RecordedSource
from app.tui.server_rename import ServerRenamer
from app.view.source import SourceUnavailable, TaskSource


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


class ReplaySource(RecordedSource):
    """A `RecordedSource` that plays a recording at `speed` (None: everything at once)."""

    def __init__(self, recording: Recording, path: str, *, speed: float | None = 1.0) -> None:
        names = recording.servers
        super().__init__(replayed_info(recording.info, path, names))
        self.recording = recording
        self.speed = speed
        self._renamer = ServerRenamer()
        self._servers: dict[str, RecordedSource | None] = {}
        """Each recorded server, for the server pane: what it said when it connected (None: it
        never did in the recording)."""
        for name in names:
            info = recording.server_info(name)
            self._servers[name] = (
                None if info is None else RecordedSource(replayed_info(info, path))
            )

    async def run(self) -> None:
        """Play the recording in order and pace, then wait until cancelled."""
        await play(self.recording.entries, self._deliver, speed=self.speed)
        await asyncio.Event().wait()

    def _deliver(self, entry: RecordedFrame | RecordedEvent) -> None:
        """Hand one entry to the App, renamed to its row keys when it names its server."""
        assert self._on_event is not None and self._on_frame is not None
        server = entry.server
        if isinstance(entry, RecordedFrame):
            frame = entry.frame
            self._on_frame(frame if server is None else self._renamer.frame(server, frame))
        else:
            event = entry.event
            self._on_event(event if server is None else self._renamer.event(server, event))

    def connection_note(self) -> str | None:
        """How many lines of the file were skipped as bad, and the first of them (the command
        named each on stderr)."""
        recording = self.recording
        if not recording.problems:
            return None
        noun = "line" if recording.skipped == 1 else "lines"
        return f"skipped {recording.skipped:,} bad {noun} ({recording.problems[0]})"

    def servers(self) -> Sequence[str]:
        return tuple(self._servers)

    def server(self, name: str) -> tuple[TaskSource, SessionInfo]:
        source = self._servers.get(name)
        if source is None:
            raise SourceUnavailable(f"{name} never connected in this recording")
        return source, source.info
