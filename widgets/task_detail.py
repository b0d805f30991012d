"""The detail pane for the selected task: Overview, Result, JSON, Raw and Timeline tabs.

Only the visible tab is rendered, and only when what it shows changed, so a task polled four
times a second with a megabyte result costs nothing while its Result tab is hidden. All server
text is cleaned by `app.engine.safety.sanitize`; JSON is dumped, cleaned, then highlighted as
plain text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel
from rich.highlighter import JSONHighlighter
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from app.engine.rpc.rpc_types import Frame
from app.engine.safety.sanitize import clean_text, one_line, safe_text
from app.engine.tasks.models import Task
from app.view.formatting import (
    PACING_WORDS,
    RESULT_SOURCE_WORDS,
    format_clock,
    format_duration,
    format_size,
    format_task_progress,
    status_label,
)
from app.view.state import WatchedTask
from widgets.json_view import JsonView

DetailTab = Literal["overview", "result", "json", "raw", "timeline"]
DETAIL_TABS: tuple[DetailTab, ...] = ("overview", "result", "json", "raw", "timeline")

MAX_JSON_CHARS = 500_000
"""Pretty JSON longer than this is cut (with a note); the Result tab shows long text in full."""
MAX_JSON_STRING = 2_000
"""Strings inside JSON views are cut to this many characters; the Result tab has them whole."""

_HEADING = Style(bold=True)
_MUTED = Style(dim=True)
_ERROR = Style(bold=True, reverse=True)


def frame_payload(frame: object) -> Any:
    """A frame's JSON-ish content: a connection `Frame`'s message (or raw text), or the value."""
    if isinstance(frame, Frame):
        return frame.message if frame.message is not None else frame.raw
    return frame


def _plain_json(value: Any) -> Any:
    """Rebuild `value` as JSON types, containers at most 64 deep and strings cut (no recursion)."""
    limit = 64

    def convert(item: Any) -> Any:
        if isinstance(item, str):
            return clean_text(item, max_len=MAX_JSON_STRING, allow_newlines=True)
        if isinstance(item, int | float | bool) or item is None:
            return item
        if isinstance(item, dict):
            return {}
        if isinstance(item, list | tuple):
            return []
        return str(item)

    root = convert(value)
    stack: list[tuple[Any, Any, int]] = [(value, root, 0)]
    while stack:
        source, target, depth = stack.pop()
        if isinstance(source, dict):
            for key, child in source.items():
                target[str(key)] = convert(child) if depth < limit else "…"
                if depth < limit and isinstance(child, dict | list | tuple):
                    stack.append((child, target[str(key)], depth + 1))
        elif isinstance(source, list | tuple):
            for child in source:
                target.append(convert(child) if depth < limit else "…")
                if depth < limit and isinstance(child, dict | list | tuple):
                    stack.append((child, target[-1], depth + 1))
    return root


def json_text(value: Any) -> Text:
    """`value` as indented, highlighted JSON; server strings are cleaned, never markup."""
    dumped = json.dumps(_plain_json(value), indent=2, ensure_ascii=False, default=str)
    text = Text(clean_text(dumped, max_len=MAX_JSON_CHARS, allow_newlines=True))
    JSONHighlighter().highlight(text)
    return text


def _base64_size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    return format_size(len(data) * 3 // 4)


def _block_text(block: Any) -> Text:
    """One content block of a tool result: text in full, binary data as type and size."""
    if not isinstance(block, dict):
        return Text.assemble(("unrecognised block\n", _MUTED), json_text(block))
    kind = block.get("type")
    if kind == "text":
        body = block.get("text", "")
        length = len(body) if isinstance(body, str) else 0
        return Text.assemble(
            (f"text · {length:,} chars\n", _HEADING), safe_text(body, allow_newlines=True)
        )
    if kind in ("image", "audio"):
        mime = one_line(block.get("mimeType", "?"), 60)
        return Text(f"{kind} · {mime} · {_base64_size(block.get('data'))}", style=_HEADING)
    if kind == "resource_link":
        parts = [block.get(field) for field in ("uri", "name", "mimeType", "description")]
        shown = " · ".join(one_line(part, 200) for part in parts if part)
        return Text.assemble(("resource link · ", _HEADING), shown)
    if kind == "resource":
        resource = block.get("resource") if isinstance(block.get("resource"), dict) else {}
        assert isinstance(resource, dict)
        uri = one_line(resource.get("uri", "?"), 200)
        if isinstance(resource.get("text"), str):
            return Text.assemble(
                (f"resource · {uri}\n", _HEADING),
                safe_text(resource["text"], allow_newlines=True),
            )
        size = _base64_size(resource.get("blob"))
        return Text(f"resource · {uri} · {size}", style=_HEADING)
    return Text.assemble((f"{one_line(kind, 40)} block\n", _HEADING), json_text(block))


def result_text(task: Task | None) -> Text:
    """The Result tab: the tool result's blocks, structured content, and the task's error."""
    if task is None:
        return Text("No state from the server yet.", style=_MUTED)
    parts: list[Text] = []
    if task.error is not None:
        error = task.error
        parts.append(Text.assemble(("error", _ERROR), f" code {error.code}: "))
        parts[-1].append_text(safe_text(error.message, allow_newlines=True))
        if error.data is not None:
            parts.append(json_text(error.data))
    result = task.result
    if result is None:
        if not parts:
            note = "The task has not finished." if not task.is_terminal else "No result."
            parts.append(Text(note, style=_MUTED))
        return Text("\n\n").join(parts)
    how = RESULT_SOURCE_WORDS.get(task.result_source or "")
    source = f" · {how}" if how else ""
    if result.get("isError") is True:
        parts.append(Text(f"The tool reported an error (isError: true){source}", style=_ERROR))
    else:
        parts.append(Text(f"Result{source}", style=_MUTED))
    content = result.get("content")
    if isinstance(content, list):
        parts.extend(_block_text(block) for block in content)
    if "structuredContent" in result:
        parts.append(Text.assemble(("structured content\n", _HEADING)))
        parts[-1].append_text(json_text(result["structuredContent"]))
    others = {k: v for k, v in result.items() if k not in ("content", "structuredContent")}
    others.pop("isError", None)
    if others:
        parts.append(Text.assemble(("other fields\n", _HEADING), json_text(others)))
    return Text("\n\n").join(parts)


def _when(value: datetime | None) -> str:
    return value.isoformat() if value is not None else "—"


def overview_table(watched: WatchedTask) -> Table:
    """The Overview tab: every field worth reading at a glance, one per row."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style=_HEADING, no_wrap=True)
    grid.add_column(overflow="fold")
    task = watched.task

    def row(name: str, value: Text | str) -> None:
        grid.add_row(name, value if isinstance(value, Text) else Text(value))

    row("task", safe_text(watched.task_id))
    row("tool", safe_text(watched.tool_name or "—"))
    status = status_label(watched.status)
    if watched.cancel_requested:
        status += "   ⊘ cancel requested (server has not settled yet)"
    row("status", status)
    if task is not None:
        row("wire", task.wire)
        row("message", safe_text(task.status_message or "—", allow_newlines=True))
        row("created", _when(task.created_at))
        row("last updated", _when(task.last_updated_at))
        ttl = "unlimited" if task.ttl_ms is None else format_duration(task.ttl_ms / 1000)
        row("ttl", ttl)
        interval = task.poll_interval_ms
        row("poll interval", "—" if interval is None else format_duration(interval / 1000))
        if task.progress is not None:
            progress = format_task_progress(task)
            note = task.progress.message
            row("progress", safe_text(f"{progress} {note}" if note else progress))
        if task.result_source:
            row("result", RESULT_SOURCE_WORDS.get(task.result_source, task.result_source))
        if task.error is not None:
            row("error", safe_text(f"{task.error.code}: {task.error.message}"))
    if watched.synchronous:
        row("answer", "answered synchronously (no task was created)")
    if watched.next_poll is not None and watched.next_poll_at is not None:
        term = PACING_WORDS.get(watched.next_poll.term, watched.next_poll.term)
        row("next poll", f"{format_clock(watched.next_poll_at)} (set by {term})")
    polls = "poll" if watched.polls == 1 else "polls"
    row("polls", f"{watched.polls} {polls}, {watched.errors} failed")
    if watched.last_error is not None:
        row("last error", safe_text(watched.last_error, allow_newlines=True))
    if watched.violation is not None:
        reason = safe_text(watched.violation.reason)
        reason.append("   (offending frame in the Raw tab)", _MUTED)
        row("violation", reason)
    if watched.not_found:
        row("server", "does not know this id (never seen alive: check it for a typo)")
    elif watched.expired or watched.forgotten:
        word = "expired (TTL elapsed)" if watched.expired else "forgotten before its TTL"
        row("server", f"no longer knows the task: {word}")
    if watched.stopped is not None:
        # The poller says "expired" for any task the server stopped knowing; the server row
        # above already says which it was, so the watch line does not contradict it.
        gone = watched.stopped == "expired" and (watched.forgotten or watched.not_found)
        stopped = "the server no longer answers for it" if gone else watched.stopped
        row("watch", safe_text(f"stopped: {stopped}"))
    inputs = task.input_requests if task is not None else ()
    if watched.pending_inputs or inputs:
        lines = Text()
        for request in inputs:
            waiting = request.key in watched.pending_inputs
            mark = "waiting" if waiting else "answered"
            lines.append_text(safe_text(f"[{request.key}] {request.method} ({mark}) "))
            lines.append_text(safe_text(request.message))
            lines.append("\n")
            if waiting:  # the whole request, so it can be read before answering
                lines.append_text(json_text(request.params))
                lines.append("\n")
        listed = {request.key for request in inputs}
        for key in sorted(watched.pending_inputs - listed):
            lines.append_text(safe_text(f"[{key}] waiting\n"))
        row("input", lines)
    return grid


