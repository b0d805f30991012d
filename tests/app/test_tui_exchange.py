"""The RPC log's rows open: enter on a frame shows its exchange (request and response, HTTP
status and headers, latency, why it was sent), copied and saved from there; over stdio and
Streamable HTTP against the demo servers, and against a server that echoes the credentials."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import HttpTarget, Target
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from app.view.exchanges import Exchange, ExchangeBook
from tests.support.demo_servers import SharedServers
from tests.support.tui_helpers import SIZE, by_tool, connected, stdio_target, wait_for
from widgets.arguments_form import CreateRequest
from widgets.confirm import TextPrompt
from widgets.frame_exchange import ExchangeScreen
from widgets.input_sampling import InputSampling
from widgets.json_view import JsonView
from widgets.rpc_log import RpcLog

pytestmark = pytest.mark.timeout(120)

API_KEY = "key-MIKE5150"
TOKEN = "tok-OSCAR6160"
MARKERS = ("MIKE5150", "OSCAR6160")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


SLOW = ("--speed", "2")
"""Slow enough that build_report (1.5 s) is polled with tasks/get before it finishes."""


@pytest.fixture(scope="module")
def legacy_http(shared_servers: SharedServers) -> str:
    return shared_servers.demo("legacy", *SLOW)


def secret_target(url: str) -> HttpTarget:
    """`--url URL --header 'X-Api-Key: …' --bearer …` (the app is given `--redact X-Api-Key`)."""
    return HttpTarget(url, headers={"X-Api-Key": API_KEY}, bearer=TOKEN)


def app_on(target: Target) -> TaskscopeApp:
    return TaskscopeApp(LiveSource(target, redact=["X-Api-Key"]), remember_tasks=False)


def shown_text(screen: ExchangeScreen) -> str:
    """Every Static's text and every built tree label of the exchange view."""
    parts: list[str] = []
    for static in screen.query(Static):
        content = static.content
        parts.append(content.plain if isinstance(content, Text) else str(content))
    for tree in screen.query(JsonView):
        stack = [tree.root]
        while stack:
            node = stack.pop()
            parts.append(node.label.plain)
            stack.extend(node.children)
    return "\n".join(parts)


async def open_log_on(
    pilot: Pilot[Any], app: TaskscopeApp, wanted: Callable[[Frame], bool]
) -> Frame:
    """Show the RPC log, walk its cursor down from the first frame to the first `wanted` one and
    press enter on it; returns that frame once the exchange view is open."""
    await pilot.press("L")
    log = app.query_one(RpcLog)
    # The frame may still be in the App's batcher when the caller's request has returned.
    await wait_for(pilot, lambda: log.has_focus and any(wanted(frame) for frame in log.frames))
    await pilot.press("home")
    for _ in range(len(log.frames)):
        frame = log.cursor_frame
        assert frame is not None
        if wanted(frame):
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
            return frame
        await pilot.press("down")
    raise AssertionError("no such frame in the RPC log")


def finished(app: TaskscopeApp, tool: str) -> bool:
    """Whether the task `tool` created is watched and has completed."""
    return bool(app.tasks.tasks) and by_tool(app, tool).status == "completed"


def is_poll(frame: Frame) -> bool:
    return frame.method == "tasks/get" and frame.direction == "out"


def is_poll_answer(frame: Frame) -> bool:
    return frame.method == "tasks/get" and frame.direction == "in"


def is_notification(frame: Frame) -> bool:
    return frame.direction == "in" and frame.method == "notifications/progress"


