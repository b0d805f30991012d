"""What the App drives: a task source, live (a server) or recorded (fixed events for snapshots).

The App never talks to a connection, adapter or poller directly; it holds one `TaskSource` and
calls these verbs from its workers, so tests can swap the engine for a static one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:  # annotations only: the App's first frame does not load the engine
    from app.engine.oauth.store import StoredStatus
    from app.engine.record.recording import SessionInfo
    from app.engine.rpc.advertised import ClientCapabilities
    from app.engine.rpc.rpc_types import Frame
    from app.engine.rpc.tool_info import ToolInfo
    from app.engine.tasks.contract import CreateOutcome
    from app.engine.tasks.events import TaskEvent
    from app.engine.tasks.models import InputRequest
    from app.view.sign_in import SignInListener

ConnectionState = Literal["loading", "connecting", "connected", "reconnecting", "closed", "failed"]
"""`loading`: the App is on screen while the engine modules load (before the source exists)."""

EventSink = Callable[["TaskEvent"], None]
FrameSink = Callable[["Frame"], None]
ActionListener = Callable[[str, Mapping[str, Mapping[str, Any]]], None]
"""Told of an action the App carried out itself in a recorded session (`restored`, `cleared`,
`forgot`), with each task's id and particulars, in order with the events."""


class SourceUnavailable(Exception):
    """The source cannot do this (a recording cannot create tasks); the message says why."""


class TaskSource(Protocol):
    """The engine behind the App. Every coroutine runs on the App's event loop (in workers)."""

    async def connect(self, on_event: EventSink, on_frame: FrameSink) -> SessionInfo:
        """Open the source; events and frames go to the sinks from now on."""
        ...

    async def run(self) -> None:
        """Poll (or replay) until cancelled."""
        ...

    def connection_state(self) -> ConnectionState: ...

    def connection_note(self) -> str | None:
        """What the header adds to the state, e.g. "reconnecting in 4 s (attempt 3)"."""
        ...

    def journal(self, action: str, task_ids: Mapping[str, Mapping[str, Any]]) -> None:
        """Record an action the App carried out itself (it sends nothing: `restored`, `cleared`,
        `forgot`) with each task's id and particulars, where the session is recorded."""
        ...

    def on_action(self, listener: ActionListener) -> None:
        """Tell `listener` each action a recording holds that the App carried out itself (live
        sources never call it)."""
        ...

    def on_sign_in(self, listener: SignInListener) -> None:
        """Tell `listener` each step of a sign-in the server asks for (sources that never sign
        in never call it)."""
        ...

    def signs_in(self) -> bool:
        """Whether taskscope signs in to this server when it asks (HTTP, no credentials given)."""
        ...

    def stored_sign_in(self) -> StoredStatus | None:
        """The sign-in stored for this server, if any (never a token)."""
        ...

    async def sign_out(self) -> bool:
        """Forget the server's sign-in (the next refusal signs in again); whether any was
        stored. Raises `SourceUnavailable` where nothing signs in."""
        ...

    def advertised(self) -> ClientCapabilities | None:
        """The client capabilities the server is told of (None: no one live server)."""
        ...

    def advertise(self, capabilities: ClientCapabilities) -> None:
        """Tell the server `capabilities` from the next request on; `SourceUnavailable` where
        there is no one live server."""
        ...

    def servers(self) -> Sequence[str]:
        """The names of the servers watched when there are several (empty for one server)."""
        ...

    def server(self, name: str) -> tuple[TaskSource, SessionInfo]:
        """One of several servers, to pick a tool or adopt an id on it; `SourceUnavailable`
        while it is not connected."""
        ...

    async def list_tools(self) -> Sequence[ToolInfo]: ...

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None, as_task: bool
    ) -> CreateOutcome:
        """Call a tool as a task (watched at once) or plainly; a synchronous answer has no task."""
        ...

    async def cancel(self, task_id: str) -> None:
        """Send `tasks/cancel`; legacy shows the server's cancelled task, extension polls on."""
        ...

    async def list_tasks(self) -> int:
        """Import every page of `tasks/list` (legacy); the number of newly watched tasks. Tasks
        already shown (still watched, or settled and not forgotten by the user) are left as
        they are: no second "created"."""
        ...

    def adopt(self, task_id: str, tool: str | None = None) -> bool:
        """Watch a bare task id; `tool` is the one it was created with, when remembered."""
        ...

    def forget(self, task_id: str) -> bool: ...

    def poll_now(self, task_id: str) -> bool: ...

    def set_paused(self, paused: bool) -> None: ...

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        """Send one answer; raises when the server did not take it."""
        ...

    async def reject(self, request: InputRequest) -> bool:
        """Decline a server request with a JSON-RPC error; False where the wire cannot (it then
        stays pending); raises when it failed."""
        ...

    async def answer_roots(self, request: InputRequest) -> str | None:
        """Answer a `roots/list` at once from the configured roots (`--root`); what was sent, as
        one line, or None when sending failed (the task's timeline says why)."""
        ...

    def staged_answer(self, request: InputRequest) -> dict[str, Any] | None:
        """An answer typed earlier that the server has not acknowledged, to fill in again."""
        ...

    async def close(self) -> None: ...
