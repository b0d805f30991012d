"""The check screen: `taskscope check` run from the inspector (`c`), one row per check.

The rows are the checks that will run, in report order, each waiting until its verdict arrives:
a glyph and the verdict word (readable without colour), the level, the id and the title; below
the table, the highlighted check's reason, spec sentence and evidence. A progress bar counts the
settled checks; the outcome replaces it when the run ends. Enter opens the highlighted check's
evidence in the exchange view, `e` exports the report; both are the App's to do (`EvidenceChosen`,
`ExportChosen`), as is the run itself, which only posts `Started`, `Settled` and `Ended` here.
Every server string is shown as plain text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import Group
from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, ProgressBar, Static

from app.engine.check.report import evidence_words
from app.engine.check.runner import needs_tool
from app.engine.safety.sanitize import clean_text, one_line
from app.view.check_progress import CheckProgress
from widgets.css_paths import CHECK_CSS
from widgets.theme_style import ThemeStyles

if TYPE_CHECKING:
    from collections.abc import Sequence

    from app.engine.check.model import Check, Finding, RunReport, Verdict

VERDICT_WIDTH = 15
"""The verdict column: a glyph and the longest word, "could-not-run"."""
LEVEL_WIDTH = 6
TITLE_MIN_WIDTH = 16
"""Narrower than this, the title column gives way (the detail lines show it)."""
CELL_PADDING = 2
"""Columns a DataTable pads each cell with."""
SCREEN_PADDING = 2
"""The screen's own padding, left and right (styles/check.tcss)."""
SCROLLBAR_WIDTH = 2
"""Kept free for the table's vertical scroll bar, shown or not."""
DETAIL_WIDTH = 600
VERDICT_COLOURS: dict[Verdict, str] = {
    "pass": "text-success",
    "fail": "text-error",
    "warn": "text-warning",
    "skip": "",
    "could-not-run": "text-accent",
}
OUTCOMES = ("passed", "failed", "incomplete")
"""Each is a class of the status line once the run ends with it (its colour)."""
NOTE = "Own connection · the tasks it makes are cancelled · questions are declined"
"""What the check does besides checking, in one line (the confirmation said it at length)."""


