"""The live task source: an engine session to a real server (which reconnects) and the poller.

Everything runs on the App's event loop: `run()` is the body of the App's one long-lived poller
worker, and the verbs are awaited from short action workers.

Nothing the source hands the App holds a secret a server echoed back: events, tasks, tools, the
server's info, connection notes and the errors its verbs raise pass through the session's redactor
(frames are redacted by the connection). Identifiers that had to change (a task id or tool name
holding a secret) are mapped back to the real ones when the App hands them in again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

from app.engine.polling.poller import Poller
from app.engine.record.recorder import Recorder, redactor_for, session_info
from app.engine.record.recording import SessionInfo
from app.engine.rpc.advertised import ClientCapabilities
from app.engine.rpc.era import EraPreference
from app.engine.rpc.purpose import sent_for
from app.engine.rpc.reconnect import ConnectionEvent, ReconnectPolicy
from app.engine.rpc.session import EngineSession, WireMismatch
from app.engine.rpc.targets import Target
from app.engine.rpc.tool_info import ToolInfo
from app.engine.rpc.tools_list import list_tools
from app.engine.safety.redact import Redactor
from app.engine.tasks.contract import CreateOutcome
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.factory import WireAdapter
from app.engine.tasks.kinds import TERMINAL_STATUSES
from app.tui.sign_in import SignInNote
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
    from pydantic import BaseModel

    from app.engine.oauth.store import StoredStatus
    from app.engine.tasks.models import InputRequest

__all__ = ["LiveSource", "WireMismatch"]

log = logging.getLogger(__name__)
T = TypeVar("T")


class Shown:
    """What the App may show of engine values: every string with the session's secrets replaced,
    and the way back from a changed task id, tool name or input request to the real one."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._real_names: dict[str, str] = {}
        self._real_requests: dict[tuple[str | None, str], InputRequest] = {}

    def text(self, text: str) -> str:
        """`text` with every secret replaced: for any string the App builds from server text."""
        return self.redactor.text(text)

    def value(self, value: T) -> T:
        """A copy of `value` (strings, JSON, tuples, engine models and dataclasses, nested) with
        every secret replaced; `value` itself when it holds none."""
        if not self.redactor.hides_text:
            return value
        return self._walk(value)  # type: ignore[no-any-return]

    def name(self, shown: str, real: str) -> None:
        """Remember that the App sees `real` (a task id, a tool name) as `shown`."""
        if shown != real:
            self._real_names[shown] = real

    def real_name(self, shown: str) -> str:
        """The task id or tool name the App was shown as `shown`."""
        return self._real_names.get(shown, shown)

    def real_request(self, shown: InputRequest) -> InputRequest:
        """The input request the App was shown as `shown`."""
        return self._real_requests.get((shown.task_id, shown.key), shown)

    @contextlib.contextmanager
    def errors(self) -> Iterator[None]:
        """Re-raise whatever the block raises with its secrets replaced (the App shows its text)."""
        try:
            yield
        except Exception as error:
            self.redactor.exception(error)
            raise

    def _walk(self, value: Any) -> Any:
        if isinstance(value, Enum) or value is None:
            return value
        if isinstance(value, str):
            return self.redactor.text(value)
        if isinstance(value, dict | list):
            return self.redactor.value(value)  # `value` itself when it holds no secret
        if isinstance(value, tuple):
            items = tuple(self._walk(item) for item in value)
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        if _is_model(value):
            from app.engine.tasks.models import InputRequest  # loaded already: `value` is a model

            updates = self._changed(value, type(value).model_fields)
            if not updates:
                return value
            shown = value.model_copy(update=updates)
            if isinstance(value, InputRequest) and isinstance(shown, InputRequest):
                self._real_requests[(shown.task_id, shown.key)] = value
            return shown
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            names = [field.name for field in dataclasses.fields(value)]
            updates = self._changed(value, names)
            return dataclasses.replace(value, **updates) if updates else value
        return value

    def _changed(self, value: Any, names: Iterable[str]) -> dict[str, Any]:
        updates: dict[str, Any] = {}
        for name in names:
            item = getattr(value, name)
            shown = self._walk(item)
            if shown is not item:
                updates[name] = shown
        return updates


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
        roots: Sequence[dict[str, str]] = (),
        advertised: ClientCapabilities | None = None,
        retry_start: bool = False,
    ) -> None:
        """`retry_start`: a server that cannot be reached when connecting is tried again on the
        reconnect policy's backoff (one of several servers), instead of failing at once."""
        self.target = target
        self._retry_start = retry_start
        self.shown = Shown(redactor_for(target, redact))
        """How the App must pass any other string it shows from the engine (`shown.text`)."""
        self._readonly = readonly
        self._recorder = recorder
        self._user_min_poll_ms = user_min_poll_ms
        self._sign_in = SignInNote()
        self._new_session = functools.partial(
            EngineSession,
            target,
            era=era,
            expected_wire=expected_wire,
            redact=redact,
            readonly=readonly,
            recorder=recorder,
            key=key,
            policy=policy,
            roots=roots,
            advertised=advertised,
            auth_observer=self._sign_in,
        )
        """A session to this server as the flags say (the watched one, or a check's own)."""
        self._session = self._new_session()
        self._session.add_connection_listener(self._on_connection)
        if recorder is not None:
            self._session.add_connection_listener(recorder.connection)
        self._adapter: WireAdapter | None = None
        self._poller: Poller | None = None
        self._tools: list[ToolInfo] | None = None
        self._relist: asyncio.Task[int] | None = None
        self._listening = False
        self._finished: set[str] = set()
        """Tasks whose watch ended at a terminal status: a `tasks/list` import leaves them be
        (re-watching one would add a second "created" and result to a task already shown)."""

    @property
    def session(self) -> EngineSession:
        """The engine session behind this source."""
        return self._session

    def check_session(self) -> EngineSession:
        """A second session to this server, opened as the watched one is (era, wire, redaction,
        roots, sign-in, reconnects), for a check run from the inspector: its frames never reach
        the App's RPC log; with `--record` they are recorded as the watched session's are."""
        session = self._new_session()
        if self._recorder is not None:
            session.add_frame_listener(self._recorder.frame)
        return session

    async def connect(self, on_event: EventSink, on_frame: FrameSink) -> SessionInfo:
        """Open the session (wire resolved, `--wire` checked) and start the poller's book.

        The recorder gets each event as it came (it redacts what it keeps); the App a redacted one.
        A failed connect may be tried again: the frame listeners are added once.
        """
        sink = self._shown_events(on_event)
        if self._recorder is not None:
            sink = self._recorder.tee(sink)
        if not self._listening:  # a connect tried again after a failure listens once
            if self._recorder is not None:
                self._session.add_frame_listener(self._recorder.frame)
            self._session.add_frame_listener(on_frame)
            self._listening = True
        with self.shown.errors():
            session = self._session
            info = await (session.open_until_reachable() if self._retry_start else session.open())
            adapter = self._session.adapter
        self._adapter = adapter
        self._poller = Poller(adapter, sink, user_min_ms=self._user_min_poll_ms)
        return self.shown.value(
            session_info(
                info,
                adapter.capabilities,
                self.target,
                readonly=self._readonly,
                key=self._session.server_key,
            )
        )

    def _shown_events(self, on_event: EventSink) -> EventSink:
        """`on_event` fed redacted events (with their task id remembered when it changed)."""

        def shown(event: TaskEvent) -> None:
            if event.kind == "stopped" and event.detail in TERMINAL_STATUSES:
                self._finished.add(event.task_id)
            redacted = self.shown.value(event)
            self.shown.name(redacted.task_id, event.task_id)
            on_event(redacted)

        return shown

    async def run(self) -> None:
        """Poll every watched task until cancelled."""
        with self.shown.errors():
            await self._require_poller().run_forever()

    def connection_state(self) -> ConnectionState:
        state = self._session.state
        if state == "idle":
            return "connecting"
        if state == "connected" and self._session.connection.state == "closed":
            return "closed"
        return state

    def connection_note(self) -> str | None:
        """ "reconnecting in 4 s (attempt 3)" while reconnecting, why it gave up once it did; the
        step a sign-in is at while the server asks for one."""
        note = self._sign_in.state.note
        if note is not None:
            return self.shown.text(note)
        event = self._session.last_event
        if event is None or self._session.state not in ("reconnecting", "failed"):
            return None
        return self.shown.text(event.describe(time.time()))

    def journal(self, action: str, task_ids: Mapping[str, Mapping[str, Any]]) -> None:
        """Record an action the App carried out itself (nothing is sent): each task's id, as
        the server gave it, with its particulars."""
        if self._recorder is None or not task_ids:
            return
        tasks = [{**details, "id": self.shown.real_name(key)} for key, details in task_ids.items()]
        self._recorder.action(action, None, tasks=tasks)

    def on_action(self, listener: ActionListener) -> None:
        return None

    def on_sign_in(self, listener: SignInListener) -> None:
        """Tell `listener` how a sign-in the server asks for goes, step by step."""
        label = self.target.label
        self._sign_in.listen(lambda state: listener(self.shown.value(state.of_server(label))))

    def signs_in(self) -> bool:
        return self._session.authorizer is not None

    def stored_sign_in(self) -> StoredStatus | None:
        authorizer = self._session.authorizer
        return authorizer.store.status() if authorizer is not None else None

    def advertised(self) -> ClientCapabilities:
        return self._session.advertised

    def advertise(self, capabilities: ClientCapabilities) -> None:
        self._session.advertise(capabilities)

    def servers(self) -> Sequence[str]:
        return ()

    def server(self, name: str) -> tuple[TaskSource, SessionInfo]:
        raise SourceUnavailable("one server is watched")

    async def sign_out(self) -> bool:
        """Forget this server's OAuth sign-in; the next request it refuses signs in again."""
        authorizer = self._session.authorizer
        if authorizer is None:
            raise SourceUnavailable(
                "taskscope holds no sign-in for this server (it asked for none, or the "
                "credentials come from --bearer, a header or --auth-mode none)"
            )
        return await authorizer.sign_out()

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
        with self.shown.errors(), sent_for("for the tool picker"):
            listed = await list_tools(self._session)
        tools: list[ToolInfo] = []
        for entry in listed:
            real = ToolInfo.from_wire(entry.tool, legacy=legacy, unusable=entry.problem)
            shown = self.shown.value(real)
            self.shown.name(shown.name, real.name)
            tools.append(shown)
        self._tools = tools
        return tools

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None, as_task: bool
    ) -> CreateOutcome:
        """A task-augmented call (the task is watched at once), or a plain synchronous one."""
        adapter = self._require_adapter()
        tool = self.shown.real_name(tool)
        with self.shown.errors(), sent_for("from the tool picker"):
            if not as_task:
                result = await adapter.call_tool(tool, arguments)
                return self.shown.value(CreateOutcome(task=None, sync_result=result, raw=result))
            outcome = await adapter.create(tool, arguments, ttl_ms=ttl_ms)
        if outcome.task is not None:
            self._require_poller().watch(outcome.task)
            self.shown.name(self.shown.text(outcome.task.task_id), outcome.task.task_id)
        return self.shown.value(outcome)

    async def cancel(self, task_id: str) -> None:
        """`tasks/cancel`: legacy's answer is applied at once; extension keeps polling."""
        task_id = self.shown.real_name(task_id)
        with self.shown.errors(), sent_for("asked for in the task list (cancel)"):
            cancelled = await self._require_adapter().cancel(task_id)
        self._require_poller().mark_cancel_requested(task_id, cancelled)

    async def list_tasks(self) -> int:
        """Watch every task of every `tasks/list` page that is neither watched nor finished."""
        with self.shown.errors():
            tasks = await self._require_adapter().list_tasks()
        poller = self._require_poller()
        fresh = [task for task in tasks if task.task_id not in self._finished]
        return sum(poller.watch(task, source="list") for task in fresh)

    def adopt(self, task_id: str, tool: str | None = None) -> bool:
        real = self.shown.real_name(task_id)
        if tool is not None:
            self._require_adapter().tools.setdefault(real, tool)
        return self._require_poller().adopt(real)

    def forget(self, task_id: str) -> bool:
        """Stop watching; a forgotten task comes back with the next `tasks/list` import."""
        real = self.shown.real_name(task_id)
        self._finished.discard(real)
        return self._require_poller().forget(real)

    def poll_now(self, task_id: str) -> bool:
        return self._require_poller().poll_now(self.shown.real_name(task_id))

    def set_paused(self, paused: bool) -> None:
        poller = self._require_poller()
        if paused:
            poller.pause()
        else:
            poller.resume()

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        """Send one answer through the poller (so the task's timeline records it)."""
        if not await self._require_poller().answer(self.shown.real_request(request), response):
            raise SourceUnavailable("the server did not take the answer; see the task's timeline")

    async def reject(self, request: InputRequest) -> bool:
        """Decline a server request through the poller (so the task's timeline records it)."""
        with self.shown.errors():
            return await self._require_poller().reject(self.shown.real_request(request))

    async def answer_roots(self, request: InputRequest) -> str | None:
        """Answer a `roots/list` from the session's roots through the poller (the task's
        timeline records what was sent)."""
        poller = self._require_poller()
        answer = await poller.answer_roots(self.shown.real_request(request), self._session.roots)
        return None if answer is None else self.shown.text(answer.summary)

    def staged_answer(self, request: InputRequest) -> dict[str, Any] | None:
        adapter = self._adapter
        if adapter is None:
            return None
        return self.shown.value(adapter.broker.staged_answer(self.shown.real_request(request)))

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


def _is_model(value: object) -> TypeGuard[BaseModel]:
    """Whether `value` is a pydantic model, without importing pydantic: while it is not loaded, no
    value can be one (the models load with the first task)."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(value, pydantic.BaseModel)
