"""The two-line header: who the server is and how we speak to it, then what the list shows.

Line one: server name and version, transport, negotiated protocol version, tasks wire with its
declared verbs, connection state (with "reconnecting in 4 s (attempt 3)" while reconnecting).
Line two: task counts, tasks withheld, paused, filter and sort. Server text (name, version) is
sanitized; nothing is parsed as markup.

Each line is fitted to the width it has, so what matters stays on screen: line one gives up the
era note first, then the declared verbs, the protocol version and the server's version (the tasks
wire stays), then cuts the server's description and the problem (shown whole in the detail pane)
with "…", and the connection state is always shown; line two cuts the per-status counts
before the marks, pause, filter and sort notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from app.engine.safety.sanitize import one_line
from app.view.formatting import era_tag, questions_waiting, sort_label, verbs_text
from app.view.state import TasksSummary
from widgets.theme_style import theme_style

if TYPE_CHECKING:  # annotations only: the App's first frame does not load the engine
    from app.engine.record.recording import SessionInfo
    from app.view.source import ConnectionState
    from app.view.task_filter import SortKey

ABOUT_MIN_WIDTH = 16
"""Cells of the server's description kept beside a long problem (the problem is cut first)."""
ABOUT_DETAIL_LEVELS = 4
"""How much of the server's description line one can give up before cutting it: the verbs, the
protocol version, the server's version (see `_about_text`)."""
_MUTED = Style(dim=True)
_BOLD = Style(bold=True)
_STATE_STYLE: dict[str, str] = {
    "loading": "text-warning",
    "connecting": "text-warning",
    "connected": "text-success",
    "reconnecting": "text-warning",
    "closed": "text-error",
    "failed": "text-error",
}
_STATE_GLYPH: dict[str, str] = {
    "loading": "◌",
    "connecting": "◌",
    "connected": "●",
    "reconnecting": "↻",
    "closed": "○",
    "failed": "✗",
}


def era_text(era: Mapping[str, Any]) -> Text:
    """The whole decision (the header's tooltip): why it settled, then each request's answer."""
    text = Text(f"Era {era_tag(era)}: {one_line(str(era.get('reason', '')), 200)}")
    tried = era.get("tried")
    for step in tried if isinstance(tried, list) else []:
        if isinstance(step, dict):
            method = one_line(str(step.get("method", "")), 40)
            version = one_line(str(step.get("protocolVersion", "")), 20)
            answer = one_line(str(step.get("answer", "")), 200)
            text.append(f"\n  {method} at {version}: {answer}")
    return text


@dataclass(frozen=True, slots=True)
class ListView:
    """What the second line says about the list: shown count, filter, sort, pause."""

    shown: int
    paused: bool
    filter_text: str
    faults_only: bool
    sort: SortKey | None
    descending: bool
    marked: int


@dataclass(frozen=True, slots=True)
class HeaderState:
    """Everything the header shows; replaced as a whole so the widget repaints once."""

    info: SessionInfo | None
    connection: ConnectionState
    problem: str | None
    summary: TasksSummary | None
    view: ListView
    connection_note: str | None = None
    """Said after the state, e.g. "reconnecting in 4 s (attempt 3)" (plain text)."""
    tasks_withheld: bool = False
    """The user withholds tasks from the server (`--withhold tasks`, or the palette's
    "Advertised capabilities"): it is asked for no task."""


