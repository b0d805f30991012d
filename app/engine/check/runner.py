"""One `taskscope check` run on an open session: pick the wire's checks, run each scenario that
serves a selected check, settle findings as their scenarios end, and clean up the tasks made.

A scenario that raises, or outlives its bound, leaves its open checks `could-not-run` with the
reason; the run goes on. Nothing here prints: the faces hear each finding through `on_finding`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.engine.check import scenarios_common as common
from app.engine.check import scenarios_extension as extension
from app.engine.check import scenarios_fixtures
from app.engine.check import scenarios_legacy as legacy
from app.engine.check.catalog import BY_ID, select
from app.engine.check.judge import Judge
from app.engine.check.model import Check, Finding, RunReport
from app.engine.check.probe import Answerer, Probe
from app.engine.check.run_state import RunState
from app.engine.rpc.negotiate import PROBE_TIMEOUT

if TYPE_CHECKING:
    from app.engine.rpc.connection import Connection
    from app.engine.rpc.session import EngineSession

Scenario = Callable[[RunState], Awaitable[None]]
SCENARIO_BOUND = 4
"""A scenario may take this many times the run's timeout (each of its waits takes at most one)."""


@dataclass(frozen=True, slots=True)
class CheckSettings:
    """What the command line asked for."""

    tool: str | None = None
    tool_args: dict[str, Any] | None = None
    check_ids: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    timeout_s: float = 30.0


SCENARIOS: tuple[tuple[str, Scenario, tuple[str, ...]], ...] = (
    (
        "both",
        common.resolution,
        ("tasks-wire-resolvable", "tasks-declaration-hygiene", "tasks-extension-advertised"),
    ),
    ("both", common.unknown_ids, ("tasks-invalid-task-id-rejected", "tasks-declared-verbs-answer")),
    (
        "extension",
        common.removed_verbs,
        (
            "sep-2663-tasks-result-removed-method-not-found",
            "tasks-removed-tasks-list",
            "tasks-undeclared-capability-rejected",
            "tasks-undeclared-capability-names-requirements",
        ),
    ),
    ("legacy", legacy.task_support, ("tasks-legacy-task-support",)),
    (
        "legacy",
        legacy.lifecycle,
        (*legacy.LIFECYCLE, "tasks-declared-verbs-answer", common.UNDER_DECLARATION),
    ),
    ("legacy", legacy.cancel_working, ("tasks-legacy-cancel-working", "tasks-legal-transitions")),
    ("legacy", legacy.session_binding, ("tasks-legacy-session-binding",)),
    (
        "extension",
        extension.declaration,
        (
            "tasks-undeclared-creation-refused",
            "sep-2663-legacy-task-param-ignored",
            "tasks-undeclared-capability-rejected",
            "tasks-undeclared-capability-names-requirements",
        ),
    ),
    ("extension", extension.lifecycle, extension.LIFECYCLE),
    ("extension", scenarios_fixtures.fixtures, scenarios_fixtures.FIXTURE_CHECKS),
    ("extension", extension.listen, ("tasks-status-notifications",)),
    ("extension", common.result_types, ("tasks-result-type-complete-on-non-task-responses",)),
    (
        "extension",
        extension.cancel_working,
        ("tasks-cancel-ack-shape", "tasks-legal-transitions", "tasks-no-early-ttl-expiry"),
    ),
)
"""Each scenario with its wire and the checks it settles (settled once every scenario that may
observe them has run; the declaration checks are also observed by `removed_verbs`)."""


TOOL_FREE_SCENARIOS = (common.resolution, common.unknown_ids, common.removed_verbs)
"""The scenarios that call no tool: every other check needs one (the user's or a fixture)."""
TOOL_FREE_CHECKS = frozenset(
    check_id
    for _, scenario, check_ids in SCENARIOS
    if scenario in TOOL_FREE_SCENARIOS
    for check_id in check_ids
)


def needs_tool(check: Check) -> bool:
    """Whether `check` can only be decided by calling a tool."""
    return check.id not in TOOL_FREE_CHECKS


def judged_wire(session: EngineSession) -> str:
    """The wire whose checks apply: the resolved one, else the era's (a modern server with no
    tasks wire is judged as an extension server, a legacy one as a legacy server)."""
    wire = session.capabilities.wire
    if wire in ("legacy", "extension"):
        return wire
    return "legacy" if session.info.era == "legacy" else "extension"


