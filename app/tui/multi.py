"""A `TaskSource` over several servers at once: one `LiveSource` each, side by side.

Each server connects, reconnects, signs in and polls on its own, so a slow, failing or
OAuth-protected server holds no other back. The App sees one stream: every event and frame of a
server is renamed to its row keys (`server_rename`) and stamped with the server's name, and every
verb the App calls with a row key goes to the server it names. With a recorder, each server
records through its own `Recorder.for_server`: one file, every line naming its server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.engine.record.recording import SessionInfo
from app.engine.tasks.contract import TasksCapabilities
from app.engine.tasks.server_keys import split_key
from app.tui.server_rename import ServerRenamer
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
    from app.engine.rpc.tool_info import ToolInfo
    from app.engine.tasks.contract import CreateOutcome
    from app.engine.tasks.models import InputRequest
    from app.tui.live import LiveSource
    from app.view.sign_in import SignInListener

log = logging.getLogger(__name__)

EVERY_VERB = TasksCapabilities(
    "legacy", tool_calls=True, list=True, cancel=True, update=True, inline_result=True
)
"""What the App is told the servers can do together: every verb stays on, and each server
refuses what it cannot do itself, with its reason."""

CHOOSE_A_SERVER = "several servers are watched: choose one first"


def overall_state(states: Sequence[ConnectionState]) -> ConnectionState:
    """The state of several servers together: connected while any is, else the best of the
    others."""
    for wanted in ("connected", "reconnecting", "connecting"):
        if wanted in states:
            return wanted
    return "failed" if "failed" in states else "closed"


def servers_note(states: Mapping[str, str]) -> str:
    """How many servers are connected, and the state of each other: "2 of 3 · beta
    reconnecting · gamma failed"."""
    up = sum(state == "connected" for state in states.values())
    parts = [f"{up} of {len(states)}"]
    parts += [f"{name} {state}" for name, state in states.items() if state != "connected"]
    return " · ".join(parts)


def several_info(
    names: Sequence[str],
    *,
    label: str,
    readonly: bool,
    replay: bool = False,
    keys: Sequence[tuple[str, str]] = (),
) -> SessionInfo:
    """What the App is told of several servers together (live, or replayed from a file); `keys`:
    each server's name with the key its tasks are remembered under."""
    return SessionInfo(
        server_name=f"{len(names)} servers",
        server_version="",
        transport="replay" if replay else "several",
        protocol_version="",
        capabilities=EVERY_VERB,
        label=label,
        server_key=f"{'replay' if replay else 'servers'}:{label}",
        readonly=readonly,
        replay=replay,
        several=tuple(names),
        several_keys=tuple(keys),
    )


@dataclasses.dataclass
class ServerSlot:
    """One server of the set: its source, and what the App must know before it connects."""

    name: str
    source: LiveSource | None
    problem: str | None = None
    """Why it could not be used: a broken config entry, or the last connect failure."""
    info: SessionInfo | None = None
    runner: asyncio.Task[None] | None = None
    waiting_adoptions: dict[str, str | None] = dataclasses.field(default_factory=dict)
    """Task ids to watch once it connects (remembered from an earlier run), with their tools."""


