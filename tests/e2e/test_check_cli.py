"""`taskscope check`'s command line: its own help epilog (exit 3, no 6 or 7), the input flags it
would ignore refused, text on a terminal and JSON when piped (README: "--format text (the
default on a terminal) … --format json (the default when piped)"), and `--category` alone."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys

import pytest

from tests.support.cli_helpers import clean_env, run_cli
from tests.support.demo_servers import REPO_ROOT

pytestmark = pytest.mark.slow

ONE_CHECK = ("--demo", "legacy", "--check-id", "tasks-invalid-task-id-rejected")


def test_check_help_names_its_own_exit_codes() -> None:
    run = run_cli("check", "--help")
    assert run.code == 0
    assert "0 passed, 1 failed" in run.stdout and "3 incomplete" in run.stdout
    assert "130 aborted" in run.stdout
    assert "6 input needed" not in run.stdout and "7 timeout" not in run.stdout
    assert "--interactive" not in run.stdout and "--yes" not in run.stdout
    other = run_cli("tools", "call", "--help")
    assert "6 input needed" in other.stdout


@pytest.mark.parametrize("flag", ["--interactive", "--yes"])
def test_check_refuses_the_input_flags_it_would_ignore(flag: str) -> None:
    run = run_cli("check", *ONE_CHECK, flag)
    assert run.code == 2
    assert flag in run.error["message"]


def run_on_a_terminal(*args: str) -> tuple[int, str]:
    """Run the CLI with stdout on a pseudo-terminal (stderr piped): its exit code and what the
    terminal showed."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", *args],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=subprocess.DEVNULL,
        cwd=REPO_ROOT,
        env=clean_env(),
    )
    os.close(terminal)
    shown = b""
    try:
        while True:
            ready, _, _ = select.select([controller], [], [], 120)
            assert ready, f"no output for 120 s; so far:\n{shown.decode(errors='replace')}"
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        code = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        os.close(controller)
    return code, shown.decode(errors="replace")


def test_text_is_the_default_on_a_terminal_and_json_when_piped() -> None:
    code, shown = run_on_a_terminal("check", *ONE_CHECK)
    assert code == 0, shown
    assert "✓ pass" in shown and "outcome: PASSED" in shown
    assert not shown.lstrip().startswith("{")
    piped = run_cli("check", *ONE_CHECK)
    assert piped.code == 0, piped.stderr
    assert json.loads(piped.stdout)["outcome"] == "passed"


def test_category_alone_selects_that_categorys_checks() -> None:
    run = run_cli(
        "check",
        "--demo",
        "legacy",
        "--tool-name",
        "provision_server",
        "--category",
        "dispatch",
        "--format",
        "json",
        "--timeout-ms",
        "8000",
    )
    assert run.code == 0, run.stderr
    document = json.loads(run.stdout)
    categories = {check["category"] for check in document["checks"]}
    assert categories == {"dispatch"}
    assert "tasks-wire-resolvable" in {check["id"] for check in document["checks"]}
    assert document["outcome"] == "passed"
