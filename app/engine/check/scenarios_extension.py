"""The extension wire (SEP-2663) checks that create tasks: creation and its result type, the
declaration rules, each status's payload, tasks/update, cancel and the routing headers."""

from __future__ import annotations

from typing import Any

from app.engine.check.follow import Followed, follow
from app.engine.check.probe import Reply
from app.engine.check.run_state import NEEDS_TOOL, RunState
from app.engine.check.scenarios_common import missing_capability_verdict
from app.engine.check.scenarios_legacy import confirm_final, judge_followed
from app.engine.check.shapes import (
    common_task_problems,
    extension_field_problems,
    related_task_meta,
    status_payload_problems,
)
from app.engine.tasks.normalize import input_map

INVALID_PARAMS = -32602
HEADER_MISMATCH = (-32020, -32001)
"""-32020, and -32001, its number in drafts before August 2026."""

LIFECYCLE = (
    "tasks-result-type-discipline",
    "sep-2663-durable-create-strong-consistency",
    "tasks-ttl-shape",
    "tasks-ttl-integer-shape",
    "tasks-wire-field-renames",
    "tasks-create-result-no-request-state",
    "tasks-get-detailed-no-request-state",
    "tasks-status-payload-shape",
    "tasks-inline-result",
    "tasks-no-related-task-meta-on-inlined-result",
    "tasks-legal-transitions",
    "tasks-no-early-ttl-expiry",
    "tasks-input-required-update-completes",
    "tasks-cancel-terminal-idempotent-ack",
    "tasks-mcp-name-routing",
)


async def create(
    state: RunState, name: str, args: dict[str, Any], purpose: str, **extra: Any
) -> Reply:
    """A `tools/call` declaring the extension; a task it created is remembered for clean-up."""
    reply = await state.probe.call(
        "tools/call", {"name": name, "arguments": args}, purpose, **extra
    )
    if reply.result is not None and reply.result.get("resultType") == "task":
        task_id = reply.result.get("taskId")
        if isinstance(task_id, str):
            state.probe.remember(task_id)
    return reply


def is_task(result: dict[str, Any] | None) -> bool:
    """Whether a `tools/call` answer created a task (flat, or nested by a confused server)."""
    if result is None:
        return False
    return result.get("resultType") == "task" or isinstance(result.get("task"), dict)


async def lifecycle(state: RunState) -> None:
    """Create a task (the asking tool when there is one), fetch it at once, follow it to its end
    answering its questions by tasks/update, and judge every answer on the way."""
    judge = state.judge
    chosen = state.asking_tool() or state.task_tool()
    if chosen is None:
        judge.unrun_all(LIFECYCLE, NEEDS_TOOL)
        return
    name, args = chosen
    reply = await create(state, name, args, f"create a task with {name}")
    created = reply.result
    if created is None or not is_task(created):
        reason = (
            f"{name} answered {reply.describe()}"
            if created is None
            else f"{name} answered at once (resultType {created.get('resultType', 'absent')!r}): "
            "a synchronous answer is allowed, but no task could be judged; give a --tool-name "
            "the server runs as a task"
        )
        if created is not None and created.get("resultType") not in (None, "complete"):
            judge.violated(
                "tasks-result-type-discipline",
                f"a tools/call answered resultType {created.get('resultType')!r}",
                reply.evidence(),
            )
        judge.unrun_all(LIFECYCLE, reason)
        return
    judge_created(state, created, reply)
    task_id = str(created.get("taskId"))
    durable = await state.probe.call(
        "tasks/get", {"taskId": task_id}, "fetch the task at once (durable creation)"
    )
    if durable.result is not None:
        judge.passed(
            "sep-2663-durable-create-strong-consistency",
            "tasks/get right after creation found the task",
            durable.evidence(),
        )
        judge_snapshot(state, durable.result, durable)
    else:
        judge.violated(
            "sep-2663-durable-create-strong-consistency",
            f"tasks/get right after creation answered {durable.describe()}",
            durable.evidence(),
        )
    answered: set[str] = set()

    async def on_snapshot(snapshot: dict[str, Any], get: Reply) -> None:
        judge_snapshot(state, snapshot, get)
        await answer_inputs(state, task_id, snapshot, get, answered)

    followed = await follow(state, task_id, created, on_snapshot=on_snapshot)
    judge_followed(state, followed, [str(created.get("status"))])
    judge_input(state, followed, answered)
    if "completed" not in followed.statuses:
        ended = followed.statuses[-1] if followed.statuses else "unknown"
        judge.unrun_all(
            ("tasks-inline-result", "tasks-no-related-task-meta-on-inlined-result"),
            f"the task did not complete in this run (last seen {ended})",
        )
    await confirm_final(state, followed)
    await judge_routing(state, task_id)
    await cancel_terminal(state, followed)


