"""`taskscope replay FILE`: the App on a recording, with no server, always read-only.

`ReplaySource` is the static `RecordedSource` paced like the original run: frames and events
arrive in their recorded order, the recorded gaps divided by `speed` (or all at once), so the list,
details, timeline and RPC log end up as they were.
"""

from __future__ import annotations

import asyncio
import dataclasses

from app.engine.record.recording import SessionInfo
from app.engine.record.replay import Recording, play
from app.engine.tasks.contract import TasksCapabilities
from app.tui.recorded import RecordedSource


def replayed_info(info: SessionInfo | None, path: str) -> SessionInfo:
    """The header info of a replay: the recorded server, marked as a read-only replay."""
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
        super().__init__(replayed_info(recording.info, path))
        self.recording = recording
        self.speed = speed

    async def run(self) -> None:
        """Play the recording in order and pace, then wait until cancelled."""
        assert self._on_event is not None and self._on_frame is not None
        await play(self.recording.entries, self._on_frame, self._on_event, speed=self.speed)
        await asyncio.Event().wait()
