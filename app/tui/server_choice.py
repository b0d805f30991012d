"""Which server a verb that names none acts on: the one watched, or, when several are, the one
the user picks (`n` and `a` ask first)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.view.source import SourceUnavailable
from widgets.plain import toast

if TYPE_CHECKING:
    from app.engine.record.recording import SessionInfo
    from app.tui.app import TaskscopeApp
    from app.view.source import TaskSource


@dataclass(frozen=True, slots=True)
class ChosenServer:
    """The source to call, what it said when it connected, and its name among several."""

    source: TaskSource
    info: SessionInfo
    name: str | None


async def choose_server(app: TaskscopeApp, title: str) -> ChosenServer | None:
    """The server to act on; None (after saying why) when there is none to use."""
    if app.info is None:
        toast(app, "Not connected yet.", severity="warning")
        return None
    names = app.source.servers()
    if not names:
        return ChosenServer(app.source, app.info, None)
    from widgets.server_picker import ServerPicker

    name = await app.push_screen_wait(ServerPicker(title, server_states(app)))
    if name is None:
        return None
    try:
        source, info = app.source.server(name)
    except SourceUnavailable as exc:
        toast(app, str(exc), title=name, severity="warning")
        return None
    return ChosenServer(source, info, name)


def server_states(app: TaskscopeApp) -> list[tuple[str, str]]:
    """Each watched server's name with its state in words, for the picker."""
    return [(name, _state_of(app, name)) for name in app.source.servers()]


def _state_of(app: TaskscopeApp, name: str) -> str:
    try:
        _, info = app.source.server(name)
    except SourceUnavailable as exc:
        return str(exc).removeprefix(f"{name} ")
    return f"connected · {info.capabilities.wire} wire · {info.transport}"
