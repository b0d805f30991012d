"""Legacy-era server questions: `elicitation/create`, `sampling/createMessage` and `roots/list`
requests from the server, held in the input broker until the user answers.

Also the `tools/call` that may be interrupted by such questions: it keeps waiting past the request
timeout while a question it brought is open, because the user needs time to answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.engine.rpc.connection import Connection
from app.engine.rpc.envelopes import INTERNAL_ERROR
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.transports.base import TransportError
from app.engine.tasks.broker import InputBroker
from app.engine.tasks.legacy_parse import input_request_from_server_request
from app.engine.tasks.protocol_keys import RELATED_TASK_META

SERVER_REQUESTS = ("elicitation/create", "sampling/createMessage", "roots/list")

Arrivals = list[tuple[str, bool]]
"""(key, alone) of each task-less question that came during one call; `alone` when no other call
was in flight, so the question surely belongs to that call."""


class ServerQuestions:
    """Answers the server's questions on one legacy-era connection through the broker."""

    def __init__(self, connection: Connection, broker: InputBroker) -> None:
        self._connection = connection
        self._broker = broker
        self._calls: list[Arrivals] = []
        for method in SERVER_REQUESTS:
            connection.set_request_handler(method, self._on_request)

    async def call_tool(self, params: dict[str, Any], arrivals: Arrivals) -> dict[str, Any]:
        """`tools/call`, waiting past the request timeout while the server's questions are open.

        A question that arrives meanwhile without a related task is recorded in `arrivals`.
        """
        self._calls.append(arrivals)
        call = asyncio.ensure_future(
            self._connection.request("tools/call", params, reason="user", timeout=None)
        )
        window = self._connection.request_timeout
        last_state = (0, 0)
        try:
            while True:
                done, _ = await asyncio.wait({call}, timeout=window)
                if done:
                    return call.result()
                pending = {request.key for request in self._broker.pending()}
                open_questions = sum(1 for key, _alone in arrivals if key in pending)
                state = (len(arrivals), open_questions)
                if open_questions == 0 and state == last_state:
                    raise TransportError("timeout", f"tools/call got no answer within {window:g} s")
                last_state = state
        finally:
            self._calls.remove(arrivals)
            if not call.done():
                call.cancel()

    async def _on_request(self, params: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
        """A server question: held in the broker until answered, then returned (stamped)."""
        if self._broker.full:
            raise RpcError(
                INTERNAL_ERROR,
                f"too many open questions: {self._broker.max_open:,} already wait for the user, "
                "so this one was not asked",
            )
        request = input_request_from_server_request(str(frame.get("method")), params, frame["id"])
        if request.task_id is None:
            for arrivals in self._calls:
                arrivals.append((request.key, len(self._calls) == 1))
        self._broker.offer(request)
        response = await self._broker.wait(request)
        if request.task_id is None:
            return response
        meta = response.get("_meta")
        stamped = {**(meta if isinstance(meta, dict) else {})}
        stamped[RELATED_TASK_META] = {"taskId": request.task_id}
        return {**response, "_meta": stamped}
