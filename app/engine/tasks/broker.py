"""The input broker: every question a server is waiting on, from either wire, held until answered.

Requests are keyed by (task id, key). The extension repeats the same key on every poll until the
server drops it, so the broker announces each request once, never re-announces or re-answers an
answered key, and keeps a typed answer until the server acknowledged it. Legacy server-to-client
requests (and MRTR rounds) wait on a future that `resolve()` completes, or that `reject()` fails
with the JSON-RPC error to answer with instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine.tasks.contract import InputListener

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest

log = logging.getLogger(__name__)

MAX_OPEN_QUESTIONS = 10_000
"""Questions one connection may hold waiting for the user; a server asking more at once has the
rest refused (each answered with an error saying so), so memory and the App's work stay bounded."""

Ident = tuple[str | None, str]
Outcome = dict[str, Any] | Exception
"""How a waited-on request ends: the response to send, or the error to answer with instead."""


class InputNotPending(LookupError):
    """The request is not waiting for an answer: already answered, withdrawn, or never seen."""

    def __init__(self, task_id: str | None, key: str) -> None:
        owner = f" of task {task_id}" if task_id else ""
        super().__init__(f"input request {key!r}{owner} is not pending")
        self.task_id = task_id
        self.key = key


@dataclass
class _Entry:
    """One pending request, its typed answer (kept until acknowledged) and its waiter, if any."""

    request: InputRequest
    response: dict[str, Any] | None = None
    waiter: asyncio.Future[dict[str, Any]] | None = field(default=None, repr=False)


class InputBroker:
    """Pending input requests of one connection, deduplicated, with answer bookkeeping."""

    def __init__(self, *, max_open: int = MAX_OPEN_QUESTIONS) -> None:
        self.max_open = max_open
        """How many questions may wait at once (`full` past that)."""
        self._pending: dict[Ident, _Entry] = {}
        self._answered: set[Ident] = set()
        self._attached: dict[str, str] = {}
        self._early: dict[Ident, Outcome] = {}
        """Answers given before anyone waited (a listener may answer at once)."""
        self._listeners: list[InputListener] = []

    def add_listener(self, listener: InputListener) -> None:
        """Call `listener` once for every new request from now on."""
        self._listeners.append(listener)

    def offer(self, request: InputRequest) -> bool:
        """Hold a request and announce it; False (and nothing announced) if already known."""
        ident = (request.task_id, request.key)
        if ident in self._answered or ident in self._pending:
            return False
        self._pending[ident] = _Entry(request)
        for listener in list(self._listeners):
            try:
                listener(request)
            except Exception:
                log.exception("input listener failed")
        return True

    def sync(self, task_id: str, snapshot: Iterable[InputRequest]) -> tuple[InputRequest, ...]:
        """Apply an extension `inputRequests` snapshot; return the task's still-unanswered requests.

        Keys the server no longer lists are dropped (a staged answer for one counts as taken);
        keys already answered stay suppressed even while the server still lists them.
        """
        listed = list(snapshot)
        keys = {request.key for request in listed}
        for ident, entry in list(self._pending.items()):
            if ident[0] == task_id and ident[1] not in keys:
                del self._pending[ident]
                if entry.response is not None:
                    self._answered.add(ident)
        for request in listed:
            self.offer(request)
        return tuple(
            self._pending[(task_id, request.key)].request
            for request in listed
            if (task_id, request.key) in self._pending
        )

    @property
    def full(self) -> bool:
        """Whether `max_open` questions already wait: the next server request is refused."""
        return len(self._pending) >= self.max_open

    def pending(self, task_id: str | None = None) -> list[InputRequest]:
        """Every unanswered request, or only those of one task."""
        return [
            entry.request
            for (owner, _key), entry in self._pending.items()
            if task_id is None or owner == task_id
        ]

    def is_pending(self, request: InputRequest) -> bool:
        """Whether `request` still waits for an answer (a task-less one attached to its task
        since counts under the task)."""
        return self._ident(request) in self._pending

    def is_answered(self, task_id: str, key: str) -> bool:
        return (task_id, key) in self._answered

    def stage(self, request: InputRequest, response: dict[str, Any]) -> None:
        """Keep a typed answer on a pending request until the server acknowledges it."""
        self._entry(request).response = response

    def staged_answer(self, request: InputRequest) -> dict[str, Any] | None:
        """The answer typed for a request that the server has not acknowledged yet."""
        entry = self._pending.get(self._ident(request))
        return entry.response if entry else None

    def acknowledge(self, task_id: str, keys: Iterable[str]) -> None:
        """The server accepted answers for these keys: they are answered for good."""
        for key in keys:
            self._pending.pop((task_id, key), None)
            self._answered.add((task_id, key))

    def resolve(self, request: InputRequest, response: dict[str, Any]) -> None:
        """Hand an answer to whoever waits on the request (legacy handler, MRTR round)."""
        self._settle(request, response)

    def reject(self, request: InputRequest, error: Exception) -> None:
        """Make whoever waits on the request raise `error` (a legacy handler then answers the
        server with it as a JSON-RPC error); the request counts as answered."""
        self._settle(request, error)

    def _settle(self, request: InputRequest, outcome: Outcome) -> None:
        ident = self._ident(request)
        entry = self._pending.pop(ident, None)
        if entry is None:
            raise InputNotPending(request.task_id, request.key)
        if ident[0] is not None:
            self._answered.add(ident)
        if entry.waiter is None:
            self._early[ident] = outcome
        elif entry.waiter.done():
            return
        elif isinstance(outcome, dict):
            entry.waiter.set_result(outcome)
        else:
            entry.waiter.set_exception(outcome)

    async def wait(self, request: InputRequest) -> dict[str, Any]:
        """Wait until `resolve()` answers the request (or raise what `reject()` gave); cancelling
        the wait withdraws it."""
        early = self._early.pop(self._ident(request), None)
        if isinstance(early, Exception):
            raise early
        if early is not None:
            return early
        entry = self._entry(request)
        if entry.waiter is None:
            entry.waiter = asyncio.get_running_loop().create_future()
        try:
            return await entry.waiter
        except asyncio.CancelledError:
            self.withdraw(request)
            raise

    def withdraw(self, request: InputRequest) -> None:
        """Forget an unanswered request the server gave up on."""
        entry = self._pending.pop(self._ident(request), None)
        if entry is not None and entry.waiter is not None and not entry.waiter.done():
            entry.waiter.cancel()

    def attach(self, key: str, task_id: str) -> None:
        """Bind a request that arrived without a related task to the task it turned out to be."""
        entry = self._pending.pop((None, key), None)
        if entry is None:
            return
        entry.request = entry.request.model_copy(update={"task_id": task_id})
        self._pending[(task_id, key)] = entry
        self._attached[key] = task_id

    def _ident(self, request: InputRequest) -> Ident:
        if request.task_id is None and request.key in self._attached:
            return (self._attached[request.key], request.key)
        return (request.task_id, request.key)

    def _entry(self, request: InputRequest) -> _Entry:
        entry = self._pending.get(self._ident(request))
        if entry is None:
            raise InputNotPending(request.task_id, request.key)
        return entry
