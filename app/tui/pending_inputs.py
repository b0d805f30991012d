"""The App's part in the input requests it is asked: which were announced, when each came, the
order the server asked them in, the questions asked outside any task, and half-typed answers.

Pure state with no Textual in it, so the App asks one owner instead of keeping six dicts. The
engine's broker still owns answering; this only remembers what the user was told and typed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest
    from app.view.watched import WatchedTask

MAX_KEPT_DRAFTS = 256
"""Typed answers kept for questions put off with Later; the oldest goes first beyond this."""

Ident = tuple[str, str]
"""(task id, or "" outside any task; request key)."""


class PendingInputs:
    """Every input request the App has seen, keyed by (task id, request key)."""

    def __init__(self) -> None:
        self._requests: dict[Ident, InputRequest] = {}
        self._received_at: dict[Ident, float] = {}
        self._asked_order: dict[Ident, int] = {}
        """The order the server asked its questions in, so they are answered in that order."""
        self._announced: set[Ident] = set()
        self._strays: dict[str, InputRequest] = {}
        """Questions asked outside any task (on a plain call's stream) until answered: the
        inbox lists them, so one put off with Later can be opened again."""
        self._drafts: dict[Ident, dict[str, Any]] = {}
        """What was typed into a question put off with Later or escape."""
        self.stray_open = False
        """Whether a question outside any task is open in its modal: the next ones wait in the
        inbox instead of opening one modal over another."""

    def asked(self, task_id: str, request: InputRequest, now: float) -> None:
        """Remember a task's request, when it first came and its place in the asking order."""
        ident = (task_id, request.key)
        self._requests[ident] = request
        self._strays.pop(request.key, None)  # the call's question now belongs to its task
        self._received_at.setdefault(ident, now)
        self._asked_order.setdefault(ident, len(self._asked_order))

    def announce_once(self, task_id: str, request: InputRequest) -> bool:
        """True the first time a request (task id "" outside any task) is to be announced."""
        ident = (task_id, request.key)
        if ident in self._announced:
            return False
        self._announced.add(ident)
        return True

    def keep_stray(self, request: InputRequest, now: float) -> None:
        """Keep a question outside any task for the inbox until it is answered."""
        self._strays[request.key] = request
        self._received_at.setdefault(("", request.key), now)

    def is_stray(self, request: InputRequest) -> bool:
        return request.key in self._strays

    def drop_stray(self, request: InputRequest) -> None:
        """The question outside any task was answered or rejected."""
        self._strays.pop(request.key, None)

    def pending(self, watched: WatchedTask, *, skip: Collection[str] = ()) -> InputRequest | None:
        """The task's first pending request in asking order whose key is not in `skip` (those
        just answered, while the task has not yet said so), or None."""
        return next((r for r in self._requests_of(watched) if r.key not in skip), None)

    def entries(self, tasks: Iterable[WatchedTask], now: float) -> list[tuple[InputRequest, float]]:
        """Every request waiting on the user, with when it was first seen: the questions outside
        any task first, then each task's in asking order."""
        entries = [
            (request, self._received_at.get(("", key), now))
            for key, request in self._strays.items()
        ]
        for watched in tasks:
            for request in self._requests_of(watched):
                ident = (watched.task_id, request.key)
                entries.append((request, self._received_at.get(ident, watched.last_change)))
        return entries

    def _requests_of(self, watched: WatchedTask) -> Iterator[InputRequest]:
        last = len(self._asked_order)
        keys = sorted(
            watched.pending_inputs,
            key=lambda key: (self._asked_order.get((watched.task_id, key), last), key),
        )
        inline = watched.task.input_requests if watched.task is not None else ()
        by_key = {request.key: request for request in reversed(inline)}  # the first of a key
        for key in keys:
            found = by_key.get(key) or self._requests.get((watched.task_id, key))
            if found is not None:
                yield found

    def take_draft(self, request: InputRequest) -> dict[str, Any] | None:
        """The answer typed before the question was put off (forgotten once taken)."""
        return self._drafts.pop((request.task_id or "", request.key), None)

    def keep_draft(self, request: InputRequest, draft: dict[str, Any]) -> None:
        """Keep what was typed into a question put off, dropping the oldest beyond the cap."""
        if len(self._drafts) >= MAX_KEPT_DRAFTS:
            self._drafts.pop(next(iter(self._drafts)))
        self._drafts[(request.task_id or "", request.key)] = draft
