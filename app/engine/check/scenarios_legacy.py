"""The legacy wire (2025-11-25) checks that create tasks: the create result, taskSupport, the
life of a task and its questions, tasks/result, cancel, tasks/list and status notifications."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime
from typing import Any

from app.engine.check.follow import Followed, expiry_of, follow, stalled_evidence
from app.engine.check.model import Evidence
from app.engine.check.probe import Reply
from app.engine.check.run_state import NEEDS_TOOL, RunState
from app.engine.check.scenarios_common import UNDER_DECLARATION
from app.engine.check.shapes import (
    TERMINAL,
    call_tool_result_problems,
    illegal_moves,
    legacy_task_problems,
    related_task_meta,
)
from app.engine.rpc.rpc_types import Frame, RpcError
from app.engine.tasks.base import INVALID_PARAMS, METHOD_NOT_FOUND
from app.engine.tasks.legacy_parse import task_stub
from app.engine.tasks.protocol_keys import RELATED_TASK_META

INVALID_REQUEST = -32600
REQUESTED_TTL_MS = 300_000
MAX_LIST_PAGES = 50

LIFECYCLE = (
    "tasks-legacy-create-shape",
    "tasks-ttl-shape",
    "tasks-legal-transitions",
    "tasks-no-early-ttl-expiry",
    "tasks-legacy-result",
    "tasks-legacy-input-related-task",
    "tasks-legacy-cancel-terminal",
    "tasks-legacy-list",
    "tasks-legacy-status-notifications",
)


def _task_support(state: RunState, name: str) -> str:
    execution = state.tools.get(name, {}).get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if support in ("required", "optional", "forbidden") else "forbidden"


async def create(
    state: RunState,
    name: str,
    args: dict[str, Any],
    purpose: str,
    ttl_ms: int | None = REQUESTED_TTL_MS,
) -> Reply:
    """A task-augmented `tools/call` asking `ttl_ms` (None: no ttl, so the server's own default
    shows); a task it created is remembered for the clean-up."""
    task_params = {} if ttl_ms is None else {"ttl": ttl_ms}
    reply = await state.probe.call(
        "tools/call", {"name": name, "arguments": args, "task": task_params}, purpose
    )
    task, _ = task_of(reply)
    if task is not None and isinstance(task.get("taskId"), str):
        state.probe.remember(task["taskId"])
    return reply


def task_of(reply: Reply) -> tuple[dict[str, Any] | None, str | None]:
    """The task a task-augmented call created, and the variant it came as: None for the spec's
    CreateTaskResult `{task}`, else how (FastMCP 2.14 announces it in a tool result's `_meta`)."""
    result = reply.result
    if result is None:
        return None, None
    nested = result.get("task")
    if isinstance(nested, dict):
        return nested, None
    stub = task_stub(result)
    if stub is None:
        return None, None
    key, task = stub
    return (
        task,
        f"the task came as _meta[{key!r}] on a tool result, not a CreateTaskResult {{task}}",
    )


async def task_support(state: RunState) -> None:
    """tasks-legacy-task-support: a `required` tool called plainly, a `forbidden` (or unflagged)
    one called as a task; an `optional` tool allows both, so there is nothing to refuse."""
    judge = state.judge
    if state.tool is None:
        judge.unrun("tasks-legacy-task-support", NEEDS_TOOL)
        return
    support = _task_support(state, state.tool)
    if support == "optional":
        judge.passed(
            "tasks-legacy-task-support",
            f"{state.tool} is optional: it may be called plainly or as a task",
        )
        return
    if support == "required":
        reply = await state.probe.call(
            "tools/call",
            {"name": state.tool, "arguments": state.tool_args},
            f"plain call of {state.tool}, whose taskSupport is required",
        )
        if reply.code == METHOD_NOT_FOUND:
            judge.passed(
                "tasks-legacy-task-support", "a plain call answered -32601", reply.evidence()
            )
        elif reply.code == INVALID_REQUEST:
            judge.warned(
                "tasks-legacy-task-support",
                "a plain call answered -32600 (the spec's error section allows it; its "
                "tool-level section says -32601)",
                reply.evidence(),
            )
        elif reply.result is not None and reply.result.get("isError") is True:
            judge.warned(
                "tasks-legacy-task-support",
                "a plain call came back as a tool error (isError), not the -32601 the spec "
                "names (the TypeScript and Python SDKs 1.x do this)",
                reply.evidence(),
            )
        else:
            judge.violated(
                "tasks-legacy-task-support",
                f"a plain call of a task-required tool answered {reply.describe()}",
                reply.evidence(),
            )
        return
    reply = await create(state, state.tool, state.tool_args, f"task call of {support} tool")
    if reply.code == METHOD_NOT_FOUND:
        judge.passed("tasks-legacy-task-support", "a task call answered -32601", reply.evidence())
    elif task_of(reply)[0] is not None:
        judge.warned(
            "tasks-legacy-task-support",
            f"{state.tool} has taskSupport {support} (absent means forbidden) yet a task "
            "was created; the server SHOULD answer -32601",
            reply.evidence(),
        )
    else:
        judge.warned(
            "tasks-legacy-task-support",
            f"a task call of a {support} tool answered {reply.describe()}, not -32601",
            reply.evidence(),
        )


async def lifecycle(state: RunState) -> None:
    """Create a task with the asking tool (or the user's), follow it to its end answering its
    questions, then judge every snapshot, the statuses, tasks/result, cancel and list."""
    judge = state.judge
    chosen = state.asking_tool() or state.task_tool()
    if chosen is None:
        judge.unrun_all(LIFECYCLE, NEEDS_TOOL)
        return
    name, args = chosen
    if name not in state.tools:
        judge.unrun_all(LIFECYCLE, f"the server does not list the tool {name}")
        return
    if _task_support(state, name) == "forbidden":
        judge.unrun_all(
            LIFECYCLE,
            f"{name} cannot run as a task (taskSupport forbidden or absent): give a tool whose "
            "taskSupport is optional or required",
        )
        return
    reply = await create(state, name, args, f"create a task with {name} (no ttl asked)", None)
    task, variant = task_of(reply)
    if task is None and state.capability("tasks", "requests", "tools", "call") is None:
        judge.passed(
            UNDER_DECLARATION,
            "without tasks.requests.tools.call, a task-augmented call was processed normally",
            reply.evidence(),
        )
    if task is None:
        what = reply.describe() if reply.result is None else "a result without a task object"
        judge.violated(
            "tasks-legacy-create-shape",
            f"a task-augmented call of {name} answered {what}",
            reply.evidence(),
        )
        judge.unrun_all(LIFECYCLE[1:], f"no task was created with {name}")
        return
    judge_created(state, task, reply, variant)
    if state.capability("tasks", "requests", "tools", "call") is None:
        judge.violated(
            UNDER_DECLARATION,
            "the server under-declares: a task-augmented tools/call created a task although "
            "capabilities.tasks.requests.tools.call is not declared (the Python SDK 1.23-1.26 "
            "declares requests.tools: {}); a client that honours the declaration, taskscope's "
            "tools call --task among them, creates no task here",
            reply.evidence(request=True),
        )
    task_id = str(task.get("taskId"))

    async def on_snapshot(snapshot: dict[str, Any], get: Reply) -> None:
        judge_shape(state, legacy_task_problems(snapshot), get, snapshot)

    # At once, as the spec's requestor does: it blocks until the task ends (its questions come
    # meanwhile), so when it answers, against what tasks/get says, shows whether it blocked.
    result_call = asyncio.create_task(fetch_result(state, task_id))
    followed = await follow(state, task_id, task, on_snapshot=on_snapshot)
    judge_followed(state, followed, [str(task.get("status"))])
    await confirm_final(state, followed)
    result = await result_call
    if not judge_blocking(state, followed, result) and followed.ended:
        # It answered too soon: what it answers once the task has ended is judged as well.
        result = await fetch_result(state, task_id)
    judge_result(state, followed, result)
    judge_questions(state, task_id, followed, reply)
    await judge_cancel_terminal(state, followed)
    await judge_list(state, task_id)
    judge_notifications(state)


async def fetch_result(state: RunState, task_id: str) -> Reply:
    return await state.probe.call("tasks/result", {"taskId": task_id}, "tasks/result (blocks)")


def judge_created(
    state: RunState, task: dict[str, Any], reply: Reply, variant: str | None = None
) -> None:
    """tasks-legacy-create-shape, and tasks-ttl-shape unless the task came as a variant without
    the Task fields (its ttl is then judged on tasks/get)."""
    judge = state.judge
    problems = legacy_task_problems(task)
    shape = [p for p in problems if not p.startswith("ttl")]
    if task.get("status") != "working":
        shape.append(f"the task begins {task.get('status')!r}, not working")
    if variant is not None:
        shape.insert(0, variant)
        judge.violated("tasks-legacy-create-shape", "; ".join(shape), reply.evidence())
        return
    if shape:
        judge.violated(
            "tasks-legacy-create-shape", "; ".join(shape), reply.evidence({"task": task})
        )
    else:
        judge.passed(
            "tasks-legacy-create-shape",
            "CreateTaskResult {task} begins working, with ISO timestamps",
            reply.evidence({"task": task}),
        )
    judge_shape(state, problems, reply, task)


def judge_shape(state: RunState, problems: list[str], reply: Reply, task: Any) -> None:
    """tasks-ttl-shape from one snapshot (`ttl: null` passes: it means unlimited)."""
    ttl = [p for p in problems if p.startswith("ttl")]
    if ttl:
        state.judge.violated("tasks-ttl-shape", "; ".join(ttl), reply.evidence({"task": task}))
    elif isinstance(task, dict):
        state.judge.passed(
            "tasks-ttl-shape",
            "ttl is null (unlimited)" if task.get("ttl") is None else f"ttl is {task['ttl']!r}",
            reply.evidence({"ttl": task.get("ttl")}),
        )


def judge_followed(state: RunState, followed: Followed, before: list[str]) -> None:
    """tasks-legal-transitions and tasks-no-early-ttl-expiry from a followed task."""
    judge = state.judge
    statuses = before + followed.statuses
    moves = illegal_moves(statuses)
    cited = followed.snapshots[-1][1].evidence() if followed.snapshots else ()
    if moves:
        judge.violated("tasks-legal-transitions", "; ".join(moves), cited)
    elif followed.ended:
        judge.passed("tasks-legal-transitions", " → ".join(dict.fromkeys(statuses)), cited)
    elif followed.timed_out:
        judge.unrun(
            "tasks-legal-transitions",
            f"the task was still {statuses[-1]} when the run's timeout (--timeout-ms) ran out",
        )
    elif followed.refused is not None:
        judge.unrun(
            "tasks-legal-transitions",
            f"the task could not be followed to its end: tasks/get answered "
            f"{followed.refused.describe()}",
        )
    refused = followed.refused
    if refused is not None:
        judge_refusal(state, followed, refused)
    elif followed.snapshots:
        judge.passed(
            "tasks-no-early-ttl-expiry",
            f"tasks/get answered the task {len(followed.snapshots)} times within its ttl",
        )


def judge_refusal(state: RunState, followed: Followed, refused: Reply) -> None:
    """tasks-no-early-ttl-expiry when a tasks/get of the followed task was refused: only "not
    found" (-32602, the expiry answer) before createdAt + ttl is an early expiry; any other
    refusal, or no answer, says nothing of the task's lifetime."""
    judge = state.judge
    if refused.code != INVALID_PARAMS:
        judge.unrun(
            "tasks-no-early-ttl-expiry",
            f"tasks/get of the task answered {refused.describe()}, which is no expiry (an "
            "expired task answers -32602): the task could not be followed through its ttl",
        )
        return
    expiry = expiry_of(followed.last or {})
    if expiry is None or datetime.now(UTC) < expiry.astimezone(UTC):
        judge.violated(
            "tasks-no-early-ttl-expiry",
            f"tasks/get answered {refused.describe()} before createdAt + ttl",
            refused.evidence(),
        )
    else:
        judge.passed(
            "tasks-no-early-ttl-expiry",
            f"tasks/get answered {refused.describe()} only after createdAt + ttl",
            refused.evidence(),
        )


def judge_result(state: RunState, followed: Followed, reply: Reply) -> None:
    """tasks-legacy-result: the underlying result (or its JSON-RPC error) with related-task meta."""
    judge = state.judge
    status = followed.last.get("status") if followed.last else None
    if reply.failure is not None:
        judge.unrun("tasks-legacy-result", f"tasks/result got {reply.describe()}")
        return
    if reply.error is not None:
        if status == "failed":
            judge.passed(
                "tasks-legacy-result",
                "a failed task's tasks/result answered its JSON-RPC error",
                reply.evidence(),
            )
        elif status == "cancelled":
            judge.passed("tasks-legacy-result", "a cancelled task has no result (allowed)")
        else:
            judge.violated(
                "tasks-legacy-result",
                f"tasks/result of a {status} task answered {reply.describe()}",
                reply.evidence(),
            )
        return
    result = reply.result or {}
    problems = call_tool_result_problems(result)
    key = related_task_meta(result)
    if key is None:
        problems.append(f'the result carries no _meta["{RELATED_TASK_META}"]')
    if problems:
        judge.violated("tasks-legacy-result", "; ".join(problems), reply.evidence())
    elif key != RELATED_TASK_META:
        judge.warned(
            "tasks-legacy-result",
            f'the result names its task under _meta["{key}"], the pre-release name, not '
            f'_meta["{RELATED_TASK_META}"] (FastMCP 2.14 does this)',
            reply.evidence({"_meta": result.get("_meta")}),
        )
    else:
        judge.passed(
            "tasks-legacy-result",
            "tasks/result answered the tool's result with related-task meta",
            reply.evidence(),
        )


def judge_blocking(state: RunState, followed: Followed, reply: Reply) -> bool:
    """tasks-legacy-result's "MUST block until terminal", by the order of events: tasks/result
    was sent at creation, so a tasks/get sent after its answer arrived that still says working
    (or input_required) shows it answered before the task ended. False when it did."""
    answer = reply.answer_frame
    if answer is None:
        return True
    for snapshot, get in followed.snapshots:
        status = snapshot.get("status")
        sent = next((f for f in get.frames if f.direction == "out"), None)
        if status not in TERMINAL and _arrived_before(state, answer, sent):
            state.judge.violated(
                "tasks-legacy-result",
                f"tasks/result answered while the task was still {status}: a tasks/get sent "
                f"after that answer said {status} (tasks/result MUST block until the task is "
                "terminal)",
                (*reply.evidence(), *get.evidence({"status": status})),
            )
            return False
    if followed.ended:
        state.judge.passed(
            "tasks-legacy-result",
            "tasks/result, sent at creation, blocked: no tasks/get after its answer said the "
            f"task was still running (it ended {followed.statuses[-1]})",
            reply.evidence(),
        )
    return True


def judge_questions(state: RunState, task_id: str, followed: Followed, created: Reply) -> None:
    """tasks-legacy-input-related-task: each question names the task; answering moves it on."""
    judge = state.judge
    asked = state.probe.questions
    if not asked:
        judge.unobservable(
            "tasks-legacy-input-related-task",
            "the task asked no question: a --tool-name that asks one would show it",
        )
        return
    for question in asked:
        cited = (
            (state.probe.evidence_of(question.frame, {"params": question.params}),)
            if question.frame is not None
            else ()
        )
        if question.related_task == task_id:
            judge.passed(
                "tasks-legacy-input-related-task",
                f"{question.method} names the task in related-task meta",
                cited,
            )
        else:
            early = _arrived_before(state, question.frame, created.answer_frame)
            when = " (while the tools/call was open, before its CreateTaskResult)" if early else ""
            judge.violated(
                "tasks-legacy-input-related-task",
                f"{question.method} arrived without the related-task meta of {task_id}{when}",
                cited,
            )
    if followed.timed_out and followed.statuses[-1:] == ["input_required"]:
        judge.violated(
            "tasks-legacy-input-related-task",
            "the task stayed input_required after every question was answered",
            stalled_evidence(state, followed),
        )


def _arrived_before(state: RunState, frame: Frame | None, later: Frame | None) -> bool:
    """Whether `frame` came in before `later` (both still among the frames kept; by identity,
    not by comparing every frame's message)."""
    if frame is None or later is None:
        return False
    order = {id(kept): index for index, kept in enumerate(state.probe.frames)}
    return id(frame) in order and id(later) in order and order[id(frame)] < order[id(later)]


async def judge_cancel_terminal(state: RunState, followed: Followed) -> None:
    judge = state.judge
    if state.capability("tasks", "cancel") is None:
        judge.skipped("tasks-legacy-cancel-terminal", "the server does not declare tasks.cancel")
        return
    if not followed.ended:
        judge.unrun("tasks-legacy-cancel-terminal", "the task never reached a terminal status")
        return
    reply = await state.probe.call(
        "tasks/cancel", {"taskId": followed.task_id}, "cancel a task that already ended"
    )
    if reply.code == INVALID_PARAMS:
        judge.passed(
            "tasks-legacy-cancel-terminal",
            "cancelling an ended task answered -32602",
            reply.evidence(),
        )
    else:
        status = reply.result.get("status") if reply.result is not None else None
        answered = f"the task as {status!r}" if status is not None else reply.describe()
        judge.violated(
            "tasks-legacy-cancel-terminal",
            f"cancelling a {followed.statuses[-1]} task answered {answered}, not -32602",
            reply.evidence(),
        )
    await confirm_final(state, followed)


async def confirm_final(state: RunState, followed: Followed) -> None:
    """A terminal status is final: one more tasks/get of an ended task answers the same (and
    a "not found" there before createdAt + ttl is an early expiry)."""
    if not followed.ended:
        return
    after = await state.probe.call(
        "tasks/get", {"taskId": followed.task_id}, "the ended task, once more"
    )
    if after.code == INVALID_PARAMS:
        judge_refusal(state, followed, after)
    last = followed.statuses[-1]
    now = after.result.get("status") if after.result is not None else None
    if now is not None and now != last:
        state.judge.violated(
            "tasks-legal-transitions",
            f"the task ended {last}, then tasks/get said {now}",
            after.evidence(),
        )


async def judge_list(state: RunState, task_id: str) -> None:
    judge = state.judge
    if state.capability("tasks", "list") is None:
        judge.skipped("tasks-legacy-list", "the server does not declare tasks.list")
        return
    seen: list[str] = []
    pages: list[Evidence] = []
    cursor: str | None = None
    for page in range(MAX_LIST_PAGES):
        reply = await state.probe.call(
            "tasks/list", {"cursor": cursor} if cursor else {}, f"tasks/list page {page + 1}"
        )
        if reply.result is None:
            judge.violated(
                "tasks-legacy-list", f"tasks/list answered {reply.describe()}", reply.evidence()
            )
            return
        tasks = reply.result.get("tasks")
        if not isinstance(tasks, list):
            judge.violated("tasks-legacy-list", "tasks/list has no tasks array", reply.evidence())
            return
        on_page = [str(t.get("taskId")) for t in tasks if isinstance(t, dict)]
        seen.extend(on_page)
        following = reply.result.get("nextCursor")
        pages.extend(reply.evidence({"taskIds": on_page, "nextCursor": following}))
        if not isinstance(following, str) or not following or following == cursor:
            break
        cursor = following
    if task_id in seen:
        judge.passed("tasks-legacy-list", f"tasks/list lists {task_id}")
    else:
        judge.violated(
            "tasks-legacy-list",
            f"tasks/get sees {task_id} but tasks/list ({len(seen)} tasks) does not list it",
            pages,
        )
    reply = await state.probe.call(
        "tasks/list", {"cursor": "taskscope-not-a-cursor"}, "tasks/list with an invalid cursor"
    )
    listed = reply.result.get("tasks") if reply.result is not None else None
    if reply.code == INVALID_PARAMS:
        judge.passed("tasks-legacy-list", "an invalid cursor answered -32602", reply.evidence())
    elif isinstance(listed, list):
        judge.violated(
            "tasks-legacy-list",
            f"an invalid cursor was ignored: tasks/list answered a page of {len(listed)} tasks, "
            "not -32602",
            reply.evidence(),
        )
    else:
        judge.violated(
            "tasks-legacy-list",
            f"an invalid cursor answered {reply.describe()}, not -32602",
            reply.evidence(),
        )


def judge_notifications(state: RunState) -> None:
    frames = state.probe.notification_frames("notifications/tasks/status")
    if not frames:
        state.judge.skipped(
            "tasks-legacy-status-notifications", "the server sent none (they are optional)"
        )
        return
    for frame in frames:
        params = (frame.message or {}).get("params")
        problems = legacy_task_problems(params)
        cited = (state.probe.evidence_of(frame, {"params": params}),)
        if problems:
            state.judge.violated("tasks-legacy-status-notifications", "; ".join(problems), cited)
        else:
            state.judge.passed(
                "tasks-legacy-status-notifications", "a whole task in the notification", cited
            )


async def cancel_working(state: RunState) -> None:
    """tasks-legacy-cancel-working: cancel a task at once; it must answer cancelled."""
    judge = state.judge
    if state.capability("tasks", "cancel") is None:
        judge.skipped("tasks-legacy-cancel-working", "the server does not declare tasks.cancel")
        return
    chosen = state.slow_tool()
    if chosen is None:
        judge.unrun("tasks-legacy-cancel-working", NEEDS_TOOL)
        return
    name, args = chosen
    if name not in state.tools or _task_support(state, name) == "forbidden":
        judge.unrun("tasks-legacy-cancel-working", f"{name} cannot run as a task")
        return
    reply = await create(state, name, args, f"create a task with {name} to cancel")
    task, _ = task_of(reply)
    if task is None or not isinstance(task.get("taskId"), str):
        judge.unrun("tasks-legacy-cancel-working", f"no task was created: {reply.describe()}")
        return
    task_id = task["taskId"]
    cancel = await state.probe.call("tasks/cancel", {"taskId": task_id}, "cancel a working task")
    answered = cancel.result or {}
    if answered.get("status") == "cancelled":
        state.probe.created[task_id].ended = True
        judge.passed(
            "tasks-legacy-cancel-working",
            "tasks/cancel answered the task cancelled",
            cancel.evidence(),
        )
    elif cancel.code == INVALID_PARAMS:
        judge.unrun(
            "tasks-legacy-cancel-working",
            f"the task ended before the cancel arrived ({name} is too quick; a slower tool, "
            "or the suite's slow_compute, can be cancelled)",
        )
    else:
        judge.violated(
            "tasks-legacy-cancel-working",
            "tasks/cancel answered "
            + (cancel.describe() if cancel.result is None else repr(answered.get("status")))
            + ", not the task in status cancelled",
            cancel.evidence(),
        )
    with contextlib.suppress(Exception):
        after = await state.probe.call("tasks/get", {"taskId": task_id}, "the cancelled task")
        cancelled = cancel.result is not None and after.result is not None
        if cancelled and after.result is not None and after.result.get("status") != "cancelled":
            judge.violated(
                "tasks-legal-transitions",
                f"a cancelled task later said {after.result.get('status')!r}",
                after.evidence(),
            )


async def session_binding(state: RunState) -> None:
    """tasks-legacy-session-binding, information: can a second connection see a task this run
    made? Run last: closing a second session has stopped a server's task support (the Python
    SDK 1.30 over HTTP answers every later task call "TaskSupport not running")."""
    check_id = "tasks-legacy-session-binding"
    made = next(iter(state.probe.created), None)
    if made is None:
        state.judge.unrun(check_id, "the run made no task to look for")
        return
    if state.info.transport == "stdio":
        state.judge.passed(
            check_id,
            "over stdio every connection is its own server process: only the connection that "
            "made a task sees it",
        )
        return
    if state.open_another is None:
        state.judge.unrun(check_id, "no second connection can be opened to this server")
        return
    other = state.open_another()
    try:
        await other.open()
        answer = await other.request(
            "tasks/get", {"taskId": made}, reason="check: the task from a second connection"
        )
    except RpcError as exc:
        state.judge.passed(
            check_id,
            f"a second connection gets {exc.code} for the task: tasks are bound to the session "
            "that created them (allowed; watch a task from the connection that made it)",
        )
    except Exception as exc:
        state.judge.unrun(check_id, f"a second connection could not ask: {exc}")
    else:
        seen = answer.get("status") if isinstance(answer, dict) else None
        state.judge.passed(
            check_id,
            f"a second connection sees the task ({seen}): tasks are not bound to the session",
        )
    finally:
        await other.close()
