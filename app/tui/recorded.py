"""A task source that replays fixed events and frames: snapshots and demos with no server.

It delivers its whole recording once when the App starts, then idles. It is read-only: creating,
cancelling or answering raise `SourceUnavailable`, which the App shows as a notification.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.engine.record.recording import SessionInfo
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.tool_info import ToolInfo
from app.engine.tasks.contract import CreateOutcome
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import InputRequest
from app.view.sign_in import SignInListener
from app.view.source import (
    ActionListener,
    ConnectionState,
    EventSink,
    FrameSink,
    SourceUnavailable,
    TaskSource,
)

if TYPE_CHECKING:
    from app.engine.oauth.store import StoredStatus
    from app.engine.rpc.advertised import ClientCapabilities

READ_ONLY = "this is a recording: it cannot reach a server"


class RecordedSource:
    """A `TaskSource` that plays back `events` and `frames`, and lists `tools`."""

    def __init__(
        self,
        info: SessionInfo,
        events: Sequence[TaskEvent] = (),
        frames: Sequence[Frame] = (),
        tools: Sequence[ToolInfo] = (),
    ) -> None:
        self.info = info
        self.events = tuple(events)
        self.frames = tuple(frames)
        self.tools = tuple(tools)
        self.paused = False
        self.polled: list[str] = []
        self._on_event: EventSink | None = None
        self._on_frame: FrameSink | None = None
        self._on_action: ActionListener | None = None

    async def connect(self, on_event: EventSink, on_frame: FrameSink) -> SessionInfo:
        self._on_event, self._on_frame = on_event, on_frame
        return self.info

    async def run(self) -> None:
        """Deliver the recording, then wait until cancelled."""
        assert self._on_event is not None and self._on_frame is not None
        for frame in self.frames:
            self._on_frame(frame)
        for event in self.events:
            self._on_event(event)
        await asyncio.Event().wait()

    def connection_state(self) -> ConnectionState:
        return "connected"

    def connection_note(self) -> str | None:
        return None

    def journal(self, action: str, task_ids: Mapping[str, Mapping[str, Any]]) -> None:
        return None

    def on_action(self, listener: ActionListener) -> None:
        self._on_action = listener

    def on_sign_in(self, listener: SignInListener) -> None:
        return None

    def signs_in(self) -> bool:
        return False

    def stored_sign_in(self) -> StoredStatus | None:
        return None

    def advertised(self) -> ClientCapabilities | None:
        return None

    def advertise(self, capabilities: ClientCapabilities) -> None:
        raise SourceUnavailable(READ_ONLY)

    def servers(self) -> Sequence[str]:
        return ()

    def server(self, name: str) -> tuple[TaskSource, SessionInfo]:
        raise SourceUnavailable(READ_ONLY)

    async def sign_out(self) -> bool:
        raise SourceUnavailable(READ_ONLY)

    async def list_tools(self) -> Sequence[ToolInfo]:
        return self.tools

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None, as_task: bool
    ) -> CreateOutcome:
        raise SourceUnavailable(READ_ONLY)

    async def cancel(self, task_id: str) -> None:
        raise SourceUnavailable(READ_ONLY)

    async def list_tasks(self) -> int:
        return 0

    def adopt(self, task_id: str, tool: str | None = None) -> bool:
        raise SourceUnavailable(READ_ONLY)

    def forget(self, task_id: str) -> bool:
        return True

    def poll_now(self, task_id: str) -> bool:
        self.polled.append(task_id)
        return False

    def set_paused(self, paused: bool) -> None:
        self.paused = paused

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        raise SourceUnavailable(READ_ONLY)

    async def reject(self, request: InputRequest) -> bool:
        raise SourceUnavailable(READ_ONLY)

    async def answer_roots(self, request: InputRequest) -> str | None:
        raise SourceUnavailable(READ_ONLY)

    def staged_answer(self, request: InputRequest) -> dict[str, Any] | None:
        return None

    async def close(self) -> None:
        return None