class MultiSource:
    """Several live sources behind one `TaskSource`, keyed by the servers' names."""

    def __init__(
        self,
        servers: Sequence[tuple[str, LiveSource | str]],
        *,
        label: str,
        readonly: bool,
    ) -> None:
        """`servers`: each name with its source, or why its config entry cannot be used;
        `label` names the set on screen."""
        self._slots = {
            name: ServerSlot(name, None, problem=entry)
            if isinstance(entry, str)
            else ServerSlot(name, entry)
            for name, entry in servers
        }
        self._names = frozenset(self._slots)
        self._label = label
        self._readonly = readonly
        self._paused = False
        self._renamer = ServerRenamer()
        self._on_event: EventSink | None = None
        self._on_frame: FrameSink | None = None

    def servers(self) -> Sequence[str]:
        return tuple(self._slots)

    def server(self, name: str) -> tuple[TaskSource, SessionInfo]:
        source = self.server_source(name)
        info = self._slots[name].info
        assert info is not None
        return source, info

    def server_source(self, server: str) -> LiveSource:
        """The source of `server` once connected; `SourceUnavailable` says why not."""
        slot = self._slots[server]
        if slot.problem is not None:
            raise SourceUnavailable(f"{server} cannot be used: {slot.problem}")
        source = slot.source
        if source is None or slot.info is None:
            if source is not None and source.connection_state() == "reconnecting":
                note = source.connection_note()  # not reachable at the start: tried again
                raise SourceUnavailable(f"{server} cannot be reached yet: {note}")
            raise SourceUnavailable(f"{server} is still connecting")
        return source

    async def connect(self, on_event: EventSink, on_frame: FrameSink) -> SessionInfo:
        """Start every server's connection; returns at once with what they share."""
        self._on_event, self._on_frame = on_event, on_frame
        loop = asyncio.get_running_loop()
        for slot in self._slots.values():
            if slot.source is not None:
                slot.runner = loop.create_task(self._serve(slot), name=f"server {slot.name}")
        keys = [
            (name, slot.source.session.server_key)
            for name, slot in self._slots.items()
            if slot.source is not None
        ]
        return several_info(
            tuple(self._slots), label=self._label, readonly=self._readonly, keys=keys
        )

    async def _serve(self, slot: ServerSlot) -> None:
        """Connect one server, adopt what waited for it, import its list, then poll."""
        source = slot.source
        assert source is not None
        if not await self._connect(slot, source):
            slot.waiting_adoptions.clear()
            return
        if self._paused:
            source.set_paused(True)
        for task_id, tool in slot.waiting_adoptions.items():
            source.adopt(task_id, tool)
        slot.waiting_adoptions.clear()
        assert slot.info is not None
        capabilities = slot.info.capabilities
        if capabilities.wire == "legacy" and capabilities.list:
            try:
                await source.list_tasks()
            except Exception:
                log.warning("tasks/list of %s failed", slot.name, exc_info=True)
        try:
            await source.run()
        except Exception as exc:
            from app.tui.problems import describe

            log.exception("polling %s stopped", slot.name)
            slot.problem = f"polling stopped: {describe(exc)}"

    async def _connect(self, slot: ServerSlot, source: LiveSource) -> bool:
        """Connect one server (a source made with `retry_start` tries an unreachable one
        again first); False, with the reason kept, when it failed."""
        assert self._on_event is not None and self._on_frame is not None
        try:
            slot.info = await source.connect(
                self._events_of(slot.name, self._on_event),
                self._frames_of(slot.name, self._on_frame),
            )
        except Exception as exc:
            from app.tui.problems import describe

            log.warning("connecting to %s failed", slot.name, exc_info=True)
            slot.problem = describe(exc)
            return False
        slot.problem = None
        return True

    def _events_of(self, server: str, on_event: EventSink) -> EventSink:
        rename = self._renamer.event
        return lambda event: on_event(rename(server, event))

    def _frames_of(self, server: str, on_frame: FrameSink) -> FrameSink:
        rename = self._renamer.frame
        return lambda frame: on_frame(rename(server, frame))

    async def run(self) -> None:
        """Wait on every server's connection and polling until cancelled."""
        runners = [slot.runner for slot in self._slots.values() if slot.runner is not None]
        try:
            await asyncio.gather(*runners, return_exceptions=True)
            await asyncio.Event().wait()  # every server failed or stopped: idle, as one would
        finally:
            for runner in runners:
                runner.cancel()
            await asyncio.gather(*runners, return_exceptions=True)

    def connection_state(self) -> ConnectionState:
        return overall_state([self._state_of(slot) for slot in self._slots.values()])

    def _state_of(self, slot: ServerSlot) -> ConnectionState:
        if slot.source is None or slot.problem is not None:
            return "failed"
        return slot.source.connection_state()

    def connection_note(self) -> str | None:
        """How many servers are connected, and the state of each other: "2 of 3 · beta
        reconnecting · gamma failed · delta invalid" (a config entry that cannot be used: nothing
        was tried, and `taskscope servers` calls it so too)."""
        return servers_note(
            {
                name: "invalid" if slot.source is None else self._state_of(slot)
                for name, slot in self._slots.items()
            }
        )

    def journal(self, action: str, task_ids: Mapping[str, Mapping[str, Any]]) -> None:
        """Record the action with each server the row keys name, under that server's own ids."""
        by_server: dict[str, dict[str, Mapping[str, Any]]] = {}
        for key, details in task_ids.items():
            found = split_key(key, self._names)
            if found is not None:
                by_server.setdefault(found[0], {})[found[1]] = details
        for name, tasks in by_server.items():
            source = self._slots[name].source
            if source is not None:
                source.journal(action, tasks)

    def on_action(self, listener: ActionListener) -> None:
        return None

    def on_sign_in(self, listener: SignInListener) -> None:
        for slot in self._slots.values():
            if slot.source is not None:
                slot.source.on_sign_in(listener)

    def signs_in(self) -> bool:
        return False

    def stored_sign_in(self) -> StoredStatus | None:
        return None

    async def sign_out(self) -> bool:
        raise SourceUnavailable(
            "several servers are watched: sign out of one with "
            "taskscope oauth logout --config FILE --server NAME"
        )

    def advertised(self) -> ClientCapabilities | None:
        return None

    def advertise(self, capabilities: ClientCapabilities) -> None:
        raise SourceUnavailable(CHOOSE_A_SERVER)

    async def list_tools(self) -> Sequence[ToolInfo]:
        raise SourceUnavailable(CHOOSE_A_SERVER)

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None, as_task: bool
    ) -> CreateOutcome:
        raise SourceUnavailable(CHOOSE_A_SERVER)

    def _route(self, key: str) -> tuple[ServerSlot, str]:
        found = split_key(key, self._names)
        if found is None:
            raise SourceUnavailable(f"{key!r} names none of the servers watched")
        server, task_id = found
        return self._slots[server], task_id

    def _connected(self, key: str) -> tuple[LiveSource, str]:
        slot, task_id = self._route(key)
        return self.server_source(slot.name), task_id

    async def cancel(self, task_id: str) -> None:
        source, real = self._connected(task_id)
        await source.cancel(real)

    async def list_tasks(self) -> int:
        """Import `tasks/list` from every connected legacy server that has one (a server still
        connecting imports its own once connected)."""
        listing = [
            slot.source
            for slot in self._slots.values()
            if slot.source is not None
            and slot.info is not None
            and slot.info.capabilities.wire == "legacy"
            and slot.info.capabilities.list
        ]
        if not listing:
            if any(
                slot.source is not None and slot.info is None and slot.problem is None
                for slot in self._slots.values()
            ):
                return 0  # each server still connecting imports its list once connected
            raise SourceUnavailable("no connected server has tasks/list")
        counts = await asyncio.gather(*(source.list_tasks() for source in listing))
        return sum(counts)

    def adopt(self, task_id: str, tool: str | None = None) -> bool:
        """Watch a row key's task; one of a server not connected yet waits for it."""
        slot, real = self._route(task_id)
        if slot.source is None or slot.problem is not None:
            raise SourceUnavailable(f"{slot.name} cannot be used: {slot.problem}")
        if slot.info is None:
            fresh = real not in slot.waiting_adoptions
            slot.waiting_adoptions[real] = tool
            return fresh
        return slot.source.adopt(real, tool)

    def forget(self, task_id: str) -> bool:
        slot, real = self._route(task_id)
        slot.waiting_adoptions.pop(real, None)
        if slot.source is None or slot.info is None:
            return False
        return slot.source.forget(real)

    def poll_now(self, task_id: str) -> bool:
        slot, real = self._route(task_id)
        return slot.source is not None and slot.info is not None and slot.source.poll_now(real)

    def set_paused(self, paused: bool) -> None:
        self._paused = paused
        for slot in self._slots.values():
            if slot.source is not None and slot.info is not None:
                slot.source.set_paused(paused)

    def _request_of(self, request: InputRequest) -> tuple[LiveSource, InputRequest]:
        found = self._renamer.origin(request)
        if found is None:
            raise SourceUnavailable("this question is no longer known to any server")
        server, real = found
        return self.server_source(server), real

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        source, real = self._request_of(request)
        await source.answer(real, response)

    async def reject(self, request: InputRequest) -> bool:
        source, real = self._request_of(request)
        return await source.reject(real)

    async def answer_roots(self, request: InputRequest) -> str | None:
        source, real = self._request_of(request)
        return await source.answer_roots(real)

    def staged_answer(self, request: InputRequest) -> dict[str, Any] | None:
        try:
            source, real = self._request_of(request)
        except SourceUnavailable:
            return None
        return source.staged_answer(real)

    async def close(self) -> None:
        """Close every server's connection at once."""
        sources = [slot.source for slot in self._slots.values() if slot.source is not None]
        await asyncio.gather(*(source.close() for source in sources), return_exceptions=True)
