"""The App under a flood of questions: a server that asks thousands at once from one tool call
(tests/support/servers/question_flood.py over stdio, legacy wire).

The announcements are merged into a bounded number of notes whose counts add up to the flood, a
key press is handled while the questions come in, and the inbox lists them (the oldest few
hundred). Nothing here asserts on elapsed time, only on what happened.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from textual.notifications import Notification
from textual.widgets import DataTable

from app.engine.rpc.targets import StdioTarget
from app.tui.app import TaskscopeApp
from app.tui.intake import INPUT_NEEDED
from app.tui.live import LiveSource
from tests.support.demo_servers import SUPPORT_SERVERS
from tests.support.markup import Notes, shown_text, toasts
from tests.support.tui_helpers import SIZE, connected, only_task, wait_for
from widgets.arguments_form import CreateRequest
from widgets.input_inbox import MAX_INBOX_ROWS, InputInbox
from widgets.input_modal import AnswerModal

pytestmark = pytest.mark.timeout(180)

FLOOD = 3000
MOST_NOTES = 10
"""Far fewer notes than questions: one per few seconds while the flood comes in."""
MERGED = re.compile(r"^([\d,]+) new questions")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


def flood_app() -> TaskscopeApp:
    command = [sys.executable, str(SUPPORT_SERVERS / "question_flood.py"), str(FLOOD)]
    return TaskscopeApp(LiveSource(StdioTarget(command)))


def questions_told(notes: list[Notification]) -> int:
    """How many questions the notes told of: one each, or the count a merged one names."""
    merged = [MERGED.match(note.message) for note in notes]
    return sum(int(match.group(1).replace(",", "")) if match else 1 for match in merged)


async def test_a_flood_of_questions_is_told_in_a_few_notes_and_keys_still_work() -> None:
    app = flood_app()
    notes = Notes()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("flood", {}, None, True))
        await wait_for(pilot, lambda: bool(app.tasks.tasks) and only_task(app).pending_inputs)
        await pilot.press("p")  # the flood is coming in: the key is handled all the same
        await wait_for(pilot, lambda: app.paused, timeout=60)
        await wait_for(pilot, lambda: only_task(app).pending_input_count == FLOOD, timeout=90)
        await wait_for(pilot, lambda: questions_told(notes.titled(INPUT_NEEDED)) == FLOOD)
        told = notes.titled(INPUT_NEEDED)
        assert len(told) <= MOST_NOTES, [note.message for note in told]
        assert any(MERGED.match(note.message) for note in told)
        assert len(toasts(app)) <= 2  # at most one note of a kind shows at a time
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, InputInbox), timeout=60)
        count = shown_text(app.screen.query_one("#inbox-count"))
        listed = f"(the oldest {MAX_INBOX_ROWS} listed)"
        assert count == f"{FLOOD} questions waiting, oldest first {listed}"
        assert app.screen.query_one("#inbox-table", DataTable).row_count == MAX_INBOX_ROWS


async def test_a_flood_of_questions_on_a_plain_call_opens_one_modal() -> None:
    """Questions outside any task open at once, but one at a time: the rest wait in the inbox."""
    app = flood_app()
    notes = Notes()
    async with app.run_test(size=SIZE, notifications=True, message_hook=notes) as pilot:
        await connected(pilot)
        pilot.app.run_worker(app.create_task(CreateRequest("flood", {}, None, False)))
        await wait_for(pilot, lambda: len(app.inputs.entries([], app.clock())) == FLOOD, 90)
        await wait_for(pilot, lambda: isinstance(app.screen, AnswerModal))
        await pilot.pause(0.5)
        modals = [screen for screen in app.screen_stack if isinstance(screen, AnswerModal)]
        assert len(modals) == 1
        assert len(notes.titled(INPUT_NEEDED)) <= MOST_NOTES
