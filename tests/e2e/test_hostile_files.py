"""Hostile files handed to the real `taskscope`: recordings for `tasks export` and `replay`, MCP
client configs for `servers`, `tools list` and the inspector. Each is a subprocess; what it prints
and its exit code are checked, and no traceback may reach stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.e2e.test_hostile_terminal import Terminal
from tests.support.cli_helpers import Run, clean_env, run_cli
from tests.support.hostile_files import (
    BAD_RECORDING_LINES,
    FIRST_BAD_LINE,
    GOLDEN,
    HOSTILE_CONFIGS,
    RECORDING,
    TASK_ID,
    hostile_config,
    hostile_recording,
)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))


def assert_no_traceback(run: Run) -> None:
    assert "Traceback" not in run.stderr, run.stderr[-2000:]


# -- recordings -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_export_skips_and_names_each_bad_line_and_exports_the_rest(
    fmt: str, tmp_path: Path
) -> None:
    path = hostile_recording(tmp_path)
    run = run_cli(
        "tasks", "export", "--task-id", TASK_ID, "--from-recording", str(path), "--format", fmt
    )
    assert run.code == 0, run.stderr
    assert_no_traceback(run)
    assert run.stdout == (GOLDEN / f"deploy-release-legacy.{fmt}").read_text(encoding="utf-8")
    skipped = [line for line in run.stderr.splitlines() if "skipped line" in line]
    assert len(skipped) == len(BAD_RECORDING_LINES)
    for number, (line, (_, why)) in enumerate(
        zip(skipped, BAD_RECORDING_LINES.values(), strict=True)
    ):
        assert f"skipped line {FIRST_BAD_LINE + number}: " in line and why in line


def test_a_recording_past_its_bound_is_a_usage_error_naming_the_bound() -> None:
    size = RECORDING.stat().st_size
    args = ("--task-id", TASK_ID, "--from-recording", str(RECORDING))
    fits = run_cli("tasks", "export", *args, env=clean_env(TASKSCOPE_MAX_RECORDING=str(size)))
    assert fits.code == 0, fits.stderr
    small = clean_env(TASKSCOPE_MAX_RECORDING="1K")
    for run in (
        run_cli("tasks", "export", *args, env=small),
        run_cli("replay", str(RECORDING), env=small),
    ):
        assert run.code == 2
        assert_no_traceback(run)
        assert run.error["code"] == "USAGE"
        assert "larger than 1,024 bytes" in run.error["message"]
        assert "TASKSCOPE_MAX_RECORDING" in run.error["message"]


@pytest.mark.skipif(sys.platform == "win32", reason="pty")
def test_replay_of_a_hostile_recording_plays_the_rest_and_names_what_it_skipped(
    tmp_path: Path,
) -> None:
    path = hostile_recording(tmp_path)
    env = {**clean_env(), "TERM": "xterm-256color", "TASKSCOPE_DATA_DIR": str(tmp_path / "d")}
    command = [sys.executable, "-m", "app.cli.main", "replay", str(path), "--instant"]
    terminal = Terminal(command, env)
    try:
        terminal.wait_for("deploy_release")  # the recorded task's row
        terminal.wait_for(f"skipped {len(BAD_RECORDING_LINES)} bad lines")  # the header says so
        terminal.press("q", settle=1.0)
        code = terminal.process.wait(timeout=20)
        terminal.read(0.5)
    finally:
        terminal.close()
    assert code == 0
    assert "Traceback" not in terminal.text
    assert f"skipped line {FIRST_BAD_LINE}: not a JSON object" in terminal.text  # on stderr


# -- MCP client config files -------------------------------------------------------------------


@pytest.mark.parametrize("name", list(HOSTILE_CONFIGS))
def test_a_hostile_config_is_a_usage_error_naming_the_file(name: str, tmp_path: Path) -> None:
    config = str(hostile_config(tmp_path, name))
    for run in (
        run_cli("servers", "--config", config),
        run_cli("tools", "list", "--config", config, "--server", "deep"),
        run_cli("tools", "list", "--config", config),
        run_cli("--config", config),  # the inspector: refused before it draws
    ):
        assert run.code == 2, run.stderr
        assert_no_traceback(run)
        assert run.error["code"] == "USAGE" and config in run.error["message"]


def test_the_config_of_a_real_client_still_loads(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    demo = ["-m", "app.demo", "--wire", "legacy", "--transport", "stdio", "--speed", "20"]
    entry = {"command": sys.executable, "args": demo, "env": {"LEVEL": "${TS_UNSET:-info}"}}
    config.write_text(json.dumps({"mcpServers": {"demo": entry}}))
    run = run_cli("tools", "list", "--config", str(config))
    assert run.code == 0, run.stderr
    assert run.document["tools"]