def judge_created(state: RunState, created: dict[str, Any], reply: Reply) -> None:
    judge = state.judge
    evidence = reply.evidence()
    if created.get("resultType") != "task" or isinstance(created.get("task"), dict):
        judge.violated(
            "tasks-result-type-discipline",
            'the CreateTaskResult is not flat with resultType "task"'
            + (" (it nests a task object, the legacy shape)" if "task" in created else ""),
            evidence,
        )
    else:
        judge.passed(
            "tasks-result-type-discipline", 'a flat CreateTaskResult, resultType "task"', evidence
        )
    if "requestState" in created:
        judge.violated(
            "tasks-create-result-no-request-state",
            "the CreateTaskResult carries requestState",
            evidence,
        )
    else:
        judge.passed(
            "tasks-create-result-no-request-state", "no requestState on creation", evidence
        )
    judge_fields(state, created, reply)


def judge_fields(state: RunState, task: dict[str, Any], reply: Reply) -> None:
    """tasks-ttl-shape, tasks-ttl-integer-shape and tasks-wire-field-renames on one task."""
    judge = state.judge
    problems = extension_field_problems(task) + common_task_problems(task)
    excerpt = {
        key: task.get(key)
        for key in ("ttlMs", "pollIntervalMs", "ttl", "pollInterval")
        if key in task
    }
    cited = reply.evidence(excerpt or None)
    legacy = [p for p in problems if "legacy field" in p]
    integers = [p for p in problems if p.startswith(("ttlMs", "pollIntervalMs"))]
    missing_ttl = [p for p in integers if "missing" in p]
    for check_id, found, good in (
        ("tasks-wire-field-renames", legacy, "ttlMs / pollIntervalMs, no legacy names"),
        ("tasks-ttl-integer-shape", [p for p in integers if p not in missing_ttl], "integers"),
        ("tasks-ttl-shape", missing_ttl, f"ttlMs is {task.get('ttlMs')!r}"),
    ):
        if found:
            judge.violated(check_id, "; ".join(found), cited)
        else:
            judge.passed(check_id, good, cited)
    rest = [p for p in problems if p not in legacy and p not in integers]
    if rest:
        judge.violated("tasks-status-payload-shape", "; ".join(rest), reply.evidence())


def judge_snapshot(state: RunState, task: dict[str, Any], reply: Reply) -> None:
    """Every rule one `tasks/get` answer can break."""
    judge = state.judge
    judge_fields(state, task, reply)
    if task.get("resultType") == "task":
        judge.violated(
            "tasks-result-type-discipline",
            'tasks/get answered resultType "task"; it MUST be "complete"',
            reply.evidence({"resultType": "task"}),
        )
    if "requestState" in task:
        judge.violated(
            "tasks-get-detailed-no-request-state",
            "tasks/get carries requestState",
            reply.evidence(),
        )
    else:
        judge.passed("tasks-get-detailed-no-request-state", "no requestState on tasks/get")
    payload = status_payload_problems(task)
    status = task.get("status")
    if payload:
        judge.violated(
            "tasks-status-payload-shape", f"{status}: " + "; ".join(payload), reply.evidence()
        )
    else:
        judge.passed(
            "tasks-status-payload-shape", f"a {status} task carries its payload", reply.evidence()
        )
    if status == "completed":
        result = task.get("result")
        if isinstance(result, dict):
            judge.passed(
                "tasks-inline-result", "the completed task's result is inline", reply.evidence()
            )
            key = related_task_meta(result)
            if key is not None:
                judge.violated(
                    "tasks-no-related-task-meta-on-inlined-result",
                    f"the inlined result carries _meta[{key!r}]",
                    reply.evidence({"result": {"_meta": result.get("_meta")}}),
                )
            else:
                judge.passed(
                    "tasks-no-related-task-meta-on-inlined-result", "no related-task meta inline"
                )
        else:
            judge.violated(
                "tasks-inline-result", "a completed task has no inline result", reply.evidence()
            )


