"""The live task source: an engine session to a real server (which reconnects) and the poller.

Everything runs on the App's event loop: `run()` is the body of the App's one long-lived poller
worker, and the verbs are awaited from short action workers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from app.engine.adapter import CreateOutcome
from app.engine.adapters import WireAdapter
from app.engine.models import InputRequest
from app.engine.negotiate import EraPreference
from app.engine.poller import Poller
from app.engine.reconnect import ConnectionEvent, ReconnectPolicy
from app.engine.recorder import Recorder
from app.engine.session import EngineSession, WireMismatch
from app.engine.targets import Target
from app.tui.source import (
    ConnectionState,
    EventSink,
    FrameSink,
    SourceInfo,
    SourceUnavailable,
    ToolInfo,
)

__all__ = ["LiveSource", "WireMismatch"]

log = logging.getLogger(__name__)


class LiveSource:
    """A `TaskSource` backed by an engine session (which reconnects) and a `Poller`."""

    def __init__(
        self,
        target: Target,
        *,
        era: EraPreference = "auto",
        expected_wire: str | None = None,
        redact: Sequence[str] = (),
        key: str | None = None,
        user_min_poll_ms: int | None = None,
        readonly: bool = False,
        recorder: Recorder | None = None,
        policy: ReconnectPolicy | None = None,
    ) -> None:
        self.target = target
        self._readonly = readonly
        self._recorder = recorder
        self._user_min_poll_ms = user_min_poll_ms
        self._session = EngineSession(
            target,
            era=era,
            expected_wire=expected_wire,
            redact=redact,
            readonly=readonly,
            recorder=recorder,
            key=key,
            policy=policy,
        )
        self._session.add_connection_listener(self._on_connection)
        self._adapter: WireAdapter | None = None
        self._poller: Poller | None = None
        self._tools: list[ToolInfo] | None = None
        self._relist: asyncio.Task[int] | None = None

    @property
    def session(self) -> EngineSession:
        """The engine session behind this source."""
        return self._session

    async def connect(self, on_event: EventSink, on_frame: FrameSink) -> SourceInfo:
        """Open the session (wire resolved, `--wire` checked) and start the poller's book."""
        if self._recorder is not None:
            self._session.add_frame_listener(self._recorder.frame)
            on_event = self._recorder.tee(on_event)
        self._session.add_frame_listener(on_frame)
        info = await self._session.open()
        adapter = self._session.adapter
        self._adapter = adapter
        self._poller = Poller(adapter, on_event, user_min_ms=self._user_min_poll_ms)
        return SourceInfo(
            server_name=info.name,
            server_version=info.version,
            transport=info.transport,
            protocol_version=info.protocol_version,
            capabilities=adapter.capabilities,
            label=self.target.label,
            server_key=self._session.server_key,
            readonly=self._readonly,
            era=info.era_decision.as_json() if info.era_decision is not None else {},
        )

    async def run(self) -> None:
        """Poll every watched task until cancelled."""
        await self._require_poller().run_forever()

    def connection_state(self) -> ConnectionState:
        state = self._session.state
        if state == "idle":
            return "connecting"
        if state == "connected" and self._session.connection.state == "closed":
            return "closed"
        return state

    def connection_note(self) -> str | None:
        """ "reconnecting in 4 s (attempt 3)" while reconnecting, why it gave up once it did."""
        event = self._session.last_event
        if event is None or self._session.state not in ("reconnecting", "failed"):
            return None
        return event.describe(time.time())

    def _on_connection(self, event: ConnectionEvent) -> None:
        """After a legacy reconnect, import what `tasks/list` shows the new session."""
        capabilities = self._session.capabilities
        if event.kind != "reconnected" or capabilities.wire != "legacy" or not capabilities.list:
            return
        if self._poller is not None and (self._relist is None or self._relist.done()):
            self._relist = asyncio.get_running_loop().create_task(self._relist_tasks())

    async def _relist_tasks(self) -> int:
        try:
            return await self.list_tasks()
        except Exception:
            log.warning("tasks/list after reconnecting failed", exc_info=True)
            return 0

    async def list_tools(self) -> Sequence[ToolInfo]:
        """Every page of `tools/list`, fetched once per session."""
        if self._tools is not None:
            return self._tools
        legacy = self._require_adapter().capabilities.wire == "legacy"
        listed = await self._session.list_tools()
        tools = [
            ToolInfo.from_wire(
                tool, legacy=legacy, unusable=self._session.tool_problem(str(tool.get("name")))
            )
            for tool in listed
        ]
        self._tools = tools
        return tools

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None, as_task: bool
    ) -> CreateOutcome:
        """A task-augmented call (the task is watched at once), or a plain synchronous one."""
        adapter = self._require_adapter()
        if not as_task:
            result = await adapter.call_tool(tool, arguments)
            return CreateOutcome(task=None, sync_result=result, raw=result)
        outcome = await adapter.create(tool, arguments, ttl_ms=ttl_ms)
        if outcome.task is not None:
            self._require_poller().watch(outcome.task)
        return outcome

    async def cancel(self, task_id: str) -> None:
        """`tasks/cancel`: legacy's answer is applied at once; extension keeps polling."""
        cancelled = await self._require_adapter().cancel(task_id)
        self._require_poller().mark_cancel_requested(task_id, cancelled)

    async def list_tasks(self) -> int:
        """Watch every task of every `tasks/list` page that is not watched yet."""
        tasks = await self._require_adapter().list_tasks()
        poller = self._require_poller()
        return sum(poller.watch(task, source="list") for task in tasks)

    def adopt(self, task_id: str) -> bool:
        return self._require_poller().adopt(task_id)

    def forget(self, task_id: str) -> bool:
        return self._require_poller().forget(task_id)

    def poll_now(self, task_id: str) -> bool:
        return self._require_poller().poll_now(task_id)

    def set_paused(self, paused: bool) -> None:
        poller = self._require_poller()
        if paused:
            poller.pause()
        else:
            poller.resume()

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        """Send one answer through the poller (so the task's timeline records it)."""
        if not await self._require_poller().answer(request, response):
            raise SourceUnavailable("the server did not take the answer; see the task's timeline")

    async def reject(self, request: InputRequest) -> bool:
        """Decline a server request through the poller (so the task's timeline records it)."""
        return await self._require_poller().reject(request)

    def staged_answer(self, request: InputRequest) -> dict[str, Any] | None:
        adapter = self._adapter
        return adapter.broker.staged_answer(request) if adapter is not None else None

    async def close(self) -> None:
        """Stop reconnecting and re-listing, stop the adapter's calls and close the connection."""
        if self._relist is not None:
            self._relist.cancel()
            await asyncio.gather(self._relist, return_exceptions=True)
        await self._session.close()

    def _require_adapter(self) -> WireAdapter:
        if self._adapter is None:
            raise SourceUnavailable("not connected yet")
        return self._adapter

    def _require_poller(self) -> Poller:
        if self._poller is None:
            raise SourceUnavailable("not connected yet")
        return self._poller
