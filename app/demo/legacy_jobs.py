"""Running catalogue jobs on the legacy wire: a task's live side and the two `JobContext`s.

A task job reports through its task (status messages, `input_required`, status notifications)
and asks its questions on the channel the server was started with; a plain `tools/call` job
reports progress and asks its questions on the call's own stream.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from app.demo.legacy_link import ClientLink, describe_request, with_meta
from app.demo.legacy_tasks import TaskRecord, TaskStatus, related_task_meta
from app.demo.tool_contract import Job, ToolFailure, scaled_sleep

logger = logging.getLogger(__name__)

ElicitChannel = Literal["result", "standalone", "call"]


async def ask_all(link: ClientLink, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Send every request at once on `link`; a refused or malformed one is left out, and so is
    one the client did not declare it can answer (it is not sent)."""
    answers: dict[str, Any] = {}
    requests = link.answerable(requests)

    async def ask_one(key: str, raw: dict[str, Any]) -> None:
        try:
            answers[key] = await link.request(raw)
        except (MCPError, ValidationError) as error:
            logger.warning(
                "request %r (%s) got no usable answer: %s", key, raw.get("method"), error
            )

    async with anyio.create_task_group() as group:
        for key, raw in requests.items():
            group.start_soon(ask_one, key, raw)
    return answers


@dataclass(eq=False)
class PendingQuestion:
    """A question a task waits to send on the stream of a `tasks/result` call."""

    key: str
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    answered: anyio.Event = field(default_factory=anyio.Event)

    def answer(self, response: dict[str, Any] | None) -> None:
        """Record the client's answer (None when it refused) and wake the job."""
        self.response = response
        self.answered.set()


class TaskRun:
    """A task's live side: its record, the connection's standalone link, queued questions and the
    scope that cancels its job."""

    def __init__(self, record: TaskRecord, link: ClientLink, progress_token: str | int | None):
        self.record = record
        self.link = link
        self.progress_token = progress_token
        self.scope = anyio.CancelScope()
        self.outbox: list[PendingQuestion] = []
        self.published = False
        """Whether the client has been told about the task (status notifications wait for it)."""

    async def transition(self, status: TaskStatus, message: str | None) -> None:
        """Change the status and, once published, tell the client on the standalone channel."""
        if self.record.transition(status, message) and self.published:
            await self.link.notify_status(self.record)

    async def cancel(self) -> None:
        """Move the task to `cancelled` and stop its job."""
        await self.transition("cancelled", "The task was cancelled by request.")
        self.scope.cancel()

    async def ask(
        self, requests: dict[str, dict[str, Any]], *, via_result_stream: bool
    ) -> dict[str, Any]:
        """Ask every request as part of this task: `input_required`, stamped requests on the
        `tasks/result` stream (queued) or the standalone channel (at once), then `working`.
        Requests the client cannot answer (undeclared capability) are never sent."""
        requests = self.link.answerable(requests)
        if not requests:
            return {}
        resume_message = self.record.status_message
        waiting_for = "; ".join(describe_request(raw) for raw in requests.values())
        stamp = related_task_meta(self.record.task_id)
        stamped = {key: with_meta(raw, stamp) for key, raw in requests.items()}
        await self.transition("input_required", f"Waiting for input: {waiting_for}")
        if via_result_stream:
            questions = [PendingQuestion(key, raw) for key, raw in stamped.items()]
            self.outbox.extend(questions)
            self.record.notify_change()
            for question in questions:
                await question.answered.wait()
            answers = {q.key: q.response for q in questions if q.response is not None}
        else:
            answers = await ask_all(self.link, stamped)
        await self.transition("working", resume_message)
        return answers

    async def serve_result_stream(self, link: ClientLink) -> None:
        """Deliver queued questions on a `tasks/result` call's stream until the task is terminal
        or expired; questions still unanswered when it stops go back in the queue."""
        async with anyio.create_task_group() as group:
            while True:
                while self.outbox:
                    group.start_soon(self._deliver, link, self.outbox.pop(0))
                if self.record.is_terminal or self.record.expired:
                    break
                await self.record.wait_for_change()
            group.cancel_scope.cancel()

    async def _deliver(self, link: ClientLink, question: PendingQuestion) -> None:
        try:
            question.answer(await link.request(question.request))
        except (MCPError, ValidationError) as error:
            logger.warning("question %r got no usable answer: %s", question.key, error)
            question.answer(None)
        finally:
            if not question.answered.is_set():
                self.outbox.append(question)
                self.record.notify_change()