async def answer_inputs(
    state: RunState, task_id: str, task: dict[str, Any], get: Reply, answered: set[str]
) -> None:
    """Answer the keys of `inputRequests` not answered yet, one key per tasks/update (so a
    server's partial fulfilment shows), from the answers file or declined."""
    from app.engine.check.probe import declined

    if task.get("status") != "input_required" or not isinstance(task.get("inputRequests"), dict):
        return
    try:
        requests = input_map(task["inputRequests"], task_id, None, None)
    except Exception:
        return
    for request in requests:
        if request.key in answered:
            if request.key in _still_open(task):
                state.judge.violated(
                    "tasks-input-required-update-completes",
                    f"the answered key {request.key!r} is still in inputRequests",
                    get.evidence({"inputRequests": list(_still_open(task))}),
                )
            continue
        response = state.probe.answer(request) or declined(request.method)
        if "error" in response:
            continue
        answered.add(request.key)
        update = await state.probe.call(
            "tasks/update",
            {"taskId": task_id, "inputResponses": {request.key: response}},
            f"answer {request.key}",
        )
        if update.result is None:
            state.judge.violated(
                "tasks-input-required-update-completes",
                f"tasks/update answered {update.describe()}",
                update.evidence(),
            )
        return


def _still_open(task: dict[str, Any]) -> set[str]:
    requests = task.get("inputRequests")
    return set(requests) if isinstance(requests, dict) else set()


def judge_input(state: RunState, followed: Followed, answered: set[str]) -> None:
    judge = state.judge
    if not answered:
        judge.unrun(
            "tasks-input-required-update-completes",
            "the task asked no question: give a --tool-name that asks one (or expose the suite's "
            "confirm_delete / multi_input)",
        )
    elif followed.statuses and followed.statuses[-1] != "input_required":
        judge.passed(
            "tasks-input-required-update-completes",
            f"after {len(answered)} tasks/update the task went on to {followed.statuses[-1]}",
        )
    else:
        judge.violated(
            "tasks-input-required-update-completes",
            "the task stayed input_required after every question was answered",
        )


async def judge_routing(state: RunState, task_id: str) -> None:
    """tasks-mcp-name-routing: a right Mcp-Name was taken all run; a wrong one is refused."""
    judge = state.judge
    if state.info.transport != "http":
        judge.skipped("tasks-mcp-name-routing", "routing headers exist on Streamable HTTP only")
        return
    reply = await state.probe.call(
        "tasks/get",
        {"taskId": task_id},
        "tasks/get with an Mcp-Name that names another task",
        headers={"Mcp-Name": "taskscope-check-wrong-task"},
    )
    if reply.code in HEADER_MISMATCH:
        judge.passed(
            "tasks-mcp-name-routing",
            f"a mismatched Mcp-Name answered {reply.code}",
            reply.evidence(request=True),
        )
    else:
        judge.violated(
            "tasks-mcp-name-routing",
            f"a mismatched Mcp-Name answered {reply.describe()}, not -32020",
            reply.evidence(request=True),
        )


