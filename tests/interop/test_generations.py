"""SDK generations that deviate, as the real SDKs do it (not the in-repo stand-ins):

- the Python SDK 1.23-1.26 declares `tasks.requests.tools: {}` without `call` yet accepts
  task-augmented calls: a task is refused by default, with the missing declaration named, and
  sent when `--wire legacy` asserts it, with a note;
- the Python SDK 2.x is dual-era and its `ctx.elicit` has no back-channel on a 2026-07-28
  connection: a plain call that asks fails on the default era with the `--era legacy` hint, and
  on the legacy era the question is asked, answered from `--answers`, and the call succeeds.

What `taskscope check` says of them is in the golden table (test_check.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine.tasks.wire import UNDECLARED_TOOL_CALLS, assumed_note
from tests.interop.catalog import Server, Transport, case_id, cases
from tests.interop.test_cli import WATCH_TIMEOUT_S, call_args, reach, result_text
from tests.support.cli_helpers import run_cli

LEGACY_ERA_COMMAND = "taskscope tools call --era legacy --tool-name"


@pytest.mark.parametrize("case", cases("asserted"), ids=case_id)
def test_an_under_declared_task_is_refused_unsent_naming_the_missing_declaration(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    assert server.asserted is not None
    target = reach(case, server_url)
    run = run_cli("tools", "call", *target, *call_args(server.asserted, tmp_path), "--task")
    assert run.code == 1, (run.stdout, run.stderr)
    error = run.error
    assert error["code"] == "TASKS_UNSUPPORTED", error
    assert UNDECLARED_TOOL_CALLS in error["message"], error
    assert error["details"]["sent"] is False
    assert "--wire legacy" in error["details"]["hint"], error


@pytest.mark.parametrize("case", cases("asserted"), ids=case_id)
def test_wire_legacy_sends_the_under_declared_task_with_a_note(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    call = server.asserted
    assert call is not None
    target = reach(case, server_url)
    args = ("tools", "call", *target, *call_args(call, tmp_path), "--task", "--task-watch")
    run = run_cli(*args, "--wire", "legacy", "--yes", timeout=WATCH_TIMEOUT_S)
    assert run.code == 0, (run.stdout, run.stderr)
    document = run.document
    assert (document["outcome"], document["wire"]) == ("completed", "legacy"), document
    assert call.expect in result_text(document)
    note = assumed_note(UNDECLARED_TOOL_CALLS)
    assert note in document["variants"], document["variants"]
    assert note in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("case", cases("asks_on_legacy"), ids=case_id)
def test_a_question_without_a_back_channel_fails_with_the_legacy_era_hint(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    call = server.asks_on_legacy
    assert call is not None
    target = reach(case, server_url)
    run = run_cli("tools", "call", *target, *call_args(call, tmp_path))
    assert run.code == 1, (run.stdout, run.stderr)
    error = run.error
    assert (error["code"], error["details"]["code"]) == ("RPC_ERROR", -32600), error
    assert "back-channel" in error["message"]
    assert f"{LEGACY_ERA_COMMAND} {call.tool}" in error["details"]["hint"], error
    assert call.expect not in run.stdout


@pytest.mark.parametrize("case", cases("asks_on_legacy"), ids=case_id)
def test_on_the_legacy_era_the_question_is_asked_answered_and_the_call_succeeds(
    case: tuple[Server, Transport], server_url: Any, tmp_path: Path
) -> None:
    server, _ = case
    call = server.asks_on_legacy
    assert call is not None
    target = reach(case, server_url)
    run = run_cli("tools", "call", *target, *call_args(call, tmp_path), "--era", "legacy")
    assert run.code == 0, (run.stdout, run.stderr)
    assert call.expect in json.dumps(run.document["content"])
    assert "back-channel" not in run.stderr
