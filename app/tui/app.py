"""The taskscope App: the live task list, detail pane and RPC log over one task source.

The App owns all state (`TasksState`, marks, filter, sort). One long-lived exclusive worker runs
the source (connection + poller) and only posts batched messages; short action workers run
user verbs (create, cancel, list, answer). Widgets follow: the table is patched in place, the
detail pane gets the selected `WatchedTask`, the header gets one `HeaderState`. `t` swaps the table
for the time view (the same tasks as bars on a time axis), which shares the table's selection.

The first frame comes first: the engine (pydantic, connection, adapters) is imported after it is
painted when the App is given a `DeferredSource`, the detail pane is built when a task is first
shown, and the RPC log when it is first opened (from the frames the App keeps meanwhile).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from app.engine.safety.sanitize import clean_text, middle_line, one_line
from app.tui.bindings import APP_BINDINGS, LIST_BINDINGS
from app.tui.commands import TaskCommands
from app.tui.config import TuiConfig
from app.tui.loading import DeferredSource, History, LoadingSource
from app.tui.messages import (
    Batcher,
    CancelAcknowledged,
    SourceConnected,
    SourceFailed,
    TaskEventsArrived,
)
from app.view.exchanges import ExchangeBook, task_frame
from app.view.state import SortKey, TaskFilter, TasksState, WatchedTask, parse_filter
from app.view.task_filter import FIRST_DESCENDING
from widgets.header_bar import HeaderBar, HeaderState, ListView
from widgets.key_footer import KeyFooter
from widgets.plain import toast
from widgets.task_table import TaskTable
from widgets.time_view import TimeView

if TYPE_CHECKING:
    # The engine, the detail pane, the RPC log, the modals, the help panel (Textual's Markdown)
    # and the exporter load when first used, not before the first frame.
    from app.engine.record.recording import SessionInfo
    from app.engine.rpc.rpc_types import Frame
    from app.engine.tasks.events import TaskEvent
    from app.engine.tasks.models import InputRequest
    from app.view.known_tasks import KnownTasks
    from app.view.source import TaskSource
    from widgets.arguments_form import CreateRequest
    from widgets.input_inbox import InboxEntry
    from widgets.rpc_log import RpcLog
    from widgets.task_detail import TaskDetail

STYLES = Path(__file__).resolve().parent.parent.parent / "styles"
TICK_INTERVAL_S = 1.0
"""How often ages, TTL countdowns and next-poll times are redrawn."""
WIDE_LAYOUT_COLUMNS = 160
"""From this width on, the list and the detail pane sit side by side."""
FILTER_HINT = "status:working tool:build id:abc or words · enter keeps · esc clears"
ENGINE_START_DELAY_S = 0.1
"""How long after the first frame the engine starts loading (see `_start_engine_soon`)."""
NO_TASK_HINT = "Select a task."
FOOTER_PINNED_ACTIONS = frozenset({"toggle_help", "quit"})
"""The footer always shows `? Keys` and `q Quit`; other keys give way on a narrow terminal."""

TASKSCOPE_THEME = Theme(
    name="taskscope",
    primary="#7aa2f7",
    secondary="#9ece6a",
    accent="#bb9af7",
    warning="#e0af68",
    error="#f7768e",
    success="#9ece6a",
    dark=True,
)

Clock = Callable[[], float]

MAX_KEPT_DRAFTS = 256
"""Typed answers kept for questions put off with Later; the oldest goes first beyond this."""

MUTATING_ACTIONS = frozenset({"new_task", "cancel_tasks", "answer_input"})
"""Actions hidden and disabled when the source is read-only (`--readonly`, or a replay)."""


class TaskList(TaskTable):
    """The task table with the bindings that act on marked (or selected) tasks."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS


