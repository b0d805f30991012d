"""The exchange view: one RPC exchange opened from the RPC log (or `v` on a task).

It shows why the request was sent, its latency and task, then the request and its response (or
a notification alone) side by side on wide screens and stacked on narrow ones, each with its HTTP
status and headers where the transport has them and its message as a folding JSON tree. Frames
come redacted from the connection; every string is shown through `one_line` / `clean_text` and
cut (a 50 MB string or raw body never reaches the renderer whole). `y` copies the exchange as
JSON (OSC 52), `w` saves it through the App.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from app.engine.safety.sanitize import clean_text, one_line
from app.view.exchanges import Exchange
from app.view.formatting import format_clock
from widgets.css_paths import MODALS_CSS
from widgets.json_view import JsonView
from widgets.plain import toast
from widgets.theme_style import theme_style

if TYPE_CHECKING:
    from app.engine.rpc.rpc_types import Frame

WIDE_COLUMNS = 120
"""From this width on, the request and the response sit side by side."""
TALL_ROWS = 34
"""From this height on, the header fields are shown at once (else `h` shows them)."""
RAW_SHOWN_CHARS = 20_000
"""Characters of a frame that is not a JSON-RPC message (garbage, an HTML error page) shown."""
HEADERS_SHOWN = 60
"""Header fields shown per frame (a response head holds at most 200)."""
COPY_LIMIT_CHARS = 1024 * 1024
"""Larger exchanges are not copied (OSC 52 through a terminal would choke on them): `w` saves."""
SaveText = Callable[[str, str], None]
"""Saves (text, suggested file name): the App asks for the path and writes the file."""

_LABEL = Style(bold=True)
_MUTED = Style(dim=True)


def _row(text: Text, label: str, value: str, width: int = 200) -> None:
    text.append(f"{label:<9}", _LABEL)
    text.append(one_line(value, width))
    text.append("\n")


def describe_latency(exchange: Exchange) -> str:
    """How long the answer took, or why there is none to measure."""
    response, request = exchange.response, exchange.request
    if response is None:
        return "—" if exchange.lone else "no answer yet"
    if response.latency_ms is None:
        return "not measured"
    answering = response.direction == "out"
    took = f"{response.latency_ms:,.0f} ms"
    if request is None:
        return f"{took} (the request is older than the frames kept)"
    return f"answered after {took}" if answering else took


def summary(exchange: Exchange, error_style: Style) -> Text:
    """The lines above the two sides: method, why, task, latency, HTTP status, error."""
    first = exchange.frames[0]
    text = Text(no_wrap=True, overflow="ellipsis")
    method = first.method or ("error" if first.error else "response")
    text.append(one_line(method, 80), Style(bold=True))
    text.append("  " + _kind(exchange), _MUTED)
    text.append("\n")
    _row(text, "Why", first.purpose or first.reason or "not recorded")
    reply = exchange.response
    if reply is not None and reply is not first and reply.purpose not in (None, first.purpose):
        _row(text, "Reply", reply.purpose or "")
    if first.task_id:
        _row(text, "Task", first.task_id)
    if not exchange.lone:
        _row(text, "Latency", describe_latency(exchange))
    statuses = [
        str(frame.http_status) for frame in exchange.frames if frame.http_status is not None
    ]
    if statuses:
        _row(text, "HTTP", " · ".join(statuses))
    for frame in exchange.frames:
        if frame.error:
            text.append(f"{'Error':<9}", _LABEL)
            text.append("✗ " + one_line(frame.error, 200), error_style)
            text.append("\n")
    text.rstrip()
    return text


def _kind(exchange: Exchange) -> str:
    first = exchange.frames[0]
    outgoing = first.direction == "out"
    if exchange.lone:
        if first.message is None:
            return "received, not a JSON-RPC message"
        is_response = "method" not in first.message
        if is_response:
            return "a response to no request we know"
        return "notification to the server" if outgoing else "notification from the server"
    if exchange.request is not None and exchange.request.direction == "in":
        return "a request from the server and our answer"
    return "our request and the server's response"


def side_title(frame: Frame, role: str) -> Text:
    """One side's heading: direction, role and wall-clock time."""
    arrow = "→ sent" if frame.direction == "out" else "← received"
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(role, Style(bold=True))
    text.append(f"  {arrow} {format_clock(frame.at)}", _MUTED)
    return text


def headline(frame: Frame) -> Text:
    """One line on a frame's HTTP head: the status and how many header fields; empty when the
    transport has none (stdio)."""
    parts = [f"HTTP {frame.http_status}"] if frame.http_status is not None else []
    if frame.headers:
        count = len(frame.headers)
        parts.append(f"{count} header field{'s' if count != 1 else ''}")
    return Text(" · ".join(parts), no_wrap=True)


def headers_text(frame: Frame) -> Text:
    """The header fields of one frame (redacted), one per line."""
    text = Text(no_wrap=True, overflow="ellipsis")
    _header_lines(text, frame.headers)
    text.rstrip()
    return text


def _header_lines(text: Text, headers: Mapping[str, str]) -> None:
    for index, (name, value) in enumerate(headers.items()):
        if index == HEADERS_SHOWN:
            text.append(f"… {len(headers) - HEADERS_SHOWN} more header fields\n", _MUTED)
            return
        text.append(one_line(name, 40), Style(bold=True))
        text.append(": " + one_line(value, 300) + "\n")


