"""A plain tool call that fails on a 2026-07-28 connection because the server has no back-channel
to ask its questions on (Python SDK 2.x, FastMCP 4.2): the inspector says, as the CLI does, that
the questions need the legacy era and gives the `--era legacy` command; on the legacy era the same
call succeeds without the hint. The server is tests/support/servers/no_back_channel.py."""

from __future__ import annotations

import sys

import pytest
from textual.notifications import Notification

from app.engine.rpc.era import EraPreference
from app.engine.rpc.targets import StdioTarget
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from tests.support.markup import Notes, shown_text
from tests.support.tui_helpers import SIZE, connected, wait_for
from widgets.arguments_form import ArgumentsForm, CreateRequest
from widgets.tool_picker import ToolPicker

SERVER = (sys.executable, "-m", "tests.support.servers.no_back_channel", "--fails-with")
TOOL = "confirm_deploy"
COMMAND = "taskscope --era legacy"


def no_back_channel_app(fails_with: str, *, era: EraPreference = "auto") -> TaskscopeApp:
    source = LiveSource(StdioTarget((*SERVER, fails_with)), era=era)
    return TaskscopeApp(source, remember_tasks=False)


def hints(notes: Notes) -> list[Notification]:
    return [note for note in notes.made if COMMAND in note.message]


async def test_n_on_a_server_without_a_back_channel_names_the_legacy_era_command() -> None:
    """`n`, the tool, ctrl+s: the -32600 error's toast is followed by the legacy-era hint."""
    app = no_back_channel_app("rpc-error")
    notes = Notes()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolPicker))
        await wait_for(pilot, lambda: TOOL in shown_text(app.screen.query_one("#picker-list")))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ArgumentsForm))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: bool(hints(notes)))
        [failed] = notes.titled(f"{TOOL} failed")
        assert "-32600" in failed.message or "back-channel" in failed.message
        [hint] = hints(notes)
        assert "the server's questions need the legacy era" in hint.message
        assert "2026-07-28" in hint.message
        assert not hint.markup


async def test_an_is_error_result_for_want_of_a_back_channel_gets_the_hint_too() -> None:
    app = no_back_channel_app("is-error")
    notes = Notes()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest(TOOL, {}, None, False))
        await wait_for(pilot, lambda: bool(hints(notes)))
        [row] = app.tasks.tasks.values()
        assert row.task is not None and row.task.result is not None
        assert row.task.result["isError"] is True
        assert "the server's questions need the legacy era" in hints(notes)[0].message


@pytest.mark.parametrize("fails_with", ["rpc-error", "is-error"])
async def test_on_the_legacy_era_the_call_succeeds_without_a_hint(fails_with: str) -> None:
    app = no_back_channel_app(fails_with, era="legacy")
    notes = Notes()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest(TOOL, {}, None, False))
        await wait_for(pilot, lambda: bool(app.tasks.tasks))
        [row] = app.tasks.tasks.values()
        assert row.task is not None and row.task.result is not None
        assert row.task.result["content"][0]["text"] == "deployed"
        await pilot.pause()
        assert hints(notes) == []