async def save_to(pilot: Pilot[Any], app: TaskscopeApp, path: Path) -> Any:
    """Press w in the exchange view, give `path`, and read back the JSON written there."""
    await pilot.press("w")
    await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
    prompt = app.screen.query_one("#prompt-input")
    prompt.value = str(path)  # type: ignore[attr-defined]
    await pilot.press("enter")
    await wait_for(pilot, path.exists)
    await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
    return json.loads(await asyncio.to_thread(path.read_text))


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_poll_opens_with_its_response_headers_latency_and_purpose(
    transport: str, legacy_http: str, tmp_path: Path
) -> None:
    http = transport == "http"
    app = app_on(secret_target(legacy_http) if http else stdio_target("legacy", *SLOW))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("build_report", {"quarter": "Q2"}, None, True))
        await wait_for(pilot, lambda: any(is_poll_answer(frame) for frame in app.rpc_frames))
        task_id = by_tool(app, "build_report").task_id

        chosen = await open_log_on(pilot, app, is_poll)
        screen = app.screen
        assert isinstance(screen, ExchangeScreen)
        exchange = screen.exchange
        assert exchange.request is chosen and exchange.response is not None
        assert exchange.response.rpc_id == chosen.rpc_id and exchange.response.direction == "in"
        assert exchange.response.message is not None and "result" in exchange.response.message
        text = shown_text(screen)
        assert f"poll of task {task_id}, on the poller's schedule" in text
        assert f"{exchange.response.latency_ms:,.0f} ms" in text
        trees = screen.query(JsonView)
        assert [len(tree.root.children) for tree in trees] == [4, 3]  # two folding trees
        assert 'method: "tasks/get"' in text and "result: {" in text
        if http:
            assert "HTTP 200" in text
            assert "X-Api-Key: [redacted]" in text and "Authorization: [redacted]" in text
            assert "content-type: application/json" in text.lower()
        else:
            assert "HTTP" not in text
        assert not any(marker in text for marker in MARKERS)

        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.clipboard))
        copied = json.loads(app.clipboard)
        assert copied["request"]["message"]["method"] == "tasks/get"
        assert copied["response"]["message"]["result"]["taskId"] == task_id
        assert copied["purpose"].startswith("poll of task")
        assert copied["latencyMs"] == exchange.response.latency_ms
        saved = await save_to(pilot, app, tmp_path / "exchange.json")
        assert saved == copied
        assert not any(marker in app.clipboard for marker in MARKERS)

        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ExchangeScreen))
        log = app.query_one(RpcLog)
        await pilot.press("home")
        for _ in range(len(log.frames)):
            if log.cursor_frame is not None and is_notification(log.cursor_frame):
                break
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
        alone = app.screen
        assert isinstance(alone, ExchangeScreen)
        assert alone.exchange.lone and alone.exchange.frames == (log.cursor_frame,)
        assert not alone.query("#exchange-response")
        assert "the server's own notification" in shown_text(alone)


async def test_tools_call_from_the_picker_and_a_click_on_its_row(legacy_http: str) -> None:
    app = app_on(secret_target(legacy_http))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("build_report", {}, None, True))
        await wait_for(pilot, lambda: finished(app, "build_report"))
        await wait_for(pilot, lambda: any(f.method == "tasks/result" for f in app.rpc_frames))
        await pilot.press("L")  # the task is over: the log holds still while we aim at a row
        log = app.query_one(RpcLog)
        await wait_for(pilot, lambda: log.frames == app.rpc_frames)
        index = next(i for i, f in enumerate(log.frames) if f.method == "tools/call")
        log.scroll_to(y=index, animate=False, immediate=True)
        await pilot.pause()
        await pilot.click(log, offset=(2, 1 + index - round(log.scroll_y)))  # under the border
        await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
        screen = app.screen
        assert isinstance(screen, ExchangeScreen)
        assert screen.exchange.request is not None
        assert screen.exchange.request.method == "tools/call"
        assert "tools/call from the tool picker" in shown_text(screen)


