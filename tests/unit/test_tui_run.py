"""The CLI hook: which invocations open the TUI, and with what options."""

from __future__ import annotations

from pathlib import Path

import pytest

import app.tui.run as tui_run
from app.cli.main import main
from app.engine.rpc.targets import HttpTarget, StdioTarget
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
    assert not options.remember_tasks  # a fresh demo server starts fresh: no ids restored


def test_target_flags_open_the_tui(opened: list[TuiOptions]) -> None:
    assert main(["--url", "http://127.0.0.1:9/mcp", "--era", "modern", "--root", "/srv"]) == 0
    (options,) = opened
    assert isinstance(options.target, HttpTarget) and options.era == "modern"
    assert list(options.roots) == ["/srv"]
    assert options.remember_tasks


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


def test_the_demo_app_neither_restores_nor_remembers_task_ids(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Restarting `taskscope demo` starts a new demo server: the ids of the previous one would
    only come back as forgotten rows."""
    from app.tui.app import TaskscopeApp

    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "none.json"))
    seen: list[bool] = []

    async def fake_run(app: TaskscopeApp, **_options: object) -> int:
        seen.append(app.remember_tasks)
        return 0

    monkeypatch.setattr(TaskscopeApp, "run_async", fake_run)
    assert main(["demo"]) == 0
    assert main(["--url", "http://127.0.0.1:9/mcp"]) == 0
    assert seen == [False, True]


def test_demo_takes_root_after_the_verb_like_before_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`taskscope demo --root P` was refused (global flags had to come first)."""
    import app.tui.run as tui_run

    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "none.json"))
    roots: list[tuple[str, ...]] = []

    def fake_run_tui(options: tui_run.TuiOptions) -> int:
        roots.append(tuple(options.roots))
        return 0

    monkeypatch.setattr(tui_run, "run_tui", fake_run_tui)
    assert main(["demo", "--root", str(tmp_path)]) == 0
    assert main(["--root", str(tmp_path), "demo"]) == 0
    assert roots == [(str(tmp_path),), (str(tmp_path),)]


def test_the_inspector_starts_with_what_the_flags_withhold(
    opened: list[TuiOptions], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`taskscope demo --withhold tasks` and `--client-capabilities` reach the live source."""
    import app.tui.collector
    from app.tui.live import LiveSource
    from app.tui.run import LiveLoader

    monkeypatch.setattr(app.tui.collector, "settle_gc", lambda: None)  # not this test process's

    assert main(["demo", "--wire", "extension", "--withhold", "tasks"]) == 0
    assert main(["--command", "server", "--client-capabilities", '{"sampling": {}}']) == 0
    withheld, replaced = opened
    assert withheld.advertised is not None and withheld.advertised.withheld == {"tasks"}
    assert replaced.advertised is not None and replaced.advertised.replaced == {"sampling": {}}
    source = LiveLoader(withheld).load().source
    assert isinstance(source, LiveSource)
    assert not source.advertised().declares_tasks
