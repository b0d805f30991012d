"""The live task source: one connection to a real server, its wire adapter and the engine poller.

Everything runs on the App's event loop: `run()` is the body of the App's one long-lived poller
worker, and the verbs are awaited from short action workers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

from app.engine.adapter import CreateOutcome
from app.engine.adapters import WireAdapter, make_adapter
from app.engine.connection import Connection
from app.engine.guard import GuardedAdapter
from app.engine.models import InputRequest
from app.engine.negotiate import EraPreference
from app.engine.poller import Poller
from app.engine.recorder import Recorder
from app.engine.recording import SessionInfo
from app.engine.targets import HttpTarget, Target
from app.tui.source import (
    ConnectionState,
    EventSink,
    FrameSink,
    SourceInfo,
    SourceUnavailable,
    ToolInfo,
)

MAX_TOOL_PAGES = 100
CLOSE_TIMEOUT_S = 5.0


class WireMismatch(Exception):
    """`--wire` asserted one tasks wire and the server speaks another."""


def server_key(target: Target) -> str:
    """A stable name for a server across runs: its URL, or its command line."""
    if isinstance(target, HttpTarget):
        return f"url:{target.url}"
    return "command:" + " ".join(target.command)


def recorded_info(info: SourceInfo) -> SessionInfo:
    """What the recording's `session` line keeps of the header's server info."""
    return SessionInfo(
        server_name=info.server_name,
        server_version=info.server_version,
        transport=info.transport,
        protocol_version=info.protocol_version,
        capabilities=info.capabilities,
        label=info.label,
        server_key=info.server_key,
        readonly=info.readonly,
    )


class LiveSource:
    """A `TaskSource` backed by a `Connection`, a wire adapter and a `Poller`."""

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
    ) -> None:
        self.target = target
        self._readonly = readonly
        self._recorder = recorder
        self._expected_wire = expected_wire
        self._key = key or server_key(target)
        self._user_min_poll_ms = user_min_poll_ms
        self._connection = Connection(target, era=era, redact=redact)
        self._adapter: WireAdapter | None = None
        self._poller: Poller | None = None
        self._tools: list[ToolInfo] | None = None
        self._state: ConnectionState = "connecting"

    async def connect(self, on_event: EventSink, on_frame: FrameSink) -> SourceInfo:
        """Open the connection, resolve the wire, check `--wire` and start the poller's book."""
        if self._recorder is not None:
            self._connection.add_frame_listener(self._recorder.frame)
            on_event = self._recorder.tee(on_event)
        self._connection.add_frame_listener(on_frame)
        try:
            info = await self._connection.open()
        except BaseException:
            self._state = "failed"
            raise
        adapter = GuardedAdapter(
            make_adapter(self._connection), readonly=self._readonly, recorder=self._recorder
        )
        wire = adapter.capabilities.wire
        if self._expected_wire is not None and wire != self._expected_wire:
            self._state = "failed"
            raise WireMismatch(
                f"expected the {self._expected_wire} tasks wire, but the server speaks {wire}"
            )
        self._adapter = adapter
        self._poller = Poller(adapter, on_event, user_min_ms=self._user_min_poll_ms)
        self._state = "connected"
        source_info = SourceInfo(
            server_name=info.name,
            server_version=info.version,
            transport=info.transport,
            protocol_version=info.protocol_version,
            capabilities=adapter.capabilities,
            label=self.target.label,
            server_key=self._key,
            readonly=self._readonly,
        )
        if self._recorder is not None:
            self._recorder.opened(recorded_info(source_info))
        return source_info

    async def run(self) -> None:
        """Poll every watched task until cancelled."""
        await self._require_poller().run_forever()

    def connection_state(self) -> ConnectionState:
        if self._connection.state == "closed" and self._state == "connected":
            return "closed"
        return self._state

    async def list_tools(self) -> Sequence[ToolInfo]:
        """Every page of `tools/list`, fetched once per session."""
        if self._tools is not None:
            return self._tools
        legacy = self._require_adapter().capabilities.wire == "legacy"
        tools: list[ToolInfo] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            params = {"cursor": cursor} if cursor else {}
            page = await self._connection.request("tools/list", params, reason="user")
            found = page.get("tools")
            for tool in found if isinstance(found, list) else []:
                if isinstance(tool, dict):
                    tools.append(ToolInfo.from_wire(tool, legacy=legacy))
            next_cursor = page.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor or next_cursor == cursor:
                break
            cursor = next_cursor
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
        """Stop the adapter's background calls and close the connection."""
        if self._adapter is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._adapter.close()), CLOSE_TIMEOUT_S)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._connection.close()), CLOSE_TIMEOUT_S)
        self._state = "closed"

    def _require_adapter(self) -> WireAdapter:
        if self._adapter is None:
            raise SourceUnavailable("not connected yet")
        return self._adapter

    def _require_poller(self) -> Poller:
        if self._poller is None:
            raise SourceUnavailable("not connected yet")
        return self._poller