class CheckScreen(ModalScreen[None]):
    """One check run, over the whole screen: its rows fill in as verdicts arrive; escape closes
    (and stops it). Modal, so the main screen's keys are not active here."""

    CSS_PATH = CHECK_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "evidence", "Evidence", id="check-evidence"),
        Binding("e", "export", "Export", id="check-export"),
        Binding("escape,q", "close", "Close", id="check-close"),
    ]

    class Started(Message, bubble=False):
        """The check's own connection is open: these checks will run, in report order."""

        def __init__(self, checks: Sequence[Check]) -> None:
            super().__init__()
            self.checks = tuple(checks)

    class Settled(Message, bubble=False):
        """One check's verdict is final."""

        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    class Ended(Message, bubble=False):
        """The run ended with its report, or stopped (`failure` says why)."""

        def __init__(self, report: RunReport | None, failure: str | None = None) -> None:
            super().__init__()
            self.report = report
            self.failure = failure

    class EvidenceChosen(Message):
        """Open the frames behind this finding (the App keeps the run's frames)."""

        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    class ExportChosen(Message):
        """Write this report to a file (the App asks the format and the path)."""

        def __init__(self, report: RunReport) -> None:
            super().__init__()
            self.report = report

    def __init__(self, title: Text) -> None:
        """`title`: what is checked, with which tool (built by the App from cleaned text)."""
        super().__init__()
        self.title_text = title
        self.progress = CheckProgress()
        self._styles = ThemeStyles(lambda: self.app.theme_variables)
        self._title_width = 0
        """The title column's width for the screen's width (0: no title column)."""

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="check-title")
        yield Static(Text(NOTE, style="dim"), id="check-note")
        with Horizontal(id="check-progress"):
            yield ProgressBar(show_eta=False, id="check-bar")
            yield Static(id="check-status")
        yield DataTable(id="check-table", cursor_type="row", zebra_stripes=False)
        yield Static(id="check-detail")
        yield Static(id="check-keys")

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#check-table", DataTable)

    def on_mount(self) -> None:
        self._title_width = self._title_room(self.app.size.width)
        self._rebuild()
        self.table.focus()

    def on_resize(self, event: events.Resize) -> None:
        room = self._title_room(event.size.width)
        if room != self._title_width:
            self._title_width = room
            self._rebuild()

    def _title_room(self, width: int) -> int:
        """The title column's width on a screen `width` wide: what the verdict, level and id
        columns, the cell padding, the screen's padding and the scroll bar leave; 0 (no title
        column, the detail lines show it) when that is less than `TITLE_MIN_WIDTH`."""
        used = VERDICT_WIDTH + LEVEL_WIDTH + self._id_width() + 4 * CELL_PADDING
        room = width - used - SCREEN_PADDING - SCROLLBAR_WIDTH
        return room if room >= TITLE_MIN_WIDTH else 0

    def _id_width(self) -> int:
        return max((len(check.id) for check in self.progress.checks), default=10)

    # -- what the run posts ------------------------------------------------------------------------

    @on(Started)
    def _started(self, message: Started) -> None:
        self.progress.start(message.checks)
        self._title_width = self._title_room(self.app.size.width)
        self._rebuild()

    @on(Settled)
    def _settled(self, message: Settled) -> None:
        self.progress.settle(message.finding)
        self._show_row(message.finding.check)
        self._show_progress()

    @on(Ended)
    def _ended(self, message: Ended) -> None:
        """The outcome replaces the bar; the cursor, if still on the first row, goes to the
        first check that needs care (a fail, else a could-not-run, else a warning)."""
        if message.report is not None:
            self.progress.finish(message.report)
        else:
            self.progress.fail(message.failure or "the check stopped")
        self._rebuild()
        first = self.progress.first_needing_care()
        if first is not None and self.table.cursor_row == 0:
            self.table.move_cursor(row=self.progress.checks.index(first))

    # -- drawing -----------------------------------------------------------------------------------

    def _rebuild(self) -> None:
        """Columns sized for the screen, one row per check, the progress and the detail."""
        table = self.table
        row = table.cursor_row
        table.clear(columns=True)
        table.add_column("Verdict", key="verdict", width=VERDICT_WIDTH)
        table.add_column("Level", key="level", width=LEVEL_WIDTH)
        table.add_column("Check", key="id", width=self._id_width())
        if self._title_width:
            table.add_column("Title", key="title", width=self._title_width)
        for check in self.progress.checks:
            cells = [self._verdict(check), Text(check.level), Text(check.id)]
            if self._title_width:
                cells.append(Text(check.title, no_wrap=True, overflow="ellipsis"))
            table.add_row(*cells, key=check.id)
        if table.row_count:
            table.move_cursor(row=min(max(row, 0), table.row_count - 1))
        self._show_progress()
        self._show_detail()

    def _verdict(self, check: Check) -> Text:
        finding = self.progress.findings.get(check.id)
        if finding is None:
            return Text(self.progress.verdict_cell(check), style="dim")
        return Text(
            self.progress.verdict_cell(check),
            style=self._styles.get(VERDICT_COLOURS[finding.verdict], bold=True),
        )

    def _show_row(self, check: Check) -> None:
        if check.id in self.table.rows:
            self.table.update_cell(check.id, "verdict", self._verdict(check))
            if self._highlighted() is check:
                self._show_detail()

    def _show_progress(self) -> None:
        progress = self.progress
        bar = self.query_one("#check-bar", ProgressBar)
        if progress.checks:
            bar.update(total=len(progress.checks), progress=progress.settled)
        self.query_one("#check-status", Static).update(Text(progress.status()))
        bar.display = not progress.ended
        self.query_one("#check-keys", Static).update(keys_text(progress))
        status = self.query_one("#check-status", Static)
        outcome = progress.report.outcome if progress.report is not None else None
        for ending in OUTCOMES:
            status.set_class(outcome == ending, f"-{ending}")
        status.set_class(progress.failure is not None, "-failed")

    def _highlighted(self) -> Check | None:
        checks = self.progress.checks
        row = self.table.cursor_row
        return checks[row] if 0 <= row < len(checks) else None

    @on(DataTable.RowHighlighted, "#check-table")
    def _follow_cursor(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        check = self._highlighted()
        self.query_one("#check-detail", Static).update(
            detail_lines(check, self.progress.findings.get(check.id) if check else None)
        )

    # -- keys --------------------------------------------------------------------------------------

    @on(DataTable.RowSelected, "#check-table")
    def action_evidence(self) -> None:
        check = self._highlighted()
        finding = self.progress.findings.get(check.id) if check is not None else None
        if finding is not None:
            self.post_message(self.EvidenceChosen(finding))

    def action_export(self) -> None:
        if self.progress.report is not None:
            self.post_message(self.ExportChosen(self.progress.report))

    def action_close(self) -> None:
        self.dismiss(None)


def detail_lines(check: Check | None, finding: Finding | None) -> Group:
    """The highlighted check: id and title, level and category, then its reason (wrapped), its
    evidence and the spec sentence it enforces (one line each, cut with an ellipsis: the
    exports hold them whole). Server text is made plain."""
    if check is None:
        return Group()
    head = _line()
    head.append(check.id, Style(bold=True))
    head.append(f" · {check.title}")
    needs = " · needs a tool" if needs_tool(check) else ""
    wire = "both wires" if check.wire == "both" else f"{check.wire} wire"
    lines = [head, _line(f"{check.level} · {check.category} · {wire}{needs}", Style(dim=True))]
    if finding is not None:
        reason = Text("Reason   ", Style(bold=True))
        reason.append(clean_text(finding.reason, max_len=DETAIL_WIDTH))
        cited = [evidence_words(item) for item in finding.evidence]
        evidence = _line("Evidence ", Style(bold=True))
        evidence.append("; ".join(cited) + " (enter opens it)" if cited else "no frame is cited")
        lines += [reason, evidence]
    spec = _line("Spec     ", Style(bold=True))
    spec.append(one_line(check.spec, DETAIL_WIDTH), Style(dim=True))
    return Group(*lines, spec)


def _line(text: str = "", style: Style | None = None) -> Text:
    """One line of the detail, cut with an ellipsis where it does not fit."""
    return Text(text, style=style or "", no_wrap=True, overflow="ellipsis")


def keys_text(progress: CheckProgress) -> Text:
    """The keys of the screen: `e` once the run has a report, and what escape does meanwhile."""
    if progress.report is not None:
        return Text("enter evidence · e export JSON, JUnit or Markdown · esc close", style="dim")
    if progress.ended:
        return Text("esc close", style="dim")
    return Text("enter evidence · esc stop the check and close", style="dim")