def raw_text(raw: str | None) -> Text:
    """What came that was not a JSON-RPC message, as plain text, cut with a note."""
    if raw is None:
        return Text("(nothing was received)", style=_MUTED)
    shown = Text(clean_text(raw[:RAW_SHOWN_CHARS], allow_newlines=True))
    if len(raw) > RAW_SHOWN_CHARS:
        shown.append(
            f"\n… cut: {len(raw) - RAW_SHOWN_CHARS:,} more characters (w saves them all)", _MUTED
        )
    return shown


class ExchangeSide(Vertical):
    """One frame of the exchange: heading, HTTP status and headers, then its message."""

    def __init__(self, frame: Frame | None, role: str, missing: str, *, id: str) -> None:  # noqa: A002
        super().__init__(classes="exchange-side", id=id)
        self.frame = frame
        self.role = role
        self.missing = missing

    def compose(self) -> ComposeResult:
        frame = self.frame
        if frame is None:
            yield Static(Text(self.role, style="bold"), classes="exchange-side-title")
            yield Static(Text(self.missing, style="dim"), classes="exchange-missing")
            return
        yield Static(side_title(frame, self.role), classes="exchange-side-title")
        head = headline(frame)
        if head.plain:
            yield Static(head, classes="exchange-headline")
        if frame.headers:
            with VerticalScroll(classes="exchange-headers"):
                yield Static(headers_text(frame))
        if frame.message is not None:
            yield JsonView(frame.message, label=self.role.lower(), classes="exchange-json")
        else:
            with VerticalScroll(classes="exchange-raw"):
                yield Static(raw_text(frame.raw))


class ExchangeScreen(ModalScreen[None]):
    """One exchange in full; `y` copies it, `w` saves it, escape closes."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="exchange-close"),
        Binding("y", "copy", "Copy", id="exchange-copy"),
        Binding("w", "save", "Save", id="exchange-save"),
        Binding("h", "toggle_headers", "Headers", id="exchange-headers"),
    ]

    def __init__(self, exchange: Exchange, save: SaveText, *, suggested_path: str) -> None:
        super().__init__()
        self.exchange = exchange
        self._save = save
        self._suggested_path = suggested_path

    def compose(self) -> ComposeResult:
        exchange = self.exchange
        with Vertical(id="exchange-body"):
            error_style = theme_style(self.app.theme_variables, "text-error")
            yield Static(summary(exchange, error_style), id="exchange-summary")
            with Container(id="exchange-sides"):
                if exchange.lone:
                    frame = exchange.frames[0]
                    role = "Notification" if _is_notification(frame) else "Frame"
                    yield ExchangeSide(frame, role, "", id="exchange-request")
                else:
                    asked_by_server = (
                        exchange.request is not None and exchange.request.direction == "in"
                    ) or (exchange.response is not None and exchange.response.direction == "out")
                    yield ExchangeSide(
                        exchange.request,
                        "Request",
                        "The request is older than the frames the log keeps.",
                        id="exchange-request",
                    )
                    yield ExchangeSide(
                        exchange.response,
                        "Our answer" if asked_by_server else "Response",
                        "No answer yet." if asked_by_server else "No response yet.",
                        id="exchange-response",
                    )
            yield Static(
                "y copy JSON · w save to a file · h headers · tab next tree · esc close",
                id="exchange-keys",
            )

    def on_mount(self) -> None:
        self._set_wide(self.app.size.width)
        self.set_class(self.app.size.height >= TALL_ROWS, "-headers")
        trees = self.query(JsonView)
        if trees:
            trees.first().focus()

    def on_resize(self, event: events.Resize) -> None:
        self._set_wide(self.app.size.width)

    def _set_wide(self, width: int) -> None:
        self.set_class(width >= WIDE_COLUMNS, "-wide")

    def exchange_text(self) -> str:
        """The exchange as JSON, as copied and saved."""
        from app.view.export import exchange_json

        return exchange_json(self.exchange)

    def action_copy(self) -> None:
        self._copy()

    def action_save(self) -> None:
        self._save_file()

    @work(group="exchange", exclusive=True, exit_on_error=False)
    async def _copy(self) -> None:
        """Copy the exchange, encoded off the event loop (a frame may hold 50 MB)."""
        text = await asyncio.to_thread(self.exchange_text)
        if len(text) > COPY_LIMIT_CHARS:
            toast(
                self,
                f"Too large to copy ({len(text):,} characters); press w to save it.",
                severity="warning",
            )
            return
        self.app.copy_to_clipboard(text)
        toast(self, "Copied the exchange's JSON (OSC 52)", timeout=3)

    @work(group="exchange", exclusive=True, exit_on_error=False)
    async def _save_file(self) -> None:
        """Hand the exchange, encoded off the event loop, to the App to save."""
        text = await asyncio.to_thread(self.exchange_text)
        self._save(text, self._suggested_path)

    def action_toggle_headers(self) -> None:
        """Show or hide the header fields (the status line stays)."""
        self.toggle_class("-headers")

    def action_close(self) -> None:
        self.dismiss(None)


def _is_notification(frame: Frame) -> bool:
    return frame.message is not None and "method" in frame.message and "id" not in frame.message