class HeaderBar(Widget):
    """The App's header; set `state` and it repaints, fitted to its width."""

    DEFAULT_CSS = """
    HeaderBar {
        height: 2;
        padding: 0 1;
    }
    """

    state: reactive[HeaderState | None] = reactive(None, init=False, layout=False)

    def watch_state(self) -> None:
        self.refresh()  # always two lines: no layout pass
        info = self.state.info if self.state is not None else None
        self.tooltip = era_text(info.era) if info is not None and info.era else None

    def render(self) -> Text:
        return self.header_text(self.content_size.width or None)

    def _style(self, variable: str) -> Style:
        return theme_style(self.app.theme_variables, variable, bold=True)

    def header_text(self, width: int | None = None) -> Text:
        """Both lines as one `Text`, each fitted to `width` cells (None: everything, uncut)."""
        state = self.state
        if state is None:
            return Text("taskscope", style=_BOLD)
        text = Text("\n").join([self._server_line(state, width), self._list_line(state, width)])
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text

    def _server_line(self, state: HeaderState, width: int | None) -> Text:
        head = Text("taskscope", _BOLD)
        about = self._about_text(state)
        connection = self._connection_text(state)
        problem = Text(no_wrap=True)
        if state.problem:
            problem.append("  ")
            problem.append(one_line(state.problem, 80), self._style("text-error"))
        info = state.info
        era = (
            Text(f"  era {era_tag(info.era)}", _MUTED) if info is not None and info.era else Text()
        )
        if width is not None:
            fixed = head.cell_len + connection.cell_len
            if fixed + about.cell_len + problem.cell_len + era.cell_len > width:
                era = Text()
            room = max(width - fixed, 0)
            if about.cell_len + problem.cell_len > room:
                about_room = max(room - problem.cell_len, min(about.cell_len, ABOUT_MIN_WIDTH))
                about = self._fitted_about(state, about, min(about_room, room))
                problem = _cut(problem, room - about.cell_len)
            connection = _cut(connection, max(width - head.cell_len, 0))
        return Text.assemble(head, about, connection, problem, era, no_wrap=True)

    def _fitted_about(self, state: HeaderState, whole: Text, width: int) -> Text:
        """The server's description (`whole`, at full detail) in `width` cells: whole if it
        fits, else without the declared verbs, then the protocol version, then the server's
        version (the tasks wire stays), and cut with "…" only when even that does not fit."""
        about, detail = whole, ABOUT_DETAIL_LEVELS - 1
        while about.cell_len > width and detail > 0:
            detail -= 1
            about = self._about_text(state, detail)
        return _cut(about, width)

    def _about_text(self, state: HeaderState, detail: int = ABOUT_DETAIL_LEVELS - 1) -> Text:
        """The server: name, version, transport, protocol and tasks wire (or what is happening
        before it is known); a lower `detail` leaves out the verbs (below 3), the protocol
        version (below 2) and the server's version (below 1)."""
        line = Text(no_wrap=True)
        info = state.info
        if info is None:
            if state.connection in ("loading", "connecting"):
                starting = "loading the engine…" if state.connection == "loading" else "connecting…"
                line.append(f"  {starting}", _MUTED)
            return line
        line.append("  ")
        if info.several:
            line.append(f"{len(info.several)} servers", _BOLD)
            line.append(" · ", _MUTED)
            line.append(one_line(info.label.rsplit("/", 1)[-1], 40))  # the whole path: `s`
            return line
        line.append(one_line(info.server_name or "unnamed server", 40), _BOLD)
        if detail >= 1:
            line.append(" " + one_line(info.server_version, 20))
        line.append(" · ", _MUTED)
        line.append(info.transport)
        if detail >= 2:
            line.append(" · ", _MUTED)
            line.append(one_line(info.protocol_version, 20))
        line.append(" · ", _MUTED)
        capabilities = info.capabilities
        line.append(f"{capabilities.wire} tasks", _BOLD)
        if capabilities.wire != "none" and detail >= 3:
            line.append(f" [{verbs_text(capabilities)}]", _MUTED)
        return line

    def _connection_text(self, state: HeaderState) -> Text:
        """` · ● connected` (or replay, and the recorded connection's state when it was not
        connected), the source's note (reconnecting, or a replay's skipped lines), and
        read-only."""
        line = Text(no_wrap=True)
        info = state.info
        line.append(" · ", _MUTED)
        replay = info is not None and info.replay
        if replay:
            line.append("▶ replay", self._style("text-accent"))
        style = self._style("text-accent")
        if not replay or state.connection != "connected":  # a replay shows what was recorded
            if replay:
                line.append(" · ", _MUTED)
            glyph = _STATE_GLYPH.get(state.connection, "·")
            style = self._style(_STATE_STYLE[state.connection])
            line.append(f"{glyph} {state.connection}", style)
        if state.connection_note:
            line.append(f": {one_line(state.connection_note, 80)}", style)
        if info is not None and info.readonly:
            line.append(" read-only", self._style("text-warning"))
        return line

    def _list_line(self, state: HeaderState, width: int | None) -> Text:
        counts = Text(no_wrap=True)
        notes = Text(no_wrap=True)
        view = state.view
        summary = state.summary
        total = summary.total if summary is not None else 0
        noun = "task" if total == 1 else "tasks"
        shown = f"{view.shown} of {total} {noun}" if view.shown != total else f"{total} {noun}"
        if summary is not None:
            for status in ("working", "input_required", "completed", "failed", "cancelled"):
                count = summary.by_status.get(status, 0)
                if count:
                    word = "input" if status == "input_required" else status
                    counts.append(f" · {count} {word}", _MUTED)
            gone = sum(summary.by_status.get(s, 0) for s in ("expired", "forgotten", "not_found"))
            if gone:
                counts.append(f" · {gone} gone", _MUTED)
            unseen = summary.by_status.get("not_visible", 0)
            if unseen:
                counts.append(f" · {unseen} not visible", _MUTED)
            if summary.input_waiting:
                notes.append(
                    f"  ✉ {questions_waiting(summary.input_waiting)}", self._style("text-warning")
                )
            if summary.erroring:
                notes.append(f"  ⚠ {summary.erroring} erroring", self._style("text-error"))
        if view.marked:
            notes.append(f"  ▸ {view.marked} marked", self._style("text-accent"))
        if state.tasks_withheld:
            notes.append("  ⊘ tasks withheld", self._style("text-warning"))
        if view.paused:
            notes.append("  ⏸ polling paused", self._style("text-warning"))
        if view.faults_only:
            notes.append("  faults only", self._style("text-warning"))
        if view.filter_text:
            notes.append("  filter: ", _MUTED)
            notes.append(one_line(view.filter_text, 40))
        if view.sort is not None:
            notes.append(f"  sort: {sort_label(view.sort, view.descending)}", _MUTED)
        if width is not None:
            counts = _cut(counts, max(width - len(shown) - notes.cell_len, 0))
        return Text.assemble(shown, counts, notes, no_wrap=True)


def _cut(text: Text, width: int) -> Text:
    """`text` as it fits in `width` cells: whole, cut with "…", or empty."""
    if text.cell_len <= width:
        return text
    if width <= 0:
        return Text(no_wrap=True)
    cut = text.copy()
    cut.truncate(width, overflow="ellipsis")
    return cut
