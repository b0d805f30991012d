"""The one-shot tasks verbs: `tasks get|list|result|cancel|update`.

Each verb checks what the server declared before sending anything (an undeclared verb exits 1 with
TASKS_UNSUPPORTED), prints one JSON document on stdout and returns its exit code. `tasks
capabilities` and `tools list` are in discovery.py; `tools call` and `tasks watch` in calls.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.cli.answers import response_problems
from app.cli.discovery import require
from app.cli.jsonarg import read_json_object
from app.cli.output import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    INVALID_INPUT_RESPONSE,
    TASKS_UNSUPPORTED,
    CliError,
    Output,
    usage_error,
)
from app.engine.tasks.task_json import input_json, task_json

if TYPE_CHECKING:
    from app.cli.session import Session


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
