"""What the verbs, panes and workers of the App may use of it, as narrow protocols: the state
each reads, the source it calls, the notices it posts. `TaskscopeApp` satisfies them all, and
only the entry point (`app.tui.run`) imports it, so nothing that serves the App depends on the
App's module (an import-linter contract keeps it so, TYPE_CHECKING imports included).

`Screens` is the part of Textual's `App` they use; each other protocol adds what one verb or
pane reads or sets, and nothing more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, overload

from app.tui.created_row import Selecting
from widgets.plain import Notifier

if TYPE_CHECKING:
    from textual.message import Message
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.widget import AwaitMount, Widget
    from textual.worker import Worker

    from app.engine.record.recording import Entry, SessionInfo
    from app.tui.check_run import CheckRun
    from app.tui.config import TuiConfig
    from app.tui.list_query import ListQuery
    from app.tui.lists import TaskList
    from app.tui.notes import NoteMerger
    from app.tui.pending_inputs import PendingInputs
    from app.tui.timeline import TaskTimeline
    from app.view.exchanges import FrameBuffer
    from app.view.known_tasks import KnownTasks, KnownTasksOfServers
    from app.view.sign_in import SignInState
    from app.view.source import TaskSource
    from app.view.state import TaskFilter, TasksState
    from widgets.rpc_log import RpcLog
    from widgets.sign_in_screen import SignInScreen
    from widgets.task_detail import TaskDetail
    from widgets.task_table import TaskTable
    from widgets.time_view import TimeView

_Result = TypeVar("_Result")
_Widget = TypeVar("_Widget", bound="Widget")
Clock = Callable[[], float]
"""What the App reads the time from (`time.time`, or a test's frozen clock)."""


class Screens(Notifier, Protocol):
    """Textual's part: workers, screens, messages and toasts (the `App` methods, as typed)."""

    def run_worker(
        self,
        work: Awaitable[Any] | Callable[[], Any],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...

    @overload
    def push_screen(
        self,
        screen: Screen[_Result],
        callback: ScreenResultCallbackType[_Result] | None = None,
        wait_for_dismiss: Literal[False] = False,
    ) -> AwaitMount: ...

    @overload
    def push_screen(
        self,
        screen: Screen[_Result],
        callback: ScreenResultCallbackType[_Result] | None = None,
        wait_for_dismiss: Literal[True] = True,
    ) -> asyncio.Future[_Result]: ...

    async def push_screen_wait(self, screen: Screen[_Result]) -> _Result: ...

    def post_message(self, message: Message) -> bool: ...


class Stacked(Protocol):
    """The screens open, the main one first (whether a modal covers it)."""

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...


class Chosen(Protocol):
    """What says which tasks a list action acts on (`app.tui.targets`)."""

    @property
    def tasks(self) -> TasksState: ...
    @property
    def table(self) -> TaskList: ...
    @property
    def marked(self) -> set[str]: ...
    def shown_ids(self) -> list[str]: ...


class Connected(Screens, Protocol):
    """The server watched: who it is and the source that calls it (`server_choice`, sign-out)."""

    @property
    def info(self) -> SessionInfo | None: ...
    @property
    def source(self) -> TaskSource: ...


class Creating(Connected, Selecting, Protocol):
    """`n`: a synchronous answer becomes a row of its own."""

    @property
    def clock(self) -> Clock: ...
    @property
    def synthetic(self) -> set[str]: ...


class Cancelling(Creating, Chosen, Protocol):
    """`c` on tasks: the chosen ones, not the synchronous rows."""


class Polling(Cancelling, Protocol):
    """`r`: a recording is not polled."""

    @property
    def readonly(self) -> bool: ...


class Saving(Connected, Chosen, Protocol):
    """`y`, `s`, `e` and every file the App writes."""

    @property
    def clock(self) -> Clock: ...
    @property
    def history(self) -> Callable[[], Sequence[Entry]] | None: ...
    def copy_to_clipboard(self, text: str) -> None: ...


class HeaderRedraw(Protocol):
    """The part of `app.tui.redraw.Redraw` a verb or pane asks for."""

    def header(self, shown: int | None = None) -> None: ...
    def time_view(self, order: Sequence[str] | None = None) -> None: ...


class Advertising(Connected, Protocol):
    """The palette's "Advertised capabilities": the header says what is withheld."""

    @property
    def redraw(self) -> HeaderRedraw: ...


class Watching(Cancelling, Protocol):
    """`l`, `a`, `f`, "Clear forgotten", and what is watched on connecting."""

    remember_tasks: bool
    known: KnownTasks | KnownTasksOfServers | None
    dismissed: set[str]

    def refresh_view(self) -> None: ...


class Answering(Connected, Protocol):
    """`enter` on a waiting row, `i` the inbox, a question outside any task."""

    @property
    def tasks(self) -> TasksState: ...
    @property
    def table(self) -> TaskList: ...
    @property
    def inputs(self) -> PendingInputs: ...
    @property
    def config(self) -> TuiConfig: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def readonly(self) -> bool: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    def clear_notifications(self) -> None: ...


class Intake(Answering, Protocol):
    """A batch of poller events folded into the state, and the notes it makes."""

    @property
    def dismissed(self) -> set[str]: ...
    @property
    def synthetic(self) -> set[str]: ...
    @property
    def known(self) -> KnownTasks | KnownTasksOfServers | None: ...
    @property
    def notes(self) -> NoteMerger: ...
    def bell(self) -> None: ...


class Exchanges(Screens, Protocol):
    """The exchange view of a frame (the RPC log's, or a check's)."""

    @property
    def clock(self) -> Clock: ...
    @property
    def frames(self) -> FrameBuffer: ...


class Checking(Connected, Exchanges, Protocol):
    """`c`: the check run under way, on the selected row's server."""

    check_run: CheckRun | None

    @property
    def tasks(self) -> TasksState: ...
    @property
    def table(self) -> TaskList: ...


class Widgets(Protocol):
    """Mounting and finding the main screen's widgets (Textual's `App` methods, as typed)."""

    @property
    def screen(self) -> Screen[object]: ...

    def mount(
        self,
        *widgets: Widget,
        before: int | str | Widget | None = None,
        after: int | str | Widget | None = None,
    ) -> AwaitMount: ...

    @overload
    def query_one(self, selector: str) -> Widget: ...
    @overload
    def query_one(self, selector: type[_Widget]) -> _Widget: ...
    @overload
    def query_one(self, selector: str, expect_type: type[_Widget]) -> _Widget: ...


class Filtering(Widgets, Stacked, Protocol):
    """The `/` filter bar."""

    @property
    def filter_query(self) -> str: ...
    @property
    def task_filter(self) -> TaskFilter: ...
    @property
    def shown_list(self) -> TaskTable | TimeView: ...
    def set_filter(self, query: str, *, faults_only: bool) -> None: ...


class Shown(Widgets, Selecting, Protocol):
    """What `app.tui.redraw.Redraw` draws the widgets from."""

    @property
    def tasks(self) -> TasksState: ...
    @property
    def table(self) -> TaskList: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def tick_interval(self) -> float: ...
    @property
    def info(self) -> SessionInfo | None: ...
    @property
    def source(self) -> TaskSource: ...
    @property
    def problem(self) -> str | None: ...
    @property
    def failed(self) -> bool: ...
    @property
    def paused(self) -> bool: ...
    @property
    def list_query(self) -> ListQuery: ...
    @property
    def time_view(self) -> TaskTimeline | None: ...
    @property
    def time_view_shown(self) -> bool: ...

    detail_pane: TaskDetail | None
    marked: set[str]

    def shown_ids(self) -> list[str]: ...


class Panes(Connected, Exchanges, Widgets, Protocol):
    """The RPC log, the exchange view, the time view, the zoomed detail, the server pane, help
    and the sign-in screen: built when first shown, so their slots are set here."""

    rpc_log: RpcLog | None
    rpc_log_behind: bool
    time_view: TaskTimeline | None
    time_view_shown: bool
    list_had_focus: bool
    sign_in: SignInScreen | None
    sign_ins_waiting: dict[str, SignInState]

    @property
    def tasks(self) -> TasksState: ...
    @property
    def table(self) -> TaskList: ...
    @property
    def problem(self) -> str | None: ...
    @property
    def failed(self) -> bool: ...
    @property
    def detail_pane(self) -> TaskDetail | None: ...
    @property
    def shown_list(self) -> TaskTable | TimeView: ...
    @property
    def redraw(self) -> HeaderRedraw: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    def call_after_refresh(
        self, callback: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> bool: ...
    def action_show_help_panel(self) -> None: ...
    def action_hide_help_panel(self) -> None: ...


class Palette(Protocol):
    """The command palette's entries: the App's actions by name, and going to a task."""

    @property
    def readonly(self) -> bool: ...
    @property
    def tasks(self) -> TasksState: ...
    def go_to_task(self, task_id: str) -> None: ...
    def action_new_task(self) -> None: ...
    def action_adopt_task(self) -> None: ...
    def action_list_tasks(self) -> None: ...
    def action_toggle_pause(self) -> None: ...
    def action_toggle_faults(self) -> None: ...
    def action_toggle_log(self) -> None: ...
    def action_show_server(self) -> None: ...
    def action_advertised_capabilities(self) -> None: ...
    async def action_toggle_time_view(self) -> None: ...
    def action_clear_gone(self) -> None: ...
    def action_check_server(self) -> None: ...
    def action_sign_out(self) -> None: ...


class Listing(Filtering, Chosen, Notifier, Protocol):
    """What the App's own actions set (`app.tui.actions`): the list's query, marks and pause,
    and the keys greyed out for this server."""

    list_query: ListQuery
    marked: set[str]
    paused: bool

    @property
    def info(self) -> SessionInfo | None: ...
    @property
    def readonly(self) -> bool: ...
    @property
    def source(self) -> TaskSource: ...
    def refresh_view(self) -> None: ...
    def disabled_reason(self, action: str) -> str | None: ...
    def exit(self, result: int | None = None) -> None: ...
