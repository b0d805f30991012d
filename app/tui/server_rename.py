"""What the App sees of one server among several: its events, frames, tasks and questions under
their row keys (`app.engine.tasks.server_keys`: "github · task-7"), stamped with its name.

`MultiSource` renames what each live server sends; a replay of a several-server recording renames
what each recorded line names, so both tell the same story. Each renamed question is remembered
with its server and its own form, so an answer finds its way back.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from app.engine.tasks.server_keys import row_key

if TYPE_CHECKING:
    from app.engine.rpc.rpc_types import Frame
    from app.engine.tasks.events import TaskEvent
    from app.engine.tasks.models import InputRequest, Task

MAX_KEPT_REQUESTS = 4096
"""Input requests remembered for routing answers back; the oldest goes first beyond this."""


class ServerRenamer:
    """Renames what servers send to row keys, and remembers each question's server."""

    def __init__(self) -> None:
        self._requests: dict[tuple[str | None, str], tuple[str, InputRequest]] = {}

    def event(self, server: str, event: TaskEvent) -> TaskEvent:
        """The event of `server` under its row key, its task and question renamed too."""
        task = self.task(server, event.task) if event.task is not None else None
        request = event.input_request
        return dataclasses.replace(
            event,
            task_id=row_key(server, event.task_id) if event.task_id else "",
            task=task,
            input_request=self.request(server, request) if request else None,
            server=server,
        )

    def frame(self, server: str, frame: Frame) -> Frame:
        """The frame of `server` under its task's row key, its purpose naming the server."""
        task_id = row_key(server, frame.task_id) if frame.task_id is not None else None
        purpose = f"{server}: {frame.purpose}" if frame.purpose else server
        return dataclasses.replace(frame, task_id=task_id, purpose=purpose, server=server)

    def task(self, server: str, task: Task) -> Task:
        """The task with its questions under their row keys; otherwise the task itself, as the
        server sent it (its own id: the event carries the row key), so a poll copies nothing."""
        if not task.input_requests:
            return task
        requests = tuple(self.request(server, request) for request in task.input_requests)
        return task.model_copy(update={"input_requests": requests})

    def request(self, server: str, request: InputRequest) -> InputRequest:
        """The request under row keys, remembered so an answer finds its server again."""
        task_id = row_key(server, request.task_id) if request.task_id is not None else None
        shown = request.model_copy(update={"task_id": task_id, "key": row_key(server, request.key)})
        ident = (shown.task_id, shown.key)
        if ident not in self._requests and len(self._requests) >= MAX_KEPT_REQUESTS:
            self._requests.pop(next(iter(self._requests)))
        self._requests[ident] = (server, request)
        return shown

    def origin(self, request: InputRequest) -> tuple[str, InputRequest] | None:
        """The server of a renamed question and the question as that server asked it."""
        return self._requests.get((request.task_id, request.key))
