"""A legacy server that declares `tasks.requests.tools: {}` without `call` (the Python SDK
1.23-1.26 way) while it accepts task-augmented calls: refused by default, sent on `--wire legacy`
with a note naming the missing declaration."""

from __future__ import annotations

import shlex
import sys

import pytest

from tests.support.cli_helpers import run_cli

pytestmark = pytest.mark.slow

RELAY = (sys.executable, "-m", "tests.support.servers.violating", "--wire", "legacy")
UNDERDECLARING = shlex.join([*RELAY, "--violate", "tools-call-undeclared"])
CALL = ("tools", "call", "--command", UNDERDECLARING, "--tool-name", "analyze_logs", "--task")


def test_an_undeclared_task_call_is_refused_without_an_assertion() -> None:
    run = run_cli(*CALL)
    assert run.code != 0
    assert run.error["code"] == "TASKS_UNSUPPORTED", run.stderr
    assert "tasks.requests.tools.call" in run.error["message"]
    assert "--wire legacy" in run.error["details"]["hint"]
    assert run.error["details"]["sent"] is False


def test_wire_legacy_sends_the_task_and_names_the_missing_declaration() -> None:
    run = run_cli(*CALL, "--task-watch", "--wire", "legacy")
    assert run.code == 0, run.stderr
    document = run.document
    assert (document["outcome"], document["wire"]) == ("completed", "legacy")
    assert any("tasks.requests.tools.call" in variant for variant in document["variants"])
    assert "tasks.requests.tools.call" in run.stderr
    assert "Traceback" not in run.stderr