class TaskTimeline(TimeView):
    """The time view with the same bulk-action bindings as the list (they act on its selection,
    which is the list's); enter on a bar answers its task's question, as on a list row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *LIST_BINDINGS,
        Binding("enter", "app.choose_selected", "Answer", show=False),
    ]


def _is_roots(request: InputRequest) -> bool:
    """A `roots/list` request: answered from the configuration, never put to the user."""
    from app.engine.tasks.models import InputKind

    return request.kind is InputKind.ROOTS


def describe(exc: BaseException) -> str:
    """An exception as one short line of plain text for toasts and the header, with the next
    thing to try when the engine named one (a failed connect)."""
    text = str(exc)
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    hint = getattr(exc, "hint", None)
    if isinstance(hint, str):
        line = f"{line[:240]} — next: {hint}"
    return clean_text(line, max_len=420)


class TaskscopeApp(App[int]):
    """A live inspector of MCP Tasks on one server (or one recording)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [STYLES / "app.tcss"]
    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS
    COMMANDS = App.COMMANDS | {TaskCommands}
    TITLE = "taskscope"

    def __init__(
        self,
        source: TaskSource | DeferredSource,
        *,
        clock: Clock = time.time,
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
        self.info: SessionInfo | None = None
        self.known: KnownTasks | None = None
        self.marked: set[str] = set()
        self.paused = False
        self.task_filter = TaskFilter()
        self.filter_query = ""
        self.sort: SortKey | None = None
        self.descending = False
        self.problem: str | None = None
        self.failed = False
        self._selected: str | None = None
        self._dismissed: set[str] = set()
        self._synthetic: set[str] = set()
        self._known_tools: dict[str, str] = {}
        self._requests: dict[tuple[str, str], InputRequest] = {}
        self._received_at: dict[tuple[str, str], float] = {}
        self._asked_order: dict[tuple[str, str], int] = {}
        """The order the server asked its questions in, so they are answered in that order."""
        self._drafts: dict[tuple[str, str], dict[str, Any]] = {}
        self._strays: dict[str, InputRequest] = {}
        """Questions asked outside any task (on a plain call's stream) until answered: the
        inbox lists them, so one put off with Later can be opened again."""
        """What was typed into a question put off with Later or escape, by (task, request key)."""
        self._announced: set[tuple[str, str]] = set()
        self._sync_count = 0
        self._source_closed = False
        self._table_synced_at = float("-inf")
        self._frames: deque[Frame] = deque(maxlen=self.config.rpc_log)
        self._exchanges = ExchangeBook(self.config.rpc_log)
        """The frames paired into exchanges, for opening one from the RPC log (as many as it
        keeps rows, so bounded too)."""
        self._updates = Batcher(self._post_updates)
        """Paces everything that redraws the table: event batches and the clock."""
        self._clock_due = False
        self._rpc_log: RpcLog | None = None
        self._rpc_log_behind = False
        """Frames arrived while the RPC log was hidden; it catches up when shown."""
        self._detail: TaskDetail | None = None
        self._time_view: TaskTimeline | None = None
        """Built the first time `t` shows it."""
        self._time_view_shown = False
        self._list_had_focus = False
        """Whether the list had focus when the detail pane was zoomed (it gets it back)."""
        self._use_theme()

    def _use_theme(self) -> None:
        """Pick the theme (the config's, else taskscope's) before the stylesheet is first
        parsed, so starting does not parse every rule twice."""
        self.register_theme(TASKSCOPE_THEME)
        wanted = self.config.theme
        self.theme = wanted if wanted and wanted in self.available_themes else "taskscope"
        self.stylesheet.set_variables(self.get_css_variables())

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
        if self._detail is None:
            raise NoMatches("no task has been shown yet")
        return self._detail

    @property
    def rpc_frames(self) -> Sequence[Frame]:
        """The recent JSON-RPC frames (oldest first) that the RPC log shows when opened."""
        return tuple(self._frames)

    def on_mount(self) -> None:
        if self.config.theme and self.config.theme != self.theme:
            toast(self, f"Unknown theme {self.config.theme!r}", severity="warning")
        if self.config.keymap:
            self.set_keymap(self.config.keymap)
        for problem in self.config.problems:
            toast(self, problem, title="Config", severity="warning")
        self.table.focus()
        self._update_header()
        self.set_interval(self.tick_interval, self._tick)
        self.call_after_refresh(self._start_engine_soon)  # the first frame first, then the engine

    def _start_engine_soon(self) -> None:
        """Start the engine a moment after the first frame, once the UI's own start-up repaints
        (the footer's bindings) are done: the import thread would otherwise slow them."""
        self.set_timer(ENGINE_START_DELAY_S, self._run_engine)

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only: the mutating bindings are hidden from the footer and do nothing; an
        action the server cannot serve is greyed out (see `disabled_reason`)."""
        if self.readonly and action in MUTATING_ACTIONS:
            return False
        return None if self.disabled_reason(action) else True

    def disabled_reason(self, action: str) -> str | None:
        """Why `action` cannot run against this server, or None when it can; the footer shows
        it as the greyed key's tooltip and pressing the key says it."""
        capabilities = self.info.capabilities if self.info is not None else None
        if action == "cancel_tasks" and capabilities is not None and not capabilities.cancel:
            return "This server declared no tasks/cancel: its tasks cannot be cancelled."
        return None

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if not self.readonly:
            yield SystemCommand("New task", "Pick a tool and run it", self.action_new_task)
        yield SystemCommand("Adopt task id", "Watch a task by its id", self.action_adopt_task)
        yield SystemCommand("List tasks", "Import tasks/list (legacy wire)", self.action_list_tasks)
        yield SystemCommand("Pause / resume polling", "Toggle the poller", self.action_toggle_pause)
        yield SystemCommand(
            "Faults only", "Show only tasks needing care", self.action_toggle_faults
        )
        yield SystemCommand("RPC log", "Show or hide the frame log", self.action_toggle_log)
        yield SystemCommand(
            "Time view",
            "Every task as a bar on a time axis, or back to the list",
            self.action_toggle_time_view,
        )
        yield SystemCommand(
            "Clear forgotten",
            "Remove the rows of tasks the server no longer knows",
            self.action_clear_gone,
        )

    # ------------------------------------------------------------------ the engine worker

    @work(exclusive=True, group="engine", exit_on_error=False, name="engine")
    async def _run_engine(self) -> None:
        """Load the source if it is deferred, connect it and run its poller for as long as the
        App lives."""
        if self._source_closed:  # the App left before its first frame was painted
            return
        if self._deferred is not None:
            try:
                await self._load_source(self._deferred)
            except Exception as exc:
                self.post_message(SourceFailed(describe(exc)))
                return
        if self._source_closed:  # the App is leaving (maybe while the engine loaded)
            return
        try:
            info = await self.source.connect(self._updates.add_event, self._updates.add_frame)
        except Exception as exc:
            self.post_message(SourceFailed(describe(exc)))
            return
        self.post_message(SourceConnected(info))
        await self.source.run()

    async def _load_source(self, deferred: DeferredSource) -> None:
        """Import the engine and build the source in a thread, so the UI stays responsive."""
        loaded = await asyncio.to_thread(deferred.load)
        self._deferred = None
        if self._source_closed:  # left while loading: the new source is never opened
            await loaded.source.close()
            return
        self.source = loaded.source
        if self.history is None:
            self.history = loaded.history
        self._update_header()

    def _post_updates(self, events: list[TaskEvent], frames: list[Frame]) -> None:
        """One message per flush, events and frames together, so the screen repaints once."""
        self.post_message(TaskEventsArrived(events, frames))

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR or self._source_closed:
            return
        error = event.worker.error
        reason = describe(error) if error is not None else "unknown error"
        if event.worker.group == "engine":
            self.problem = f"poller stopped: {reason}"
            self.failed = True
            self._update_header()
            self._show_problem_in_detail("The engine stopped")
        toast(self, reason, title=event.worker.name or "Background error", severity="error")

    @on(SourceFailed)
    def _source_failed(self, message: SourceFailed) -> None:
        self.problem = message.reason
        self.failed = True
        self._update_header()
        self._show_problem_in_detail("Could not connect")
        toast(self, message.reason, title="Could not connect", severity="error", timeout=15)

    def _show_problem_in_detail(self, title: str) -> None:
        """The whole problem, wrapped, where a task would be shown (the header has room for
        only its start); once a task is shown the pane is the task's."""
        if self._detail is None and self.problem:
            text = Text(title + "\n\n", style="bold")
            text.append(self.problem)
            self.query_one("#detail-hint", Static).update(text)

    @on(SourceConnected)
    def _source_connected(self, message: SourceConnected) -> None:
        self.info = message.info
        self._update_header()
        self.refresh_bindings()
        if self.remember_tasks:
            from app.view.known_tasks import KnownTasks

            self.known = KnownTasks(message.info.server_key)
            self._resume_known()
        capabilities = message.info.capabilities
        if capabilities.wire == "legacy" and capabilities.list:
            self._import_list(quiet=True)

    def _resume_known(self) -> None:
        """Adopt every task id remembered for this server; the poller finds out which live."""
        assert self.known is not None
        entries = self.known.load()
        self.tasks.known_before({entry.task_id: entry.tool for entry in entries})
        for entry in entries:
            if entry.tool:
                self._known_tools[entry.task_id] = entry.tool
            self.source.adopt(entry.task_id)

    # ------------------------------------------------------------------ events from the source

    @on(TaskEventsArrived)
    def _apply_events(self, message: TaskEventsArrived) -> None:
        """Apply a batch; redraw the list if it changed, else the clock cells if a tick asked."""
        if self._source_closed or not self.is_running:  # a batch queued behind the teardown
            return
        if message.frames:
            self._add_frames(message.frames)
        clock_due, self._clock_due = self._clock_due, False
        changed = False
        for event in message.events:
            if event.input_request is not None and not event.task_id:
                self._stray_input(event.input_request)
                continue
            if event.task_id in self._dismissed:
                continue
            event = self._with_known_tool(event)
            changed |= self.tasks.apply(event)
            self._after_event(event)
        if changed:
            self._refresh_view()
            self._refresh_inbox()
        elif clock_due:
            self._redraw_clock()

    def _with_known_tool(self, event: TaskEvent) -> TaskEvent:
        """Put back the tool name remembered for an adopted task (tasks/get does not carry it)."""
        task = event.task
        tool = self._known_tools.get(event.task_id)
        if task is None or tool is None or task.tool_name is not None:
            return event
        return dataclasses.replace(event, task=task.model_copy(update={"tool_name": tool}))

    def _after_event(self, event: TaskEvent) -> None:
        task_id = event.task_id
        if event.kind == "created" and task_id not in self._synthetic and self.known is not None:
            tool = event.task.tool_name if event.task is not None else None
            self.known.remember(task_id, tool)
        elif event.kind == "expired":
            if self.known is not None:
                self.known.drop({task_id})
            watched = self.tasks.get(task_id)
            if watched is not None and watched.not_found:
                toast(
                    self,
                    f"The server does not know the id {one_line(task_id, 40)}.",
                    title="Not found",
                    severity="warning",
                )
        elif event.kind == "input_needed" and event.input_request is not None:
            self._announce_input(task_id, event.input_request)
        elif event.kind == "transition" and event.task is not None and event.task.is_terminal:
            self._announce(
                f"{middle_line(task_id, 24)} {event.task.status}",
                title="Task finished",
                severity="error" if event.task.status == "failed" else "information",
            )

    def _announce(self, message: str, *, title: str, severity: SeverityLevel) -> None:
        """A toast and the terminal bell, each unless the config file turned it off (a replay
        stays quiet: it shows what happened, nothing waits on the user)."""
        if self.info is not None and self.info.replay:
            return
        if self.config.toasts:
            toast(self, message, title=title, severity=severity)
        if self.config.bell:
            self.bell()

    def _announce_input(self, task_id: str, request: InputRequest) -> None:
        """A task waits on the user: remember the request, toast and ring the bell once; a
        `roots/list` is answered at once from the configuration instead (nobody is asked)."""
        ident = (task_id, request.key)
        self._requests[ident] = request
        self._strays.pop(request.key, None)  # the call's question now belongs to its task
        self._received_at.setdefault(ident, self.clock())
        self._asked_order.setdefault(ident, len(self._asked_order))
        if ident in self._announced or self.readonly:
            return
        self._announced.add(ident)
        if _is_roots(request):
            self._answer_roots(request)
            return
        if len(self.screen_stack) > 1:
            if self.config.bell:  # a modal is open: no toast over its buttons; the header counts it
                self.bell()
            return
        question = one_line(request.message or request.method, 80)
        self._announce(
            f"{middle_line(task_id, 24)} needs input: {question}  (enter on its row; i: inbox)",
            title="Input needed",
            severity="warning",
        )

    def _stray_input(self, request: InputRequest) -> None:
        """A question outside any watched task (asked during a call): open it at once."""
        ident = ("", request.key)
        if ident in self._announced:
            return
        self._announced.add(ident)
        if _is_roots(request):
            if not self.readonly:
                self._answer_roots(request)
            return
        self._strays[request.key] = request
        self._received_at.setdefault(ident, self.clock())
        if self.config.bell:
            self.bell()
        self._answer(request)

    def _add_frames(self, frames: Sequence[Frame]) -> None:
        """Keep the frames for the RPC log, and show them if the log is on screen (a hidden log
        catches up when shown again, so it never costs a layout pass while hidden)."""
        self._frames.extend(frames)
        self._exchanges.add(frames)
        if self._rpc_log_shown():
            assert self._rpc_log is not None
            self._rpc_log.add_frames(frames)
        else:
            self._rpc_log_behind = True

    # ------------------------------------------------------------------ rendering

    def shown_ids(self) -> list[str]:
        """The task ids the list shows, filtered and sorted."""
        return self.tasks.view(self.task_filter, self.sort, descending=self.descending)

    def _refresh_view(self) -> None:
        order = self.shown_ids()
        self.marked &= set(self.tasks.tasks)
        self.table.sync(self.tasks.tasks, order, self.clock(), self.marked)
        self._table_synced_at = time.monotonic()
        self._sync_time_view(order)
        self._show_selected()
        self._update_header(len(order))

    def _sync_time_view(self, order: Sequence[str] | None = None) -> None:
        """Bring the time view up to date with the list (only while it is shown)."""
        view = self._time_view
        if view is None or not self._time_view_shown:
            return
        view.sync(
            self.tasks.tasks,
            self.shown_ids() if order is None else order,
            self.clock(),
            self.marked,
            selected=self.table.selected_task_id,
        )

    def _show_selected(self) -> None:
        selected = self.table.selected_task_id
        self._selected = selected
        self._show_in_detail(self.tasks.get(selected) if selected is not None else None)

    def _show_in_detail(self, watched: WatchedTask | None) -> None:
        """Show `watched` in the detail pane, building the pane when a task is first shown."""
        detail = self._detail
        if detail is None:
            if watched is None:
                return
            from widgets.task_detail import TaskDetail

            detail = self._detail = TaskDetail(id="task-detail")
            pane = self.query_one("#detail", Container)
            pane.query_one("#detail-hint").remove()
            pane.mount(detail)
        detail.watched = watched

    def _tick(self) -> None:
        """Ask for the clock cells and the connection state to be redrawn on the next flush of
        the batcher, so ticks and event batches together redraw the table at most four times a
        second (not once the App is closing)."""
        if self._source_closed or not self.is_running:  # the screens may be torn down
            return
        self._clock_due = True
        self._updates.poke()

    def _redraw_clock(self) -> None:
        """Redraw the clock cells and the connection state.

        The clock cells are skipped when a batch of events redrew the table within the last tick.
        """
        recently = time.monotonic() - self._table_synced_at < self.tick_interval * 0.9
        if self.tasks.tasks and not recently:
            order = self.shown_ids()
            self.table.sync(self.tasks.tasks, order, self.clock(), self.marked)
            self._table_synced_at = time.monotonic()
            self._sync_time_view(order)
        self._update_header()

    def _update_header(self, shown: int | None = None) -> None:
        connection = "failed" if self.failed else self.source.connection_state()
        if self.info is None and connection == "connected":
            connection = "connecting"
        self.query_one(HeaderBar).state = HeaderState(
            info=self.info,
            connection=connection,
            connection_note=None if self.failed else self.source.connection_note(),
            problem=self.problem,
            summary=self.tasks.summary(),
            view=ListView(
                shown=len(self.shown_ids()) if shown is None else shown,
                paused=self.paused,
                filter_text=self.filter_query,
                faults_only=self.task_filter.faults_only,
                sort=self.sort,
                descending=self.descending,
                marked=len(self.marked),
            ),
        )

    @on(TaskTable.TaskSelected)
    def _selection_moved(self, event: TaskTable.TaskSelected) -> None:
        self._selected = event.task_id
        if self._source_closed or not self.is_running:  # the screen is being torn down
            return
        self._show_in_detail(self.tasks.get(event.task_id) if event.task_id else None)
        if self._time_view is not None and self._time_view_shown and event.task_id is not None:
            self._time_view.select_task(event.task_id)

    @on(TimeView.TaskSelected)
    def _bar_selected(self, event: TimeView.TaskSelected) -> None:
        """A bar was selected: select its task in the list, which the detail pane follows."""
        if event.task_id is not None:
            self.table.select_task(event.task_id)

    @on(TaskTable.TaskChosen, "#tasks")
    def _row_chosen(self, event: TaskTable.TaskChosen) -> None:
        self.action_choose_selected()

    def action_choose_selected(self) -> None:
        """Enter on a row or a bar answers the selected task's pending input, if it has any."""
        selected = self.table.selected_task_id
        watched = self.tasks.get(selected) if selected is not None else None
        if watched is not None and watched.input_waiting:
            self.action_answer_input()

    def go_to_task(self, task_id: str) -> None:
        """Select a task (clearing the filter if it hides it); used by the palette."""
        if task_id not in self.shown_ids():
            self._set_filter("", faults_only=False)
        self.table.select_task(task_id)
        self.shown_list.focus()

    @property
    def shown_list(self) -> TaskTable | TimeView:
        """The widget the main list area shows: the task table, or the time view."""
        if self._time_view is not None and self._time_view_shown:
            return self._time_view
        return self.table

    # ------------------------------------------------------------------ targets of list actions

    def target_ids(self) -> list[str]:
        """The marked tasks in list order, or the selected one when nothing is marked."""
        if self.marked:
            shown = self.shown_ids()
            ordered = [task_id for task_id in shown if task_id in self.marked]
            return ordered + sorted(self.marked - set(ordered))
        selected = self.table.selected_task_id
        return [selected] if selected is not None else []

    def _targets(self) -> list[WatchedTask]:
        found = (self.tasks.get(task_id) for task_id in self.target_ids())
        return [watched for watched in found if watched is not None]

    # ------------------------------------------------------------------ create

    def action_new_task(self) -> None:
        self._new_task()

    @work(group="actions", exit_on_error=False, name="new task")
    async def _new_task(self) -> None:
        """Tool picker, then arguments form, then the call."""
        from widgets.arguments_form import ArgumentsForm
        from widgets.tool_picker import ToolPicker

        if self.info is None:
            toast(self, "Not connected yet.", severity="warning")
            return
        try:
            tools = await self.source.list_tools()
        except Exception as exc:
            toast(self, describe(exc), title="tools/list failed", severity="error")
            return
        tool = await self.push_screen_wait(ToolPicker(tools))
        if tool is None:
            return
        capabilities = self.info.capabilities
        form = ArgumentsForm(
            tool,
            legacy=capabilities.wire != "extension",
            can_create_tasks=capabilities.tool_calls,
        )
        request = await self.push_screen_wait(form)
        if request is not None:
            await self.create_task(request)

    async def create_task(self, request: CreateRequest) -> None:
        """Run one tool call; a task is watched, a synchronous answer becomes a finished row."""
        try:
            outcome = await self.source.create(
                request.tool, request.arguments, ttl_ms=request.ttl_ms, as_task=request.as_task
            )
        except Exception as exc:
            toast(
                self, describe(exc), title=f"{one_line(request.tool, 40)} failed", severity="error"
            )
            return
        if outcome.task is not None:
            toast(self, f"Task {one_line(outcome.task.task_id, 40)} created", timeout=3)
            return
        self._show_synchronous(request.tool, outcome.sync_result or {})

    def _show_synchronous(self, tool: str, result: dict[str, Any]) -> None:
        """A call answered at once: a finished row marked "answered synchronously"."""
        self._sync_count += 1
        task_id = f"sync-{self._sync_count}"
        self._synthetic.add(task_id)
        from app.engine.tasks.events import TaskEvent
        from app.engine.tasks.models import Task

        extension = self.info is not None and self.info.capabilities.wire == "extension"
        task = Task(
            task_id=task_id,
            wire="extension" if extension else "legacy",
            status="completed",
            result=result,
            result_source="synchronous",
            tool_name=tool,
            raw=result,
        )
        now = self.clock()
        self.post_message(
            TaskEventsArrived(
                [
                    TaskEvent("created", task_id, task, now, "create"),
                    TaskEvent("result", task_id, task, now, "create"),
                    TaskEvent("stopped", task_id, task, now, "create", detail="completed"),
                ]
            )
        )
        toast(self, f"{one_line(tool, 40)} answered synchronously (no task)", timeout=3)

    # ------------------------------------------------------------------ cancel

    def action_cancel_tasks(self) -> None:
        targets = [
            watched
            for watched in self._targets()
            if not watched.settled and watched.task_id not in self._synthetic
        ]
        if not targets:
            toast(self, "Nothing to cancel: the chosen tasks have settled.", severity="warning")
            return
        body = Text()
        for watched in targets[:8]:
            body.append(
                f"• {one_line(watched.task_id, 40)}  {one_line(watched.tool_name or '', 30)}\n"
            )
        if len(targets) > 8:
            body.append(f"… and {len(targets) - 8} more\n")
        if self.info is not None and self.info.capabilities.wire == "extension":
            body.append("\nCancel is cooperative here: the server may still finish the task.")
        title = f"Cancel {len(targets)} task{'s' if len(targets) != 1 else ''}?"
        ids = [watched.task_id for watched in targets]

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._cancel(ids)

        from widgets.confirm import ConfirmModal

        self.push_screen(ConfirmModal(title, body, yes="Cancel tasks", no="Keep"), confirmed)

    @work(group="actions", exit_on_error=False, name="cancel")
    async def _cancel(self, task_ids: list[str]) -> None:
        cooperative = self.info is not None and self.info.capabilities.wire == "extension"
        for task_id in task_ids:
            try:
                await self.source.cancel(task_id)
            except Exception as exc:
                toast(
                    self,
                    describe(exc),
                    title=f"Cancel {middle_line(task_id, 30)}",
                    severity="error",
                )
                continue
            if cooperative:
                self.post_message(CancelAcknowledged(task_id, self.clock()))

    @on(CancelAcknowledged)
    def _show_cancel_requested(self, message: CancelAcknowledged) -> None:
        if self.tasks.request_cancel(message.task_id, message.at):
            self._refresh_view()

    # ------------------------------------------------------------------ finding tasks

    def action_list_tasks(self) -> None:
        capabilities = self.info.capabilities if self.info else None
        if capabilities is None or capabilities.wire != "legacy" or not capabilities.list:
            toast(
                self,
                "This server has no tasks/list; press a to adopt a task id.",
                severity="warning",
            )
            return
        self._dismissed &= self._synthetic
        self._import_list(quiet=False)

    @work(group="actions", exit_on_error=False, name="tasks/list")
    async def _import_list(self, quiet: bool) -> None:
        """Watch every task the server lists (an explicit `l` brings back forgotten ones too)."""
        try:
            count = await self.source.list_tasks()
        except Exception as exc:
            toast(self, describe(exc), title="tasks/list failed", severity="error")
            return
        if count or not quiet:
            toast(self, f"tasks/list: {count} new task{'s' if count != 1 else ''}", timeout=3)

    def action_adopt_task(self) -> None:
        from widgets.confirm import TextPrompt

        def adopt(task_id: str | None) -> None:
            if task_id is None:
                return
            self._dismissed.discard(task_id)
            try:
                watching = self.source.adopt(task_id)
            except Exception as exc:
                toast(self, describe(exc), title="Adopt", severity="error")
                return
            shown = one_line(task_id, 40)
            toast(self, f"Watching {shown}" if watching else f"{shown} is already watched")

        prompt = TextPrompt(
            "Adopt a task id", "Paste the id of a task on this server.", placeholder="task id"
        )
        self.push_screen(prompt, adopt)

    def action_forget_tasks(self) -> None:
        targets = self.target_ids()
        for task_id in targets:
            self._dismissed.add(task_id)
            if task_id not in self._synthetic:
                self.source.forget(task_id)
            self.tasks.forget(task_id)
            self.marked.discard(task_id)
        if self.known is not None:
            self.known.drop(set(targets))
        if targets:
            self._refresh_view()
            toast(self, f"Forgot {len(targets)} task{'s' if len(targets) != 1 else ''}", timeout=3)

    def action_clear_gone(self) -> None:
        """Remove every row the server no longer knows (forgotten, expired, not found), and
        their ids from the known-task store."""
        gone = [watched.task_id for watched in self.tasks.tasks.values() if watched.gone]
        for task_id in gone:
            self._dismissed.add(task_id)
            self.tasks.forget(task_id)
            self.marked.discard(task_id)
        if self.known is not None and gone:
            self.known.drop(set(gone))
        self._refresh_view()
        count = len(gone)
        toast(self, f"Cleared {count} row{'s' if count != 1 else ''} the server no longer knows")

    # ------------------------------------------------------------------ marks

    def action_toggle_mark(self) -> None:
        selected = self.table.selected_task_id
        if selected is None:
            return
        self.marked ^= {selected}
        self._refresh_view()

    def action_mark_all(self) -> None:
        shown = set(self.shown_ids())
        self.marked = set() if shown <= self.marked else self.marked | shown
        self._refresh_view()

    # ------------------------------------------------------------------ copy, save, export

    def action_copy_json(self) -> None:
        from app.view.export import tasks_json

        targets = self._targets()
        if not targets:
            return
        self.copy_to_clipboard(tasks_json(targets))
        count = len(targets)
        toast(self, f"Copied the JSON of {count} task{'s' if count != 1 else ''} (OSC 52)")

    def action_save_json(self) -> None:
        from app.view.export import default_path, tasks_json

        targets = self._targets()
        if targets:
            self._save(tasks_json(targets), default_path("taskscope-tasks", self.clock()))

    def action_export_tasks(self) -> None:
        """Export the marked (or selected) tasks' lives: Markdown, or JSON for a `.json` path."""
        from app.engine.record.export import export_file_name, render
        from app.view.export import default_path, export_json, shown_lives
        from widgets.confirm import TextPrompt

        targets = self._targets()
        if not targets:
            return
        if self.history is None:
            server = self.info.label if self.info else ""
            text = export_json(targets, server=server, at=self.clock())
            self._save(text, default_path("taskscope-export", self.clock()))
            return
        history = self.history
        task_ids = [watched.task_id for watched in targets]

        def export(path: str | None) -> None:
            if path is not None:
                lives = shown_lives(history(), targets)
                json_wanted = path.lower().endswith(".json")
                text = render(lives, "json" if json_wanted else "md")
                self._write_file(path, text.rstrip("\n"))

        self.push_screen(
            TextPrompt("Export to a file (.md or .json)", value=export_file_name(task_ids, "md")),
            export,
        )

    def _save(self, text: str, suggested: str) -> None:
        from widgets.confirm import TextPrompt

        def write(path: str | None) -> None:
            if path is not None:
                self._write_file(path, text)

        self.push_screen(TextPrompt("Save JSON to a file", value=suggested), write)

    @work(group="actions", exit_on_error=False, name="save")
    async def _write_file(self, path: str, text: str) -> None:
        from app.view.export import write_json

        try:
            written = await asyncio.to_thread(write_json, path, text)
        except OSError as exc:
            toast(self, describe(exc), title="Save failed", severity="error")
            return
        toast(self, f"Saved {written}", timeout=4)

    # ------------------------------------------------------------------ filter, sort, pause

    def action_filter(self) -> None:
        """Open the filter bar (mounted the first time) on the current query."""
        bar = self._filter_bar()
        if bar is None:
            bar = Input(self.filter_query, placeholder=FILTER_HINT, id="filter-bar")
            self.mount(bar, before=self.query_one(KeyFooter))
        else:
            bar.value = self.filter_query
            bar.display = True
        bar.focus()

    def _filter_bar(self) -> Input | None:
        """The filter bar, or None before it is first opened."""
        try:
            return self.query_one("#filter-bar", Input)
        except NoMatches:
            return None

    @on(Input.Changed, "#filter-bar")
    def _filter_typed(self, event: Input.Changed) -> None:
        self._set_filter(event.value, faults_only=self.task_filter.faults_only)

    @on(Input.Submitted, "#filter-bar")
    def _filter_kept(self) -> None:
        self._close_filter_bar()

    def _close_filter_bar(self) -> None:
        bar = self._filter_bar()
        if bar is not None:
            bar.display = False
        self.shown_list.focus()

    def _set_filter(self, query: str, *, faults_only: bool) -> None:
        self.filter_query = query.strip()
        self.task_filter = parse_filter(self.filter_query, faults_only=faults_only)
        self._refresh_view()

    def action_toggle_faults(self) -> None:
        self._set_filter(self.filter_query, faults_only=not self.task_filter.faults_only)

    def action_sort(self, key: SortKey) -> None:
        """Sort by `key` the way a person expects (age and changed: newest first); the same key
        again reverses."""
        if self.sort == key:
            self.descending = not self.descending
        else:
            self.sort, self.descending = key, key in FIRST_DESCENDING
        self._refresh_view()

    def action_toggle_pause(self) -> None:
        self.paused = not self.paused
        try:
            self.source.set_paused(self.paused)
        except Exception as exc:
            self.paused = not self.paused
            toast(self, describe(exc), severity="error")
            return
        self.screen.set_class(self.paused, "-paused")
        self._update_header()

    def action_poll_now(self) -> None:
        """Poll the chosen tasks now and say how many went out and why the others did not."""
        from app.view.formatting import STATUS_WORDS
        from app.view.poll_feedback import poll_feedback

        if self.readonly:
            toast(self, "Read-only: a recording is not polled.", severity="warning")
            return
        chosen = self._targets()
        synchronous = [w for w in chosen if w.task_id in self._synthetic]
        finished = [w for w in chosen if w.settled and w.task_id not in self._synthetic]
        open_ids = [w.task_id for w in chosen if not w.settled and w.task_id not in self._synthetic]
        try:
            polled = sum(self.source.poll_now(task_id) for task_id in open_ids)
        except Exception as exc:
            toast(self, describe(exc), severity="error")
            return
        feedback = poll_feedback(
            polled,
            [STATUS_WORDS.get(w.status, w.status) for w in finished],
            len(open_ids) - polled,
            len(synchronous),
        )
        toast(
            self,
            feedback.message,
            severity="warning" if feedback.warning else "information",
            timeout=4 if feedback.warning else 2,
        )

    # ------------------------------------------------------------------ input

    def action_answer_input(self) -> None:
        selected = self.table.selected_task_id
        watched = self.tasks.get(selected) if selected is not None else None
        if watched is None:
            return
        request = self._pending_request(watched)
        if request is None:
            toast(self, "This task is not waiting for an answer.", severity="warning")
            return
        self._answer(request)

    def _pending_request(self, watched: WatchedTask) -> InputRequest | None:
        for key in self._in_asking_order(watched):
            found = self._request_for(watched, key)
            if found is not None:
                return found
        return None

    @work(group="input", exit_on_error=False, name="answer")
    async def _answer(self, request: InputRequest) -> None:
        await self.answer_request(request)

    @work(group="input", exit_on_error=False, name="roots/list")
    async def _answer_roots(self, request: InputRequest) -> None:
        """Answer a `roots/list` from `--root` at once; the timeline says what was sent (a
        question outside any task gets a short toast saying so)."""
        sent = await self.source.answer_roots(request)
        if sent is not None and not request.task_id and self.config.toasts:
            toast(self, sent, title="roots/list", timeout=4)

    async def answer_request(self, request: InputRequest) -> dict[str, Any] | None:
        """Open the modal for one input request (the input modals' entry point); call it from a
        worker. The acknowledged response, or None when nothing was sent."""
        from app.tui.inputs import open_input

        if self.readonly:
            toast(self, "Read-only: answers are not sent.", severity="warning")
            return None
        self.clear_notifications()  # the toasts would cover the modal's buttons

        async def submit(response: dict[str, Any]) -> None:
            await self.source.answer(request, response)

        async def reject() -> bool:
            rejected = await self.source.reject(request)
            if rejected:
                self._strays.pop(request.key, None)
            return rejected

        def keep_draft(draft: dict[str, Any]) -> None:
            if len(self._drafts) >= MAX_KEPT_DRAFTS:
                self._drafts.pop(next(iter(self._drafts)))
            self._drafts[draft_key] = draft

        draft_key = (request.task_id or "", request.key)
        answered = await open_input(
            self,
            request,
            submit=submit,
            server=self.info.server_name if self.info else "",
            draft=self._drafts.pop(draft_key, None) or self.source.staged_answer(request),
            reject=reject,
            keep_draft=keep_draft,
        )
        if request.task_id is None and request.key in self._strays:
            if answered is not None:
                del self._strays[request.key]
            else:
                toast(self, "Put off: the question waits in the inbox (i).", timeout=4)
        return answered

    def inbox_entries(self) -> list[InboxEntry]:
        """Every input request a watched task is waiting on, with when it was first seen."""
        from widgets.input_inbox import InboxEntry

        server = self.info.server_name if self.info else ""
        entries = [
            InboxEntry(request, server, self._received_at.get(("", key), self.clock()))
            for key, request in self._strays.items()
        ]
        for watched in self.tasks.tasks.values():
            for key in self._in_asking_order(watched):
                request = self._request_for(watched, key)
                if request is not None:
                    arrived = self._received_at.get((watched.task_id, key), watched.last_change)
                    entries.append(InboxEntry(request, server, arrived))
        return entries

    def _in_asking_order(self, watched: WatchedTask) -> list[str]:
        """The task's pending request keys in the order the server asked them."""
        last = len(self._asked_order)
        return sorted(
            watched.pending_inputs,
            key=lambda key: (self._asked_order.get((watched.task_id, key), last), key),
        )

    def _request_for(self, watched: WatchedTask, key: str) -> InputRequest | None:
        inline = watched.task.input_requests if watched.task is not None else ()
        for request in inline:
            if request.key == key:
                return request
        return self._requests.get((watched.task_id, key))

    def action_input_inbox(self) -> None:
        from widgets.input_inbox import InputInbox

        async def answer(entry: InboxEntry) -> dict[str, Any] | None:
            return await self.answer_request(entry.request)

        self.push_screen(InputInbox(self.inbox_entries(), answer, clock=self.clock))

    def _refresh_inbox(self) -> None:
        if len(self.screen_stack) < 2:
            return  # only the main screen: no inbox is open (nor its module loaded)
        from widgets.input_inbox import InputInbox

        for screen in self.screen_stack:
            if isinstance(screen, InputInbox):
                screen.set_entries(self.inbox_entries())

    # ------------------------------------------------------------------ panes

    def action_toggle_log(self) -> None:
        """Show or hide the RPC log; it is built the first time, from the frames kept so far."""
        if self._rpc_log is None:
            from widgets.rpc_log import RpcLog

            self._rpc_log = RpcLog(self._frames, max_frames=self.config.rpc_log, id="rpc-log")
            self._rpc_log_behind = False
            self.mount(self._rpc_log, before=self.query_one(KeyFooter))
        self.screen.toggle_class("-show-rpc")
        if not self._rpc_log_shown():
            if self._rpc_log.has_focus:
                self.table.focus()
            return
        if self._rpc_log_behind:
            self._rpc_log.set_frames(self._frames)
            self._rpc_log_behind = False
        self._rpc_log.focus()

    def on_rpc_log_frame_chosen(self, message: RpcLog.FrameChosen) -> None:
        """Enter or a click on a line of the RPC log: open that frame's exchange."""
        self.open_exchange(message.frame)

    def open_exchange(self, frame: Frame) -> None:
        """Open the exchange view on `frame` with its partner frame (if still kept)."""
        from app.view.export import default_path
        from widgets.frame_exchange import ExchangeScreen

        exchange = self._exchanges.find(frame)
        suggested = default_path("taskscope-exchange", self.clock())
        self.push_screen(ExchangeScreen(exchange, self._save, suggested_path=suggested))

    def _rpc_log_shown(self) -> bool:
        """Whether the RPC log has been built and its screen shows it."""
        log = self._rpc_log
        return log is not None and log.screen.has_class("-show-rpc")

    async def action_toggle_time_view(self) -> None:
        """Swap the list for the time view (built the first time) or back; the selection stays."""
        view = self._time_view
        if view is None:
            view = self._time_view = TaskTimeline(id="time-view")
            await self.query_one("#main", Container).mount(view, after=self.table)
        self._time_view_shown = not self._time_view_shown
        self.screen_stack[0].set_class(self._time_view_shown, "-time-view")
        if self._time_view_shown:
            self._sync_time_view()
            self.call_after_refresh(view.move_cursor, view.cursor_row)  # scroll once laid out
            view.focus()
        else:
            self.table.move_cursor(self.table.cursor_row)
            self.table.focus()

    def action_toggle_zoom(self) -> None:
        """Give the detail pane the whole screen, or the list its place back (and the focus it
        lost when it was hidden)."""
        screen = self.screen
        if screen.has_class("-zoom-detail"):
            screen.remove_class("-zoom-detail")
            if self._list_had_focus:
                self.shown_list.focus()
        else:
            self._list_had_focus = self.shown_list.has_focus
            screen.add_class("-zoom-detail")

    def action_show_frame(self) -> None:
        """Open the exchange of the selected task's offending (else last) frame, as the RPC log
        does; the detail's Raw tab when no frame about it is kept (a replay without frames)."""
        selected = self.table.selected_task_id
        watched = self.tasks.get(selected) if selected is not None else None
        if watched is None:
            return
        offending = watched.violation.frame if watched.violation is not None else None
        frame = task_frame(self._frames, watched.task_id, offending)
        if frame is not None:
            self.open_exchange(frame)
        elif self._detail is not None:
            self._detail.show_tab("raw")

    def action_toggle_help(self) -> None:
        from textual.widgets import HelpPanel

        try:
            self.screen.query_one(HelpPanel)
        except NoMatches:
            self.action_show_help_panel()
        else:
            self.action_hide_help_panel()

    def on_key(self, event: events.Key) -> None:
        """A greyed-out key says why; escape in the filter bar clears the filter, elsewhere it
        clears the marks."""
        active = self.screen.active_bindings.get(event.key)
        if active is not None and not active.enabled:
            reason = self.disabled_reason(active.binding.action.removeprefix("app."))
            if reason is not None:
                event.stop()
                toast(self, reason, severity="warning")
                return
        if event.key != "escape":
            return
        bar = self._filter_bar()
        if bar is not None and bar.has_focus:
            event.stop()
            bar.value = ""
            self._set_filter("", faults_only=self.task_filter.faults_only)
            self._close_filter_bar()
        elif self.marked and self.screen is self.screen_stack[0]:
            self.marked.clear()
            self._refresh_view()

    # ------------------------------------------------------------------ shutdown

    async def action_quit(self) -> None:
        """Leave at once; the connection is closed on unmount, or after the App's terminal is
        restored when `close_on_unmount` is off (the command line's case)."""
        self.exit(0)

    async def close_source(self) -> None:
        """Close the connection (and stop a spawned server) once."""
        if self._source_closed:
            return
        self._source_closed = True
        self._updates.cancel()
        self.workers.cancel_group(self, "engine")
        await self.source.close()

    async def on_unmount(self) -> None:
        if self.close_on_unmount:
            await self.close_source()
