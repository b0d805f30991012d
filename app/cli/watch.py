"""`tasks watch` and `tools call --task --task-watch`: poll a task to its end, answering its input.

Transitions go to stderr as they happen; stdout gets one envelope `{"outcome", "wire", "taskId",
"task"}` however the watch ends. Exit codes: 0 completed (also with `isError`), 1 failed, cancelled,
expired, unreachable or an answer refused by `--readonly` (outcome "readonly"), 6 input needed
that this run could not answer (declined where the wire allows it, then watched to its end;
`declinedInput` names it), 7 timeout, 130 aborted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.cli.errors import LEGACY_SESSION_HINT, cli_error
from app.cli.output import (
    EXIT_ABORTED,
    EXIT_FAILURE,
    EXIT_INPUT_NEEDED,
    EXIT_OK,
    EXIT_TIMEOUT,
    Output,
)
from app.cli.render import event_line
from app.cli.responder import InvalidAnswer, Responder
from app.cli.session import Session
from app.cli.verb_options import WatchBounds
from app.engine.polling.poller import Poller
from app.engine.rpc.guard import ReadOnlyRefused
from app.engine.rpc.reconnect import LOST_WITH_OLD_SESSION, ConnectionEvent
from app.engine.safety.sanitize import clean_text
from app.engine.tasks.broker import InputNotPending
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import InputRequest, Task
from app.engine.tasks.task_json import input_json, task_json

OUTCOME_EXIT: dict[str, int] = {
    "completed": EXIT_OK,
    "failed": EXIT_FAILURE,
    "cancelled": EXIT_FAILURE,
    "expired": EXIT_FAILURE,
    "unreachable": EXIT_FAILURE,
    "input-required": EXIT_INPUT_NEEDED,
    "timeout": EXIT_TIMEOUT,
    "aborted": EXIT_ABORTED,
    "readonly": EXIT_FAILURE,
}


@dataclass
class WatchReport:
    """How a watch ended: the outcome, the last good task state and what was left unanswered."""

    outcome: str
    task_id: str
    task: Task | None = None
    detail: str | None = None
    unanswered: list[InputRequest] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    declined: list[InputRequest] = field(default_factory=list)
    """Input this run could not answer and declined (the task went on as the server decided)."""

    @property
    def exit_code(self) -> int:
        """The outcome's exit code; 6 when input was declined because this run could not answer
        it (unless the run was aborted)."""
        if self.declined and self.outcome != "aborted":
            return EXIT_INPUT_NEEDED
        return OUTCOME_EXIT[self.outcome]

    def envelope(self, wire: str, variants: Mapping[str, int]) -> dict[str, Any]:
        """The one stdout document of a watch; `variants` are the ways the server's frames
        differed from the spec that taskscope accepted (each with how often it was seen)."""
        document: dict[str, Any] = {
            "outcome": self.outcome,
            "wire": wire,
            "taskId": self.task_id,
            "task": task_json(self.task) if self.task is not None else None,
        }
        if variants:
            document["variants"] = dict(variants)
        if self.detail:
            document["detail"] = self.detail
        if self.unanswered:
            document["unansweredInput"] = [input_json(request) for request in self.unanswered]
        if self.problems:
            document["answerProblems"] = self.problems
        if self.declined:
            document["declinedInput"] = [input_json(request) for request in self.declined]
        return document


def expired_detail(
    detail: str | None, lost: str, task: Task | None, wire: str, *, created_here: bool
) -> str | None:
    """Why a watched task is gone: its TTL elapsed (`createdAt + ttl` has passed), the reconnect
    left it with the old session, or (legacy wire, created by another connection) session binding.
    The session hint is never given to a run that created the task on this very connection."""
    expires_at = task.expires_at if task is not None else None
    if task is not None and expires_at is not None and datetime.now(UTC) >= expires_at:
        return (
            f"expired: its TTL of {task.ttl_ms} ms elapsed (createdAt + ttl = "
            f"{expires_at.isoformat(timespec='milliseconds')}): the server has forgotten it"
        )
    if lost.startswith(LOST_WITH_OLD_SESSION):
        return f"{lost}: {LEGACY_SESSION_HINT}"
    if wire == "legacy" and not created_here:
        return f"{detail}: {LEGACY_SESSION_HINT}"
    return detail


def outcome_of_stop(detail: str | None) -> str:
    """The outcome a poller "stopped" detail means."""
    if detail in ("completed", "failed", "cancelled", "expired", "timeout"):
        return detail
    if detail == "input rounds":
        return "input-required"
    return "unreachable"


class TaskWatch:
    """Runs one watch on a session: a poller, an event consumer that prints and answers input."""

    def __init__(
        self,
        session: Session,
        responder: Responder,
        out: Output,
        bounds: WatchBounds,
        *,
        created_here: bool = False,
    ) -> None:
        self.session = session
        self.created_here = created_here
        """True when this connection creates the task: session binding cannot explain its loss."""
        self.responder = responder
        self.out = out
        self.events: asyncio.Queue[TaskEvent | None] = asyncio.Queue()
        sink: Callable[[TaskEvent], None] = self.events.put_nowait
        if session.recorder is not None:
            sink = session.recorder.tee(sink)
        self.poller = Poller(
            session.adapter,
            sink,
            user_min_ms=bounds.user_min_ms,
            duration_s=bounds.duration_s,
            max_input_rounds=bounds.max_input_rounds,
            max_consecutive_errors=bounds.max_consecutive_errors,
        )
        self.report: WatchReport | None = None
        self.task_id = ""
        self.last_task: Task | None = None
        self._expired_detail: str | None = None
        self._stop = asyncio.Event()
        session.add_connection_listener(self._on_connection)

    async def run(self, start: Callable[[Poller], Awaitable[str | None]]) -> WatchReport:
        """Start the watch with `start` (which creates or adopts a task and returns its id, or None
        when there is nothing to watch), then consume events until the task's watch ends."""
        consumer = asyncio.create_task(self._consume())
        try:
            task_id = await self._until_stopped(start(self.poller))
            if task_id is None or self.report is not None:
                return self._final()
            self.task_id = task_id
            await self._until_stopped(self.poller.run_until_idle())
            self.events.put_nowait(None)
            await self._until_stopped(consumer)
            return self._final()
        except asyncio.CancelledError:
            self.report = WatchReport("aborted", self.task_id, self.last_task, "interrupted")
            return self._final()
        finally:
            consumer.cancel()

    async def _until_stopped(self, awaitable: Awaitable[Any]) -> Any:
        """Await `awaitable`, unless the consumer decided the watch is over first."""
        work = asyncio.ensure_future(awaitable)
        stopper = asyncio.create_task(self._stop.wait())
        try:
            await asyncio.wait({work, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopper.cancel()
            if not work.done():
                work.cancel()
        return work.result() if work.done() and not work.cancelled() else None

    def _final(self) -> WatchReport:
        report = self.report or WatchReport("unreachable", self.task_id, self.last_task, "stopped")
        if report.task is None:
            report.task = self.last_task
        if not report.task_id:
            report.task_id = self.task_id or (report.task.task_id if report.task else "")
        report.declined = list(self.responder.declined)
        return report

    def _finish(self, report: WatchReport) -> None:
        if self.report is None:
            self.report = report
        self._stop.set()

    # -- events ---------------------------------------------------------------------------------

    async def _consume(self) -> None:
        while (event := await self.events.get()) is not None:
            if event.task is not None and (not self.task_id or event.task_id == self.task_id):
                self.last_task = event.task
            asked = event.input_request if event.kind == "input_needed" else None
            if asked is not None and not self.session.adapter.broker.is_pending(asked):
                continue  # answered meanwhile: asked on the tools/call stream, then watched
            line = event_line(event)
            if line is not None:
                self.out.note(line)
            if asked is not None:
                await self._answer(asked)
            elif event.kind == "error" and self._unreachable():
                self._finish(
                    WatchReport(
                        "unreachable", self.task_id, self.last_task, clean_text(event.detail)
                    )
                )
            elif event.kind == "expired" and event.task_id == self.task_id:
                self._expired_detail = event.detail
            elif event.kind == "stopped" and event.task_id == self.task_id:
                self._stopped(event)

    def _unreachable(self) -> bool:
        """The server is gone for good: reconnecting gave up, or is off and the channel closed."""
        session = self.session
        return session.state == "failed" or (
            session.state == "connected" and session.connection.state == "closed"
        )

    def _on_connection(self, event: ConnectionEvent) -> None:
        """Reconnecting gave up: the watch ends as unreachable at once."""
        if event.kind == "gave_up":
            detail = clean_text(event.describe())
            self._finish(WatchReport("unreachable", self.task_id, self.last_task, detail))

    def _stopped(self, event: TaskEvent) -> None:
        outcome = outcome_of_stop(event.detail)
        detail = event.detail
        if outcome == "expired":
            detail = expired_detail(
                detail,
                self._expired_detail or "",
                event.task or self.last_task,
                self.session.wire,
                created_here=self.created_here,
            )
        report = WatchReport(outcome, self.task_id, event.task or self.last_task, detail)
        if outcome == "input-required" and self.last_task is not None:
            report.unanswered = list(self.last_task.input_requests)
        self._finish(report)

    async def _answer(self, request: InputRequest) -> None:
        """Answer one announced request that is still pending."""
        try:
            reply = await self.responder.reply(request)
        except InvalidAnswer as exc:
            self.out.note(f"scripted answer rejected: {clean_text('; '.join(exc.problems))}")
            self._finish(
                WatchReport(
                    "input-required",
                    self.task_id,
                    self.last_task,
                    "a scripted answer does not fit the request's schema; nothing was sent",
                    [request],
                    exc.problems,
                )
            )
            return
        if reply.source == "roots":
            answer = await self.poller.answer_roots(request, self.responder.roots)
            if answer is not None:
                self.out.note(clean_text(answer.summary))
            return
        if reply.source == "declined":
            self.out.note(
                f"this run cannot answer {clean_text(request.method)} (use --interactive or "
                "--answers): declining it"
            )
        if reply.reject:
            await self._reject(request, declined=reply.source == "declined")
            return
        if reply.source != "declined":
            self.out.note(f"answering {clean_text(request.method)} from {reply.source}")
        if await self.poller.answer(request, reply.response):
            if reply.source == "declined":
                self.responder.declined.append(request)
        elif self.session.readonly:
            error = cli_error(ReadOnlyRefused("answer", request.task_id))
            self.out.error(error)
            self._finish(
                WatchReport("readonly", self.task_id, self.last_task, error.message, [request])
            )

    async def _reject(self, request: InputRequest, *, declined: bool) -> None:
        """Decline a server request with a JSON-RPC error (`declined`: because this run cannot
        answer it); where the wire has no error reply the request stays unanswered and the watch
        ends as input-required."""
        try:
            rejected = await self.poller.reject(request)
        except ReadOnlyRefused as exc:
            error = cli_error(exc)
            self.out.error(error)
            self._finish(
                WatchReport("readonly", self.task_id, self.last_task, error.message, [request])
            )
            return
        except InputNotPending:  # answered or withdrawn meanwhile; the poller emitted an error
            return
        if rejected:
            self.out.note(f"declined {clean_text(request.method)} with an error reply")
            if declined:
                self.responder.declined.append(request)
            return
        self.out.note("this wire cannot decline a request; it stays unanswered")
        self._finish(
            WatchReport(
                "input-required",
                self.task_id,
                self.last_task,
                "declined input cannot be sent on this wire; the request stays unanswered",
                [request],
            )
        )
