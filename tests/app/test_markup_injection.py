"""No server text is ever read as Textual markup: it is shown as typed, never crashes, never acts.

Textual parses a `str` as content markup in toasts, tooltips, palette hits, `Static`s and option
prompts: "[/b]EVIL" or "cannot open [/var/log/app.log]" raised `MarkupError` and ended the App,
and "[@click=app.quit]…" became a link that quits. Each test drives the real App (Pilot) with such
strings in one place a server controls: an HTTP 500 body on connect (a real socket), and a fake
source for task ids, messages, errors, tools, input requests, the header's tooltip and RPC frames.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.binding import Binding
from textual.command import CommandInput, CommandList, CommandPalette
from textual.content import Content
from textual.geometry import Offset, Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, Tooltip
from textual.widgets._select import SelectOverlay

from app.engine.record.recording import SessionInfo
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.tool_info import ToolInfo
from app.engine.tasks.contract import CreateOutcome, TasksCapabilities
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import InputKind, InputRequest, Task, TaskError
from app.tui.app import TaskscopeApp
from app.tui.bindings import ALL_BINDINGS
from app.tui.live import LiveSource
from app.tui.recorded import RecordedSource
from app.tui.verbs.cancel import send_cancel
from tests.support.markup import (
    LastingToastsApp,
    Notes,
    clickable_cells,
    shown_text,
    toast_showing,
    toasts,
)
from tests.support.tui_helpers import SIZE, wait_for
from widgets.arguments_form import ArgumentsForm, CreateRequest
from widgets.check_screen import CheckScreen
from widgets.choice_picker import ChoicePicker
from widgets.confirm import ConfirmModal, TextPrompt
from widgets.input_form import InputForm
from widgets.input_inbox import InputInbox
from widgets.input_modal import AnswerModal, ConfirmDiscard
from widgets.input_url import InputUrl
from widgets.rpc_log import RpcLog
from widgets.task_table import TaskTable
from widgets.text_pager import TextPager
from widgets.time_view import TimeView
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(60)

REPO_ROOT = Path(__file__).resolve().parents[2]

EVIL_PIECES = (
    "[/b]EVIL",
    "cannot open [/var/log/app.log]",
    "[reverse]x[/reverse]",
    "[@click=app.quit]click me[/]",
    "[bold red]",
    "\\[",
    "unbalanced ]",
)
"""Each raised `MarkupError`, was applied as a style or became an action, or lost its backslash."""
EVIL = " ".join(EVIL_PIECES)

TASK_ID = "[/b]EVIL[reverse]7[/]"
"""A task that fails (a "Task finished" toast); short enough for the toasts' 24-cell ids."""
WAITING_ID = "[@click=app.quit]q[/]"
"""A task waiting on a form (an "Input needed" toast)."""
TOOL = "[@click=app.quit]click me[/]"
NOW = 1_795_000_000.0

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "title": "cannot open [/var/log/app.log]", "description": EVIL},
        "ok": {"type": "boolean", "title": "[@click=app.quit]click me[/]"},
        "pick": {
            "type": "string",
            "oneOf": [
                {"const": "a", "title": "[/b]EVIL"},
                {"const": "b", "title": "[reverse]x[/reverse]"},
            ],
        },
    },
}
REQUEST = InputRequest(
    key="[/b]k",
    kind=InputKind.FORM,
    method="elicitation/create",
    params={"mode": "form", "message": EVIL, "requestedSchema": SCHEMA},
    wire="extension",
    task_id=WAITING_ID,
    message=EVIL,
)
INFO = SessionInfo(
    server_name="[/b]srv",
    server_version="[reverse]9",
    transport="http",
    protocol_version="[bold red]",
    capabilities=TasksCapabilities(wire="extension", tool_calls=True, cancel=True),
    label="http://127.0.0.1:1/mcp",
    server_key="url:http://127.0.0.1:1/mcp",
    era={
        "preference": "auto",
        "settled": "modern",
        "reason": EVIL,
        "tried": [{"method": TOOL, "protocolVersion": "[reverse]x", "answer": EVIL}],
    },
)
TOOLS = (ToolInfo(TOOL, EVIL, SCHEMA, None),)


