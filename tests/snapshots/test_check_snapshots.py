"""SVG snapshots of the check screen (`c`) at 80x24, 120x36 and 200x50: a run under way (rows
waiting, the progress bar) and a finished one (every verdict kind, the outcome, the highlighted
failure's reason, evidence and spec). The findings are fixed, posted to the screen as the check's
worker posts them, so the pictures do not depend on a live server's timing. Update with
`pytest tests/snapshots/test_check_snapshots.py --snapshot-update` and look at every SVG.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.check.catalog import select
from app.engine.check.model import Evidence, Finding, RunReport
from app.tui.app import TaskscopeApp
from app.tui.server_choice import ChosenServer
from app.tui.verbs.checking import check_title
from tests.support.tui_helpers import wait_for
from tests.support.tui_recording import INFO, RECORDED_TASKS, recorded_app
from widgets.check_screen import CheckScreen

SIZES = [(80, 24), (120, 36), (200, 50)]
CHECKS = tuple(select("extension").values())
SETTLED_WHILE_RUNNING = 7
FAILING = "tasks-status-payload-shape"

NOT_PASSING: dict[str, Finding] = {
    FAILING: Finding(
        select("extension")[FAILING],
        "fail",
        "a completed task has no inline result object",
        (
            Evidence(
                "tasks/get",
                "in",
                7,
                12,
                {"result": {"taskId": "tk-1", "status": "completed"}},
                http_status=200,
            ),
        ),
    ),
    "tasks-cancel-terminal-idempotent-ack": Finding(
        select("extension")["tasks-cancel-terminal-idempotent-ack"],
        "warn",
        "tasks/cancel of a terminal task answered -32602 (a SHOULD: it only warns)",
    ),
    "tasks-input-required-update-completes": Finding(
        select("extension")["tasks-input-required-update-completes"],
        "could-not-run",
        "build_report asked no question: nothing to answer with tasks/update",
    ),
    "tasks-mcp-name-routing": Finding(
        select("extension")["tasks-mcp-name-routing"],
        "skip",
        "the server does not route by Mcp-Name",
    ),
}
FINDINGS = tuple(
    NOT_PASSING.get(check.id) or Finding(check, "pass", f"{check.title}: as the spec says")
    for check in CHECKS
)
REPORT = RunReport(
    "extension",
    {
        "name": INFO.server_name,
        "version": INFO.server_version,
        "transport": INFO.transport,
        "era": "modern",
        "protocolVersion": INFO.protocol_version,
    },
    FINDINGS,
)

Step = Callable[[Pilot[Any]], Awaitable[None]]


async def open_check(pilot: Pilot[Any], settled: int, *, ended: bool) -> CheckScreen:
    """The check screen over the recorded App, with `settled` verdicts in (and the end)."""
    app = pilot.app
    assert isinstance(app, TaskscopeApp)
    await wait_for(pilot, lambda: len(app.tasks) == RECORDED_TASKS and app.table.row_count)
    title = check_title(ChosenServer(app.source, INFO, None), "build_report")
    screen = CheckScreen(title)
    await app.push_screen(screen)
    screen.post_message(CheckScreen.Started(CHECKS))
    for finding in FINDINGS[:settled]:
        screen.post_message(CheckScreen.Settled(finding))
    if ended:
        screen.post_message(CheckScreen.Ended(REPORT))
    await wait_for(pilot, lambda: screen.progress.settled == settled)
    await wait_for(pilot, lambda: screen.progress.ended == ended)
    return screen


async def show_running(pilot: Pilot[Any]) -> None:
    await open_check(pilot, SETTLED_WHILE_RUNNING, ended=False)
    await pilot.pause()


async def show_finished(pilot: Pilot[Any]) -> None:
    screen = await open_check(pilot, len(FINDINGS), ended=True)
    screen.table.move_cursor(row=[check.id for check in CHECKS].index(FAILING))
    await pilot.pause()


SCENES: dict[str, Step] = {"running": show_running, "finished": show_finished}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("scene", list(SCENES))
def test_check_screen(snap_compare: Any, scene: str, size: tuple[int, int]) -> None:
    assert snap_compare(recorded_app(), terminal_size=size, run_before=SCENES[scene])
