"""The user's answers to a server's questions, sent through the adapter on the poller's behalf:
each lands as "input_answered" (or "error") on the task the question belongs to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.engine.polling.emitter import EventEmitter
from app.engine.polling.outcome import describe, error_frame
from app.engine.polling.watch_state import Watch
from app.engine.rpc.roots import RootsAnswer, send_roots
from app.engine.tasks.contract import TasksAdapter

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest


class AnswerDesk:
    """Sends answers, rejections and roots for the poller, and says whose question each was."""

    def __init__(
        self, adapter: TasksAdapter, watches: dict[str, Watch], emitter: EventEmitter
    ) -> None:
        self._adapter = adapter
        self._watches = watches
        self._emit = emitter

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> bool:
        """Send one answer through the adapter; emits "input_answered", or "error" if it failed."""
        owner = self.owner(request)
        try:
            await self._adapter.answer(request, response)
        except Exception as exc:
            self._failed(owner, exc)
            return False
        self._emit.about_id(owner, "input_answered", "user", input_request=request)
        return True

    async def answer_roots(
        self, request: InputRequest, roots: Sequence[dict[str, str]]
    ) -> RootsAnswer | None:
        """Answer a `roots/list` at once from the configured roots (see `app.engine.rpc.roots`);
        emits "input_answered" saying what was sent (returned too), or "error" (None) if it
        failed."""
        owner = self.owner(request)
        try:
            answer = await send_roots(self._adapter, request, roots)
        except Exception as exc:
            self._failed(owner, exc)
            return None
        self._emit.about_id(
            owner, "input_answered", "user", detail=answer.summary, input_request=request
        )
        return answer

    async def reject(self, request: InputRequest) -> bool:
        """Decline a legacy server request with a JSON-RPC error; emits "input_answered".

        False (nothing sent, nothing emitted) on a wire where a request cannot be rejected: it
        stays pending. A failure emits "error" and raises.
        """
        owner = self.owner(request)
        try:
            rejected = await self._adapter.reject(request)
        except Exception as exc:
            self._failed(owner, exc)
            raise
        if rejected:
            self._emit.about_id(
                owner,
                "input_answered",
                "user",
                detail="declined with an error reply",
                input_request=request,
            )
        return rejected

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> bool:
        """Send several answers for one task at once (one `tasks/update` on the extension wire)."""
        try:
            await self._adapter.answer_many(task_id, responses)
        except Exception as exc:
            self._failed(task_id, exc)
            return False
        watch = self._watches.get(task_id)
        known = {r.key: r for r in watch.task.input_requests} if watch and watch.task else {}
        for key in responses:
            self._emit.about_id(
                task_id, "input_answered", "user", detail=key, input_request=known.get(key)
            )
        return True

    def owner(self, request: InputRequest) -> str | None:
        """The task a request belongs to: its own related task, or the task a question asked on
        the `tools/call` stream turned out to belong to (the broker attached it when the call
        answered with that task), so its answer lands on the task's row and timeline."""
        if request.task_id is not None or request.wire != "legacy":
            return request.task_id
        for pending in self._adapter.pending_inputs():
            if pending.key == request.key and pending.wire == "legacy" and pending.task_id:
                return pending.task_id
        return None

    def _failed(self, task_id: str | None, exc: Exception) -> None:
        self._emit.about_id(task_id, "error", "user", detail=describe(exc), frame=error_frame(exc))
