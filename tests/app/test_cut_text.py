"""Text cut short (issue 26): the RPC log's method column uses the room a wide log has, its task
column keeps the short id readable with several servers (the server name is cut first), and the
JSON trees of the frame viewer mark a value cut at the pane's edge with "…"."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.app import App, ComposeResult

from app.engine.rpc.rpc_types import Frame
from app.engine.tasks.server_keys import row_key
from tests.support.tui_recording import NOW
from widgets.json_view import JsonView
from widgets.rpc_log import RpcLog

TASK_ID = "F3a9c0de-77b1-4c1e-9a52-5be0c9d1e2f3"
SHORT_ID = re.compile(rf"{TASK_ID}|F3a9c[0-9a-f-]*…[0-9a-f-]*e2f3")
"""The id whole, or cut in the middle with its start and end readable."""
STATUS = "notifications/tasks/status"


def frame(method: str, task_id: str | None, server: str | None = None) -> Frame:
    return Frame(
        direction="in",
        message={"jsonrpc": "2.0", "method": method},
        raw=None,
        at=NOW,
        method=method,
        rpc_id=None,
        task_id=task_id,
        reason="stream",
        latency_ms=None,
        http_status=200,
        headers={},
        error=None,
        server=server,
    )


class LogHost(App[None]):
    def __init__(self, frames: list[Frame]) -> None:
        super().__init__()
        self.frames = frames

    def compose(self) -> ComposeResult:
        yield RpcLog(self.frames, id="log")


def screen_lines(app: App[Any]) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_the_rpc_log_keeps_the_short_id_of_a_task_of_several_servers(width: int) -> None:
    frames = [
        frame(STATUS, row_key("fastmcp", TASK_ID), "fastmcp"),
        frame("tasks/get", row_key("extension-demo-server", TASK_ID), "extension-demo-server"),
        frame("tasks/get", TASK_ID),
    ]
    app = LogHost(frames)
    async with app.run_test(size=(width, 10)) as pilot:
        await pilot.pause()
        lines = screen_lines(app)[:3]
        assert all(SHORT_ID.search(line) for line in lines), lines
        if width >= 120:  # the room a wide log has goes to the method and the task
            assert STATUS in lines[0], lines
        if width >= 200:
            assert "extension-demo-server · " in lines[1], lines
            assert TASK_ID in lines[2], lines


class TreeHost(App[None]):
    def compose(self) -> ComposeResult:
        rows = {f"row {index}": index for index in range(20)}  # a vertical scrollbar too
        yield JsonView({"text": "Report for Q3: " + "revenue up 4.2% " * 8, **rows}, id="tree")


async def test_a_json_value_cut_at_the_pane_edge_ends_with_an_ellipsis() -> None:
    app = TreeHost()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        tree = app.query_one(JsonView)
        line = next(line for line in screen_lines(app) if "text:" in line)
        assert line[: tree.scrollable_content_region.right].rstrip().endswith("…"), line
