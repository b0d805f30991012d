"""How the poller turns what happened into `TaskEvent`s and hands each to its one consumer."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.engine.polling.clock import Clock
from app.engine.polling.outcome import describe, error_frame
from app.engine.polling.watch_state import Watch
from app.engine.tasks.events import EventKind, Source, TaskEvent

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest

log = logging.getLogger(__name__)

EventSink = Callable[[TaskEvent], None]


class EventEmitter:
    """Builds events from the watches' state and delivers them; a failing consumer is logged,
    never allowed to crash the poll loop."""

    def __init__(self, sink: EventSink, clock: Clock, watches: dict[str, Watch]) -> None:
        self._sink = sink
        self._clock = clock
        self._watches = watches

    def about(
        self,
        watch: Watch,
        kind: EventKind,
        source: Source,
        *,
        detail: str | None = None,
        previous_status: str | None = None,
        input_request: InputRequest | None = None,
        frame: object | None = None,
    ) -> None:
        """Emit about a watched task, carrying its latest good state and next poll."""
        self._deliver(
            TaskEvent(
                kind=kind,
                task_id=watch.task_id,
                task=watch.task,
                at=self._clock.wall(),
                source=source,
                detail=detail,
                previous_status=previous_status,
                input_request=input_request,
                next_poll=watch.next,
                frame=frame,
            )
        )

    def failure(self, watch: Watch, source: Source, exc: BaseException) -> None:
        """Emit "error" for a request about a watched task that failed with `exc`."""
        self.about(watch, "error", source, detail=describe(exc), frame=error_frame(exc))

    def about_id(
        self,
        task_id: str | None,
        kind: EventKind,
        source: Source,
        *,
        detail: str | None = None,
        input_request: InputRequest | None = None,
        frame: object | None = None,
    ) -> None:
        """Emit about a task id that may not be watched (task_id "" when the server named none)."""
        watch = self._watches.get(task_id) if task_id else None
        if watch is not None:
            self.about(watch, kind, source, detail=detail, input_request=input_request, frame=frame)
            return
        self._deliver(
            TaskEvent(
                kind=kind,
                task_id=task_id or "",
                task=None,
                at=self._clock.wall(),
                source=source,
                detail=detail,
                input_request=input_request,
                frame=frame,
            )
        )

    def _deliver(self, event: TaskEvent) -> None:
        try:
            self._sink(event)
        except Exception:
            log.exception("event consumer failed on %s for task %s", event.kind, event.task_id)