def _task(task_id: str, status: Any, **extra: Any) -> Task:
    return Task(
        task_id=task_id,
        wire="extension",
        status=status,
        status_message=EVIL,
        tool_name=TOOL,
        raw={"taskId": task_id, "statusMessage": EVIL},
        **extra,
    )


def _events() -> list[TaskEvent]:
    waiting = _task(WAITING_ID, "input_required", input_requests=(REQUEST,))
    failing = _task(TASK_ID, "working")
    failed = _task(
        TASK_ID,
        "failed",
        error=TaskError(code=-32603, message=EVIL),
        result={"content": [{"type": "text", "text": EVIL}]},
    )
    return [
        TaskEvent("created", WAITING_ID, waiting, NOW - 9, "create"),
        TaskEvent("input_needed", WAITING_ID, waiting, NOW - 8, "poll", input_request=REQUEST),
        TaskEvent("error", WAITING_ID, waiting, NOW - 7, "poll", detail=EVIL),
        TaskEvent("created", TASK_ID, failing, NOW - 6, "create"),
        TaskEvent("transition", TASK_ID, failed, NOW - 5, "poll", previous_status="working"),
    ]


def _frame(direction: Any, method: str | None, error: str | None) -> Frame:
    return Frame(
        direction=direction,
        message={"jsonrpc": "2.0", "id": 1, "error": {"message": EVIL}},
        raw=None,
        at=NOW - 5,
        method=method,
        rpc_id=1,
        task_id=TASK_ID,
        reason="poll" if direction == "out" else None,
        latency_ms=4.0,
        http_status=500,
        headers={},
        error=error,
    )


class MarkupSource(RecordedSource):
    """The fake server: every string it hands over is markup, and every verb fails with markup."""

    def __init__(self) -> None:
        frames = [_frame("out", "tasks/get", None), _frame("in", None, EVIL)]
        super().__init__(INFO, _events(), frames, TOOLS)

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None, as_task: bool
    ) -> CreateOutcome:
        raise RuntimeError(EVIL)

    async def cancel(self, task_id: str) -> None:
        raise RuntimeError(EVIL)

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        raise RuntimeError(EVIL)

    def adopt(self, task_id: str, tool: str | None = None) -> bool:
        raise RuntimeError(f"no task {task_id}")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


# ---------------------------------------------------------------------------------- what is shown


def assert_as_typed(shown: str, *pieces: str) -> None:
    """Every piece (default: every `EVIL_PIECES`) is in `shown` with its brackets."""
    for piece in pieces or EVIL_PIECES:
        assert " ".join(piece.split()) in shown, (piece, shown)


def offset_of(widget: Widget, needle: str) -> Offset:
    """Where `needle` starts among the cells `widget` draws (relative to the widget)."""
    region = widget.region
    for y, strip in enumerate(widget.render_lines(Region(0, 0, region.width, region.height))):
        text = strip.text
        if needle in text:
            return Offset(cell_len(text[: text.index(needle)]), y)
    raise AssertionError(f"{needle!r} is not drawn by {widget}")


async def click_does_nothing(pilot: Pilot[Any], widget: Widget, needle: str) -> None:
    """Click the first cell after `needle` in `widget`: the App must keep running."""
    app = pilot.app
    at = offset_of(widget, needle)
    await pilot.click(widget, offset=(at.x + cell_len(needle), at.y))
    await pilot.pause(0.2)
    assert app.is_running and app.return_code is None


async def loaded(pilot: Pilot[Any]) -> TaskscopeApp:
    app = pilot.app
    assert isinstance(app, TaskscopeApp)
    await wait_for(pilot, lambda: len(app.tasks) == 2 and app.table.row_count == 2)
    return app


