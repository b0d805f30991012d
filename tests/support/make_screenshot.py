"""Write docs/screenshot.svg: the App on the legacy demo server with a few tasks in flight.

Run `python -m tests.support.make_screenshot` from the repository root; the data directory is
a temporary one, so no remembered tasks leak in.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from app.engine.rpc.targets import StdioTarget
from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from tests.support.demo_servers import REPO_ROOT, stdio_demo_command
from tests.support.tui_helpers import SIZE, wait_for
from widgets.arguments_form import CreateRequest

OUTPUT = REPO_ROOT / "docs" / "screenshot.svg"

CALLS = (
    CreateRequest("build_report", {"quarter": "Q3"}, None, True),
    CreateRequest("migrate_database", {"tables": 40}, None, True),
    CreateRequest("provision_server", {}, None, True),
    CreateRequest("validate_config", {}, None, True),
    CreateRequest("lookup_weather", {"city": "Lisbon"}, None, False),
)


async def main(output: Path = OUTPUT) -> None:
    source = LiveSource(StdioTarget(stdio_demo_command("legacy")), key="screenshot")
    app = TaskscopeApp(source, remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.info is not None, timeout=20)
        for call in CALLS:
            await app.create_task(call)
        await wait_for(pilot, lambda: len(app.tasks) == len(CALLS))
        await wait_for(pilot, lambda: app.tasks.summary().by_status.get("failed", 0) == 1)
        await pilot.pause(2.0)
        app.go_to_task(
            next(t.task_id for t in app.tasks.tasks.values() if t.tool_name == "migrate_database")
        )
        await pilot.pause(0.5)
        app.clear_notifications()
        await pilot.pause(0.3)
        app.save_screenshot(filename=output.name, path=str(output.parent))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as data:
        os.environ["TASKSCOPE_DATA_DIR"] = data
        asyncio.run(main())
    print(OUTPUT)
