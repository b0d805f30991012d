"""The panes the main screen can show besides the list: the RPC log (`L`), the exchange view of
one frame (`v`, enter in the log or on a check's row), the time view (`t`), the zoomed detail
pane (`z`), the server pane (`s`) and help.

Each pane is built the first time it is shown, so the first frame never pays for it.
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING

from textual.containers import Container
from textual.css.query import NoMatches

from app.tui.verbs.saving import save
from widgets.key_footer import KeyFooter
from widgets.plain import toast

if TYPE_CHECKING:
    from app.engine.rpc.rpc_types import Frame
    from app.tui.host import Exchanges, Panes
    from app.view.exchanges import Exchange
    from app.view.server_facts import ServerFacts
    from app.view.sign_in import SignInState


def follow_sign_in(app: Panes, state: SignInState) -> None:
    """Open the sign-in screen when a server wants the person to sign in (again for a new
    authorization URL, after escape hid it), keep it up to date, close it once signed in; with
    several servers, one at a time, the others' in the order they asked."""
    from app.engine.oauth.browser import launch_browser
    from widgets.sign_in_screen import SignInScreen

    shown = app.sign_in
    if shown is not None and state.server != shown.state.server:
        # another server (of several) signs in meanwhile: it waits for the screen
        app.sign_ins_waiting.pop(state.server, None)
        if not state.done:
            app.sign_ins_waiting[state.server] = state
        return
    if state.done:
        app.sign_in = None
        if shown is not None and shown.is_attached:
            shown.dismiss(None)
        if shown is not None:
            toast(app, f"Signed in to {state.server}.", title="Signed in")
        if app.sign_ins_waiting:
            follow_sign_in(app, app.sign_ins_waiting.pop(next(iter(app.sign_ins_waiting))))
        return
    if shown is not None:
        reopen = state.url != shown.state.url and not shown.is_attached
        shown.state = state
        if reopen:
            app.push_screen(shown)
        return
    if state.url is not None or state.failed is not None:
        app.sign_in = SignInScreen(state.server, state, launch_browser)
        app.push_screen(app.sign_in)


def toggle_log(app: Panes) -> None:
    """Show or hide the RPC log; it is built the first time, from the frames kept so far."""
    if app.rpc_log is None:
        from widgets.rpc_log import RpcLog

        app.rpc_log = RpcLog(buffer=app.frames, id="rpc-log")
        app.rpc_log_behind = False
        app.mount(app.rpc_log, before=app.query_one(KeyFooter))
    app.screen.toggle_class("-show-rpc")
    if not rpc_log_shown(app):
        if app.rpc_log.has_focus:
            app.table.focus()
        return
    if app.rpc_log_behind:
        app.rpc_log.catch_up()
        app.rpc_log_behind = False
    app.rpc_log.focus()


def rpc_log_shown(app: Panes) -> bool:
    """Whether the RPC log has been built and its screen shows it."""
    log = app.rpc_log
    return log is not None and log.screen.has_class("-show-rpc")


def show_frames(app: Panes, frames: tuple[Frame, ...]) -> None:
    """Keep the frames, and show them if the log is on screen (a hidden log catches up when
    shown again, so it never costs a layout pass while hidden)."""
    if app.rpc_log is not None and rpc_log_shown(app):
        app.rpc_log.add_frames(frames)  # into app.frames, which the log shows
    else:
        app.frames.add(frames)
        app.rpc_log_behind = True


def open_exchange(app: Exchanges, frame: Frame) -> None:
    """Open the exchange view on `frame` with its partner frame (if still kept)."""
    show_exchange(app, app.frames.exchange(frame))


def show_exchange(app: Exchanges, exchange: Exchange) -> None:
    """Open the exchange view on `exchange` (of the RPC log, or of a check's own frames)."""
    from app.view.export import default_path
    from widgets.frame_exchange import ExchangeScreen

    suggested = default_path("taskscope-exchange", time.time())
    app.push_screen(ExchangeScreen(exchange, partial(save, app), suggested_path=suggested))


def show_server(app: Panes) -> None:
    """Open the server pane, its facts read from the App's state each time it refreshes."""
    from widgets.server_screen import ServerScreen

    app.push_screen(ServerScreen(partial(server_facts_of, app)))


def server_facts_of(app: Panes) -> ServerFacts:
    """The server pane's facts from what the App holds now (as the header shows it)."""
    from app.view.server_facts import server_facts

    source = app.source
    if source.servers():
        return _several_facts(app)
    connection = "failed" if app.failed else source.connection_state()
    return server_facts(
        app.info,
        connection,
        note=None if app.failed else source.connection_note(),
        problem=app.problem,
        sign_in=source.stored_sign_in(),
        signs_in=source.signs_in(),
        now=time.time(),
        advertised=source.advertised(),
    )


def _several_facts(app: Panes) -> ServerFacts:
    """One row per server when several are watched."""
    from app.tui.server_choice import server_states
    from app.view.server_facts import several_servers_facts

    return several_servers_facts(server_states(app))


def show_frame(app: Panes) -> None:
    """Open the exchange of the selected task's offending (else last) frame, as the RPC log does;
    the detail's Raw tab when no frame about it is kept (a replay without frames)."""
    selected = app.table.selected_task_id
    watched = app.tasks.get(selected) if selected is not None else None
    if watched is None:
        return
    offending = watched.violation.frame if watched.violation is not None else None
    frame = app.frames.about_task(watched.task_id, offending)
    if frame is not None:
        open_exchange(app, frame)
    elif app.detail_pane is not None:
        app.detail_pane.show_tab("raw")


async def toggle_time_view(app: Panes) -> None:
    """Swap the list for the time view (built the first time) or back; the selection stays."""
    view = app.time_view
    if view is None:
        from app.tui.timeline import TaskTimeline

        view = app.time_view = TaskTimeline(id="time-view")
        await app.query_one("#main", Container).mount(view, after=app.table)
    app.time_view_shown = not app.time_view_shown
    app.screen_stack[0].set_class(app.time_view_shown, "-time-view")
    if app.time_view_shown:
        app.redraw.time_view()
        app.call_after_refresh(view.move_cursor, view.cursor_row)  # scroll once laid out
        view.focus()
    else:
        app.table.move_cursor(app.table.cursor_row)
        app.table.focus()


def toggle_zoom(app: Panes) -> None:
    """Give the detail pane the whole screen, or the list its place back (and the focus it lost
    when it was hidden)."""
    screen = app.screen
    if screen.has_class("-zoom-detail"):
        screen.remove_class("-zoom-detail")
        if app.list_had_focus:
            app.shown_list.focus()
    else:
        app.list_had_focus = app.shown_list.has_focus
        screen.add_class("-zoom-detail")


def toggle_help(app: Panes) -> None:
    """Show the key help panel, or hide it."""
    from textual.widgets import HelpPanel

    try:
        app.screen.query_one(HelpPanel)
    except NoMatches:
        app.action_show_help_panel()
    else:
        app.action_hide_help_panel()
