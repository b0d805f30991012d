"""Modern-era `tools/call` with MRTR rounds: an `input_required` answer is put to the user through
the input broker, and the call is retried with `inputResponses` (and `requestState`)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from app.engine.rpc.connection import Connection
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.extension_parse import extension_create
from app.engine.tasks.kinds import ProtocolViolation
from app.engine.tasks.normalize import ParsedCreate, Variants

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest

MAX_INPUT_ROUNDS = 16
"""MRTR rounds one `tools/call` may take before the server is deemed to loop."""


async def call_with_rounds(
    connection: Connection,
    broker: InputBroker,
    variants: Variants,
    tool: str,
    arguments: dict[str, Any],
    *,
    progress_token: str,
    declare_tasks: bool,
) -> tuple[dict[str, Any], ParsedCreate]:
    """`tools/call`, answering `input_required` rounds until a task or a final result comes."""
    base: dict[str, Any] = {
        "name": tool,
        "arguments": arguments,
        "_meta": {"progressToken": progress_token},
    }
    params = base
    for _round in range(MAX_INPUT_ROUNDS):
        payload = await connection.request(
            "tools/call", params, reason="user", declare_tasks=declare_tasks
        )
        parsed = extension_create(payload, tool, variants)
        if parsed.kind != "input_required":
            return payload, parsed
        params = {**base, "inputResponses": await _ask(broker, parsed.input_requests)}
        if parsed.request_state is not None:
            params["requestState"] = parsed.request_state
    raise ProtocolViolation(f"tools/call {tool} asked for input more than {MAX_INPUT_ROUNDS} times")


async def _ask(broker: InputBroker, requests: tuple[InputRequest, ...]) -> dict[str, Any]:
    """Put one round's questions in the broker and wait for every answer."""
    for request in requests:
        broker.offer(request)
    answers = await asyncio.gather(*(broker.wait(request) for request in requests))
    return {request.key: answer for request, answer in zip(requests, answers, strict=True)}
