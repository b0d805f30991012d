"""The verbs that may meet input requests: `tools call` (plain, as a task, or watched) and
`tasks watch`; input is answered by the run's responder (`--answers`, `--interactive`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from app.cli.discovery import require
from app.cli.errors import rpc_error
from app.cli.jsonarg import read_json_object
from app.cli.output import (
    EXIT_FAILURE,
    EXIT_INPUT_NEEDED,
    EXIT_OK,
    INPUT_REQUIRED,
    INVALID_INPUT_RESPONSE,
    CliError,
    Output,
    usage_error,
)
from app.cli.responder import InvalidAnswer, Responder
from app.cli.verb_options import CallOptions, WatchBounds
from app.cli.watch import TaskWatch
from app.engine.rpc.back_channel import back_channel_hint, tools_call_on_legacy
from app.engine.rpc.roots import send_roots
from app.engine.rpc.rpc_types import RpcError
from app.engine.safety.sanitize import clean_text
from app.engine.tasks.task_json import input_json, task_json
from app.engine.tasks.wire import (
    assumed_note,
    under_declaration_refusal,
    under_declared_tool_calls,
)

if TYPE_CHECKING:
    from app.cli.session import Session
    from app.engine.polling.poller import Poller
    from app.engine.tasks.models import InputRequest

T = TypeVar("T")


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
    out.result(report.envelope(session.wire, session.adapter.variants.seen))
    return report.exit_code


async def tools_call(session: Session, call: CallOptions, responder: Responder, out: Output) -> int:
    """`tools call`: a plain call, a task (`--task`), or a task watched on this connection."""
    arguments = read_json_object(call.tool_args, "--tool-args") if call.tool_args else {}
    name = call.tool_name
    if not call.task:
        return await _plain_call(session, name, arguments, responder, out)
    if call.task_ttl is not None and session.wire == "extension":
        raise usage_error(
            "--task-ttl is a legacy-wire flag: on the extension wire the server owns the TTL"
        )
    under = under_declaration_refusal() if under_declared_tool_calls(session.info) else None
    require(session.capabilities.tool_calls, "task-augmented tools/call", session, refusal=under)
    for missing in session.capabilities.assumed:
        out.note(assumed_note(missing))
    if call.task_watch:
        return await _create_and_watch(
            session, name, arguments, call.task_ttl, responder, out, call.bounds
        )
    creating = session.adapter.create(name, arguments, ttl_ms=call.task_ttl)
    outcome = await answering(session, responder, creating, out)
    if outcome.task is None:
        printed = print_tool_result(outcome.sync_result or {}, out, synchronous=True)
        return declined_exit(responder, printed)
    out.result(
        {
            "status": "task_created",
            "wire": session.wire,
            "taskId": outcome.task.task_id,
            "task": task_json(outcome.task),
            **variants_of(session),
        }
    )
    return declined_exit(responder, EXIT_OK)


async def _plain_call(
    session: Session, name: str, arguments: dict[str, Any], responder: Responder, out: Output
) -> int:
    """A plain `tools/call`; a modern-era failure for want of a back-channel (the server's
    questions) names the `--era legacy` command that lets the server ask."""
    version, on_legacy = session.info.protocol_version, tools_call_on_legacy(name)
    plain = session.adapter.call_tool(name, arguments)
    try:
        result = await answering(session, responder, plain, out)
    except RpcError as exc:
        hint = back_channel_hint(exc, version, on_legacy)
        if hint is None:
            raise
        error = rpc_error(exc, session.advertised)
        error.details["hint"] = hint
        raise error from exc
    hint = back_channel_hint(result, version, on_legacy)
    if hint is not None:
        out.note(hint)
    return declined_exit(responder, print_tool_result(result, out))


async def _create_and_watch(
    session: Session,
    name: str,
    arguments: dict[str, Any],
    ttl_ms: int | None,
    responder: Responder,
    out: Output,
    bounds: WatchBounds,
) -> int:
    watch = TaskWatch(session, responder, out, bounds, created_here=True)
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
        return declined_exit(responder, print_tool_result(synchronous[0], out, synchronous=True))
    out.result(report.envelope(session.wire, session.adapter.variants.seen))
    return report.exit_code


def variants_of(session: Session) -> dict[str, Any]:
    """`{"variants": {…}}` when the server's frames differed from the spec in ways taskscope
    accepted (each with how often it was seen), else nothing."""
    seen = session.adapter.variants.seen
    return {"variants": dict(seen)} if seen else {}


def declined_exit(responder: Responder, code: int) -> int:
    """`code`, or 6 when this run declined input it could not answer (the result was printed)."""
    return EXIT_INPUT_NEEDED if responder.declined else code


def print_tool_result(result: dict[str, Any], out: Output, *, synchronous: bool = False) -> int:
    """Print a CallToolResult; `isError: true` exits 1 (the plain tool-call exit contract)."""
    if synchronous:
        out.note("the server answered synchronously: no task was created")
    out.result(result)
    return EXIT_FAILURE if result.get("isError") is True else EXIT_OK


async def answering(session: Session, responder: Responder, call: Awaitable[T], out: Output) -> T:
    """Await a call while answering the input the server asks for during it (legacy requests on
    the call's stream, extension MRTR rounds). Input this run cannot answer is declined where the
    wire allows it (the call then ends as the server decides; the caller exits 6), else it ends
    the call with exit 6."""
    work = asyncio.ensure_future(call)
    failures: list[CliError] = []
    helpers: set[asyncio.Task[None]] = set()

    def fail(error: CliError) -> None:
        failures.append(error)
        work.cancel()

    async def handle(request: InputRequest) -> None:
        try:
            reply = await responder.reply(request)
        except InvalidAnswer as exc:
            fail(
                CliError(
                    INVALID_INPUT_RESPONSE,
                    "a scripted answer does not fit the request's schema; nothing was sent",
                    {"problems": exc.problems, "request": input_json(request)},
                    EXIT_INPUT_NEEDED,
                )
            )
            return
        if reply.source == "roots":
            answer = await send_roots(session.adapter, request, responder.roots)
            out.note(clean_text(answer.summary))
            return
        if reply.source == "declined":
            out.note(
                f"this run cannot answer {clean_text(request.method)} (use --interactive or "
                "--answers): declining it"
            )
        if not reply.reject:
            await session.adapter.answer(request, reply.response)
        elif not await session.adapter.reject(request):
            fail(
                CliError(
                    INPUT_REQUIRED,
                    "declined input cannot be sent on this wire; the request stays unanswered",
                    {
                        "request": input_json(request),
                        "hint": "use --interactive on a terminal, or --answers FILE",
                    },
                    EXIT_INPUT_NEEDED,
                )
            )
            return
        if reply.source == "declined":
            responder.declined.append(request)

    def listener(request: InputRequest) -> None:
        if work.done():  # a question after the call ended (e.g. while closing) is not ours
            return
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
