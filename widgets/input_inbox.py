"""The input inbox: every pending input of all tasks and servers, oldest first (at most
`MAX_INBOX_ROWS` of them listed); enter answers one.

The App keeps the list (it knows when each request arrived and which server sent it) and hands it
in as `InboxEntry`s, updating it with `set_entries` while the inbox is open. Enter on a row calls
the App's `answer` coroutine (which opens the right modal); an answered row disappears, one put off
with "Later" stays, and the inbox closes after the last answer. The Question column takes the
room the others leave (the Server column is shown only when several servers are watched).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from app.engine.safety.sanitize import middle_line, one_line
from app.engine.tasks.models import InputRequest
from app.engine.tasks.server_keys import bare_id
from app.view.formatting import format_since, questions_waiting
from widgets.input_modal import INPUTS_CSS, request_message
from widgets.plain import toast


@dataclass(frozen=True, slots=True)
class InboxEntry:
    """One pending input: the request, the server that sent it, and when it arrived (epoch s)."""

    request: InputRequest
    server: str
    received_at: float

    @property
    def row_key(self) -> str:
        """Unique across servers and tasks: the same key may recur on another task or server."""
        return "\x1f".join((self.server, self.request.task_id or "", self.request.key))


AnswerEntry = Callable[[InboxEntry], Awaitable[dict[str, Any] | None]]
"""Answers one entry (opens its modal); returns the acknowledged response, or None if put off."""

INBOX_COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("age", "Age", 7),
    ("task", "Task", 16),
    ("server", "Server", 14),
    ("kind", "Kind", 9),
)
"""The fixed columns (key, label, width); the Question column after them takes the room left."""
QUESTION_MIN_WIDTH = 20
"""The Question column is never narrower than this, however small the terminal."""
QUESTION_START_WIDTH = 60
"""The Question column's width before the table has been laid out (it is measured after)."""
AGE_REFRESH_SECONDS = 1.0
MAX_INBOX_ROWS = 200
"""Rows the inbox lists (the oldest first); the count names them all, and answering one brings
the next in. A server may ask thousands at once, and a row each would be rebuilt on every batch."""


class InputInbox(ModalScreen[None]):
    """Every pending input in one list; enter answers the highlighted one, escape closes."""

    CSS_PATH = INPUTS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="inbox-close"),
    ]

    def __init__(
        self,
        entries: Sequence[InboxEntry],
        answer: AnswerEntry,
        *,
        clock: Callable[[], float] = time.time,
        several_servers: bool = False,
    ) -> None:
        super().__init__()
        self._entries = list(entries)
        self._columns = [c for c in INBOX_COLUMNS if several_servers or c[0] != "server"]
        """The Server column only when several servers are watched: with one it says nothing."""
        self._answer = answer
        self._clock = clock
        self._answering = False

    @property
    def entries(self) -> list[InboxEntry]:
        """The pending entries, oldest first."""
        return sorted(self._entries, key=lambda entry: entry.received_at)

    def compose(self) -> ComposeResult:
        with Vertical(id="inbox-body"):
            yield Static("Pending input", id="inbox-title")
            yield Static("", id="inbox-count")
            yield DataTable(id="inbox-table", cursor_type="row")
            yield Static("No input is waiting.", id="inbox-empty")
            yield Static(Text("enter answer · esc close", style="dim"), id="input-keys")

    def on_mount(self) -> None:
        self._sync()
        self.query_one("#inbox-table", DataTable).focus()
        self.set_interval(AGE_REFRESH_SECONDS, self._refresh_ages)
        self.call_after_refresh(self._resync)  # the table's width is known once laid out

    def on_resize(self) -> None:
        """The Question column follows the terminal's width."""
        self.call_after_refresh(self._resync)

    def _resync(self) -> None:
        if self.is_mounted and self.is_attached:
            self._sync()

    def _question_width(self, table: DataTable[Text]) -> int:
        """The room the fixed columns and the scrollbar leave for the Question column."""
        if not table.size.width:
            return QUESTION_START_WIDTH
        padding = 2 * table.cell_padding
        fixed = sum(width + padding for _, _, width in self._columns)
        room = table.size.width - table.styles.scrollbar_size_vertical - fixed - padding
        return max(QUESTION_MIN_WIDTH, room)

    def set_entries(self, entries: Sequence[InboxEntry]) -> None:
        """Replace the list (new inputs arrived, others were answered elsewhere)."""
        self._entries = list(entries)
        if self.is_mounted:
            self._sync()

    def _sync(self) -> None:
        table: DataTable[Text] = self.query_one("#inbox-table", DataTable)
        count = len(self._entries)
        entries = self.entries[:MAX_INBOX_ROWS]
        current = table.cursor_row
        selected = None
        if table.row_count and 0 <= current < table.row_count:
            selected = table.coordinate_to_cell_key(Coordinate(current, 0)).row_key.value
        table.clear(columns=True)
        question_width = self._question_width(table)
        for key, label, width in self._columns:
            table.add_column(label, key=key, width=width)
        table.add_column("Question", key="question", width=question_width)
        now = self._clock()
        for entry in entries:
            table.add_row(*self._cells(entry, now, question_width), key=entry.row_key)
        keys = [entry.row_key for entry in entries]
        if selected in keys:
            table.move_cursor(row=keys.index(selected))
        listed = f" (the oldest {MAX_INBOX_ROWS:,} listed)" if count > MAX_INBOX_ROWS else ""
        self.query_one("#inbox-count", Static).update(
            Text(f"{questions_waiting(count)}, oldest first{listed}" if count else "", style="dim")
        )
        table.display = count > 0
        self.query_one("#inbox-empty", Static).display = count == 0

    def _cells(self, entry: InboxEntry, now: float, question_width: int) -> list[Text]:
        request = entry.request
        task = bare_id(request.task_id, entry.server) if request.task_id else "(no task)"
        cells = {
            "age": Text(format_since(entry.received_at, now)),
            "task": Text(middle_line(task, 16)),
            "server": Text(one_line(entry.server or "—", 14)),
            "kind": Text(request.kind.value),
        }
        question = one_line(request_message(request) or request.method, question_width)
        return [cells[key] for key, _, _ in self._columns] + [Text(question)]

    def _refresh_ages(self) -> None:
        table: DataTable[Text] = self.query_one("#inbox-table", DataTable)
        now = self._clock()
        for entry in self._entries:
            if entry.row_key in table.rows:
                table.update_cell(entry.row_key, "age", Text(format_since(entry.received_at, now)))

    @on(DataTable.RowSelected, "#inbox-table")
    def answer_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row: answer that input."""
        chosen = [entry for entry in self._entries if entry.row_key == event.row_key.value]
        if chosen and not self._answering:
            self._answer_entry(chosen[0])

    @work(exclusive=True, group="inbox-answer", exit_on_error=False)
    async def _answer_entry(self, entry: InboxEntry) -> None:
        self._answering = True
        try:
            response = await self._answer(entry)
        except Exception as error:  # shown, never silently dropped; the entry stays listed
            toast(
                self, str(error) or type(error).__name__, title="Could not answer", severity="error"
            )
            return
        finally:
            self._answering = False
        if response is not None:
            self._entries = [other for other in self._entries if other.row_key != entry.row_key]
            if not self._entries:
                self.dismiss(None)  # the last answer: nothing is left to list
                return
            self._sync()

    def action_close(self) -> None:
        self.dismiss(None)