async def run_checks(
    session: EngineSession,
    settings: CheckSettings,
    answer: Answerer,
    on_finding: Callable[[Finding], None] = lambda finding: None,
) -> RunReport:
    """Run every selected check on `session` (open) and return the report."""
    wire = judged_wire(session)
    judge = Judge(select(wire, settings.check_ids, settings.categories), on_finding)
    probe = Probe(session.connection, answer, settings.timeout_s)
    if wire == "legacy":
        probe.answer_server_requests()
    state = RunState(
        probe,
        judge,
        session.info,
        session.capabilities.wire,
        settings.tool,
        dict(settings.tool_args or {}),
        open_another=lambda: another_connection(session),
        handshake_frames=session.connection.handshake_frames,
    )
    notes: list[str] = []
    listing = await _list_tools(session, settings.timeout_s)
    if isinstance(listing, str):
        notes.append(f"tools/list failed: {listing}")
    else:
        state.tools = listing
    if settings.tool is not None and settings.tool not in state.tools:
        notes.append(f"the server does not list the tool {settings.tool}")
    pending = [entry for entry in SCENARIOS if entry[0] in (wire, "both")]
    for index, (_, scenario, check_ids) in enumerate(pending):
        if judge.wants(*check_ids) and (state.wire != "none" or scenario is common.resolution):
            await _run_one(scenario, state, check_ids, settings.timeout_s * SCENARIO_BOUND)
        elif state.wire == "none":
            judge.unrun_all(check_ids, f"no tasks wire resolves on this {session.info.era} server")
        later = {cid for _, _, ids in pending[index + 1 :] for cid in ids}
        judge.settle(cid for cid in check_ids if cid not in later)
    left = await _clean_up(state, settings.timeout_s * SCENARIO_BOUND)
    return RunReport(
        wire=wire,
        server={
            "name": session.info.name,
            "version": session.info.version,
            "transport": session.info.transport,
            "era": session.info.era,
            "protocolVersion": session.info.protocol_version,
        },
        findings=judge.findings(),
        left_behind=tuple(left),
        notes=tuple(notes),
    )


async def _run_one(
    scenario: Scenario, state: RunState, check_ids: tuple[str, ...], bound_s: float
) -> None:
    try:
        async with asyncio.timeout(bound_s):
            await scenario(state)
    except TimeoutError:
        state.judge.unrun_all(
            check_ids,
            f"the scenario took longer than {bound_s:g} s (--timeout-ms times {SCENARIO_BOUND})",
        )
    except Exception as exc:
        state.judge.unrun_all(check_ids, f"the scenario stopped: {type(exc).__name__}: {exc}")


async def _list_tools(session: EngineSession, timeout_s: float) -> dict[str, dict[str, Any]] | str:
    try:
        async with asyncio.timeout(timeout_s):
            tools = await session.connection.list_tools(reason="check: which tools exist")
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return {str(tool.get("name")): tool for tool in tools if isinstance(tool.get("name"), str)}


async def _clean_up(state: RunState, bound_s: float) -> list[str]:
    """Cancel every task the run made that has not ended, within `bound_s` in all; the ids it
    could not cancel (refused, unanswered, or not reached in time)."""
    left = [created.task_id for created in state.probe.created.values() if not created.ended]
    cancel_declared = state.wire == "extension" or state.capability("tasks", "cancel") is not None
    if not cancel_declared:
        return left
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(bound_s):
            for task_id in list(left):
                reply = await state.probe.call(
                    "tasks/cancel", {"taskId": task_id}, "clean up: cancel a task the run made"
                )
                if reply.result is not None or reply.code == -32602:
                    left.remove(task_id)
    return left


def handshake_timeouts(timeout_s: float) -> tuple[float, float]:
    """(probe, each request) timeouts of a checked connection's era dance, so the whole dance
    ends within `timeout_s`: at most two waits (the probe, then `initialize` beside it or after
    it), each at most half."""
    each = timeout_s / 2
    return min(PROBE_TIMEOUT, each), each


def unconnected_report(
    settings: CheckSettings, wire: str | None, transport: str, reason: str
) -> RunReport:
    """The report of a run whose connection never opened: every check of `wire` (without one,
    the checks common to both wires), or the ones asked for, could not run, for `reason` (which
    says that the connection failed, and why)."""
    checks = select(wire or "both", settings.check_ids, settings.categories)
    if not checks and settings.check_ids:
        checks = {cid: BY_ID[cid] for cid in settings.check_ids if cid in BY_ID}
    judge = Judge(checks)
    judge.unrun_all(checks, reason)
    return RunReport(
        wire=wire or "unknown",
        server={
            "name": None,
            "version": None,
            "transport": transport,
            "era": None,
            "protocolVersion": None,
        },
        findings=judge.findings(),
        notes=(reason,),
    )


def another_connection(session: EngineSession) -> Connection:
    """A second connection to the session's server, on its era and with its sign-in."""
    from app.engine.rpc.connection import Connection

    return Connection(
        session.target,
        era="legacy" if session.info.era == "legacy" else "modern",
        redact=session.redact,
        authorizer=session.authorizer,
    )
