"""The server pane (`s`): opened on a live demo server of each wire, it names the server, its
transport, era and tasks wire and the connection's state (the sign-in row is tested with the
OAuth demo in test_tui_oauth.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.tui.app import TaskscopeApp
from app.tui.live import LiveSource
from tests.support.tui_helpers import SIZE, connected, server_pane_text, stdio_target, wait_for
from widgets.server_screen import ServerScreen

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


@pytest.mark.parametrize(
    ("wire", "protocol", "verbs"),
    [("legacy", "2025-11-25", "list"), ("extension", "2026-07-28", "update")],
)
async def test_the_pane_names_the_server_its_wire_and_its_state(
    wire: str, protocol: str, verbs: str
) -> None:
    app = TaskscopeApp(LiveSource(stdio_target(wire)), remember_tasks=False)  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerScreen))
        await wait_for(pilot, lambda: "Connection" in server_pane_text(app))
        text = server_pane_text(app)
        assert app.info is not None
        assert text.startswith(f"{app.info.server_name} {app.info.server_version}")
        assert "Reached at" in text and "(stdio)" in text
        assert f"Protocol {protocol}" in text
        assert f"Tasks wire {wire} (" in text and verbs in text
        assert "Connection connected" in text
        assert "Sign-in" not in text  # stdio never signs in
        await pilot.press("s")
        await wait_for(pilot, lambda: not isinstance(app.screen, ServerScreen))