def _first_text(result: dict[str, Any]) -> str | None:
    content = result.get("content")
    if isinstance(content, list) and content and isinstance(content[0], dict):
        text = content[0].get("text")
        return text if isinstance(text, str) else None
    return None


class TaskJobContext:
    """`JobContext` of a job running as a task.

    With the `call` channel, questions asked before the job first sleeps go on the `tools/call`
    stream without related-task `_meta` and without `input_required`; `creation_gate` opens at
    that point (or when the job ends) and only then is the `CreateTaskResult` returned. Later
    questions use the `tasks/result` stream.
    """

    def __init__(
        self,
        run: TaskRun,
        channel: ElicitChannel,
        speed: float,
        call_link: ClientLink | None = None,
    ) -> None:
        self._run = run
        self._channel = channel
        self._speed = speed
        self._call_link = call_link if channel == "call" else None
        self.creation_gate = anyio.Event()

    async def status(self, message: str) -> None:
        """Set the task's status message (and `lastUpdatedAt`)."""
        self._run.record.set_message(message)

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        """Send `notifications/progress` when the `tools/call` carried a progress token."""
        if self._run.progress_token is not None:
            await self._run.link.progress(self._run.progress_token, done, total, message)

    async def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Ask on the configured channel (see the class docstring for `call`)."""
        if self._call_link is not None and not self.creation_gate.is_set():
            try:
                return await ask_all(self._call_link, requests)
            finally:
                self.creation_gate.set()
        self.creation_gate.set()
        return await self._run.ask(requests, via_result_stream=self._channel != "standalone")

    async def sleep(self, seconds: float) -> None:
        """Sleep for scaled demo time; the job is now working, so the task may be returned."""
        self.creation_gate.set()
        await scaled_sleep(seconds, self._speed)


class SyncJobContext:
    """`JobContext` of a plain (not task-augmented) `tools/call`: everything rides that call."""

    def __init__(self, link: ClientLink, progress_token: str | int | None, speed: float) -> None:
        self._link = link
        self._progress_token = progress_token
        self._speed = speed

    async def status(self, message: str) -> None:
        """A plain call has no status on the legacy wire; the message is only logged."""
        logger.debug("synchronous call status: %s", message)

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        """Send `notifications/progress` on the call's stream when it carried a token."""
        if self._progress_token is not None:
            await self._link.progress(self._progress_token, done, total, message)

    async def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Ask every request at once on the call's stream, with no related-task `_meta`."""
        return await ask_all(self._link, requests)

    async def sleep(self, seconds: float) -> None:
        """Sleep for scaled demo time."""
        await scaled_sleep(seconds, self._speed)


async def run_task_job(
    run: TaskRun, job: Job, context: TaskJobContext, arguments: dict[str, Any]
) -> None:
    """Run a job as a task and record its outcome; a `cancelled` task keeps its status."""
    record = run.record
    try:
        with run.scope:
            try:
                result = await job(context, arguments)
            except ToolFailure as failure:
                if not record.is_terminal:
                    record.error = (failure.code, failure.message)
                await run.transition("failed", failure.message)
            except Exception as error:  # a broken demo job must not take the server down
                logger.exception("task %s: job crashed", record.task_id)
                if not record.is_terminal:
                    record.error = (-32603, f"Internal error: {error}")
                await run.transition("failed", "Internal error")
            else:
                if not record.is_terminal:
                    record.result = result
                if result.get("isError"):
                    await run.transition("failed", _first_text(result) or "Tool error")
                else:
                    await run.transition("completed", "Completed")
    finally:
        context.creation_gate.set()
