"""The checks that need no tool: which wire resolves, whether the capabilities are of one era,
and how the tasks verbs answer an id the server never issued."""

from __future__ import annotations

from typing import Any

from app.engine.check.model import Evidence
from app.engine.check.probe import Reply
from app.engine.check.run_state import UNKNOWN_TASK_ID, RunState
from app.engine.tasks.base import INVALID_PARAMS, METHOD_NOT_FOUND
from app.engine.tasks.protocol_keys import TASKS_EXTENSION

UNDER_DECLARATION = "tasks-legacy-tools-call-declared"
"""Judged here when `call` is declared; otherwise by the legacy lifecycle's task-augmented call."""


async def resolution(state: RunState) -> None:
    """tasks-wire-resolvable, tasks-declaration-hygiene, tasks-extension-advertised, and a
    declared tools.call for tasks-legacy-tools-call-declared."""
    judge, evidence = state.judge, state.capabilities_evidence()
    legacy_tasks = state.capability("tasks")
    extensions = state.capability("extensions")
    extension = isinstance(extensions, dict) and TASKS_EXTENSION in extensions
    call = state.capability("tasks", "requests", "tools", "call") is not None
    era = state.info.era
    if legacy_tasks is None and not extension:
        offers_none = (
            f"the server declares no tasks support on the {era} era (neither capabilities.tasks "
            "nor the extension): tasks are optional, so there is nothing to judge"
        )
        judge.skipped("tasks-wire-resolvable", offers_none)
        judge.skipped("tasks-extension-advertised", offers_none)
        judge.skipped(UNDER_DECLARATION, offers_none)
    elif state.wire == "none":
        judge.violated(
            "tasks-wire-resolvable",
            f"no tasks wire resolves on the {era} era: " + _unresolved(state, legacy_tasks),
            evidence,
        )
    else:
        judge.passed(
            "tasks-wire-resolvable", f"the {state.wire} wire resolves on the {era} era", evidence
        )
    if era == "modern" and legacy_tasks is not None:
        judge.violated(
            "tasks-declaration-hygiene",
            "server/discover on 2026-07-28 advertises the legacy capabilities.tasks",
            evidence,
        )
    elif era == "legacy" and extension:
        judge.violated(
            "tasks-declaration-hygiene",
            "initialize on 2025-11-25 advertises the extension, which that version does not define",
            evidence,
        )
    else:
        judge.passed("tasks-declaration-hygiene", f"only {era}-era task capabilities", evidence)
    if call:
        judge.passed(
            UNDER_DECLARATION, "capabilities.tasks.requests.tools.call is declared", evidence
        )
    elif legacy_tasks is not None:
        judge.unrun(
            UNDER_DECLARATION,
            "capabilities.tasks.requests.tools.call is not declared: only a task-augmented call "
            "(--tool-name, on a server whose tasks wire resolves) shows whether the server "
            "creates tasks anyway",
        )
    if era == "modern" and (legacy_tasks is not None or extension):
        advertised(state, extension, legacy_tasks is not None, evidence)


def _unresolved(state: RunState, legacy_tasks: Any) -> str:
    """Why no tasks wire resolves although the server declares tasks of some kind."""
    if state.info.era == "modern":
        return (
            "capabilities.tasks is the 2025-11-25 way to declare tasks; on 2026-07-28 only "
            f'capabilities.extensions["{TASKS_EXTENSION}"] (an object) declares them'
        )
    if isinstance(legacy_tasks, dict):
        return (
            "capabilities.tasks declares none of requests.tools.call, list and cancel, so no "
            "tasks verb is declared"
        )
    return (
        "the extension is the 2026-07-28 way to declare tasks; on 2025-11-25 only "
        "capabilities.tasks (with requests.tools.call, list or cancel) declares them"
    )


def advertised(
    state: RunState, extension: bool, legacy_slot: bool, evidence: tuple[Evidence, ...]
) -> None:
    """tasks-extension-advertised, as the suite's check of that id: the extension is advertised
    under capabilities.extensions, and not capabilities.tasks."""
    problems = []
    if not extension:
        problems.append(f'capabilities.extensions["{TASKS_EXTENSION}"] is not advertised')
    if legacy_slot:
        problems.append(
            "server/discover also uses the legacy capabilities.tasks slot, which the extension "
            "replaces"
        )
    if problems:
        state.judge.violated("tasks-extension-advertised", "; ".join(problems), evidence)
    else:
        state.judge.passed(
            "tasks-extension-advertised",
            f'capabilities.extensions["{TASKS_EXTENSION}"] is advertised, and not '
            "capabilities.tasks",
            evidence,
        )