def markup_app() -> TaskscopeApp:
    return LastingToastsApp(MarkupSource(), clock=lambda: NOW, remember_tasks=False)


# ---------------------------------------------------------------------------------- toasts


async def http_500(body: bytes) -> tuple[asyncio.Server, str]:
    """A raw socket server answering every request with `500` and `body`; returns its URL."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        head = (
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
async def failing_server() -> AsyncIterator[str]:
    server, url = await http_500(EVIL.encode())
    async with server:
        yield url


async def test_a_connect_failure_toast_shows_the_http_body_as_typed(failing_server: str) -> None:
    notes = Notes()
    app = TaskscopeApp(LiveSource(HttpTarget(failing_server)), remember_tasks=False)
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await wait_for(pilot, lambda: app.failed and toast_showing(app, "EVIL") is not None)
        [note] = notes.titled("Could not connect")
        assert not note.markup and "HTTP 500" in note.message
        assert_as_typed(note.message)
        toast = toast_showing(app, "EVIL")
        assert toast is not None
        assert_as_typed(shown_text(toast))
        assert "[/b]EVIL" in shown_text(app.query_one("#header", Widget))
        assert clickable_cells(app.screen) == []
        await click_does_nothing(pilot, toast, "[@click=app.quit]")


async def test_task_toasts_show_ids_messages_and_errors_as_typed() -> None:
    notes = Notes()
    app = markup_app()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await loaded(pilot)
        await wait_for(pilot, lambda: len(notes.made) >= 2)
        [finished] = notes.titled("Task finished")
        assert finished.message == f"{TASK_ID} failed" and not finished.markup
        [needed] = notes.titled("Input needed")
        assert needed.message.startswith(f"{WAITING_ID} needs input: [/b]EVIL cannot open")
        await app.create_task(CreateRequest(TOOL, {}, None, True))  # the server refuses
        app.go_to_task(TASK_ID)
        send_cancel(app, [WAITING_ID])  # refused too: "Cancel <id>" titles the toast
        await wait_for(pilot, lambda: len(notes.made) >= 4)
        [created] = notes.titled(f"{TOOL} failed")
        [cancelled] = notes.titled(f"Cancel {WAITING_ID}")
        for note in (created, cancelled):
            assert not note.markup
            assert_as_typed(note.message)
        await wait_for(pilot, lambda: len(toasts(app)) == 4)
        shown = [shown_text(toast) for toast in toasts(app)]
        assert any(f"Task finished {TASK_ID} failed" in text for text in shown), shown
        assert any(text.startswith(f"{TOOL} failed RuntimeError: [/b]EVIL") for text in shown)
        assert clickable_cells(app.screen) == []
        toast = toast_showing(app, f"{WAITING_ID} needs input")
        assert toast is not None
        await click_does_nothing(pilot, toast, "[@click=app.quit]")


# ---------------------------------------------------------------------------------- palette


async def test_the_palette_finds_and_shows_a_task_id_with_markup() -> None:
    app = markup_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"EVIL")
        hits = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: "go to task" in shown_text(hits))
        assert_as_typed(shown_text(hits), f"go to task {TASK_ID} · {TOOL} · ✗ failed")
        assert clickable_cells(app.screen) == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.table.selected_task_id == TASK_ID)
        assert app.is_running


def all_prompts(hits: CommandList) -> str:
    """Every hit's prompt text, scrolled into view or not, joined."""
    prompts = (hits.get_option_at_index(index).prompt for index in range(hits.option_count))
    return " ".join(
        prompt.plain if isinstance(prompt, Content) else str(prompt) for prompt in prompts
    )


