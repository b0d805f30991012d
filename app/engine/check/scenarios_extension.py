"""The extension wire (SEP-2663) checks that create tasks: creation and its result type, the
declaration rules, each status's payload, tasks/update, cancel and the routing headers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.check.follow import Followed, follow, stalled_evidence
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

HEADER_MISMATCH = (-32020, -32001)
"""-32020, and -32001, its number in drafts before August 2026."""

ROUTING_CHECKS = (
    "tasks-mcp-name-routing",
    "sep-2663-routing-headers-accepted-on-tasks-get",
    "sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get",
    "tasks-headers-tolerate-mcp-method-on-tools-call",
    "tasks-headers-reject-mismatched-method",
)

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
    *ROUTING_CHECKS,
    "sep-2663-result-type-task-on-create",
    "sep-2663-tasks-get-status-working",
    "sep-2663-tasks-get-status-input-required",
    "tasks-mrtr-partial-fulfillment",
    "sep-2663-tasks-get-status-completed",
)


async def create(
    state: RunState,
    name: str,
    args: dict[str, Any],
    purpose: str,
    *,
    more: dict[str, Any] | None = None,
) -> Reply:
    """A `tools/call` declaring the extension (with `more` params: an MRTR round's answers); a
    task it created is remembered for the clean-up."""
    params = {"name": name, "arguments": args, **(more or {})}
    reply = await state.probe.call("tools/call", params, purpose)
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
        if reply.code in HEADER_MISMATCH and state.info.transport == "http":
            judge.violated(
                "tasks-headers-tolerate-mcp-method-on-tools-call",
                f"a tools/call with its own Mcp-Method was refused with {reply.code}",
                reply.evidence(request=True),
            )
        return
    answers = Answers(name)
    followed = await run_task(state, created, reply, answers)
    judge_input(state, followed, answers)
    if "completed" not in followed.statuses:
        ended = followed.statuses[-1] if followed.statuses else "unknown"
        for check_id in (
            "tasks-inline-result",
            "tasks-no-related-task-meta-on-inlined-result",
            "sep-2663-tasks-get-status-completed",
        ):
            judge.unobservable(
                check_id, f"the task did not complete in this run (it ended {ended})"
            )
    await judge_routing(state, followed.task_id, reply)
    await cancel_terminal(state, followed)


@dataclass(slots=True)
class Answers:
    """The questions of one task: answered keys, and the keys still owed after a partial answer
    (what the next snapshot must still ask)."""

    tool: str
    answered: set[str] = field(default_factory=set)
    owed: set[str] | None = None
    most_at_once: int = 0


async def run_task(
    state: RunState, created: dict[str, Any], reply: Reply, answers: Answers
) -> Followed:
    """Judge a created task, fetch it at once, follow it to its end answering its questions, and
    judge every answer on the way; the follow's record."""
    judge_created(state, created, reply)
    task_id = str(created.get("taskId"))
    durable = await state.probe.call(
        "tasks/get", {"taskId": task_id}, "fetch the task at once (durable creation)"
    )
    judge_durable(state, task_id, durable)

    async def on_snapshot(snapshot: dict[str, Any], get: Reply) -> None:
        judge_snapshot(state, snapshot, get)
        judge_partial(state, snapshot, get, answers)
        await answer_inputs(state, task_id, snapshot, get, answers)

    followed = await follow(state, task_id, created, on_snapshot=on_snapshot)
    judge_followed(state, followed, [str(created.get("status"))])
    await confirm_final(state, followed)
    return followed


def judge_durable(state: RunState, task_id: str, durable: Reply) -> None:
    judge = state.judge
    if durable.result is None:
        for check_id in (
            "sep-2663-durable-create-strong-consistency",
            "sep-2663-tasks-get-status-working",
        ):
            judge.violated(
                check_id,
                f"tasks/get right after creation answered {durable.describe()}",
                durable.evidence(),
            )
        return
    judge.passed(
        "sep-2663-durable-create-strong-consistency",
        "tasks/get right after creation found the task",
        durable.evidence(),
    )
    found = durable.result
    if found.get("taskId") == task_id and isinstance(found.get("status"), str):
        judge.passed(
            "sep-2663-tasks-get-status-working",
            f"tasks/get answered the task, {found.get('status')}",
            durable.evidence(),
        )
    else:
        judge.violated(
            "sep-2663-tasks-get-status-working",
            f"tasks/get of {task_id} answered taskId {found.get('taskId')!r}, status "
            f"{found.get('status')!r}",
            durable.evidence(),
        )
    judge_snapshot(state, found, durable)


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
    problems = [
        f"it carries {key}"
        for key in ("task", "result", "error", "inputRequests")
        if key in created
    ] + [p for p in common_task_problems(created) if not p.startswith("statusMessage")]
    if problems:
        judge.violated("sep-2663-result-type-task-on-create", "; ".join(problems), evidence)
    else:
        judge.passed(
            "sep-2663-result-type-task-on-create",
            "taskId, status and ISO timestamps at the top level, nothing of tasks/get",
            evidence,
        )
    judge.passed(
        "tasks-server-directed-creation-no-hint",
        "the server made a task of a call that only declared the extension",
        evidence,
    )
    judge.passed(
        "tasks-per-request-meta-opt-in",
        "a tools/call declaring the extension in its own _meta got a task",
        reply.evidence(request=True),
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
    if status == "input_required":
        judge_asking(state, task, reply)
    elif status == "completed":
        judge_completed(state, task, reply)
    elif status == "failed":
        judge_failed(state, task, reply)


def judge_asking(state: RunState, task: dict[str, Any], reply: Reply) -> None:
    """sep-2663-tasks-get-status-input-required: a non-empty map of {method, params} entries."""
    requests = task.get("inputRequests")
    entries = list(requests.values()) if isinstance(requests, dict) else []
    if entries and all(isinstance(e, dict) and isinstance(e.get("method"), str) for e in entries):
        state.judge.passed(
            "sep-2663-tasks-get-status-input-required",
            f"{len(entries)} question(s) in inputRequests, each with its method",
            reply.evidence({"inputRequests": requests}),
        )
    else:
        state.judge.violated(
            "sep-2663-tasks-get-status-input-required",
            "inputRequests is missing, empty, or has an entry without a method",
            reply.evidence({"inputRequests": requests}),
        )


def judge_completed(state: RunState, task: dict[str, Any], reply: Reply) -> None:
    judge = state.judge
    result = task.get("result")
    if not isinstance(result, dict):
        judge.violated(
            "tasks-inline-result", "a completed task has no inline result", reply.evidence()
        )
        judge.violated(
            "sep-2663-tasks-get-status-completed",
            "a completed task has no result",
            reply.evidence(),
        )
        judge.unrun(
            "tasks-no-related-task-meta-on-inlined-result", "the completed task had no result"
        )
        return
    judge.passed("tasks-inline-result", "the completed task's result is inline", reply.evidence())
    content = result.get("content")
    if isinstance(content, list) and content:
        judge.passed(
            "sep-2663-tasks-get-status-completed",
            f"the result has {len(content)} content item(s)",
            reply.evidence({"result": {"content": content}}),
        )
    else:
        judge.violated(
            "sep-2663-tasks-get-status-completed",
            "the completed task's result has no content items",
            reply.evidence({"result": result}),
        )
    if result.get("isError") is True:
        judge.passed(
            "sep-2663-tool-error-uses-completed-status",
            "a tool error ended completed with isError",
            reply.evidence({"status": "completed", "result": {"isError": True}}),
        )
    key = related_task_meta(result)
    if key is not None:
        judge.violated(
            "tasks-no-related-task-meta-on-inlined-result",
            f"the inlined result carries _meta[{key!r}]",
            reply.evidence({"result": {"_meta": result.get("_meta")}}),
        )
    else:
        judge.passed("tasks-no-related-task-meta-on-inlined-result", "no related-task meta inline")


def judge_failed(state: RunState, task: dict[str, Any], reply: Reply) -> None:
    error = task.get("error")
    problems = [p for p in status_payload_problems(task) if "failed" in p or "error" in p]
    if problems:
        state.judge.violated(
            "sep-2663-tasks-get-status-failed", "; ".join(problems), reply.evidence()
        )
    else:
        state.judge.passed(
            "sep-2663-tasks-get-status-failed",
            "a failed task carries its JSON-RPC error and no result",
            reply.evidence({"error": error}),
        )


async def answer_inputs(
    state: RunState, task_id: str, task: dict[str, Any], get: Reply, answers: Answers
) -> None:
    """Answer one key of `inputRequests` not answered yet per tasks/update (so a server's
    partial fulfilment shows): from the answers file, a suite fixture's own answer, or declined."""
    from app.engine.check.probe import declined

    if task.get("status") != "input_required" or not isinstance(task.get("inputRequests"), dict):
        return
    try:
        requests = input_map(task["inputRequests"], task_id, None, None)
    except Exception:
        return
    open_keys = _still_open(task)
    answers.most_at_once = max(answers.most_at_once, len(open_keys))
    for request in requests:
        if request.key in answers.answered:
            state.judge.violated(
                "tasks-input-required-update-completes",
                f"the answered key {request.key!r} is still in inputRequests",
                get.evidence({"inputRequests": sorted(open_keys)}),
            )
            continue
        response = state.answer_for(request, answers.tool) or declined(request.method)
        if "error" in response:
            continue
        answers.answered.add(request.key)
        rest = open_keys - answers.answered
        answers.owed = rest if rest else None
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


def judge_partial(state: RunState, task: dict[str, Any], get: Reply, answers: Answers) -> None:
    """After one of several questions was answered, the task still asks the rest, and only them."""
    owed = answers.owed
    if owed is None:
        return
    answers.owed = None
    status = task.get("status")
    asked = _still_open(task)
    if status == "input_required" and owed <= asked and not asked & answers.answered:
        state.judge.passed(
            "tasks-mrtr-partial-fulfillment",
            f"after a partial answer the task still asks the {len(owed)} other question(s)",
            get.evidence({"inputRequests": sorted(asked)}),
        )
    elif status == "input_required":
        state.judge.violated(
            "tasks-mrtr-partial-fulfillment",
            "after a partial answer inputRequests no longer holds exactly the unanswered keys",
            get.evidence({"inputRequests": sorted(asked), "unanswered": sorted(owed)}),
        )
    else:
        state.judge.violated(
            "tasks-mrtr-partial-fulfillment",
            f"after a partial answer the task went on to {status} with {len(owed)} question(s) "
            "unanswered",
            get.evidence({"status": status}),
        )


def _still_open(task: dict[str, Any]) -> set[str]:
    requests = task.get("inputRequests")
    return set(requests) if isinstance(requests, dict) else set()


def judge_input(state: RunState, followed: Followed, answers: Answers) -> None:
    judge = state.judge
    if not answers.answered:
        because = (
            "the task asked no question: a --tool-name that asks one (or the suite's "
            "confirm_delete / multi_input) would show it"
        )
        judge.unobservable("tasks-input-required-update-completes", because)
        judge.unobservable("sep-2663-tasks-get-status-input-required", because)
    elif followed.statuses and followed.statuses[-1] != "input_required":
        judge.passed(
            "tasks-input-required-update-completes",
            f"after {len(answers.answered)} tasks/update the task went on to "
            f"{followed.statuses[-1]}",
        )
    elif followed.timed_out:
        judge.violated(
            "tasks-input-required-update-completes",
            "the task stayed input_required after every question was answered",
            stalled_evidence(state, followed),
        )
    if answers.most_at_once < 2:
        judge.unobservable(
            "tasks-mrtr-partial-fulfillment",
            "the task never asked two questions at once (the suite's multi_input does)",
        )


async def judge_routing(state: RunState, task_id: str, created: Reply) -> None:
    """The Streamable HTTP routing headers: the right ones are taken (every request of the run
    carried them), a wrong Mcp-Name or Mcp-Method is refused with -32020."""
    judge, probe = state.judge, state.probe
    if state.info.transport != "http":
        for check_id in ROUTING_CHECKS:
            judge.skipped(check_id, "routing headers exist on Streamable HTTP only")
        return
    judge.passed(
        "tasks-headers-tolerate-mcp-method-on-tools-call",
        "a tools/call with Mcp-Method: tools/call was answered",
        created.evidence(request=True),
    )
    right = await probe.call("tasks/get", {"taskId": task_id}, "tasks/get with Mcp-Name: <taskId>")
    if right.result is not None and right.result.get("taskId") == task_id:
        for check_id in (
            "sep-2663-routing-headers-accepted-on-tasks-get",
            "tasks-mcp-name-routing",
        ):
            judge.passed(check_id, "Mcp-Name: <taskId> was accepted", right.evidence(request=True))
    else:
        for check_id in (
            "sep-2663-routing-headers-accepted-on-tasks-get",
            "tasks-mcp-name-routing",
        ):
            judge.violated(
                check_id,
                f"tasks/get with the right Mcp-Name answered {right.describe()}",
                right.evidence(request=True),
            )
    wrong = await probe.call(
        "tasks/get",
        {"taskId": task_id},
        "tasks/get with an Mcp-Name that names another task",
        headers={"Mcp-Name": "taskscope-check-wrong-task"},
    )
    for check_id in (
        "sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get",
        "tasks-mcp-name-routing",
    ):
        if wrong.code in HEADER_MISMATCH:
            judge.passed(
                check_id,
                f"a mismatched Mcp-Name answered {wrong.code}",
                wrong.evidence(request=True),
            )
        else:
            judge.violated(
                check_id,
                f"a mismatched Mcp-Name answered {wrong.describe()}, not -32020",
                wrong.evidence(request=True),
            )
    harmless = (
        ("tools/call", {"name": "greet", "arguments": {"name": "taskscope"}})
        if state.fixture("greet")
        else ("tools/list", {})
    )
    method = await probe.call(
        *harmless, f"{harmless[0]} with Mcp-Method: tasks/get", headers={"Mcp-Method": "tasks/get"}
    )
    if method.code in HEADER_MISMATCH:
        judge.passed(
            "tasks-headers-reject-mismatched-method",
            f"{harmless[0]} with Mcp-Method: tasks/get answered {method.code}",
            method.evidence(request=True),
        )
    else:
        judge.violated(
            "tasks-headers-reject-mismatched-method",
            f"{harmless[0]} with Mcp-Method: tasks/get answered {method.describe()}, not -32020",
            method.evidence(request=True),
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


async def fresh_task(
    state: RunState, check_id: str, purpose: str
) -> tuple[str, dict[str, Any]] | None:
    """A new task of the slow tool for `check_id` (its id and CreateTaskResult), or None when
    none could be made (the check then could not run, and says why)."""
    chosen = state.slow_tool()
    if chosen is None:
        state.judge.unrun(check_id, NEEDS_TOOL)
        return None
    name, args = chosen
    reply = await create(state, name, args, f"create a task with {name} {purpose}")
    if reply.result is None or not is_task(reply.result):
        state.judge.unrun(check_id, f"{name} created no task ({reply.describe()})")
        return None
    return str(reply.result.get("taskId")), reply.result


async def cancel_working(state: RunState) -> None:
    """tasks-cancel-ack-shape: cancel a fresh task; the ack is empty, then the task ends."""
    judge = state.judge
    fresh = await fresh_task(state, "tasks-cancel-ack-shape", "to cancel")
    if fresh is None:
        return
    task_id, created = fresh
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
    followed = await follow(state, task_id, created)
    judge_followed(state, followed, [str(created.get("status"))])


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


LISTEN_WAIT_S = 3.0
"""How long the acknowledgement of a subscriptions/listen may take."""


async def listen(state: RunState) -> None:
    """tasks-status-notifications: subscriptions/listen for a fresh task's notifications is
    acknowledged with that task's id, or (optional) answers -32601, which only warns."""
    judge = state.judge
    fresh = await fresh_task(state, "tasks-status-notifications", "to listen to")
    if fresh is None:
        return
    task_id, _ = fresh
    before = len(state.probe.notification_frames("notifications/subscriptions/acknowledged"))
    answer = await state.probe.call(
        "subscriptions/listen",
        {"notifications": {"taskIds": [task_id]}},
        "listen to the task's notifications",
        timeout_s=min(LISTEN_WAIT_S, state.probe.timeout_s),
    )
    acks = state.probe.notification_frames("notifications/subscriptions/acknowledged")[before:]
    if answer.code == -32601:
        judge.warned(
            "tasks-status-notifications",
            "subscriptions/listen answered -32601: the server offers no task notifications "
            "(optional; clients poll)",
            answer.evidence(),
        )
    elif acks:
        params = (acks[-1].message or {}).get("params") or {}
        agreed = (params.get("notifications") or {}).get("taskIds")
        cited = (state.probe.evidence_of(acks[-1], {"params": params}),)
        if isinstance(agreed, list) and task_id in agreed:
            judge.passed("tasks-status-notifications", "acknowledged with the task's id", cited)
        else:
            judge.violated(
                "tasks-status-notifications",
                "the acknowledgement does not list the task's id in notifications.taskIds",
                cited,
            )
    else:
        judge.violated(
            "tasks-status-notifications",
            f"subscriptions/listen answered {answer.describe()} and no acknowledgement came",
            answer.evidence(request=True),
        )
    await state.probe.call("tasks/cancel", {"taskId": task_id}, "done listening: cancel the task")