async def test_a_server_request_opens_with_our_answer() -> None:
    app = app_on(stdio_target("legacy"))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("summarize_text", {"text": "long"}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1 and bool(app.tasks.tasks))
        await wait_for(pilot, lambda: isinstance(app.screen, InputSampling) or _pending(app))
        if not isinstance(app.screen, InputSampling):
            await pilot.press("I")
            await wait_for(pilot, lambda: isinstance(app.screen, InputSampling))
        await pilot.click("#input-reject")
        await wait_for(
            pilot,
            lambda: any(
                f.direction == "out" and f.method == "sampling/createMessage"
                for f in app.rpc_frames
            ),
        )

        await open_log_on(
            pilot, app, lambda f: f.direction == "out" and f.method == "sampling/createMessage"
        )
        screen = app.screen
        assert isinstance(screen, ExchangeScreen)
        asked, answer = screen.exchange.request, screen.exchange.response
        assert asked is not None and answer is not None
        assert (asked.direction, answer.direction) == ("in", "out")
        assert asked.rpc_id == answer.rpc_id and answer.message is not None
        assert "error" in answer.message  # declined: a JSON-RPC error to the server
        text = shown_text(screen)
        assert "a request from the server and our answer" in text
        assert "answer to the server's sampling/createMessage" in text
        assert "Our answer" in text and "answered after" in text


def _pending(app: TaskscopeApp) -> bool:
    return any(watched.pending_inputs for watched in app.tasks.tasks.values())


async def test_v_opens_the_selected_tasks_last_answer(legacy_http: str) -> None:
    app = app_on(secret_target(legacy_http))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("build_report", {}, None, True))
        await wait_for(pilot, lambda: finished(app, "build_report"))
        task_id = by_tool(app, "build_report").task_id
        await wait_for(pilot, lambda: app.table.selected_task_id == task_id)
        await wait_for(
            pilot,
            lambda: any(f.method == "tasks/result" and f.direction == "in" for f in app.rpc_frames),
        )
        answers = [
            frame
            for frame in app.rpc_frames
            if frame.task_id == task_id
            and frame.direction == "in"
            and "result" in (frame.message or {})
        ]
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
        screen = app.screen
        assert isinstance(screen, ExchangeScreen)
        response = screen.exchange.response
        assert response is not None and response is answers[-1]
        assert response.method == "tasks/result"
        assert screen.exchange.request is not None
        assert screen.exchange.request.rpc_id == response.rpc_id


async def test_echoed_credentials_never_show_in_the_exchange(
    echo_secrets_url: str, tmp_path: Path
) -> None:
    app = app_on(secret_target(f"{echo_secrets_url}/mcp"))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("echo", {}, None, False))
        await open_log_on(pilot, app, lambda f: f.method == "tools/call" and f.direction == "in")
        screen = app.screen
        assert isinstance(screen, ExchangeScreen)
        await pilot.press("h")  # every header field shown
        text = shown_text(screen)
        assert "Authorization: [redacted]" in text
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.clipboard))
        saved = await save_to(pilot, app, tmp_path / "echo.json")
        for shown in (text, app.clipboard, json.dumps(saved)):
            assert not any(marker in shown for marker in MARKERS)
        assert "you sent: Bearer [redacted]" in app.clipboard  # the echo, redacted


def test_the_book_keeps_as_many_exchanges_as_the_log_keeps_rows() -> None:
    def frame(exchange: int, direction: Any, message: dict[str, Any]) -> Frame:
        return Frame(
            direction=direction,
            message=message,
            raw=None,
            at=0.0,
            method="tasks/get",
            rpc_id=exchange,
            task_id=None,
            reason=None,
            latency_ms=None,
            http_status=None,
            headers={},
            error=None,
            exchange=exchange,
        )

    book = ExchangeBook(3)
    requests = [
        frame(n, "out", {"jsonrpc": "2.0", "id": n, "method": "tasks/get"}) for n in range(5)
    ]
    book.add(requests)
    assert len(book) == 3
    assert book.find(requests[0]).frames == (requests[0],)  # dropped: shown alone
    late = frame(2, "in", {"jsonrpc": "2.0", "id": 2, "result": {}})
    book.add([late, frame(9, "out", {"jsonrpc": "2.0", "id": 9, "method": "ping"})])
    assert book.find(late).request is requests[2] and book.find(late).response is late
    assert len(book) == 3 and book.find(requests[3]).frames == (requests[3],)