async def unknown_ids(state: RunState) -> None:
    """tasks-invalid-task-id-rejected and tasks-declared-verbs-answer: every tasks verb the wire
    has, asked about an id the server never issued."""
    judge, probe = state.judge, state.probe
    verbs = ["tasks/get"]
    if state.wire == "legacy":
        verbs.append("tasks/result")
        if state.capability("tasks", "cancel") is not None:
            verbs.append("tasks/cancel")
    else:
        verbs.extend(("tasks/update", "tasks/cancel"))
    answered: list[str] = []
    silent: list[str] = []
    for method in verbs:
        params: dict[str, object] = {"taskId": UNKNOWN_TASK_ID}
        if method == "tasks/update":
            params["inputResponses"] = {}
        reply = await probe.call(method, params, f"{method} of an id never issued")
        must = method == "tasks/get" or state.wire == "legacy"
        if reply.code == INVALID_PARAMS:
            judge.passed(
                "tasks-invalid-task-id-rejected",
                f"{method} of an unknown id answered -32602",
                reply.evidence(),
            )
        elif reply.code == METHOD_NOT_FOUND:
            judge.violated(
                "tasks-declared-verbs-answer",
                f"{method} answered -32601 although the {state.wire} wire has it",
                reply.evidence(request=True),
            )
        else:
            problem = f"{method} of an unknown id answered {reply.describe()}, not -32602"
            if must:
                judge.violated("tasks-invalid-task-id-rejected", problem, reply.evidence())
            else:
                judge.warned("tasks-invalid-task-id-rejected", problem, reply.evidence())
        if reply.failure is not None:
            silent.append(f"{method} got {reply.describe()}")
        elif reply.code != METHOD_NOT_FOUND:
            answered.append(method)
    if silent:
        judge.unrun(
            "tasks-declared-verbs-answer",
            "; ".join(silent)
            + ": a verb that never answers shows neither that it is implemented nor that it is "
            "missing (-32601)",
        )
    elif answered:
        judge.passed("tasks-declared-verbs-answer", f"{', '.join(answered)} answered (not -32601)")


async def removed_verbs(state: RunState) -> None:
    """sep-2663-tasks-result-removed-method-not-found, tasks-removed-tasks-list, and the -32021
    answers of tasks/* sent without the extension's declaration."""
    judge, probe = state.judge, state.probe
    for method, check_id in (
        ("tasks/result", "sep-2663-tasks-result-removed-method-not-found"),
        ("tasks/list", "tasks-removed-tasks-list"),
    ):
        removed: dict[str, object] = {"taskId": UNKNOWN_TASK_ID} if method == "tasks/result" else {}
        reply = await probe.call(method, removed, f"{method}, removed from the extension wire")
        if reply.code == METHOD_NOT_FOUND:
            judge.passed(check_id, f"{method} answered -32601", reply.evidence())
        else:
            judge.violated(
                check_id, f"{method} answered {reply.describe()}, not -32601", reply.evidence()
            )
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        params: dict[str, object] = {"taskId": UNKNOWN_TASK_ID}
        if method == "tasks/update":
            params["inputResponses"] = {}
        reply = await probe.call(
            method, params, f"{method} without the extension's declaration", declare_tasks=False
        )
        missing_capability_verdict(state, reply, method)


MISSING_CAPABILITY = (-32021, -32003)
"""-32021, and -32003, its number in drafts before August 2026 (recognised, and said)."""


def missing_capability_verdict(state: RunState, reply: Reply, what: str) -> None:
    """Judge a refusal that must be -32021 naming the extension in data.requiredCapabilities."""
    judge = state.judge
    if reply.code not in MISSING_CAPABILITY:
        judge.violated(
            "tasks-undeclared-capability-rejected",
            f"{what} without the declaration answered {reply.describe()}, not -32021",
            reply.evidence(request=True),
        )
        return
    if reply.code == -32003:
        judge.warned(
            "tasks-undeclared-capability-rejected",
            f"{what} answered -32003, the pre-release number of -32021",
            reply.evidence(),
        )
    else:
        judge.passed(
            "tasks-undeclared-capability-rejected", f"{what} answered -32021", reply.evidence()
        )
    data = reply.error.data if reply.error is not None else None
    required = data.get("requiredCapabilities") if isinstance(data, dict) else None
    extensions = required.get("extensions") if isinstance(required, dict) else None
    if isinstance(extensions, dict) and TASKS_EXTENSION in extensions:
        judge.passed(
            "tasks-undeclared-capability-names-requirements",
            f"the -32021 of {what} names the extension in data.requiredCapabilities",
            reply.evidence(),
        )
    else:
        judge.violated(
            "tasks-undeclared-capability-names-requirements",
            f"the -32021 of {what} does not name "
            f'data.requiredCapabilities.extensions["{TASKS_EXTENSION}"]',
            reply.evidence({"error": {"data": data}}),
        )


NON_TASK_ANSWERS = ("tools/call", "tasks/get", "tasks/update", "tasks/cancel")
TOOL_CALL_RESULT_TYPES = frozenset({"task", "input_required", "complete"})


async def result_types(state: RunState) -> None:
    """tasks-result-type-complete-on-non-task-responses, over every answer the run received:
    a synchronous tools/call, tasks/get, tasks/update and tasks/cancel say "complete"."""
    seen = 0
    for frame in list(state.probe.frames):
        message = frame.message or {}
        result = message.get("result")
        if frame.direction != "in" or frame.method not in NON_TASK_ANSWERS:
            continue
        if not isinstance(result, dict):
            continue
        seen += 1
        kind = result.get("resultType")
        allowed = TOOL_CALL_RESULT_TYPES if frame.method == "tools/call" else {"complete"}
        if kind not in allowed:
            state.judge.violated(
                "tasks-result-type-complete-on-non-task-responses",
                f"{frame.method} answered resultType {kind!r}"
                + (" (absent)" if kind is None else "")
                + ', not "complete"',
                (state.probe.evidence_of(frame, {"resultType": kind}),),
            )
    if seen:
        state.judge.passed(
            "tasks-result-type-complete-on-non-task-responses",
            f'{seen} answers, each with its resultType ("complete" unless a task or an MRTR round)',
        )
    else:
        state.judge.unrun(
            "tasks-result-type-complete-on-non-task-responses", "no answer of this run had a result"
        )
