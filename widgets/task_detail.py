"""The detail pane for the selected task: Overview, Result, JSON, Raw and Timeline tabs.

Only the visible tab is rendered, and only when what it shows changed, so a task polled four
times a second with a megabyte result costs nothing while its Result tab is hidden. All server
text is cleaned by `app.engine.safety.sanitize`; JSON is dumped, cleaned, then highlighted as
plain text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from app.view.state import WatchedTask
from widgets.detail_overview import overview_table
from widgets.detail_raw import raw_texts
from widgets.detail_result import result_text
from widgets.detail_styles import MUTED
from widgets.detail_timeline import timeline_text
from widgets.json_view import JsonView
from widgets.text_pager import TextPager

DetailTab = Literal["overview", "result", "json", "raw", "timeline"]
DETAIL_TABS: tuple[DetailTab, ...] = ("overview", "result", "json", "raw", "timeline")


def _tab_key(tab: DetailTab, watched: WatchedTask | None) -> object:
    """What a tab's content depends on; the tab is rebuilt only when this changes."""
    if watched is None:
        return None
    task = watched.task
    if tab == "overview":
        return watched
    if tab == "result":
        return None if task is None else (task.result, task.error, task.result_source, task.status)
    if tab == "json":
        return None if task is None else task.raw
    if tab == "raw":
        return (task, watched.violation, watched.last_frame)
    return watched.timeline


def _update_body(body: Static, content: Table | Text | str) -> None:
    """Show `content` in a tab's body, laying the screen out again only if the body's height
    changes: a layout pass re-arranges every widget, which repaints the task table too."""
    body.update(content, layout=False)
    size = body.content_size
    if not size.width or body.get_content_height(size, size, size.width) != size.height:
        body.refresh(layout=True)


def _same(left: object, right: object) -> bool:
    try:
        return left is right or bool(left == right)
    except RecursionError:
        return False


class TaskDetail(Widget):
    """The selected task in five tabs; set `watched` and only the visible tab is rebuilt."""

    DEFAULT_CSS = """
    TaskDetail {
        height: 1fr;
        & TabPane {
            padding: 0 1;
        }
        & #raw-normalized, & #raw-frame {
            width: 1fr;
        }
        & #raw-frame {
            border-left: vkey $foreground 20%;
            padding-left: 1;
        }
    }
    """

    watched: reactive[WatchedTask | None] = reactive(None, init=False)
    """The task shown; None shows a hint instead."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._shown: dict[str, object] = {}
        self._ready = False

    def compose(self) -> ComposeResult:
        with TabbedContent(id="detail-tabs"):
            with TabPane("Overview", id="overview"), VerticalScroll():
                yield Static("Select a task.", id="overview-body")
            with TabPane("Result", id="result"):
                yield TextPager(id="result-body")
            with TabPane("JSON", id="json"):
                yield JsonView(label="state", id="json-tree")
            with TabPane("Raw", id="raw"), Horizontal():
                with VerticalScroll(id="raw-normalized"):
                    yield Static(id="raw-normalized-body")
                with VerticalScroll(id="raw-frame"):
                    yield Static(id="raw-frame-body")
            with TabPane("Timeline", id="timeline"), VerticalScroll():
                yield Static(id="timeline-body")

    @property
    def active_tab(self) -> DetailTab:
        active = self.query_one(TabbedContent).active
        return active if active in DETAIL_TABS else "overview"

    def show_tab(self, tab: DetailTab) -> None:
        """Switch to `tab` (e.g. "raw" to see a violation's offending frame)."""
        self.query_one(TabbedContent).active = tab
        self._render_tab(tab)

    def on_mount(self) -> None:
        self.call_after_refresh(self._tabs_ready)

    def _tabs_ready(self) -> None:
        """The tabs' bodies exist now: show what `watched` was set to meanwhile."""
        self._ready = True
        self._render_tab(self.active_tab)

    def watch_watched(self) -> None:
        if self._ready:
            self._render_tab(self.active_tab)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        event.stop()
        tab = event.pane.id
        if tab in DETAIL_TABS:
            self._render_tab(tab)

    def _render_tab(self, tab: DetailTab) -> None:
        """Rebuild `tab` unless what it shows is unchanged since it was last built (or the tabs'
        bodies are not there yet: `_tabs_ready` shows the tab then)."""
        if not self._ready:
            return
        watched = self.watched
        key = _tab_key(tab, watched)
        if tab in self._shown and _same(self._shown[tab], key):
            return
        self._shown[tab] = key
        if watched is None:
            self._render_empty(tab)
            return
        renderers: dict[DetailTab, Callable[[WatchedTask], None]] = {
            "overview": self._render_overview,
            "result": self._render_result,
            "json": self._render_json,
            "raw": self._render_raw,
            "timeline": self._render_timeline,
        }
        renderers[tab](watched)

    def _render_empty(self, tab: DetailTab) -> None:
        hint = Text("Select a task.", style=MUTED)
        if tab == "json":
            self.query_one(JsonView).load(None)
        elif tab == "raw":
            _update_body(self.query_one("#raw-normalized-body", Static), hint)
            _update_body(self.query_one("#raw-frame-body", Static), "")
        elif tab == "result":
            self.query_one("#result-body", TextPager).update(hint)
        else:
            _update_body(self.query_one(f"#{tab}-body", Static), hint)

    def _render_overview(self, watched: WatchedTask) -> None:
        _update_body(self.query_one("#overview-body", Static), overview_table(watched))

    def _render_result(self, watched: WatchedTask) -> None:
        self.query_one("#result-body", TextPager).update(result_text(watched.task))

    def _render_json(self, watched: WatchedTask) -> None:
        self.query_one(JsonView).load(watched.task.raw if watched.task else None)

    def _render_raw(self, watched: WatchedTask) -> None:
        normalized, raw = raw_texts(watched)
        _update_body(self.query_one("#raw-normalized-body", Static), normalized)
        _update_body(self.query_one("#raw-frame-body", Static), raw)

    def _render_timeline(self, watched: WatchedTask) -> None:
        _update_body(self.query_one("#timeline-body", Static), timeline_text(watched))