async def cancel_terminal(state: RunState, followed: Followed) -> None:
    judge = state.judge
    if not followed.ended:
        judge.unrun(
            "tasks-cancel-terminal-idempotent-ack", "the task never reached a terminal status"
        )
        return
    reply = await state.probe.call(
        "tasks/cancel", {"taskId": followed.task_id}, "cancel an ended task"
    )
    if reply.result is not None and not _ack_problems(reply.result):
        judge.passed("tasks-cancel-terminal-idempotent-ack", "an empty ack", reply.evidence())
    else:
        judge.violated(
            "tasks-cancel-terminal-idempotent-ack",
            f"cancelling an ended task answered {reply.describe()}",
            reply.evidence(),
        )


def _ack_problems(result: dict[str, Any]) -> list[str]:
    extra = sorted(set(result) - {"resultType", "_meta"})
    problems = [f"the ack carries {', '.join(extra)}"] if extra else []
    if result.get("resultType", "complete") != "complete":
        problems.append(f'resultType {result.get("resultType")!r}, not "complete"')
    return problems


async def cancel_working(state: RunState) -> None:
    """tasks-cancel-ack-shape: cancel a fresh task; the ack is empty, then the task ends."""
    judge = state.judge
    chosen = state.slow_tool()
    if chosen is None:
        judge.unrun("tasks-cancel-ack-shape", NEEDS_TOOL)
        return
    name, args = chosen
    reply = await create(state, name, args, f"create a task with {name} to cancel")
    if not is_task(reply.result):
        judge.unrun("tasks-cancel-ack-shape", f"{name} created no task ({reply.describe()})")
        return
    assert reply.result is not None
    task_id = str(reply.result.get("taskId"))
    cancel = await state.probe.call("tasks/cancel", {"taskId": task_id}, "cancel a fresh task")
    if cancel.result is None:
        judge.violated(
            "tasks-cancel-ack-shape",
            f"tasks/cancel answered {cancel.describe()}",
            cancel.evidence(),
        )
        return
    problems = _ack_problems(cancel.result)
    if problems:
        judge.violated("tasks-cancel-ack-shape", "; ".join(problems), cancel.evidence())
    else:
        judge.passed("tasks-cancel-ack-shape", "an empty ack", cancel.evidence())
    followed = await follow(state, task_id, reply.result)
    judge_followed(state, followed, [str(reply.result.get("status"))])


async def declaration(state: RunState) -> None:
    """tasks-undeclared-creation-refused and sep-2663-legacy-task-param-ignored: a tool call
    that does not declare the extension (then with a legacy params.task) creates no task."""
    judge = state.judge
    chosen = state.task_tool()
    if chosen is None:
        judge.unrun_all(
            ("tasks-undeclared-creation-refused", "sep-2663-legacy-task-param-ignored"), NEEDS_TOOL
        )
        return
    name, args = chosen
    for check_id, params, purpose in (
        (
            "tasks-undeclared-creation-refused",
            {"name": name, "arguments": args},
            "without the declaration",
        ),
        (
            "sep-2663-legacy-task-param-ignored",
            {"name": name, "arguments": args, "task": {"ttl": 60_000}},
            "with a legacy params.task and no declaration",
        ),
    ):
        reply = await state.probe.call(
            "tools/call", params, f"call {name} {purpose}", declare_tasks=False
        )
        if reply.result is not None and is_task(reply.result):
            task_id = reply.result.get("taskId") or (reply.result.get("task") or {}).get("taskId")
            if isinstance(task_id, str):
                state.probe.remember(task_id)
            judge.violated(check_id, f"a call {purpose} created a task", reply.evidence())
        elif reply.error is not None and reply.code in (-32021, -32003):
            judge.passed(check_id, f"a task-required tool answered {reply.code}", reply.evidence())
            missing_capability_verdict(state, reply, "a task-required tools/call")
        elif reply.result is not None and reply.result.get("resultType") == "input_required":
            judge.passed(
                check_id,
                f"a call {purpose} answered an input_required round (MRTR), not a task",
                reply.evidence(),
            )
        elif reply.result is not None:
            judge.passed(check_id, f"a call {purpose} answered synchronously", reply.evidence())
        else:
            judge.unrun(check_id, f"a call {purpose} answered {reply.describe()}")
