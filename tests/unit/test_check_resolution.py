"""Which wire a checked server resolves, judged from its declared capabilities alone: a server
that offers no tasks is not a failing one, and one that under-declares is told so."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from app.engine.check.catalog import select
from app.engine.check.judge import Judge
from app.engine.check.probe import Probe
from app.engine.check.run_state import RunState
from app.engine.check.scenarios_common import resolution
from app.engine.rpc.rpc_types import ServerInfo
from app.engine.tasks.wire import resolve_capabilities


def resolved(protocol_version: str, capabilities: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Each check the resolution scenario settles: (verdict, reason)."""
    era = "legacy" if protocol_version == "2025-11-25" else "modern"
    info = ServerInfo("s", "1", protocol_version, era, capabilities, None, "stdio")
    wire = resolve_capabilities(info).wire
    judge = Judge(select("legacy" if era == "legacy" else "extension"))
    state = RunState(cast(Probe, None), judge, info, wire, None, {})
    asyncio.run(resolution(state))
    settled = ("tasks-wire-resolvable", "tasks-declaration-hygiene", "tasks-extension-advertised")
    judge.settle(settled)
    return {f.check.id: (f.verdict, f.reason) for f in judge.findings() if f.check.id in settled}


def test_a_modern_server_without_tasks_is_skipped_not_failed() -> None:
    found = resolved("2026-07-28", {"tools": {}})
    verdict, reason = found["tasks-wire-resolvable"]
    assert verdict == "skip"
    assert "declares no tasks support" in reason
    assert found["tasks-extension-advertised"][0] == "skip"
    assert found["tasks-declaration-hygiene"][0] == "pass"


def test_a_legacy_server_without_tasks_is_skipped_not_failed() -> None:
    assert resolved("2025-11-25", {"tools": {}})["tasks-wire-resolvable"][0] == "skip"


def test_legacy_tasks_on_the_modern_era_still_fail() -> None:
    found = resolved("2026-07-28", {"tasks": {"requests": {"tools": {"call": {}}}}})
    assert found["tasks-wire-resolvable"][0] == "fail"
    assert found["tasks-declaration-hygiene"][0] == "fail"


def under_declaration(capabilities: dict[str, Any]) -> tuple[str, str]:
    """What the resolution scenario alone says of tasks-legacy-tools-call-declared."""
    info = ServerInfo("s", "1", "2025-11-25", "legacy", capabilities, None, "stdio")
    judge = Judge(select("legacy"))
    state = RunState(cast(Probe, None), judge, info, "legacy", None, {})
    asyncio.run(resolution(state))
    judge.settle(["tasks-legacy-tools-call-declared"])
    finding = next(f for f in judge.findings() if f.check.id == "tasks-legacy-tools-call-declared")
    return finding.verdict, finding.reason


def test_a_declared_tools_call_passes_the_under_declaration_check() -> None:
    tasks = {"list": {}, "requests": {"tools": {"call": {}}}}
    assert under_declaration({"tasks": tasks})[0] == "pass"


def test_tools_without_call_waits_for_a_task_augmented_call_to_decide() -> None:
    """Declared `requests.tools: {}` is not yet a fault: only a task the server creates anyway
    shows the under-declaration, so without a tool the check cannot run, and says so."""
    verdict, reason = under_declaration({"tasks": {"list": {}, "requests": {"tools": {}}}})
    assert verdict == "could-not-run"
    assert "--tool-name" in reason


EXTENSION = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
LEGACY_TASKS = {"tasks": {"requests": {"tools": {"call": {}}}}}


def test_a_modern_server_advertising_both_fails_the_advertisement() -> None:
    """The suite's tasks-extension-advertised: the extension "and not capabilities.tasks"."""
    found = resolved("2026-07-28", {**EXTENSION, **LEGACY_TASKS})
    verdict, reason = found["tasks-extension-advertised"]
    assert verdict == "fail"
    assert "capabilities.tasks" in reason
    assert found["tasks-wire-resolvable"][0] == "pass"


def test_a_modern_server_with_only_legacy_tasks_fails_the_advertisement_and_says_why() -> None:
    found = resolved("2026-07-28", LEGACY_TASKS)
    verdict, reason = found["tasks-extension-advertised"]
    assert verdict == "fail"
    assert "not advertised" in reason
    verdict, reason = found["tasks-wire-resolvable"]
    assert verdict == "fail"
    assert "lacks requests.tools.call" not in reason
    assert "2025-11-25" in reason


def test_the_extension_alone_passes_the_advertisement() -> None:
    assert resolved("2026-07-28", EXTENSION)["tasks-extension-advertised"][0] == "pass"


def test_legacy_tasks_with_no_verb_say_which_keys_are_missing() -> None:
    verdict, reason = resolved("2025-11-25", {"tasks": {"requests": {}}})["tasks-wire-resolvable"]
    assert verdict == "fail"
    assert "requests.tools.call" in reason and "list" in reason and "cancel" in reason


def test_the_extension_on_the_legacy_era_says_it_belongs_to_2026() -> None:
    verdict, reason = resolved("2025-11-25", EXTENSION)["tasks-wire-resolvable"]
    assert verdict == "fail"
    assert "2026-07-28" in reason
