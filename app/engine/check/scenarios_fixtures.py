"""The extension checks only the official suite's fixture tools can provoke: a synchronous tool,
an immediate answer, a tool error, a protocol error, a task-required tool called without the
declaration, and MRTR rounds before a task. Each runs only when the server lists its fixture;
otherwise the check is skipped, naming the fixture that would show it (unless a task of the
user's own tool already showed the behaviour)."""

from __future__ import annotations

from typing import Any

from app.engine.check.probe import Reply
from app.engine.check.run_state import RunState
from app.engine.check.scenarios_common import MISSING_CAPABILITY
from app.engine.check.scenarios_extension import Answers, create, is_task, run_task
from app.engine.check.shapes import call_tool_result_problems
from app.engine.tasks.normalize import input_map

FIXTURE_CHECKS = (
    "tasks-sync-tool-call",
    "tasks-per-request-meta-opt-in",
    "tasks-immediate-result-shortcut",
    "tasks-server-directed-creation-no-hint",
    "sep-2663-tool-error-uses-completed-status",
    "sep-2663-tasks-get-status-failed",
    "sep-2663-server-returns-missing-capability-when-required",
    "sep-2663-server-returns-missing-capability-data-shape",
    "sep-2663-mrtr-synchronous-before-task-creation",
)
MAX_ROUNDS = 4
"""MRTR rounds of one tools/call before the checker stops answering."""


def _absent(state: RunState, check_ids: tuple[str, ...], fixture: str) -> bool:
    """Skip `check_ids` when the server does not list `fixture`; whether it was absent."""
    if state.fixture(fixture):
        return False
    for check_id in check_ids:
        state.judge.unobservable(
            check_id, f"only the suite's fixture {fixture} provokes it, and it is not listed"
        )
    return True


async def fixtures(state: RunState) -> None:
    """Every fixture check whose fixture the server lists."""
    await sync_tool(state)
    await per_request_opt_in(state)
    await immediate_shortcut(state)
    await tool_error(state)
    await protocol_error(state)
    await mrtr_composition(state)


async def sync_tool(state: RunState) -> None:
    if _absent(state, ("tasks-sync-tool-call",), "greet"):
        return
    reply = await state.probe.call(
        "tools/call", {"name": "greet", "arguments": {"name": "taskscope"}}, "greet, at once"
    )
    result = reply.result
    problems = [reply.describe()] if result is None else call_tool_result_problems(result)
    if result is not None and is_task(result):
        problems.append("greet answered with a task")
    if result is not None and result.get("resultType") != "complete":
        problems.append(f'resultType is {result.get("resultType")!r}, not "complete"')
    if result is not None and not result.get("content"):
        problems.append("the content is empty")
    if problems:
        state.judge.violated("tasks-sync-tool-call", "; ".join(problems), reply.evidence())
    else:
        state.judge.passed(
            "tasks-sync-tool-call", "greet answered a plain result", reply.evidence()
        )


async def per_request_opt_in(state: RunState) -> None:
    """tasks-per-request-meta-opt-in: slow_compute for a second, declared on the request itself,
    is a task (the suite's fixture contract; a user's tool may answer at once, and passes)."""
    if not state.fixture("slow_compute"):
        return
    reply = await create(
        state, "slow_compute", {"seconds": 1, "label": "taskscope-opt-in"}, "declared slow_compute"
    )
    if reply.result is not None and is_task(reply.result):
        state.judge.passed(
            "tasks-per-request-meta-opt-in",
            "slow_compute declared on its own request became a task",
            reply.evidence(request=True),
        )
    else:
        state.judge.violated(
            "tasks-per-request-meta-opt-in",
            f"slow_compute (1 s) declared on its own request answered {reply.describe()}, "
            "not a task",
            reply.evidence(request=True),
        )


