"""The check screen's state (`app/view/check_progress`): rows waiting until their verdict, the
status line, the plan said before a check starts, and which kept frames a finding's evidence
points at (by exchange number, else the newest frame of its method with the quoted params)."""

from __future__ import annotations

from typing import Any

from app.engine.check.catalog import BY_ID, select
from app.engine.check.model import Evidence, Finding, RunReport
from app.engine.rpc.rpc_types import Frame
from app.view.check_progress import (
    NOT_RUN,
    WAITING,
    CheckProgress,
    check_plan,
    evidence_exchanges,
)
from app.view.exchanges import FrameBuffer

LEGACY = tuple(select("legacy").values())


def _frame(
    direction: Any, method: str | None, exchange: int | None, message: dict[str, Any]
) -> Frame:
    return Frame(
        direction=direction,
        message=message,
        raw=None,
        at=0.0,
        method=method,
        rpc_id=message.get("id"),
        task_id=None,
        reason=None,
        latency_ms=None,
        http_status=None,
        headers={},
        error=None,
        exchange=exchange,
    )


def _report(*findings: Finding) -> RunReport:
    return RunReport("legacy", {"name": "demo", "version": "1"}, findings)


def test_rows_wait_for_their_verdict_and_the_status_follows_the_run() -> None:
    progress = CheckProgress()
    assert progress.status() == "Connecting to the server…"
    progress.start(LEGACY)
    first, second = LEGACY[0], LEGACY[1]
    assert progress.verdict_cell(first) == WAITING
    progress.settle(Finding(first, "pass", "ok"))
    assert progress.verdict_cell(first) == "✓ pass"
    assert progress.status() == f"1 of {len(LEGACY)} checks settled"
    findings = [Finding(check, "pass", "ok") for check in LEGACY]
    findings[1] = Finding(second, "could-not-run", "no tool")
    progress.finish(_report(*findings))
    assert progress.settled == len(LEGACY) and progress.ended
    assert progress.verdict_cell(second) == "? could-not-run"
    assert progress.first_needing_care() is second
    status = progress.status()
    passed = len(LEGACY) - 1
    assert status.startswith(f"INCOMPLETE · {passed} pass, 0 fail, 0 warn, 0 skip, 1 could-not-run")
    assert status.endswith(f"\n{second.id} could not run: no tool")


def test_a_run_that_could_not_connect_says_why_and_leaves_no_row_waiting() -> None:
    progress = CheckProgress()
    progress.start(LEGACY)
    progress.fail("could not connect: \x1b[31mrefused\x1b[0m")
    assert progress.verdict_cell(LEGACY[0]) == NOT_RUN
    assert progress.status() == "Could not check: could not connect: refused"


def test_the_plan_names_the_tool_or_what_no_tool_costs() -> None:
    with_tool = check_plan("demo", "stdio", "provision_server", 10)
    assert "a second copy of the server" in with_tool
    assert "It calls provision_server with no arguments" in with_tool
    assert "cancels every task it made" in with_tool
    assert "Questions the server asks during the check are declined." in with_tool
    assert with_tool.endswith(
        "The same as taskscope check --tool-name provision_server on this server."
    )
    without = check_plan("demo\x1b[2J", "http", None, 10)
    assert "\x1b" not in without and "a new session" in without
    assert "No tool: the 10 checks that need one will be could-not-run" in without
    assert "incomplete, never passed" in without
    assert "No tool: the checks that need one" in check_plan("demo", "http", None, None)


def test_evidence_opens_the_exchanges_it_names_once_each() -> None:
    frames = FrameBuffer(50)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    status_a = {"method": "notifications/tasks/status", "params": {"taskId": "a"}}
    status_b = {"method": "notifications/tasks/status", "params": {"taskId": "b"}}
    frames.add(
        [
            _frame("out", "initialize", 1, initialize),
            _frame("in", "initialize", 1, {"jsonrpc": "2.0", "id": 1, "result": {}}),
            _frame("out", "tasks/get", 2, {"jsonrpc": "2.0", "id": 2, "method": "tasks/get"}),
            _frame("in", "tasks/get", 2, {"jsonrpc": "2.0", "id": 2, "error": {"code": -1}}),
            _frame("in", "notifications/tasks/status", None, status_a),
            _frame("in", "notifications/tasks/status", None, status_b),
        ]
    )
    check = BY_ID["tasks-legacy-status-notifications"]
    evidence = (
        Evidence("tasks/get", "in", 2, 2, {"error": {"code": -1}}),
        Evidence("tasks/get", "out", 2, 2),  # the same exchange: listed once
        Evidence("initialize", "in", None, None, {"capabilities": {}}),
        Evidence("notifications/tasks/status", "in", None, None, {"params": {"taskId": "a"}}),
        Evidence("tasks/get", "in", 99, 99),  # no longer kept
    )
    found = evidence_exchanges(frames, Finding(check, "fail", "bad", evidence))
    assert [words for words, _ in found] == [
        "tasks/get, received, id 2, exchange 2",
        "initialize, received",
        "notifications/tasks/status, received",
    ]
    requests = [exchange.request for _, exchange in found]
    assert [r.message for r in requests if r is not None] == [
        {"jsonrpc": "2.0", "id": 2, "method": "tasks/get"},
        initialize,
        status_a,
    ]
    assert found[0][1].response is not None and found[1][1].response is not None
    assert evidence_exchanges(frames, Finding(check, "pass", "ok")) == []
