"""Several independent servers in one inspector, as `taskscope --config FILE --record FILE` opens
them: the TypeScript SDK's `everything` (legacy wire, HTTP), FastMCP 4 with fastmcp-tasks
(extension wire, HTTP) and the Python SDK 1 (legacy wire, stdio). A task runs to its end on each,
FastMCP's question is answered from the one inbox, and the recording replays the same rows and
exports each task with its server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.cli.args import parse
from app.cli.target import tui_servers
from app.engine.record.export import render, task_lives
from app.engine.record.recorder import Recorder, redactor_for
from app.engine.record.replay import read_recording
from app.tui.app import TaskscopeApp
from app.tui.replay import ReplaySource
from app.tui.run import LiveLoader, TuiOptions
from app.tui.startup import DeferredSource
from tests.interop.catalog import BY_NAME
from tests.support.tui_helpers import SIZE, create_on, servers_up, wait_for
from widgets.input_form import InputForm
from widgets.input_inbox import InputInbox

pytestmark = pytest.mark.timeout(240)
TASK_TIMEOUT_S = 90.0


def settled(app: TaskscopeApp) -> dict[str, tuple[str | None, str]]:
    """Each row's server and status."""
    return {key: (w.server, str(w.status)) for key, w in app.tasks.tasks.items()}


async def test_three_independent_servers_in_one_inspector_record_replay_and_export(
    tmp_path: Path, server_url: Any
) -> None:
    everything, fastmcp, mcp1 = (
        BY_NAME[name] for name in ("everything", "fastmcp4-tasks", "python-sdk-1")
    )
    assert (
        everything.finishes and fastmcp.finishes and fastmcp.form and mcp1.finishes and mcp1.stdio
    )
    stdio = mcp1.stdio()
    config = tmp_path / "servers.json"
    entries = {
        "ts-everything": {"url": server_url(everything.name)},
        "fastmcp": {"url": server_url(fastmcp.name)},
        "py-sdk": {"command": stdio[0], "args": stdio[1:]},
    }
    config.write_text(json.dumps({"mcpServers": entries}))
    servers = tui_servers(parse(["--config", str(config)]).target)
    record = tmp_path / "several.ndjson"
    names = [name for name, _ in servers]
    recorder = Recorder.to_file(record, redactor_for(None), face="tui", servers=names)
    first = next(target for _, target in servers if not isinstance(target, str))
    options = TuiOptions(first, servers=servers, servers_label=str(config), recorder=recorder)
    loader = LiveLoader(options)
    app = TaskscopeApp(DeferredSource(loader.load), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: app.info is not None and servers_up(app, *names),
            timeout=TASK_TIMEOUT_S,
        )
        for name, server in (("ts-everything", everything), ("fastmcp", fastmcp), ("py-sdk", mcp1)):
            call = server.finishes
            assert call is not None
            await create_on(app, name, call.tool, **call.arguments)
        form = fastmcp.form
        await create_on(app, "fastmcp", form.tool, **form.arguments)
        await wait_for(pilot, lambda: bool(app.inbox_entries()), timeout=TASK_TIMEOUT_S)
        (question,) = app.inbox_entries()
        assert question.server == "fastmcp"
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, InputInbox))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InputForm))
        await pilot.pause()
        await pilot.press(*form.keys, "ctrl+s")
        await wait_for(
            pilot,
            lambda: (
                len(app.tasks) == 4
                and all(
                    w.status == "completed" and w.task is not None and w.task.result is not None
                    for w in app.tasks.tasks.values()
                )
            ),
            timeout=TASK_TIMEOUT_S,
        )
        live = settled(app)
        assert sorted(server for server, _ in live.values()) == [
            "fastmcp",
            "fastmcp",
            "py-sdk",
            "ts-everything",
        ]
        results = {key: str(w.task.result) for key, w in app.tasks.tasks.items() if w.task}
        assert any(form.expect in text for text in results.values())
        await app.close_source()
    loader.close()

    recording = read_recording(record)
    assert recording.servers == tuple(names)
    assert set(recording.task_ids) == set(live)
    replay = TaskscopeApp(ReplaySource(recording, str(record), speed=None), remember_tasks=False)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: settled(replay) == live)

    lives = task_lives(recording.entries, list(live))
    assert sorted(life.server_name or "" for life in lives) == sorted(s for s, _ in live.values())
    assert all(life.server is not None and life.final is not None for life in lives)
    markdown = render(lives, "md")
    assert markdown.count("on `fastmcp`") == 2 and "on `py-sdk`" in markdown
