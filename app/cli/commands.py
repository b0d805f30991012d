"""The one-shot verbs: `tasks capabilities|get|list|result|cancel|update` and `tools list|call`.

Each verb checks what the server declared before sending anything (an undeclared verb exits 1 with
TASKS_UNSUPPORTED), prints one JSON document on stdout and returns its exit code.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from app.cli.answers import response_problems
from app.cli.jsonarg import read_json_object
from app.cli.output import (
    EXIT_FAILURE,
    EXIT_INPUT_NEEDED,
    EXIT_OK,
    EXIT_USAGE,
    INPUT_REQUIRED,
    INVALID_INPUT_RESPONSE,
    TASKS_UNSUPPORTED,
    CliError,
    Output,
    usage_error,
)
from app.cli.responder import InvalidAnswer, Responder
from app.cli.session import Session
from app.cli.watch import TaskWatch, WatchBounds
from app.engine.models import InputRequest
from app.engine.poller import Poller
from app.engine.sanitize import clean_text
from app.engine.task_json import input_json, task_json

T = TypeVar("T")
MAX_TOOL_PAGES = 100


def require(declared: bool, verb: str, session: Session) -> None:
    """Refuse (without sending) a verb the server never declared on its tasks wire."""
    if declared:
        return
    raise CliError(
        TASKS_UNSUPPORTED,
        f"the server did not declare {verb} (tasks wire: {session.wire})",
        {
            "verb": verb,
            "wire": session.wire,
            "declared": session.capabilities.as_json(),
            "sent": False,
        },
    )


async def capabilities(session: Session, out: Output) -> int:
    """`tasks capabilities`: the resolved wire and declared verbs (exit 0 whatever they are)."""
    out.result(session.capabilities.as_json())
    return EXIT_OK


async def tools_list(session: Session, out: Output) -> int:
    """`tools list`: every page of `tools/list`."""
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await session.connection.request("tools/list", {"cursor": cursor} if cursor else {})
        found = page.get("tools")
        tools.extend(found if isinstance(found, list) else [])
        next_cursor = page.get("nextCursor")
        if not isinstance(next_cursor, str) or not next_cursor or next_cursor == cursor:
            break
        cursor = next_cursor
    out.result({"tools": tools})
    return EXIT_OK


async def task_get(session: Session, task_id: str, out: Output) -> int:
    """`tasks get`: one task (with its inline result on the extension wire)."""
    require(session.wire != "none", "tasks/get", session)
    task = await session.adapter.get(task_id, reason="user")
    out.result({"wire": session.wire, "task": task_json(task)})
    return EXIT_OK


async def task_list(session: Session, out: Output) -> int:
    """`tasks list`: every task the server lists for this session (legacy wire only)."""
    require(session.capabilities.list, "tasks/list", session)
    tasks = await session.adapter.list_tasks()
    out.result({"wire": session.wire, "tasks": [task_json(task) for task in tasks]})
    return EXIT_OK


async def task_result(session: Session, task_id: str, out: Output) -> int:
    """`tasks result`: the legacy `tasks/result` (blocks until the task ends); `isError` exits 1."""
    if session.wire == "extension":
        raise CliError(
            TASKS_UNSUPPORTED,
            "tasks/result does not exist on the extension wire: the result is inline on tasks/get",
            {
                "verb": "tasks/result",
                "wire": session.wire,
                "sent": False,
                "hint": f"taskscope tasks get --task-id {task_id}",
            },
        )
    require(session.wire == "legacy", "tasks/result", session)
    result = await session.adapter.fetch_result(task_id)
    out.result({"wire": session.wire, "taskId": task_id, "result": result})
    return EXIT_FAILURE if result.get("isError") is True else EXIT_OK


async def task_cancel(session: Session, task_id: str, out: Output) -> int:
    """`tasks cancel`: legacy answers with the cancelled task; the extension only acknowledges."""
    require(session.capabilities.cancel, "tasks/cancel", session)
    task = await session.adapter.cancel(task_id)
    document: dict[str, Any] = {
        "wire": session.wire,
        "taskId": task_id,
        "cooperative": session.wire == "extension",
    }
    if task is not None:
        document["task"] = task_json(task)
    else:
        document["status"] = "cancel_requested"
        document["note"] = "cancellation is cooperative: poll with `tasks get` to see the outcome"
    out.result(document)
    return EXIT_OK


async def task_update(session: Session, task_id: str, raw_responses: str, out: Output) -> int:
    """`tasks update`: answer outstanding input requests in one `tasks/update` (extension only).

    Every answer is checked against its request's schema first; a bad one exits 2, nothing sent.
    """
    responses = read_json_object(raw_responses, "--input-responses")
    require(session.capabilities.update, "tasks/update", session)
    task = await session.adapter.get(task_id, reason="user")
    outstanding = {request.key: request for request in task.input_requests}
    problems: dict[str, list[str]] = {}
    for key, response in responses.items():
        request = outstanding.get(key)
        found = (
            ["not an outstanding input request of this task"]
            if request is None
            else response_problems(request, response)
        )
        if found:
            problems[key] = found
    if problems:
        raise CliError(
            INVALID_INPUT_RESPONSE,
            "input responses do not fit the task's input requests; nothing was sent",
            {"problems": problems, "outstanding": [input_json(r) for r in outstanding.values()]},
            EXIT_USAGE,
        )
    if not responses:
        raise usage_error("--input-responses is empty")
    await session.adapter.answer_many(task_id, responses)
    out.result({"wire": session.wire, "taskId": task_id, "answered": sorted(responses)})
    return EXIT_OK


async def task_watch(
    session: Session, task_id: str, responder: Responder, out: Output, bounds: WatchBounds
) -> int:
    """`tasks watch`: adopt a task id and poll it to its end."""
    require(session.wire != "none", "tasks/get", session)
    watch = TaskWatch(session, responder, out, bounds)

    async def start(poller: Poller) -> str:
        poller.adopt(task_id)
        return task_id

    report = await watch.run(start)
    out.result(report.envelope(session.wire))
    return report.exit_code


async def tools_call(
    session: Session,
    namespace: argparse.Namespace,
    responder: Responder,
    out: Output,
    bounds: WatchBounds,
) -> int:
    """`tools call`: a plain call, a task (`--task`), or a task watched on this connection."""
    arguments = read_json_object(namespace.tool_args, "--tool-args") if namespace.tool_args else {}
    name: str = namespace.tool_name
    if not namespace.task:
        result = await answering(session, responder, session.adapter.call_tool(name, arguments))
        return print_tool_result(result, out)
    if namespace.task_ttl is not None and session.wire == "extension":
        raise usage_error(
            "--task-ttl is a legacy-wire flag: on the extension wire the server owns the TTL"
        )
    require(session.capabilities.tool_calls, "task-augmented tools/call", session)
    if namespace.task_watch:
        return await _create_and_watch(
            session, name, arguments, namespace.task_ttl, responder, out, bounds
        )
    outcome = await answering(
        session, responder, session.adapter.create(name, arguments, ttl_ms=namespace.task_ttl)
    )
    if outcome.task is None:
        return print_tool_result(outcome.sync_result or {}, out, synchronous=True)
    out.result(
        {
            "status": "task_created",
            "wire": session.wire,
            "taskId": outcome.task.task_id,
            "task": task_json(outcome.task),
        }
    )
    return EXIT_OK


async def _create_and_watch(
    session: Session,
    name: str,
    arguments: dict[str, Any],
    ttl_ms: int | None,
    responder: Responder,
    out: Output,
    bounds: WatchBounds,
) -> int:
    watch = TaskWatch(session, responder, out, bounds)
    synchronous: list[dict[str, Any]] = []

    async def start(poller: Poller) -> str | None:
        outcome = await session.adapter.create(name, arguments, ttl_ms=ttl_ms)
        if outcome.task is None:
            synchronous.append(outcome.sync_result or {})
            return None
        out.note(f"task {clean_text(outcome.task.task_id)} created on the {session.wire} wire")
        poller.watch(outcome.task)
        return outcome.task.task_id

    report = await watch.run(start)
    if synchronous and report.outcome != "aborted":
        return print_tool_result(synchronous[0], out, synchronous=True)
    out.result(report.envelope(session.wire))
    return report.exit_code


def print_tool_result(result: dict[str, Any], out: Output, *, synchronous: bool = False) -> int:
    """Print a CallToolResult; `isError: true` exits 1 (the plain tool-call exit contract)."""
    if synchronous:
        out.note("the server answered synchronously: no task was created")
    out.result(result)
    return EXIT_FAILURE if result.get("isError") is True else EXIT_OK


async def answering(session: Session, responder: Responder, call: Awaitable[T]) -> T:
    """Await a call while answering the input the server asks for during it (legacy requests on
    the call's stream, extension MRTR rounds); input this run cannot answer ends it with exit 6."""
    work = asyncio.ensure_future(call)
    failures: list[CliError] = []
    helpers: set[asyncio.Task[None]] = set()

    async def handle(request: InputRequest) -> None:
        try:
            reply = await responder.reply(request)
        except InvalidAnswer as exc:
            failures.append(
                CliError(
                    INVALID_INPUT_RESPONSE,
                    "a scripted answer does not fit the request's schema; nothing was sent",
                    {"problems": exc.problems, "request": input_json(request)},
                    EXIT_INPUT_NEEDED,
                )
            )
            work.cancel()
            return
        if reply is None:
            failures.append(
                CliError(
                    INPUT_REQUIRED,
                    "the server asked for input that this run could not answer",
                    {
                        "request": input_json(request),
                        "hint": "use --interactive on a terminal, or --answers FILE",
                    },
                    EXIT_INPUT_NEEDED,
                )
            )
            work.cancel()
            return
        if not reply.reject:
            await session.adapter.answer(request, reply.response)
        elif not await session.adapter.reject(request):
            failures.append(
                CliError(
                    INPUT_REQUIRED,
                    "declined input cannot be sent on this wire; the request stays unanswered",
                    {"request": input_json(request)},
                    EXIT_INPUT_NEEDED,
                )
            )
            work.cancel()

    def listener(request: InputRequest) -> None:
        helper = asyncio.get_running_loop().create_task(handle(request))
        helpers.add(helper)
        helper.add_done_callback(helpers.discard)

    session.adapter.on_input(listener)
    for request in session.adapter.pending_inputs():
        listener(request)
    try:
        return await work
    except asyncio.CancelledError:
        if failures:
            raise failures[0] from None
        raise
    finally:
        for helper in helpers:
            helper.cancel()