async def test_the_palette_lists_every_task_before_anything_is_typed() -> None:
    app = markup_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        palette = app.screen
        await wait_for(pilot, lambda: isinstance(app.focused, CommandInput))
        hits = palette.query_one(CommandList)
        await pilot.press("down")  # the discovery hits show once the list is opened
        await wait_for(pilot, lambda: WAITING_ID in all_prompts(hits))
        assert_as_typed(all_prompts(hits), f"go to task {WAITING_ID} · {TOOL} · ? input")
        prompts = [hits.get_option_at_index(index).prompt for index in range(hits.option_count)]
        plain = [prompt.plain for prompt in prompts if isinstance(prompt, Content)]
        assert len(plain) == len(prompts)  # no `str` prompt: it would be parsed as markup
        assert_as_typed(" ".join(plain), f"go to task {TASK_ID}")
        assert clickable_cells(app.screen) == []


# ---------------------------------------------------------------------------------- the main screen


async def test_the_header_and_its_tooltip_show_server_text_as_typed() -> None:
    app = markup_app()
    async with app.run_test(size=SIZE, tooltips=True) as pilot:
        await loaded(pilot)
        header = app.query_one("#header", Widget)
        assert_as_typed(shown_text(header), "[/b]srv [reverse]9", "[bold red]")
        await pilot.hover(header)
        tooltip = app.screen.query_one(Tooltip)
        await wait_for(pilot, lambda: tooltip.display and "EVIL" in shown_text(tooltip))
        assert_as_typed(shown_text(tooltip))
        assert_as_typed(shown_text(tooltip), f"{TOOL} at [reverse]x:")
        assert clickable_cells(app.screen) == []


async def test_the_list_the_detail_pane_and_the_rpc_log_show_server_text_as_typed() -> None:
    app = markup_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await loaded(pilot)
        app.go_to_task(TASK_ID)
        await pilot.pause(0.2)
        assert_as_typed(shown_text(app.table), "✗ failed [@click=app.quit]click … [/b]E…7[/]")
        assert_as_typed(shown_text(app.table), "[/b]EVIL cannot open [/var/log/…")
        message = app.table.get_cell(TASK_ID, "message")  # kept whole, cut when drawn
        assert message.plain.startswith("[/b]EVIL cannot open [/var/log/app.log] [reverse]")
        overview = shown_text(app.detail.query_one("#overview-body", Widget))
        assert_as_typed(overview, f"task {TASK_ID}", f"tool {TOOL}", "-32603: [/b]EVIL")
        assert_as_typed(overview)
        app.detail.show_tab("result")
        await pilot.pause(0.2)
        assert_as_typed(app.detail.query_one("#result-body", TextPager).text.plain)
        app.go_to_task(WAITING_ID)
        app.detail.show_tab("overview")
        await pilot.pause(0.2)
        waiting = shown_text(app.detail.query_one("#overview-body", Widget))
        assert_as_typed(waiting, "[[/b]k] elicitation/create (waiting) [/b]EVIL")
        assert_as_typed(waiting, "last error [/b]EVIL cannot open")
        await pilot.press("L")
        log = app.query_one(RpcLog)
        await wait_for(pilot, lambda: len(log.frames) == 2)
        await pilot.pause(0.2)
        line = "← error [/b]EVIL[reverse]7[/] 4ms 500 ✗ [/b]EVIL cannot open [/var/log/app.log]"
        assert_as_typed(shown_text(log), "→ tasks/get [/b]EVIL[reverse]7[/]", line)
        assert clickable_cells(app.screen) == []


# ---------------------------------------------------------------------------------- modals


async def test_the_tool_picker_and_the_arguments_form_show_tools_as_typed() -> None:
    notes = Notes()
    app = markup_app()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await loaded(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        picker = app.screen
        options = shown_text(picker.query_one("#picker-list", Widget))
        assert_as_typed(options, "[@click=app.quit]click … [/b]EVIL")
        assert_as_typed(shown_text(picker.query_one("#picker-about", Widget)), TOOL)
        assert_as_typed(shown_text(picker.query_one("#picker-about", Widget)))
        assert clickable_cells(picker) == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
        form = app.screen
        await pilot.pause(0.1)
        assert_as_typed(shown_text(form.query_one("#arguments-title", Widget)), f"Run {TOOL}")
        assert_as_typed(shown_text(form.query_one("#arguments-about", Widget)))
        await assert_fields_as_typed(pilot, form)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: bool(notes.titled(f"{TOOL} failed")))
        assert app.is_running


