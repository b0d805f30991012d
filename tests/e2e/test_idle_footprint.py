"""An idle session (the App connected over HTTP to a server with no tasks) loads nothing that only
some sessions need: no pydantic (the models load with the first task), no TLS set-up for an
`http://` URL, no `importlib.metadata`, compression, Decimal, CSV or pickle beyond what a minimal
Textual app loads itself (asyncio imports `ssl`, Textual `decimal`, `pickle`, `bz2` and `lzma`).

Each side runs in a fresh process, so `sys.modules` holds exactly what it imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.demo_servers import start_http_demo

REPO = Path(__file__).resolve().parents[2]

LOADED_ON_FIRST_USE = (
    "pydantic",
    "pydantic_core",
    "app.engine.tasks.models",
    "certifi",
    "ssl",
    "_ssl",
    "importlib.metadata",
    "zipfile",
    "_decimal",
    "_pickle",
    "_csv",
    "_bz2",
    "_lzma",
    "email.message",
)
"""What an idle session must not import beyond the floor."""

IDLE_PROBE = """
import asyncio, json, sys
from app.engine.rpc.targets import HttpTarget
from app.tui.app import TaskscopeApp
from app.tui.run import LiveLoader, TuiOptions
from app.tui.startup import DeferredSource

loader = LiveLoader(TuiOptions(HttpTarget(url=sys.argv[1])))
app = TaskscopeApp(DeferredSource(loader.load), remember_tasks=False)

async def main():
    async with app.run_test(size=(120, 36)) as pilot:
        for _ in range(400):
            if app.info is not None or app.failed:
                break
            await pilot.pause(0.05)
        for _ in range(20):
            await pilot.pause()
        print(json.dumps({"connected": app.info is not None, "problem": app.problem,
                          "tasks": len(app.tasks), "modules": sorted(sys.modules)}))
        await app.close_source()
    loader.close()

asyncio.run(main())
"""

FLOOR_PROBE = """
import asyncio, json, sys
from bench.floor_app import FloorApp

async def main():
    async with FloorApp().run_test(size=(120, 36)) as pilot:
        for _ in range(20):
            await pilot.pause()
        print(json.dumps({"modules": sorted(sys.modules)}))

asyncio.run(main())
"""


def _probe(code: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.timeout(180)
@pytest.mark.parametrize("wire", ["extension", "legacy"])
def test_an_idle_session_loads_nothing_beyond_the_floor_that_it_does_not_use(wire: str) -> None:
    floor = _probe(FLOOR_PROBE)
    with start_http_demo(wire) as (url, _process):
        idle = _probe(IDLE_PROBE, url)
    assert idle["connected"] is True, idle["problem"]
    assert idle["tasks"] == 0
    floor_modules = set(floor["modules"])  # type: ignore[arg-type]
    extra = set(idle["modules"]) - floor_modules  # type: ignore[arg-type]
    assert sorted(extra.intersection(LOADED_ON_FIRST_USE)) == []