async def immediate_shortcut(state: RunState) -> None:
    if _absent(state, ("tasks-immediate-result-shortcut",), "slow_compute"):
        return
    reply = await create(
        state, "slow_compute", {"seconds": 0, "label": "taskscope-instant"}, "instant slow_compute"
    )
    result = reply.result
    if result is None:
        state.judge.violated(
            "tasks-immediate-result-shortcut",
            f"slow_compute (0 s) answered {reply.describe()}",
            reply.evidence(),
        )
    elif is_task(result):
        verdict_ok = isinstance(result.get("taskId"), str)
        (state.judge.passed if verdict_ok else state.judge.violated)(
            "tasks-immediate-result-shortcut",
            "answered with a task" + ("" if verdict_ok else " without a taskId"),
            reply.evidence(),
        )
    elif call_tool_result_problems(result):
        state.judge.violated(
            "tasks-immediate-result-shortcut",
            "; ".join(call_tool_result_problems(result)),
            reply.evidence(),
        )
    else:
        state.judge.passed(
            "tasks-immediate-result-shortcut", "answered at once, a whole result", reply.evidence()
        )


async def tool_error(state: RunState) -> None:
    """failing_job: a task for a declaring call, ending completed with isError; -32021 naming
    the extension for a call that does not declare it."""
    ids = (
        "tasks-server-directed-creation-no-hint",
        "sep-2663-tool-error-uses-completed-status",
        "sep-2663-server-returns-missing-capability-when-required",
        "sep-2663-server-returns-missing-capability-data-shape",
    )
    if _absent(state, ids, "failing_job"):
        return
    judge = state.judge
    reply = await create(state, "failing_job", {}, "failing_job, as a task")
    if reply.result is not None and is_task(reply.result):
        judge.passed(
            "tasks-server-directed-creation-no-hint",
            "failing_job was made a task without the client asking for one",
            reply.evidence(),
        )
        followed = await run_task(state, reply.result, reply, Answers("failing_job"))
        last = followed.last or {}
        result = last.get("result")
        errored = isinstance(result, dict) and result.get("isError") is True
        if last.get("status") == "completed" and errored:
            judge.passed(
                "sep-2663-tool-error-uses-completed-status",
                "failing_job ended completed with isError",
                followed.snapshots[-1][1].evidence(),
            )
        elif followed.ended:
            judge.violated(
                "sep-2663-tool-error-uses-completed-status",
                f"failing_job's tool error ended {last.get('status')}"
                + ("" if last.get("status") != "completed" else " without isError"),
                followed.snapshots[-1][1].evidence(),
            )
        else:
            judge.unrun(
                "sep-2663-tool-error-uses-completed-status", "failing_job's task never ended"
            )
    else:
        judge.violated(
            "tasks-server-directed-creation-no-hint",
            f"failing_job answered {reply.describe() if reply.result is None else 'at once'}",
            reply.evidence(),
        )
        judge.unrun("sep-2663-tool-error-uses-completed-status", "failing_job made no task")
    plain = await state.probe.call(
        "tools/call",
        {"name": "failing_job", "arguments": {}},
        "failing_job without the declaration",
        declare_tasks=False,
    )
    judge_required(state, plain)