HUGE = 50 * 1024 * 1024
HOSTILE = "[bold]x[/bold] [@click=app.quit]q[/] \x1b]52;c;ZXZpbA==\x07 \u202egnp.exe\x1b[2J"


class ExchangeHost(App[None]):
    """Opens the exchange view on one exchange, nothing else."""

    def __init__(self, exchange: Exchange) -> None:
        super().__init__()
        self.exchange = exchange
        self.saved: list[tuple[str, str]] = []

    def on_mount(self) -> None:
        save = lambda text, path: self.saved.append((text, path))  # noqa: E731
        self.push_screen(ExchangeScreen(self.exchange, save, suggested_path="x.json"))


def hostile_frame(direction: Any, message: dict[str, Any] | None, raw: str | None = None) -> Frame:
    return Frame(
        direction=direction,
        message=message,
        raw=raw,
        at=0.0,
        method=HOSTILE,
        rpc_id=1,
        task_id=HOSTILE,
        reason=None,
        latency_ms=3.0,
        http_status=500,
        headers={HOSTILE: HOSTILE * 1000},
        error=HOSTILE,
        exchange=1,
        purpose=HOSTILE,
    )


async def test_huge_and_hostile_frames_render_plainly_and_cut() -> None:
    request = hostile_frame(
        "out", {"jsonrpc": "2.0", "id": 1, "method": HOSTILE, "params": {HOSTILE: "y" * HUGE}}
    )
    garbage = hostile_frame("in", None, raw=HOSTILE + "z" * HUGE)
    app = ExchangeHost(Exchange(request, garbage))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExchangeScreen)
        text = shown_text(screen)
        assert "[bold]x[/bold] [@click=app.quit]q[/]" in text  # as typed, never markup
        assert "<U+202E>" in text and "\x1b" not in text and "\x07" not in text
        assert f"({HUGE:,} chars)" in text  # the 50 MB string, cut with a note
        assert f"… cut: {HUGE + len(HOSTILE) - 20_000:,} more characters" in text
        assert max(len(line) for line in text.splitlines()) < 25_000
        assert app.is_running  # nothing was parsed as an action
        await pilot.press("y")  # too large to copy: w saves it whole
        await wait_for(pilot, lambda: bool(app._notifications))
        assert app.clipboard == ""
        assert "Too large to copy" in next(iter(app._notifications)).message
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(app.saved))
        ((saved, path),) = app.saved
        assert path == "x.json" and len(saved) > 2 * HUGE


async def test_the_cursor_stays_on_its_frame_as_frames_arrive_and_drop() -> None:
    frames = [
        hostile_frame("out", {"jsonrpc": "2.0", "id": n, "method": "ping"}) for n in range(12)
    ]

    chosen: list[Frame] = []

    class LogHost(App[None]):
        def compose(self) -> ComposeResult:
            yield RpcLog(frames[:4], max_frames=6)

        def on_rpc_log_frame_chosen(self, message: RpcLog.FrameChosen) -> None:
            chosen.append(message.frame)

    app = LogHost()
    async with app.run_test(size=SIZE) as pilot:
        log = app.query_one(RpcLog)
        log.focus()
        await pilot.press("home", "down")
        assert log.cursor_frame is frames[1]
        log.add_frames(frames[4:7])  # one dropped: the cursor moves up with its frame
        await pilot.pause()
        assert log.cursor == 0 and log.cursor_frame is frames[1]
        await pilot.press("end")
        log.add_frames(frames[7:9])  # on the newest: it stays on the newest
        assert log.cursor_frame is frames[8]
        await pilot.press("up", "enter")
        await pilot.pause()
        assert chosen == [frames[7]]
