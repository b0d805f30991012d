"""`c`, "Check this server": `taskscope check` from the inspector, against the demo servers.

The legacy demo over stdio and the extension demo over HTTP: the picker asks the tool (or none),
the confirmation says what will happen, the check runs on a connection of its own (a second
stdio server; none of its frames reach the watched RPC log), the screen gets a row per check
before any verdict and each verdict as it arrives, enter opens the frames behind a verdict in the
exchange view, and `e` writes the report in each format. Dismissing the screen or quitting
mid-run closes the check's connection (its stdio server ends); with several servers the selected
row's server is checked; `--record` records the check's frames; read-only hides it.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.message import Message
from textual.widgets import Input, OptionList

from app.engine.check.catalog import select
from app.engine.check.model import Evidence, Finding
from app.engine.check.runner import CheckSettings, needs_tool
from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.recording import Action, RecordedFrame
from app.engine.record.replay import read_recording
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.session import EngineSession
from app.engine.rpc.targets import HttpTarget, StdioTarget
from app.engine.safety.redact import Redactor
from app.tui.app import TaskscopeApp
from app.tui.check_run import CheckRun
from app.tui.live import LiveSource, Shown
from app.tui.multi import MultiSource
from app.view.source import SourceUnavailable
from tests.support.demo_servers import demo_children
from tests.support.markup import clickable_cells, shown_text
from tests.support.tui_helpers import (
    SIZE,
    connected,
    create_on,
    http_target,
    live_app,
    stdio_target,
    wait_for,
)
from tests.support.tui_recording import recorded_app
from widgets.check_screen import CheckScreen
from widgets.choice_picker import ChoicePicker
from widgets.confirm import ConfirmModal, TextPrompt
from widgets.frame_exchange import ExchangeScreen
from widgets.server_picker import ServerPicker
from widgets.tool_picker import ToolPicker

pytestmark = pytest.mark.timeout(120)

RUN_TIMEOUT = 60.0
"""Seconds a whole check of a demo server may take here (a few at `--speed 20`)."""


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


async def start_check(pilot: Any, tool: str | None) -> CheckScreen:
    """`c`, pick `tool` (None: the "no tool" entry, the default), confirm; the check screen."""
    app = pilot.app
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
    picker = app.screen
    assert isinstance(picker, ToolPicker)
    if tool is not None:
        await pilot.press(*tool)
        await wait_for(pilot, lambda: bool(picker.shown) and picker.shown[0].name == tool)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
    plan = str(app.screen.query_one(".small-modal-text").render())
    assert "on a connection of its own" in plan
    assert "Questions the server asks during the check are declined." in plan
    assert (f"It calls {tool} with no arguments" if tool else "No tool: the") in plan
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
    screen = app.screen
    assert isinstance(screen, CheckScreen)
    return screen


async def finished(pilot: Any, screen: CheckScreen) -> None:
    await wait_for(pilot, lambda: screen.progress.ended, timeout=RUN_TIMEOUT)
    assert screen.progress.failure is None, screen.progress.failure


def _frame(direction: Any, method: str, exchange: int, message: dict[str, Any]) -> Frame:
    return Frame(
        direction=direction,
        message=message,
        raw=None,
        at=0.0,
        method=method,
        rpc_id=message["id"],
        task_id=None,
        reason=None,
        latency_ms=None,
        http_status=None,
        headers={},
        error=None,
        exchange=exchange,
    )


def row_texts(screen: CheckScreen) -> list[str]:
    table = screen.table
    return [" ".join(str(cell) for cell in table.get_row_at(row)) for row in range(table.row_count)]


async def open_row(pilot: Any, screen: CheckScreen, check_id: str) -> ExchangeScreen:
    """Enter on the row of `check_id`: the exchange view of the frames behind its verdict."""
    app = pilot.app
    ids = [check.id for check in screen.progress.checks]
    screen.table.move_cursor(row=ids.index(check_id))
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
    shown = app.screen
    assert isinstance(shown, ExchangeScreen)
    return shown


async def export(pilot: Any, fmt: str, path: Path) -> None:
    """`e`, the format `fmt` ("json", "junit", "markdown"), then the file `path`."""
    app = pilot.app
    await pilot.press("e")
    await wait_for(pilot, lambda: isinstance(app.screen, ChoicePicker))
    options = app.screen.query_one(OptionList)
    ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
    options.highlighted = ids.index(fmt)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
    prompt = app.screen.query_one(Input)
    assert prompt.value.startswith("taskscope-check-")
    prompt.value = str(path)
    await pilot.press("enter")
    await wait_for(pilot, lambda: path.exists() and path.stat().st_size > 0)
    await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))


async def test_a_check_of_the_legacy_demo_fills_every_row_opens_evidence_and_exports(
    tmp_path: Path,
) -> None:
    posted: list[Message] = []

    def hook(message: Message) -> None:
        run_message = CheckScreen.Started | CheckScreen.Settled | CheckScreen.Ended
        if isinstance(message, run_message):
            posted.append(message)

    app = live_app(stdio_target("legacy"), remember_tasks=False)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await connected(pilot)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Check this server" in titles
        watched = demo_children()
        assert len(watched) == 1
        screen = await start_check(pilot, "provision_server")
        await finished(pilot, screen)
        report = screen.progress.report
        assert report is not None and report.outcome == "passed", screen.progress.status()

        # a row per check before any verdict, then each verdict as it came, then the end
        started, *settled, ended = posted
        assert isinstance(started, CheckScreen.Started)
        assert isinstance(ended, CheckScreen.Ended) and ended.report is report
        assert all(isinstance(message, CheckScreen.Settled) for message in settled)
        assert sorted(m.finding.check.id for m in settled) == sorted(  # type: ignore[attr-defined]
            check.id for check in started.checks
        )
        rows = row_texts(screen)
        assert len(rows) == len(report.findings) == len(started.checks)
        assert all(row.startswith("✓ pass") for row in rows)
        total = len(select("legacy"))
        status = str(screen.query_one("#check-status").render())
        assert f"PASSED · {total} pass, 0 fail" in status

        # its own connection: a second stdio server, and no frame of it in the watched log
        assert app.check_run is not None
        own = [frame.reason or "" for frame in app.check_run.frames.frames]
        assert any(reason.startswith("check #") for reason in own)
        assert not any((frame.reason or "").startswith("check #") for frame in app.rpc_frames)

        exchange = await open_row(pilot, screen, "tasks-invalid-task-id-rejected")
        request, response = exchange.exchange.request, exchange.exchange.response
        assert request is not None and request.method == "tasks/get"
        assert response is not None and (response.message or {})["error"]["code"] == -32602
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        handshake = await open_row(pilot, screen, "tasks-wire-resolvable")
        assert handshake.exchange.request is not None
        assert handshake.exchange.request.method == "initialize"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)

        await export(pilot, "json", tmp_path / "check.json")
        document = json.loads((tmp_path / "check.json").read_text())
        assert document["outcome"] == "passed" and len(document["checks"]) == total
        await export(pilot, "junit", tmp_path / "check.xml")
        suite = ElementTree.parse(tmp_path / "check.xml").getroot().find("testsuite")
        assert suite is not None
        assert (suite.get("tests"), suite.get("failures")) == (str(total), "0")
        await export(pilot, "markdown", tmp_path / "check.md")
        markdown = (tmp_path / "check.md").read_text()
        assert markdown.startswith("# taskscope check: taskscope-demo-legacy")
        assert "| Outcome | PASSED |" in markdown
        for name in ("check.json", "check.xml", "check.md"):
            assert (tmp_path / name).stat().st_mode & 0o777 == 0o600

        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CheckScreen))
        assert app.check_run is None
        assert demo_children() == watched


async def test_no_tool_on_the_extension_demo_over_http_is_incomplete_never_green(
    extension_url: str,
) -> None:
    app = live_app(http_target(extension_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        screen = await start_check(pilot, None)
        await finished(pilot, screen)
        report = screen.progress.report
        assert report is not None and report.outcome == "incomplete"
        assert report.server["name"] == "taskscope-demo-extension"
        unrun = [f.check.id for f in report.findings if f.verdict == "could-not-run"]
        assert "tasks-ttl-shape" in unrun
        assert all(needs_tool(f.check) for f in report.findings if f.verdict == "could-not-run")
        assert "? could-not-run MUST tasks-ttl-shape" in "\n".join(row_texts(screen))
        status = str(screen.query_one("#check-status").render())
        assert status.startswith("INCOMPLETE ·")
        assert "\ntasks-ttl-shape could not run: needs a tool" in status
        ids = [check.id for check in screen.progress.checks]
        screen.table.move_cursor(row=ids.index("tasks-ttl-shape"))
        await pilot.pause()
        await pilot.press("enter")  # no frame behind a check that could not run: it says so

        def said_so() -> bool:
            return any("cites no frame" in n.message for n in app._notifications)

        await wait_for(pilot, said_so)
        assert app.screen is screen
        exchange = await open_row(pilot, screen, "tasks-undeclared-capability-rejected")
        assert exchange.exchange.response is not None
        assert exchange.exchange.response.http_status is not None


async def test_closing_the_screen_or_quitting_mid_run_closes_the_check_connection() -> None:
    app = live_app(stdio_target("legacy"), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        screen = await start_check(pilot, "provision_server")
        await wait_for(pilot, lambda: len(demo_children()) == 2 and screen.progress.checks)
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(demo_children()) == 1 and app.check_run is None)
        assert not screen.progress.ended  # stopped, not finished

        screen = await start_check(pilot, "provision_server")
        await wait_for(pilot, lambda: len(demo_children()) == 2 and screen.progress.checks)
    assert demo_children() == []  # the App quit mid-run: both servers are gone


async def test_with_several_servers_the_selected_rows_server_is_checked(
    extension_url: str,
) -> None:
    entries: list[tuple[str, LiveSource | str]] = [
        ("alpha", LiveSource(stdio_target("legacy"))),
        ("beta", LiveSource(http_target(extension_url))),
    ]
    app = TaskscopeApp(MultiSource(entries, label="servers.json", readonly=False))

    def up() -> bool:
        try:
            return all(app.source.server(name) for name in ("alpha", "beta"))
        except SourceUnavailable:
            return False

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.info is not None and up(), timeout=30)
        await pilot.press("c")  # no row selected: which server?
        await wait_for(pilot, lambda: isinstance(app.screen, ServerPicker))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ServerPicker))

        await create_on(app, "beta", "lookup_weather", as_task=False)
        await wait_for(pilot, lambda: app.table.selected_task_id is not None)
        selected = app.tasks.get(app.table.selected_task_id or "")
        assert selected is not None and selected.server == "beta"
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        title = str(app.screen.query_one("#picker-title").render())
        assert title == "Check beta (taskscope-demo-extension) with which tool?"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ToolPicker))
        screen = await start_check(pilot, None)
        assert "beta" in str(screen.query_one("#check-title").render())
        await finished(pilot, screen)
        assert screen.progress.report is not None
        assert screen.progress.report.server["name"] == "taskscope-demo-extension"


async def test_with_record_the_check_connection_is_recorded(tmp_path: Path) -> None:
    target = stdio_target("legacy")
    path = tmp_path / "session.ndjson"
    recorder = Recorder.to_file(path, redactor_for(target), face="tui")
    app = TaskscopeApp(LiveSource(target, recorder=recorder), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        screen = await start_check(pilot, None)
        await finished(pilot, screen)
    recorder.close()
    entries = read_recording(path).entries
    reasons = [e.frame.reason or "" for e in entries if isinstance(e, RecordedFrame)]
    assert any(reason.startswith("check #") for reason in reasons)
    (check,) = [e for e in entries if isinstance(e, Action) and e.action == "check"]
    assert check.details["outcome"] == "incomplete" and check.details["tool"] is None


async def test_read_only_offers_no_check() -> None:
    app = TaskscopeApp(LiveSource(stdio_target("legacy"), readonly=True), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("c")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, ToolPicker)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "New task" not in titles and "Check this server" not in titles


async def test_server_text_on_the_check_screen_reads_as_written() -> None:
    """A reason, an evidence method and an id the server chose, full of markup and escapes:
    drawn as typed (no markup parsed, no click action planted, no escape), and the App runs on."""
    app = recorded_app()
    hostile = "[/b]EVIL [@click=app.quit]x[/] \x1b[2J"
    check = select("legacy")["tasks-wire-resolvable"]
    evidence = (Evidence(hostile, "in", hostile, 3),)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        screen = CheckScreen(Text("Check"))
        await app.push_screen(screen)
        screen.post_message(CheckScreen.Started((check,)))
        screen.post_message(CheckScreen.Settled(Finding(check, "fail", hostile, evidence)))
        await wait_for(pilot, lambda: screen.progress.settled == 1)
        await pilot.pause()
        detail = shown_text(screen.query_one("#check-detail"))
        assert "Reason [/b]EVIL [@click=app.quit]x[/] Evidence [/b]EVIL [@click" in detail
        assert ", received, id [/b]EVIL [@click=app.quit]x[/] , exchange 3" in detail
        assert "2J" not in detail  # the escape sequence is dropped whole
        assert clickable_cells(screen) == []
        await pilot.press("enter")  # a frame the run never kept: it says so, plainly
        await wait_for(pilot, lambda: bool(app._notifications))
        assert app.is_running and app.screen is screen


async def test_a_broken_rule_is_a_failed_row_and_enter_shows_the_offending_answer() -> None:
    """The violating relay answers an unknown task id with -32603: the outcome is FAILED, the
    cursor waits on the failed row, and its evidence is the server's wrong answer."""
    relay = [sys.executable, "-m", "tests.support.servers.violating", "--wire", "legacy"]
    target = StdioTarget([*relay, "--violate", "unknown-id-internal", "--", "--speed", "20"])
    app = live_app(target, remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        screen = await start_check(pilot, None)
        await finished(pilot, screen)
        assert screen.progress.report is not None
        assert screen.progress.report.outcome == "failed"
        failed = "tasks-invalid-task-id-rejected"
        assert screen.progress.checks[screen.table.cursor_row].id == failed
        assert f"✗ fail MUST {failed}" in "\n".join(row_texts(screen))
        detail = shown_text(screen.query_one("#check-detail"))
        assert 'Reason tasks/get of an unknown id answered error -32603 "Task not found"' in detail
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
        response = app.screen.exchange.response  # type: ignore[attr-defined]
        assert (response.message or {})["error"]["code"] == -32603


async def test_a_verdict_citing_several_exchanges_asks_which_to_open() -> None:
    app = recorded_app()
    check = select("legacy")["tasks-legal-transitions"]
    run = CheckRun(EngineSession(StdioTarget(["unused"])), CheckSettings(), Shown(Redactor()))
    frames = [
        _frame("out", "tasks/get", 41, {"jsonrpc": "2.0", "id": 1, "method": "tasks/get"}),
        _frame("in", "tasks/get", 41, {"jsonrpc": "2.0", "id": 1, "result": {"status": "a"}}),
        _frame("out", "tasks/get", 42, {"jsonrpc": "2.0", "id": 2, "method": "tasks/get"}),
        _frame("in", "tasks/get", 42, {"jsonrpc": "2.0", "id": 2, "result": {"status": "b"}}),
    ]
    run.frames.add(frames)
    evidence = (Evidence("tasks/get", "in", 1, 41), Evidence("tasks/get", "in", 2, 42))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.info is not None)
        app.check_run = run
        screen = CheckScreen(Text("Check"))
        await app.push_screen(screen)
        screen.post_message(CheckScreen.Started((check,)))
        screen.post_message(CheckScreen.Settled(Finding(check, "fail", "b after a", evidence)))
        await wait_for(pilot, lambda: screen.progress.settled == 1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoicePicker))
        assert "Frames behind tasks-legal-transitions" in str(
            app.screen.query_one(".small-modal-title").render()
        )
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ExchangeScreen))
        assert app.screen.exchange.response is frames[3]  # type: ignore[attr-defined]
        app.check_run = None  # never opened: nothing to close


