"""How the poller adopts a watched task's new good state: it plans the next poll, emits what
changed, announces the task's questions, bounds its input rounds, and on a terminal status makes
the result known (fetching it once on the legacy wire) before the watch stops."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from app.engine.polling.clock import Clock
from app.engine.polling.emitter import EventEmitter
from app.engine.polling.gate import PollGate
from app.engine.polling.outcome import (
    carry_progress,
    event_kind,
    illegal_transition,
    task_error,
)
from app.engine.polling.schedule import PollSchedule
from app.engine.polling.watch_state import Watch
from app.engine.tasks.contract import TasksAdapter
from app.engine.tasks.events import Source

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task

Spawn = Callable[[Coroutine[Any, Any, None]], None]


class WatchKeeper:
    """Applies good states to the poller's watches and ends watches; shares the poller's
    watches, schedule, emitter and gate."""

    def __init__(
        self,
        adapter: TasksAdapter,
        watches: dict[str, Watch],
        *,
        schedule: PollSchedule,
        emitter: EventEmitter,
        clock: Clock,
        gate: PollGate,
        spawn: Spawn,
        wake: Callable[[], None],
        max_input_rounds: int | None,
    ) -> None:
        self._adapter = adapter
        self._watches = watches
        self._schedule = schedule
        self._emit = emitter
        self._clock = clock
        self._gate = gate
        self._spawn = spawn
        self._wake = wake
        self._max_input_rounds = max_input_rounds

    def accept(self, watch: Watch, task: Task, source: Source, *, from_poll: bool) -> None:
        """Adopt a good state: schedule, emit what changed, announce inputs, apply bounds."""
        old = watch.task
        if old is not None:
            task = carry_progress(old, task)
        kind = event_kind(old, task, from_poll=from_poll)
        watch.task = task

        if task.is_terminal:
            self._schedule.clear(watch)
        elif from_poll:
            self._schedule.plan(watch, task, since=self._clock.monotonic())
        else:
            self._schedule.defer_for_hint(watch, task)
        if kind is None:
            return

        self._emit.about(
            watch,
            kind,
            source,
            previous_status=old.status if kind == "transition" and old is not None else None,
        )
        if self._watches.get(watch.task_id) is not watch:
            return
        entered_input = task.status == "input_required" and (
            old is None or old.status != "input_required"
        )
        if entered_input:
            watch.input_rounds += 1
            if self._max_input_rounds is not None and watch.input_rounds > self._max_input_rounds:
                self.stop(watch, "input rounds", source)
                return
        for request in task.input_requests:
            self.announce(watch, request, source)
        if task.is_terminal and self._watches.get(watch.task_id) is watch:
            self._finish(watch, source)

    def apply_pushed(self, watch: Watch, task: Task, source: Source) -> None:
        """Apply a pushed state (or a cancel answer): no poll is sent or pulled earlier."""
        if watch.task is None:
            return  # an adopted id not yet polled: its first poll creates it
        illegal = illegal_transition(
            watch.task,
            task,
            cancel_requested_at=watch.cancel_requested_at,
            sent_at=self._clock.monotonic(),
        )
        if illegal is not None:
            self._emit.about(watch, "violation", source, detail=illegal, frame=task.raw)
            return
        if watch.finishing:
            return
        watch.pushed_at = self._clock.monotonic()
        self.accept(watch, task, source, from_poll=False)

    def _finish(self, watch: Watch, source: Source) -> None:
        """A terminal status: make the result known (fetching it once on legacy), then stop."""
        task = watch.task
        assert task is not None
        watch.finishing = True
        if task.wire == "legacy" and task.result is None and task.error is None:
            self._spawn(self._fetch_result(watch, task, source))
            return
        if task.result is not None or task.error is not None:
            self._emit.about(watch, "result", source)
        self.stop(watch, task.status, source)

    async def _fetch_result(self, watch: Watch, task: Task, source: Source) -> None:
        try:
            await self._gate.acquire()
            try:
                result = await self._adapter.fetch_result(task.task_id)
            finally:
                self._gate.release(None)
        except Exception as exc:
            error = task_error(exc)
            if self._watches.get(watch.task_id) is not watch:
                return
            if error is None:
                self._emit.failure(watch, source, exc)
                self.stop(watch, task.status, source)
                return
            final = task.model_copy(update={"error": error})
        else:
            if self._watches.get(watch.task_id) is not watch:
                return
            final = task.model_copy(update={"result": result, "result_source": "fetched"})
        watch.task = final
        self._emit.about(watch, "result", source)
        self.stop(watch, task.status, source)

    def stop(self, watch: Watch, detail: str, source: Source) -> None:
        """End a watch: unschedule it, wake the loop and emit "stopped" with `detail`."""
        if self._watches.get(watch.task_id) is not watch:
            return
        del self._watches[watch.task_id]
        self._schedule.clear(watch)
        self._wake()
        self._emit.about(watch, "stopped", source, detail=detail)

    def announce(self, watch: Watch, request: InputRequest, source: Source) -> None:
        """Emit "input_needed" for a question of a watched task, once per key."""
        if request.key in watch.announced or self._watches.get(watch.task_id) is not watch:
            return
        watch.announced.add(request.key)
        self._emit.about(watch, "input_needed", source, input_request=request)

    def announce_pending_inputs(self, watch: Watch) -> None:
        """Announce the legacy questions the broker already holds for a newly watched task."""
        for request in self._adapter.pending_inputs():
            if request.task_id == watch.task_id and request.wire == "legacy":
                self.announce(watch, request, "stream")
