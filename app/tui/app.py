"""The taskscope App: the live task list, detail pane and RPC log over one task source.

The App owns all state (`TasksState`, marks, the list query, the pending inputs, the frames) and
wires it: one long-lived exclusive worker runs the source (connection + poller) and only posts
batched messages; each key dispatches to a verb in `app.tui.verbs` or a pane in `app.tui.panes`.
Widgets follow: the header and the list redraw when the reactives they show change, the table is
patched in place, the detail pane gets the selected `WatchedTask`. `t` swaps the table for the
time view (the same tasks as bars on a time axis), which shares the table's selection.

The first frame comes first (see `app.tui.startup`): the engine is imported after it is painted
when the App is given a `DeferredSource`, the detail pane is built when a task is first shown,
and the RPC log when it is first opened (from the frames the App keeps meanwhile).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Container
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from app.tui import engine, filter_bar, panes
from app.tui.actions import VerbActions
from app.tui.bindings import APP_BINDINGS, FOOTER_PINNED_ACTIONS
from app.tui.commands import TaskCommands, app_commands
from app.tui.config import TuiConfig
from app.tui.intake import NOTE_SUMMARIES, apply_events
from app.tui.keymap_ids import warn_unknown_keymap_ids
from app.tui.list_query import ListQuery
from app.tui.lists import TaskList
from app.tui.messages import (
    ActionReplayed,
    Batcher,
    CancelAcknowledged,
    SignInChanged,
    SourceConnected,
    SourceFailed,
    SourceLoaded,
    TaskEventsArrived,
)
from app.tui.notes import NoteMerger
from app.tui.pending_inputs import PendingInputs
from app.tui.problems import describe
from app.tui.redraw import Redraw
from app.tui.startup import DeferredSource, History, LoadingSource, start_after_first_frame
from app.tui.theme import use_theme
from app.tui.toast_room import watch_screens
from app.tui.verbs import answer, finding
from app.view.exchanges import FrameBuffer
from app.view.state import TaskFilter, TasksState
from widgets.header_bar import HeaderBar
from widgets.key_footer import KeyFooter
from widgets.plain import toast
from widgets.task_table import TaskTable

if TYPE_CHECKING:
    # The engine, the detail pane, the RPC log and the modals load when first used.
    from app.engine.record.recording import SessionInfo
    from app.engine.rpc.rpc_types import Frame
    from app.engine.tasks.events import TaskEvent
    from app.tui import host
    from app.tui.check_run import CheckRun
    from app.tui.created_row import CreatedRow
    from app.tui.timeline import TaskTimeline
    from app.view.known_tasks import KnownTasks, KnownTasksOfServers
    from app.view.sign_in import SignInState
    from app.view.source import TaskSource
    from widgets.check_screen import CheckScreen
    from widgets.rpc_log import RpcLog
    from widgets.sign_in_screen import SignInScreen
    from widgets.task_detail import TaskDetail
    from widgets.time_view import TimeView

__all__ = ["TaskscopeApp", "describe"]

STYLES = Path(__file__).resolve().parent.parent.parent / "styles"
TICK_INTERVAL_S = 1.0
"""How often ages, TTL countdowns and next-poll times are redrawn."""
WIDE_LAYOUT_COLUMNS = 160
"""From this width on, the list and the detail pane sit side by side."""
NO_TASK_HINT = "Select a task."


class TaskscopeApp(VerbActions, App[int]):
    """A live inspector of MCP Tasks on one server (or one recording)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [STYLES / "app.tcss"]
    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS
    COMMANDS = App.COMMANDS | {TaskCommands}
    TITLE = "taskscope"

    info: var[SessionInfo | None] = var(None, init=False, bindings=True)
    """Who the server is, once connected; the header and the footer's bindings follow it."""
    problem: var[str | None] = var(None, init=False)
    """Why the source failed (to connect, or its poller stopped); the header shows it."""
    paused: var[bool] = var(False, init=False)
    list_query: var[ListQuery] = var(ListQuery(), init=False, always_update=True)
    """The filter and sort of the list; setting it redraws the list."""

    def __init__(
        self,
        source: TaskSource | DeferredSource,
        *,
        clock: host.Clock = time.time,
        config: TuiConfig | None = None,
        remember_tasks: bool = True,
        tick_interval: float = TICK_INTERVAL_S,
        history: History | None = None,
    ) -> None:
        super().__init__()
        self._deferred = source if isinstance(source, DeferredSource) else None
        self.source: TaskSource = LoadingSource() if isinstance(source, DeferredSource) else source
        """The engine behind the App (a `LoadingSource` stand-in while a deferred one loads)."""
        self.history = history
        """The recorded session, events and actions that `e` exports from (None: no export)."""
        self.clock = clock
        self.config = config or TuiConfig()
        self.remember_tasks = remember_tasks
        self.tick_interval = tick_interval
        self.close_on_unmount = True
        """Close the source as the App unmounts; `run_then_close` turns it off to close after
        the terminal is given back, so quitting never waits on a slow server."""
        self.tasks = TasksState(timeline_cap=self.config.timeline)
        """Every watched task; the App is its only writer."""
        self.known: KnownTasks | KnownTasksOfServers | None = None
        self.marked: set[str] = set()
        self.dismissed: set[str] = set()
        """Tasks the user forgot or cleared: later events about them are ignored."""
        self.synthetic: set[str] = set()
        """The rows of calls answered synchronously (no task on the server)."""
        self.created_row: CreatedRow | None = None
        """The row of a call made with `n`, to be selected when it appears (`created_row`)."""
        self.inputs = PendingInputs()
        self.notes = NoteMerger(NOTE_SUMMARIES)
        """Questions and finished tasks to tell the user of, a burst merged into one note."""
        self.frames = FrameBuffer(self.config.rpc_log)
        self.rpc_log: RpcLog | None = None
        self.check_run: CheckRun | None = None
        """The server check under way or shown (`c`), with its own session and frames."""
        self.sign_in: SignInScreen | None = None
        """The sign-in screen while a server's sign-in is under way (hidden or shown)."""
        self.sign_ins_waiting: dict[str, SignInState] = {}
        """Other servers' sign-ins (of several) waiting for the sign-in screen, by server."""
        self.rpc_log_behind = False
        """Frames arrived while the RPC log was hidden; it catches up when shown."""
        self.detail_pane: TaskDetail | None = None
        self.time_view: TaskTimeline | None = None
        """Built the first time `t` shows it."""
        self.time_view_shown = False
        self.list_had_focus = False
        """Whether the list had focus when the detail pane was zoomed (it gets it back)."""
        self.redraw = Redraw(self)
        self._source_closed = False
        self._updates = Batcher(self._post_updates)
        """Paces everything that redraws the table: event batches and the clock."""
        self._clock_due = False
        use_theme(self, self.config.theme)

    # ------------------------------------------------------------------ layout and start-up

    def compose(self) -> ComposeResult:
        """The first frame's widgets only: the filter bar, the detail pane's tabs and the RPC log
        are mounted when first needed."""
        self._set_wide_layout()  # before the widgets are styled: no restyle after mounting
        yield HeaderBar(id="header")
        with Container(id="main"):
            yield TaskList(id="tasks")
            with Container(id="detail"):
                yield Static(Text(NO_TASK_HINT, style="dim"), id="detail-hint")
        yield KeyFooter(id="footer", pinned=FOOTER_PINNED_ACTIONS)

    @property
    def table(self) -> TaskList:
        return self.query_one("#tasks", TaskList)

    @property
    def detail(self) -> TaskDetail:
        """The detail pane; it exists once a task has been shown (else `NoMatches`)."""
        if self.detail_pane is None:
            raise NoMatches("no task has been shown yet")
        return self.detail_pane

    @property
    def rpc_frames(self) -> Sequence[Frame]:
        """The recent JSON-RPC frames (oldest first) that the RPC log shows when opened."""
        return self.frames.frames

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette entries, then the App's own."""
        yield from super().get_system_commands(screen)
        yield from app_commands(self)

    def on_mount(self) -> None:
        if self.config.theme and self.config.theme != self.theme:
            toast(self, f"Unknown theme {self.config.theme!r}", severity="warning")
        if self.config.keymap:
            self.set_keymap(self.config.keymap)
        for problem in self.config.problems:
            toast(self, problem, title="Config", severity="warning")
        self.table.focus()
        watch_screens(self)
        self.redraw.header()
        self.set_interval(self.tick_interval, self._tick)
        start_after_first_frame(self, self._start_engine)
        if self.config.keymap:
            start_after_first_frame(self, lambda: warn_unknown_keymap_ids(self, self.config))

    def on_resize(self, event: events.Resize) -> None:
        # The event's size: this handler runs before Textual's own updates `self.size`.
        self._set_wide_layout(event.size.width)

    def _set_wide_layout(self, width: int | None = None) -> None:
        """List and detail side by side from `WIDE_LAYOUT_COLUMNS` on (a no-op if unchanged)."""
        wide = (self.size.width if width is None else width) >= WIDE_LAYOUT_COLUMNS
        self.screen.set_class(wide, "-wide")

    @property
    def readonly(self) -> bool:
        """Whether the source refuses creating, cancelling and answering."""
        return self.info is not None and self.info.readonly

    @property
    def failed(self) -> bool:
        """Whether the source failed (the header then says so instead of its state)."""
        return self.problem is not None

    # ------------------------------------------------------------------ the engine workers

    def _start_engine(self) -> None:
        """Build the deferred source first if there is one, then connect it."""
        if self._source_closed:  # the App left before the engine started
            return
        if self._deferred is not None:
            engine.load_engine(self, self._deferred)
        else:
            engine.run_engine(self, self.source, self._updates)

    @on(SourceLoaded)
    async def _source_loaded(self, message: SourceLoaded) -> None:
        self._deferred = None
        if self._source_closed:  # left while loading: the new source is never opened
            await message.loaded.source.close()
            return
        self.source = message.loaded.source
        if self.history is None:
            self.history = message.loaded.history
        self.redraw.header()
        engine.run_engine(self, self.source, self._updates)

    def _post_updates(self, events: list[TaskEvent], frames: list[Frame]) -> None:
        """One message per flush, events and frames together, so the screen repaints once."""
        self.post_message(TaskEventsArrived(events, frames))

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR or self._source_closed:
            return
        error = event.worker.error
        reason = describe(error) if error is not None else "unknown error"
        if event.worker.group == engine.ENGINE_GROUP:
            self.problem = f"poller stopped: {reason}"
            self.redraw.problem("The engine stopped")
        toast(self, reason, title=event.worker.name or "Background error", severity="error")

    @on(SourceFailed)
    def _source_failed(self, message: SourceFailed) -> None:
        self.problem = message.reason
        self.redraw.problem("Could not connect")
        toast(self, message.reason, title="Could not connect", severity="error", timeout=15)

    @on(SignInChanged)
    def _sign_in_changed(self, message: SignInChanged) -> None:
        if self._source_closed or not self.is_running:  # a sign-in step behind the teardown
            return
        panes.follow_sign_in(self, message.state)
        self.redraw.header()

    @on(SourceConnected)
    def _source_connected(self, message: SourceConnected) -> None:
        self.info = message.info
        finding.watch_on_connect(self, message.info)

    # ------------------------------------------------------------------ events from the source

    @on(TaskEventsArrived)
    def _apply_events(self, message: TaskEventsArrived) -> None:
        """Apply a batch; redraw the list if it changed, else the clock cells if a tick asked."""
        if self._source_closed or not self.is_running:  # a batch queued behind the teardown
            return
        if message.frames:
            panes.show_frames(self, message.frames)
        clock_due, self._clock_due = self._clock_due, False
        if apply_events(self, message.events):
            self.refresh_view()
            answer.refresh_inbox(self)
        elif clock_due:
            self.redraw.clock()

    @on(ActionReplayed)
    def _replay_action(self, message: ActionReplayed) -> None:
        if not self._source_closed and self.is_running:
            finding.replay_action(self, message.action, message.tasks)

    @on(CancelAcknowledged)
    def _show_cancel_requested(self, message: CancelAcknowledged) -> None:
        if self.tasks.request_cancel(message.task_id, message.at):
            self.refresh_view()

    # ------------------------------------------------------------------ widgets follow the state

    def watch_info(self) -> None:
        self.redraw.header()

    def watch_problem(self) -> None:
        self.redraw.header()

    def watch_paused(self, paused: bool) -> None:
        self.screen.set_class(paused, "-paused")
        self.redraw.header()
        self.refresh_bindings()  # the footer's `p` says Pause or Resume

    def watch_list_query(self) -> None:
        self.refresh_view()

    @property
    def task_filter(self) -> TaskFilter:
        return self.list_query.filter

    @property
    def filter_query(self) -> str:
        return self.list_query.text

    def shown_ids(self) -> list[str]:
        """The task ids the list shows, filtered and sorted."""
        query = self.list_query
        return self.tasks.view(query.filter, query.sort, descending=query.descending)

    def refresh_view(self) -> None:
        """Redraw the list (and the time view), the detail pane and the header from the state."""
        self.redraw.view()

    def _tick(self) -> None:
        """Ask for the clock cells and the connection state to be redrawn on the next flush of
        the batcher, so ticks and event batches together redraw the table at most four times a
        second (not once the App is closing)."""
        if self._source_closed or not self.is_running:  # the screens may be torn down
            return
        self._clock_due = True
        self._updates.poke()

    # ------------------------------------------------------------------ selection

    @on(TaskTable.TaskSelected)
    def _selection_moved(self, event: TaskTable.TaskSelected) -> None:
        if self._source_closed or not self.is_running:  # the screen is being torn down
            return
        self.redraw.detail(event.task_id)
        if self.time_view is not None and self.time_view_shown and event.task_id is not None:
            self.time_view.select_task(event.task_id)

    def on_time_view_task_selected(self, event: TimeView.TaskSelected) -> None:
        """A bar was selected: select its task in the list, which the detail pane follows.
        (Named, not `@on`: the time view's module loads only when it is first shown.)"""
        if event.task_id is not None:
            self.table.select_task(event.task_id)

    @on(TaskTable.TaskChosen, "#tasks")
    def _row_chosen(self, event: TaskTable.TaskChosen) -> None:
        self.action_choose_selected()

    @property
    def shown_list(self) -> TaskTable | TimeView:
        """The widget the main list area shows: the task table, or the time view."""
        if self.time_view is not None and self.time_view_shown:
            return self.time_view
        return self.table

    @on(Input.Changed, "#filter-bar")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.set_filter(event.value, faults_only=self.task_filter.faults_only)

    @on(Input.Submitted, "#filter-bar")
    def _filter_kept(self) -> None:
        filter_bar.close_filter_bar(self)

    def on_rpc_log_frame_chosen(self, message: RpcLog.FrameChosen) -> None:
        """Enter or a click on a line of the RPC log: open that frame's exchange."""
        self.open_exchange(message.frame)

    def on_check_screen_evidence_chosen(self, message: CheckScreen.EvidenceChosen) -> None:
        """Enter on a check's row: open the frames behind its verdict."""
        self.open_check_evidence(message.finding)

    def on_check_screen_export_chosen(self, message: CheckScreen.ExportChosen) -> None:
        self.export_check_report(message.report)

    def on_key(self, event: events.Key) -> None:
        """A greyed-out key says why; escape in the filter bar clears the filter, elsewhere it
        clears the marks."""
        if self.refuse_greyed_key(event.key):
            event.stop()
        elif event.key != "escape":
            return
        elif filter_bar.clear_filter_if_typing(self):
            event.stop()
        elif self.marked and self.screen is self.screen_stack[0]:
            self.marked.clear()
            self.refresh_view()

    # ------------------------------------------------------------------ shutdown

    async def close_source(self) -> None:
        """Close the connection and a check's own (stopping the servers they spawned), once."""
        if self._source_closed:
            return
        self._source_closed = True
        self._updates.cancel()
        self.workers.cancel_group(self, engine.ENGINE_GROUP)
        closing = [self.source.close()]
        if self.check_run is not None:  # a check's own connection closes alongside
            closing.append(self.check_run.close())
        await asyncio.gather(*closing)

    async def on_unmount(self) -> None:
        if self.close_on_unmount:
            await self.close_source()


if TYPE_CHECKING:

    def _serves_every_action(app: TaskscopeApp) -> object:
        """Nothing at run time: mypy's proof that the App is each `self` its actions name
        (Textual calls actions by name, so no call site checks it)."""
        served: tuple[
            host.Advertising,
            host.Answering,
            host.Cancelling,
            host.Checking,
            host.Connected,
            host.Creating,
            host.Exchanges,
            host.Filtering,
            host.Listing,
            host.Palette,
            host.Panes,
            host.Polling,
            host.Saving,
            host.Watching,
        ] = (app, app, app, app, app, app, app, app, app, app, app, app, app, app)
        return served