def judge_required(state: RunState, reply: Reply) -> None:
    """A task-required tool called without the declaration: -32021 naming the extension."""
    judge = state.judge
    if reply.code not in MISSING_CAPABILITY:
        judge.violated(
            "sep-2663-server-returns-missing-capability-when-required",
            f"a task-required tool called without the declaration answered {reply.describe()}",
            reply.evidence(),
        )
        judge.unrun(
            "sep-2663-server-returns-missing-capability-data-shape", "no -32021 came to judge"
        )
        return
    judge.passed(
        "sep-2663-server-returns-missing-capability-when-required",
        f"answered {reply.code}",
        reply.evidence(),
    )
    data = reply.error.data if reply.error is not None else None
    if data is None:
        judge.warned(
            "sep-2663-server-returns-missing-capability-data-shape",
            "the -32021 carries no data (the suite only notes it)",
            reply.evidence(),
        )
        return
    required = data.get("requiredCapabilities") if isinstance(data, dict) else None
    extensions = required.get("extensions") if isinstance(required, dict) else None
    if isinstance(extensions, dict) and isinstance(
        extensions.get("io.modelcontextprotocol/tasks"), dict
    ):
        judge.passed(
            "sep-2663-server-returns-missing-capability-data-shape",
            "data.requiredCapabilities names the extension",
            reply.evidence(),
        )
    else:
        judge.violated(
            "sep-2663-server-returns-missing-capability-data-shape",
            "data.requiredCapabilities.extensions does not name io.modelcontextprotocol/tasks",
            reply.evidence({"error": {"data": data}}),
        )


async def protocol_error(state: RunState) -> None:
    if _absent(state, ("sep-2663-tasks-get-status-failed",), "protocol_error_job"):
        return
    reply = await create(state, "protocol_error_job", {}, "protocol_error_job, as a task")
    if reply.result is None or not is_task(reply.result):
        state.judge.unrun(
            "sep-2663-tasks-get-status-failed",
            f"protocol_error_job made no task ({reply.describe()})",
        )
        return
    followed = await run_task(state, reply.result, reply, Answers("protocol_error_job"))
    if followed.ended and followed.statuses[-1] != "failed":
        state.judge.violated(
            "sep-2663-tasks-get-status-failed",
            f"protocol_error_job's JSON-RPC error ended {followed.statuses[-1]}, not failed",
            followed.snapshots[-1][1].evidence(),
        )


async def mrtr_composition(state: RunState) -> None:
    """test_tool_with_task: input_required rounds answered on tools/call itself, then the
    task, with no requestState or inputRequests on the CreateTaskResult."""
    check_id = "sep-2663-mrtr-synchronous-before-task-creation"
    if _absent(state, (check_id,), "test_tool_with_task"):
        return
    judge = state.judge
    more: dict[str, Any] = {}
    rounds: list[Reply] = []
    for _ in range(MAX_ROUNDS):
        reply = await create(state, "test_tool_with_task", {}, "test_tool_with_task", more=more)
        rounds.append(reply)
        result = reply.result
        if result is None or result.get("resultType") != "input_required":
            break
        if "taskId" in result:
            judge.violated(check_id, "an input_required round carries a taskId", reply.evidence())
            return
        more = {"inputResponses": _answers(state, result)}
        if "requestState" in result:
            more["requestState"] = result["requestState"]
    final = rounds[-1]
    result = final.result
    if len(rounds) < 2:
        judge.violated(check_id, "the first round was not input_required", final.evidence())
    elif result is None or not is_task(result):
        judge.violated(
            check_id, f"the last round answered {final.describe()}, not a task", final.evidence()
        )
    elif "requestState" in result or "inputRequests" in result:
        judge.violated(
            check_id, "the CreateTaskResult carries requestState or inputRequests", final.evidence()
        )
    else:
        followed = await run_task(state, result, final, Answers("test_tool_with_task"))
        if followed.ended and followed.statuses[-1] == "completed":
            judge.passed(
                check_id,
                f"{len(rounds) - 1} MRTR round(s), then a task that completed",
                final.evidence(),
            )
        else:
            judge.violated(
                check_id,
                f"the task after the MRTR rounds ended {followed.statuses[-1:] or 'nowhere'}",
                final.evidence(),
            )


def _answers(state: RunState, result: dict[str, Any]) -> dict[str, Any]:
    from app.engine.check.probe import declined

    answered: dict[str, Any] = {}
    try:
        requests = input_map(result.get("inputRequests") or {}, None, None, None)
    except Exception:
        return answered
    for request in requests:
        answered[request.key] = state.answer_for(request, "test_tool_with_task") or declined(
            request.method
        )
    return answered