def timeline_text(watched: WatchedTask) -> Text:
    """The Timeline tab: each step with its time and cause, and the state diff it brought."""
    if not watched.timeline:
        return Text("Nothing has happened yet.", style=_MUTED)
    out = Text()
    for entry in watched.timeline:
        out.append(format_clock(entry.at), _MUTED)
        out.append(f"  {entry.kind:<16} {entry.source:<12} ")
        if entry.status:
            out.append(status_label(entry.status))
        if entry.detail:
            out.append("  ")
            out.append_text(safe_text(entry.detail))
        out.append("\n")
        if entry.diff:
            for line in entry.diff.lines():
                out.append("      ")
                out.append_text(safe_text(line, max_len=240))
                out.append("\n")
    return out


def _model_json(model: BaseModel, exclude: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A model's fields as JSON-ready values, leaving server dicts as they are.

    Pydantic's own dump recurses into results and gives up on deeply nested ones; here only the
    (shallow) model nesting is walked and `json_text` caps the server data itself.
    """
    out: dict[str, Any] = {}
    for name in type(model).model_fields:
        if name in exclude:
            continue
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            value = _model_json(value)
        elif isinstance(value, tuple):
            value = [_model_json(v) if isinstance(v, BaseModel) else v for v in value]
        elif isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, Enum):
            value = value.value
        out[name] = value
    return out


def _normalized(task: Task | None) -> Any:
    return None if task is None else _model_json(task, frozenset({"raw"}))


def _raw_side(watched: WatchedTask) -> tuple[str, Any]:
    if watched.violation is not None:
        return "Offending frame", frame_payload(watched.violation.frame)
    if watched.last_frame is not None:
        return "Last frame", frame_payload(watched.last_frame)
    return "Last raw state", watched.task.raw if watched.task else None


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


class TextPager(ScrollView, can_focus=True):
    """A read-only scrolling view of a (maybe megabyte-long) `Text`, rendering visible lines only.

    `Static` lays out its whole content at once (seconds for 1 MB); here long lines are folded
    by slicing at the current width and each frame renders just the lines on screen.
    """

    DEFAULT_CSS = """
    TextPager {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._text = Text()
        self._lines: list[Text] = []
        self._folded_at = 0

    @property
    def text(self) -> Text:
        """The whole text shown."""
        return self._text

    def update(self, text: Text) -> None:
        """Show `text` from the top."""
        self._text = text
        self._fold()
        self.scroll_to(0, 0, animate=False)

    def on_resize(self) -> None:
        if self._fold_width() != self._folded_at:
            self._fold()

    def _fold_width(self) -> int:
        return max(self.scrollable_content_region.width, 20)

    def _fold(self) -> None:
        width = self._fold_width()
        self._folded_at = width
        lines: list[Text] = []
        for line in self._text.split("\n", allow_blank=True):
            pieces = line.divide(range(width, len(line), width)) if len(line) > width else [line]
            for piece in pieces:
                if piece.cell_len <= width:
                    lines.append(piece)
                else:  # wide characters: fold this short piece by cells
                    lines.extend(piece.wrap(self.app.console, width, overflow="fold"))
        self._lines = lines
        self.virtual_size = Size(width, len(lines))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, style)
        segments = self._lines[index].render(self.app.console)
        strip = Strip(Segment.apply_style(segments, style))
        return strip.crop_extend(0, width, style)


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
        hint = Text("Select a task.", style=_MUTED)
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
        normalized = Text("Normalized\n", style=_HEADING)
        normalized.append_text(json_text(_normalized(watched.task)))
        title, payload = _raw_side(watched)
        raw = Text(f"{title}\n", style=_HEADING)
        raw.append_text(
            safe_text(payload, allow_newlines=True)
            if isinstance(payload, str)
            else json_text(payload)
        )
        _update_body(self.query_one("#raw-normalized-body", Static), normalized)
        _update_body(self.query_one("#raw-frame-body", Static), raw)

    def _render_timeline(self, watched: WatchedTask) -> None:
        _update_body(self.query_one("#timeline-body", Static), timeline_text(watched))