API_KEY = "key-MIKE5150"
TOKEN = "tok-OSCAR6160"
MARKERS = ("MIKE5150", "OSCAR6160")


async def test_credentials_a_server_echoes_never_reach_the_screen_or_a_report(
    echo_secrets_url: str, tmp_path: Path
) -> None:
    """A server quoting `Authorization` and `--redact` headers back in its tools, results,
    errors and task ids: the rows, the detail, the evidence and every export hold none."""
    target = HttpTarget(f"{echo_secrets_url}/mcp", headers={"X-Api-Key": API_KEY}, bearer=TOKEN)
    app = TaskscopeApp(LiveSource(target, redact=["X-Api-Key"]), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        screen = await start_check(pilot, "echo")
        await finished(pilot, screen)
        report = screen.progress.report
        assert report is not None
        assert any("[redacted]" in json.dumps(f.as_json()) for f in report.findings)
        shown = [*row_texts(screen)]
        for row in range(screen.table.row_count):
            screen.table.move_cursor(row=row)
            await pilot.pause()
            shown.append(shown_text(screen.query_one("#check-detail")))
        for fmt, name in (("json", "c.json"), ("junit", "c.xml"), ("markdown", "c.md")):
            await export(pilot, fmt, tmp_path / name)
            shown.append((tmp_path / name).read_text())
        assert app.check_run is not None
        shown += [json.dumps(frame.message) for frame in app.check_run.frames.frames]
        for text in shown:
            assert not any(marker in text for marker in MARKERS), text
