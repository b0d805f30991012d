"""The checker's hands on one connection: requests whose frames become evidence, the questions a
server asks (answered at run time), paced polling, and the tasks the run must clean up.

Every request carries a reason unique to it, so the frames it produced (out and in, paired by
exchange number) can be cited by the verdict that relies on them. Polling never comes sooner than
the server's `pollInterval`/`pollIntervalMs` asked; every wait ends at the run's timeout.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine.check.model import Evidence, excerpt_of
from app.engine.polling.pacing import next_delay
from app.engine.rpc.rpc_types import Frame, RpcError
from app.engine.rpc.transports.base import TransportError

if TYPE_CHECKING:
    from app.engine.rpc.connection import Connection
    from app.engine.tasks.models import InputRequest

MAX_FRAMES = 4000
"""Frames kept for evidence; a run makes a few hundred requests at most."""
MAX_NOTIFICATIONS = 500
MAX_QUESTIONS = 200
TERMINAL = frozenset({"completed", "failed", "cancelled"})

Answerer = Callable[["InputRequest"], dict[str, Any] | None]
"""The response to a server's question (an answers file's rule), or None to decline it."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What one request got: a result, a JSON-RPC error, or no answer (transport failure or
    timeout), with the frames of the exchange."""

    method: str
    result: dict[str, Any] | None
    error: RpcError | None
    failure: str | None
    frames: tuple[Frame, ...]

    @property
    def ok(self) -> bool:
        return self.result is not None

    @property
    def code(self) -> int | None:
        return self.error.code if self.error is not None else None

    @property
    def http_status(self) -> int | None:
        answer = self.answer_frame
        return answer.http_status if answer is not None else None

    @property
    def answer_frame(self) -> Frame | None:
        return next((f for f in self.frames if f.direction == "in"), None)

    def evidence(self, excerpt: Any = None, *, request: bool = False) -> tuple[Evidence, ...]:
        """The frames of this exchange as evidence: the answer (with `excerpt`, else the answer's
        own JSON), and the request too when `request` or when there was no answer."""
        cited: list[Evidence] = []
        answer = self.answer_frame
        for frame in self.frames:
            if frame.direction == "out" and (request or answer is None):
                cited.append(
                    _evidence(frame, {"headers": frame.headers} if frame.headers else None)
                )
        if answer is not None:
            shown = excerpt if excerpt is not None else frame_part(answer)
            cited.append(_evidence(answer, shown))
        elif not self.frames:
            cited.append(Evidence(self.method, "out", None, None, {"failure": self.failure}))
        return tuple(cited)

    def describe(self) -> str:
        """The answer in words: `result`, `error -32602 "…"`, or the failure."""
        if self.error is not None:
            return f'error {self.error.code} "{_short(self.error.message)}"'
        if self.failure is not None:
            return f"no answer ({self.failure})"
        return "a result"


@dataclass(frozen=True, slots=True)
class Question:
    """A server→client request (legacy wire) the run answered, and how."""

    method: str
    params: dict[str, Any]
    related_task: str | None
    response: dict[str, Any] | None
    frame: Frame | None


@dataclass(slots=True)
class Created:
    """A task the run created: its id, the wire, and whether it is known to have ended."""

    task_id: str
    ended: bool = False


@dataclass(slots=True)
class Probe:
    """Requests, questions, notifications and polling on one open connection."""

    connection: Connection
    answer: Answerer
    timeout_s: float
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    frames: deque[Frame] = field(default_factory=lambda: deque(maxlen=MAX_FRAMES))
    questions: list[Question] = field(default_factory=list)
    notifications: deque[tuple[str, dict[str, Any]]] = field(
        default_factory=lambda: deque(maxlen=MAX_NOTIFICATIONS)
    )
    created: dict[str, Created] = field(default_factory=dict)
    _counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _last_poll: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.connection.add_frame_listener(self.frames.append)
        self.connection.add_notification_handler(self._on_notification)

    # -- requests ---------------------------------------------------------------------------------

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None,
        purpose: str,
        *,
        declare_tasks: bool = True,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> Reply:
        """Send one request and keep what came back; never raises for the server's sake."""
        reason = f"check #{next(self._counter)}: {purpose}"
        result: dict[str, Any] | None = None
        error: RpcError | None = None
        failure: str | None = None
        try:
            result = await self.connection.request(
                method,
                params,
                reason=reason,
                timeout=timeout_s if timeout_s is not None else self.timeout_s,
                declare_tasks=declare_tasks,
                headers=headers,
            )
        except RpcError as exc:
            error = exc
        except TransportError as exc:
            failure = str(exc) or "the transport failed"
        except TimeoutError:
            failure = f"no answer within {timeout_s or self.timeout_s:g} s"
        if result is not None and not isinstance(result, dict):
            failure, result = "the result is not a JSON object", None
        return Reply(method, result, error, failure, self._frames_of(reason))

    def _frames_of(self, reason: str) -> tuple[Frame, ...]:
        """The frames of the request sent with `reason`, and its answer."""
        sent = [f for f in self.frames if f.direction == "out" and f.reason == reason]
        exchanges = {f.exchange for f in sent if f.exchange is not None}
        answers = [f for f in self.frames if f.direction == "in" and f.exchange in exchanges]
        return (*sent[-1:], *answers[-1:])

    def remember(self, task_id: str) -> None:
        """A task this run created: cancelled at the end unless it is known to have ended."""
        self.created.setdefault(task_id, Created(task_id))

    @staticmethod
    def evidence_of(frame: Frame, excerpt: Any) -> Evidence:
        """One frame as evidence, quoting `excerpt`."""
        return _evidence(frame, excerpt)

    # -- polling ----------------------------------------------------------------------------------

    async def paced(self, task_id: str, hint_ms: int | None) -> None:
        """Wait until the next poll of `task_id` is due by the server's hint (1 s without one)."""
        last = self._last_poll.get(task_id)
        if last is not None:
            delay, _ = next_delay(
                server_hint_ms=hint_ms,
                user_min_ms=None,
                retry_after_s=None,
                consecutive_errors=0,
            )
            wait = last + delay - self.clock()
            if wait > 0:
                await self.sleep(wait)
        self._last_poll[task_id] = self.clock()

    def deadline(self) -> float:
        """When a wait starting now must give up."""
        return self.clock() + self.timeout_s

    def past(self, deadline: float) -> bool:
        return self.clock() >= deadline

    # -- questions and notifications --------------------------------------------------------------

    def answer_server_requests(self) -> None:
        """Answer the legacy wire's server→client questions at run time (answers or decline)."""
        for method in ("elicitation/create", "sampling/createMessage", "roots/list"):
            self.connection.set_request_handler(method, self._make_handler(method))

    def _make_handler(
        self, method: str
    ) -> Callable[[dict[str, Any], dict[str, Any]], Awaitable[dict[str, Any]]]:
        from app.engine.tasks.legacy_parse import input_request_from_server_request

        async def handle(params: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
            request = input_request_from_server_request(method, params, message.get("id", ""))
            response = self.answer(request) or declined(method)
            if len(self.questions) < MAX_QUESTIONS:
                frame = next(
                    (
                        f
                        for f in reversed(self.frames)
                        if f.direction == "in" and f.method == method
                    ),
                    None,
                )
                self.questions.append(Question(method, params, request.task_id, response, frame))
            if "error" in response and isinstance(response["error"], dict):
                raise RpcError(-1, str(response["error"].get("message", "declined")))
            if request.task_id is not None:
                meta = {"io.modelcontextprotocol/related-task": {"taskId": request.task_id}}
                return {**response, "_meta": meta}
            return response

        return handle

    def _on_notification(self, method: str, params: dict[str, Any]) -> None:
        self.notifications.append((method, params))

    def notification_frames(self, method: str) -> list[Frame]:
        """The frames of the notifications of `method` received so far."""
        return [f for f in self.frames if f.direction == "in" and f.method == method]


def declined(method: str) -> dict[str, Any]:
    """What the run answers when no rule of the answers file matches: a decline where the
    request has one, an empty root list, or an error for sampling (it has no decline)."""
    if method == "elicitation/create":
        return {"action": "decline"}
    if method == "roots/list":
        return {"roots": []}
    return {"error": {"message": "declined by taskscope check (no --answers rule matched)"}}


def _evidence(frame: Frame, excerpt: Any) -> Evidence:
    return Evidence(
        method=frame.method,
        direction=frame.direction,
        rpc_id=frame.rpc_id,
        exchange=frame.exchange,
        excerpt=excerpt_of(excerpt) if excerpt is not None else None,
        http_status=frame.http_status,
    )


def frame_part(frame: Frame) -> Any:
    """What evidence quotes of a frame by default: its error, result or params (the first it
    has), else the raw text it came as."""
    message = frame.message or {}
    for key in ("error", "result", "params"):
        if key in message:
            return {key: message[key]}
    return {"raw": frame.raw} if frame.raw else None


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
