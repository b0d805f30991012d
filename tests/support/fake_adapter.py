"""A scripted in-memory TasksAdapter, a recorder of poller events and a task factory: the
fakes the poller and poll-gate tests drive the poller with."""

from __future__ import annotations

import asyncio
from typing import Any

from app.engine.tasks.contract import (
    CreateOutcome,
    InputListener,
    ProgressListener,
    StatusListener,
    TasksCapabilities,
)
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.models import (
    InputKind,
    InputRequest,
    Task,
    TaskStatus,
    Wire,
)

Step = Task | BaseException


def make_task(
    status: TaskStatus = "working",
    *,
    task_id: str = "t",
    wire: Wire = "extension",
    hint: int | None = 2000,
    message: str | None = None,
    result: dict[str, Any] | None = None,
    inputs: tuple[str, ...] = (),
) -> Task:
    requests = tuple(
        InputRequest(
            key=key,
            kind=InputKind.FORM,
            method="elicitation/create",
            params={"message": f"question {key}"},
            wire=wire,
            task_id=task_id,
        )
        for key in inputs
    )
    return Task(
        task_id=task_id,
        wire=wire,
        status=status,
        status_message=message,
        poll_interval_ms=hint,
        result=result,
        result_source="inline" if result is not None else None,
        input_requests=requests,
    )


class FakeAdapter:
    """A TasksAdapter whose `tasks/get` answers come from a per-task script (the last repeats)."""

    def __init__(self, wire: Wire = "extension") -> None:
        self.capabilities = TasksCapabilities(wire=wire, tool_calls=True, cancel=True)
        self.scripts: dict[str, list[Step]] = {}
        self.latency: dict[str, float] = {}
        self.polls: list[tuple[str, float, str]] = []
        self.fetch_answers: dict[str, dict[str, Any] | BaseException] = {}
        self.fetches: list[str] = []
        self.listen_answer = False
        self.listen_calls: list[list[str]] = []
        self.answers: list[tuple[str, dict[str, Any]]] = []
        self.answer_error: BaseException | None = None
        self.pending: list[InputRequest] = []
        self.input_listeners: list[InputListener] = []
        self.progress_listeners: list[ProgressListener] = []
        self.status_listeners: list[StatusListener] = []
        self.in_flight = 0
        self.most_in_flight = 0

    def script(self, task_id: str, *steps: Step) -> None:
        self.scripts[task_id] = list(steps)

    def poll_times(self, task_id: str = "t") -> list[float]:
        return [at for tid, at, _ in self.polls if tid == task_id]

    async def get(self, task_id: str, *, reason: str = "poll") -> Task:
        self.polls.append((task_id, asyncio.get_running_loop().time(), reason))
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.latency.get(task_id, 0.0))
            script = self.scripts[task_id]
            step = script.pop(0) if len(script) > 1 else script[0]
        finally:
            self.in_flight -= 1
        if isinstance(step, BaseException):
            raise step
        return step

    async def fetch_result(self, task_id: str) -> dict[str, Any]:
        self.fetches.append(task_id)
        answer = self.fetch_answers[task_id]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> None:
        if self.answer_error is not None:
            raise self.answer_error
        self.answers.append((request.key, response))

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> None:
        self.answers.extend(responses.items())

    async def start_listening(self, task_ids: list[str]) -> bool:
        self.listen_calls.append(task_ids)
        return self.listen_answer

    def pending_inputs(self) -> list[InputRequest]:
        return list(self.pending)

    def on_input(self, listener: InputListener) -> None:
        self.input_listeners.append(listener)

    def on_progress(self, listener: ProgressListener) -> None:
        self.progress_listeners.append(listener)

    def on_status(self, listener: StatusListener) -> None:
        self.status_listeners.append(listener)

    async def create(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int | None = None
    ) -> CreateOutcome:
        raise AssertionError("the poller never creates tasks")

    async def list_tasks(self) -> list[Task]:
        raise AssertionError("the poller never lists tasks")

    async def cancel(self, task_id: str) -> Task | None:
        raise AssertionError("the poller never cancels tasks")


class Recorder:
    """Collects emitted events."""

    def __init__(self) -> None:
        self.events: list[TaskEvent] = []

    def __call__(self, event: TaskEvent) -> None:
        self.events.append(event)

    def kinds(self, task_id: str | None = None) -> list[str]:
        return [e.kind for e in self.events if task_id is None or e.task_id == task_id]

    def of(self, kind: str) -> list[TaskEvent]:
        return [e for e in self.events if e.kind == kind]
