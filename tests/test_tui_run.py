"""The CLI hook: which invocations open the TUI, and with what options."""

from __future__ import annotations

import pytest

import app.tui.run as tui_run
from app.cli.main import main
from app.engine.targets import HttpTarget, StdioTarget
from app.tui.run import TuiOptions


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[TuiOptions]:
    calls: list[TuiOptions] = []

    def fake_run_tui(options: TuiOptions) -> int:
        calls.append(options)
        return 0

    monkeypatch.setattr(tui_run, "run_tui", fake_run_tui)
    return calls


def test_demo_opens_the_tui_on_the_demo_of_the_chosen_wire(opened: list[TuiOptions]) -> None:
    assert main(["demo", "--wire", "extension"]) == 0
    (options,) = opened
    assert isinstance(options.target, StdioTarget)
    assert options.target.command[-4:] == ["--wire", "extension", "--transport", "stdio"]
    assert options.expected_wire == "extension"


def test_target_flags_open_the_tui(opened: list[TuiOptions]) -> None:
    assert main(["--url", "http://127.0.0.1:9/mcp", "--era", "modern", "--root", "/srv"]) == 0
    (options,) = opened
    assert isinstance(options.target, HttpTarget) and options.era == "modern"
    assert list(options.roots) == ["/srv"]


def test_no_target_explains_how_to_pick_one(
    opened: list[TuiOptions], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 0
    assert not opened
    printed = capsys.readouterr().out
    assert "--url URL" in printed and "taskscope demo" in printed


def test_bad_wire_is_a_usage_error(opened: list[TuiOptions]) -> None:
    assert main(["demo", "--wire", "bogus"]) == 2
    assert not opened
