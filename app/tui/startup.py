"""How the TUI starts fast: the first frame comes before the engine (the garbage collector's part
is `collector`).

Importing the engine (pydantic, the connection, the adapters) takes longer than drawing the UI, so
`run_tui` hands the App a recipe (`DeferredSource`) instead of a built source; the App draws,
starts the engine a moment later (`start_after_first_frame`), runs the recipe in a worker thread
and connects on its event loop, holding a stand-in (`LoadingSource`) meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.view.source import SourceUnavailable, TaskSource

if TYPE_CHECKING:
    from textual.app import App

    from app.engine.oauth.store import StoredStatus
    from app.engine.record.recording import Entry, SessionInfo
    from app.engine.rpc.advertised import ClientCapabilities
    from app.engine.rpc.tool_info import ToolInfo
    from app.engine.tasks.contract import CreateOutcome
    from app.engine.tasks.models import InputRequest
    from app.view.sign_in import SignInListener
    from app.view.source import ActionListener, ConnectionState, EventSink, FrameSink

History = Callable[[], "Sequence[Entry]"]
"""The recorded session, events and actions that `e` exports from."""

STILL_LOADING = "the engine is still loading; try again in a moment"

ENGINE_START_DELAY_S = 0.1
"""How long after the first frame the engine starts loading (see `start_after_first_frame`)."""


def start_after_first_frame(app: App[Any], start: Callable[[], object]) -> None:
    """Call `start` a moment after the first frame, once the UI's own start-up repaints (the
    footer's bindings) are done: the engine's import thread would otherwise slow them."""
    app.call_after_refresh(app.set_timer, ENGINE_START_DELAY_S, start)


@dataclass(frozen=True)
class LoadedSource:
    """What a `DeferredSource` builds: the source, and the history `e` exports from (or None)."""

    source: TaskSource
    history: History | None = None


@dataclass(frozen=True)
class DeferredSource:
    """How to build the App's source once its first frame is on screen.

    `load` runs in a worker thread: it may import modules and build objects, but must not touch
    the event loop (the App connects the source on the loop afterwards).
    """

    load: Callable[[], LoadedSource]


class LoadingSource:
    """The App's `TaskSource` while the real one loads: state `loading`, every verb refused."""

    async def connect(self, on_event: EventSink, on_frame: FrameSink) -> SessionInfo:
        raise SourceUnavailable(STILL_LOADING)

    async def run(self) -> None:
        raise SourceUnavailable(STILL_LOADING)

    def connection_state(self) -> ConnectionState:
        return "loading"

    def connection_note(self) -> str | None:
        return None

    def journal(self, action: str, task_ids: Mapping[str, Mapping[str, Any]]) -> None:
        return None

    def on_action(self, listener: ActionListener) -> None:
        return None

    def on_sign_in(self, listener: SignInListener) -> None:
        return None

    def signs_in(self) -> bool:
        return False

    def stored_sign_in(self) -> StoredStatus | None:
        return None

    def advertised(self) -> ClientCapabilities | None:
        return None

    def advertise(self, capabilities: ClientCapabilities) -> None:
        raise SourceUnavailable(STILL_LOADING)

    def servers(self) -> Sequence[str]:
        return ()

    def server(self, name: str) -> tuple[TaskSource, SessionInfo]:
        raise SourceUnavailable(STILL_LOADING)

    async def sign_out(self) -> bool:
        raise SourceUnavailable(STILL_LOADING)

    async def list_tools(self) -> Sequence[ToolInfo]:
        raise SourceUnavailable(STILL_LOADING)

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None, as_task: bool
    ) -> CreateOutcome:
        raise SourceUnavailable(STILL_LOADING)

    async def cancel(self, task_id: str) -> None:
        raise SourceUnavailable(STILL_LOADING)

    async def list_tasks(self) -> int:
        raise SourceUnavailable(STILL_LOADING)

    def adopt(self, task_id: str, tool: str | None = None) -> bool:
        raise SourceUnavailable(STILL_LOADING)

    def forget(self, task_id: str) -> bool:
        return False

    def poll_now(self, task_id: str) -> bool:
        return False

    def set_paused(self, paused: bool) -> None:
        raise SourceUnavailable(STILL_LOADING)

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        raise SourceUnavailable(STILL_LOADING)

    async def reject(self, request: InputRequest) -> bool:
        raise SourceUnavailable(STILL_LOADING)

    async def answer_roots(self, request: InputRequest) -> str | None:
        raise SourceUnavailable(STILL_LOADING)

    def staged_answer(self, request: InputRequest) -> dict[str, Any] | None:
        return None

    async def close(self) -> None:
        return None