async def assert_fields_as_typed(pilot: Pilot[Any], screen: Screen[Any]) -> None:
    """The schema's field titles, description, checkbox label and choice titles, as typed."""
    titles = " ".join(shown_text(title) for title in screen.query(".field-title"))
    assert_as_typed(titles, "cannot open [/var/log/app.log]", "pick")
    assert_as_typed(shown_text(screen.query_one(".field-description", Widget)))
    assert_as_typed(shown_text(screen.query_one(Checkbox)), "[@click=app.quit]click me[/]")
    select = screen.query_one(Select)
    select.expanded = True
    choices = select.query_one(SelectOverlay)
    await wait_for(pilot, lambda: "EVIL" in shown_text(choices))
    assert_as_typed(shown_text(choices), "[/b]EVIL", "[reverse]x[/reverse]")
    assert clickable_cells(screen) == []
    select.expanded = False


async def test_the_input_form_shows_who_asks_the_message_and_errors_as_typed() -> None:
    app = markup_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.go_to_task(WAITING_ID)
        await pilot.press("I")
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))
        form = app.screen
        await pilot.pause(0.1)
        origin = shown_text(form.query_one("#input-origin", Widget))
        assert origin == f"Task {WAITING_ID} on server [/b]srv asks (elicitation/create)"
        assert_as_typed(shown_text(form.query_one("#input-message", Widget)))
        await assert_fields_as_typed(pilot, form)
        assert isinstance(form, AnswerModal)
        form.send({"action": "accept", "content": {}})  # the server refuses it
        status = form.query_one("#input-status", Widget)
        await wait_for(pilot, lambda: "Not sent" in shown_text(status))
        assert_as_typed(shown_text(status))
        assert clickable_cells(form) == []


async def test_the_cancel_confirmation_and_an_adopted_id_show_ids_as_typed() -> None:
    notes = Notes()
    app = markup_app()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await loaded(pilot)
        app.go_to_task(WAITING_ID)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        body = shown_text(app.screen.query_one(".small-modal-text", Widget))
        assert_as_typed(body, f"• {WAITING_ID} {TOOL}")
        assert clickable_cells(app.screen) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmModal))
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
        app.screen.query_one(Input).value = EVIL  # pasted
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(notes.titled("Adopt")))
        [refused] = notes.titled("Adopt")
        assert not refused.markup
        assert_as_typed(refused.message)
        assert app.is_running


# ---------------------------------------------------------------------------------- the code


def test_binding_descriptions_and_tooltips_read_the_same_as_markup() -> None:
    """The key panel parses descriptions as markup: none of ours may contain any."""
    bindings = [*ALL_BINDINGS]
    holders = (
        TaskTable,
        TimeView,
        ToolPicker,
        ArgumentsForm,
        ConfirmModal,
        TextPrompt,
        AnswerModal,
        ConfirmDiscard,
        InputInbox,
        InputUrl,
        CheckScreen,
        ChoicePicker,
    )
    for holder in holders:
        bindings.extend(b for b in holder.BINDINGS if isinstance(b, Binding))
    assert len(bindings) > len(ALL_BINDINGS)
    for binding in bindings:
        for text in (binding.description, binding.tooltip):
            assert Content.from_markup(text).plain == text, binding


def _python_files(*folders: str) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((REPO_ROOT / folder).rglob("*.py"))


def test_every_toast_goes_through_the_plain_helper() -> None:
    """`notify` parses its message as markup by default; only `widgets.plain.toast` calls it."""
    calls = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in _python_files("app/tui", "app/view", "widgets")
        if path.name != "plain.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\.notify\(", line)
    ]
    assert calls == []
