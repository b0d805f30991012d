"""Which server a verb that names none acts on: the one watched, or, when several are, the one
the user picks (`n` and `a` ask first)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.view.source import SourceUnavailable
from widgets.plain import toast

if TYPE_CHECKING:
    from app.engine.record.recording import SessionInfo
    from app.tui.host import Connected
    from app.view.source import TaskSource


@dataclass(frozen=True, slots=True)
class ChosenServer:
    """The source to call, what it said when it connected, and its name among several."""

    source: TaskSource
    info: SessionInfo
    name: str | None


async def choose_server(app: Connected, title: str) -> ChosenServer | None:
    """The server to act on; None (after saying why) when there is none to use."""
    if app.info is None:
        toast(app, "Not connected yet.", severity="warning")
        return None
    names = app.source.servers()
    if not names:
        return ChosenServer(app.source, app.info, None)
    from widgets.server_picker import ServerPicker

    name = await app.push_screen_wait(ServerPicker(title, picker_states(app)))
    if name is None:
        return None
    try:
        source, info = app.source.server(name)
    except SourceUnavailable as exc:
        toast(app, str(exc), title=name, severity="warning")
        return None
    return ChosenServer(source, info, name)


def server_states(app: Connected) -> list[tuple[str, SessionInfo | None, str]]:
    """Each watched server's name, what it said when it connected (None: not connected), and
    its state in words ("connected", "reconnecting: …", "cannot be used: …", with "· tasks
    withheld" while the user withholds them): for the picker and the server pane."""
    states: list[tuple[str, SessionInfo | None, str]] = []
    for name in app.source.servers():
        try:
            source, info = app.source.server(name)
        except SourceUnavailable as exc:
            states.append((name, None, str(exc).removeprefix(f"{name} ")))
            continue
        note = source.connection_note()
        advertised = source.advertised()
        withheld = advertised is not None and not advertised.declares_tasks
        state = source.connection_state() + (f": {note}" if note else "")
        states.append((name, info, state + (" · tasks withheld" if withheld else "")))
    return states


def picker_states(app: Connected) -> list[tuple[str, str]]:
    """Each server's name with its state, tasks wire and transport, for the picker."""
    return [
        (
            name,
            state
            if info is None
            else f"{state} · {info.capabilities.wire} wire · {info.transport}",
        )
        for name, info, state in server_states(app)
    ]
