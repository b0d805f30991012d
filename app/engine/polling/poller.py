"""The long-lived engine loop: polls every watched task at its own pace and turns what it learns
into one stream of TaskEvents, which the headless commands and the TUI both consume.

Pacing comes from `pacing.next_delay`, measured from the end of the previous poll, so no poll comes
sooner than the server asked. Server notifications update a task at once but never pull a poll
earlier; only a user's explicit `poll_now` may come early, and it is marked as the user's. How
many polls may be in flight at once follows the demand the server set (`poll_gate.PollGate`,
between `min_in_flight` and `max_in_flight`), so a due poll does not wait for a slot.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.engine.polling.answers import AnswerDesk
from app.engine.polling.clock import Clock, LoopClock
from app.engine.polling.emitter import EventEmitter, EventSink
from app.engine.polling.gate import DEFAULT_CAP, DEFAULT_FLOOR, PollGate
from app.engine.polling.keeper import WatchKeeper
from app.engine.polling.listen import ListenStream
from app.engine.polling.outcome import illegal_transition, overtaken, retry_after
from app.engine.polling.schedule import PollSchedule
from app.engine.polling.wakeup import Jobs, Wakeup
from app.engine.polling.watch_state import Watch
from app.engine.rpc.roots import RootsAnswer
from app.engine.tasks.contract import TasksAdapter, TaskUnknown
from app.engine.tasks.events import NextPoll, Source
from app.engine.tasks.kinds import ProtocolViolation
from app.engine.tasks.parse import task_from_notification

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest, Task

log = logging.getLogger(__name__)


class Poller:
    """Watches tasks on one adapter and emits a TaskEvent for everything that happens to them.

    Drive it with `run_until_idle()` (headless) or `run_forever()` (inside one TUI worker); call
    every other method from the same event loop. `emit` is a plain callable and may not crash
    the loop.
    """

    def __init__(
        self,
        adapter: TasksAdapter,
        emit: EventSink,
        *,
        user_min_ms: int | None = None,
        max_consecutive_errors: int = 5,
        duration_s: float | None = None,
        max_input_rounds: int | None = None,
        clock: Clock | None = None,
        min_in_flight: int = DEFAULT_FLOOR,
        max_in_flight: int = DEFAULT_CAP,
    ) -> None:
        self._adapter = adapter
        self._max_errors = max(1, max_consecutive_errors)
        self._duration_s = duration_s
        self._clock: Clock = clock or LoopClock()
        self._gate = PollGate(self._clock, floor=min_in_flight, cap=max_in_flight)

        self._watches: dict[str, Watch] = {}
        self._wake = Wakeup(self._clock, on_timer=self._timer_fired)
        self._schedule = PollSchedule(
            user_min_ms=user_min_ms, is_watched=self._is_watched, on_change=self._wake.planned
        )
        self._jobs = Jobs(on_idle=self._wake.set)
        self._deadline: float | None = None
        self._stray_inputs: set[tuple[str | None, str]] = set()
        self._emitter = EventEmitter(emit, self._clock, self._watches)
        self._answers = AnswerDesk(adapter, self._watches, self._emitter)
        self._listen = ListenStream(adapter, lambda: sorted(self._watches))
        self._keeper = WatchKeeper(
            adapter,
            self._watches,
            schedule=self._schedule,
            emitter=self._emitter,
            clock=self._clock,
            gate=self._gate,
            spawn=self._jobs.spawn,
            wake=self._wake.set,
            max_input_rounds=max_input_rounds,
        )

        adapter.on_input(self._on_input)
        adapter.on_progress(self._on_progress)
        if adapter.capabilities.wire != "none":
            adapter.on_status(self._on_status)

    # ----------------------------------------------------------------- public API

    def watch(self, task: Task, source: Source = "create") -> bool:
        """Start watching a task the caller already holds; emits "created". False if watched."""
        if task.task_id in self._watches:
            return False
        watch = Watch(task_id=task.task_id, task=None, source=source)
        self._watches[task.task_id] = watch
        self._keeper.accept(watch, task, source, from_poll=True)
        self._keeper.announce_pending_inputs(watch)
        self._listen.request()
        return True

    def adopt(self, task_id: str) -> bool:
        """Start watching a bare task id: it is polled at once, and "created" follows its answer."""
        if task_id in self._watches:
            return False
        watch = Watch(task_id=task_id, task=None, source="user")
        self._watches[task_id] = watch
        self._schedule.plan_now(watch, "user", now=self._clock.monotonic())
        self._listen.request()
        return True

    def forget(self, task_id: str) -> bool:
        """Stop watching a task at the user's request; emits "stopped" with detail "forgotten"."""
        watch = self._watches.get(task_id)
        if watch is None:
            return False
        self._keeper.stop(watch, "forgotten", "user")
        return True

    def poll_now(self, task_id: str, reason: str = "user") -> bool:
        """Poll a task as soon as possible (a user's refresh; it may come before the server's hint).

        False when the task is not watched, already finishing, or a poll of it is in flight.
        """
        watch = self._watches.get(task_id)
        if watch is None or watch.finishing or watch.in_flight:
            return False
        self._schedule.plan_now(watch, reason, now=self._clock.monotonic())
        return True

    def pause(self) -> None:
        """Stop sending scheduled polls; user polls and notifications still go through."""
        self._schedule.paused = True
        for watch in self._watches.values():
            if watch.pending_reason == "poll":
                self._schedule.clear(watch)

    def resume(self) -> None:
        """Send scheduled polls again, each after a fresh delay from now."""
        self._schedule.paused = False
        for watch in self._watches.values():
            if watch.next is None and not watch.in_flight and not watch.finishing:
                self._schedule.plan(watch, watch.task, since=self._clock.monotonic())

    @property
    def paused(self) -> bool:
        return self._schedule.paused

    def mark_cancel_requested(self, task_id: str, cancelled: Task | None = None) -> None:
        """Record that the user sent `tasks/cancel`; pass the legacy answer (the cancelled Task).

        On the legacy wire any later status other than `cancelled` is a violation; on the
        extension wire cancel is cooperative and the task is simply polled on.
        """
        watch = self._watches.get(task_id)
        if watch is None:
            return
        watch.cancel_requested_at = self._clock.monotonic()
        if cancelled is not None and cancelled.task_id == task_id:
            self._keeper.apply_pushed(watch, cancelled, "user")

    def cancel_requested(self, task_id: str) -> bool:
        """Whether the user asked to cancel this watched task."""
        watch = self._watches.get(task_id)
        return watch is not None and watch.cancel_requested_at is not None

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> bool:
        """Send one answer through the adapter; emits "input_answered", or "error" if it failed."""
        return await self._answers.answer(request, response)

    async def answer_roots(
        self, request: InputRequest, roots: Sequence[dict[str, str]]
    ) -> RootsAnswer | None:
        """Answer a `roots/list` at once from the configured roots (see `AnswerDesk`)."""
        return await self._answers.answer_roots(request, roots)

    async def reject(self, request: InputRequest) -> bool:
        """Decline a legacy server request with a JSON-RPC error (see `AnswerDesk.reject`)."""
        return await self._answers.reject(request)

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> bool:
        """Send several answers for one task at once (one `tasks/update` on the extension wire)."""
        return await self._answers.answer_many(task_id, responses)

    def watched(self) -> dict[str, Task]:
        """Every watched task's latest good state (adopted ids appear after their first answer)."""
        return {tid: w.task for tid, w in self._watches.items() if w.task is not None}

    def next_poll(self, task_id: str) -> NextPoll | None:
        """When the task's next poll is due and which term decided it; None if none is scheduled."""
        watch = self._watches.get(task_id)
        return watch.next if watch is not None else None

    async def run_until_idle(self) -> None:
        """Poll until no watched task is live (or the duration bound hits), then return."""
        await self._run(until_idle=True)

    async def run_forever(self) -> None:
        """Poll until cancelled (or the duration bound hits); tasks may be watched at any time."""
        await self._run(until_idle=False)

    # ----------------------------------------------------------------- the loop

    async def _run(self, *, until_idle: bool) -> None:
        if self._deadline is None and self._duration_s is not None:
            self._deadline = self._clock.monotonic() + self._duration_s
        try:
            while True:
                self._wake.clear()
                now = self._clock.monotonic()
                if self._deadline is not None and now >= self._deadline:
                    for watch in list(self._watches.values()):
                        self._keeper.stop(watch, "timeout", "poll")
                    return
                if until_idle and not self._watches and not self._jobs:
                    return
                self._dispatch_due(now)
                wake_at = self._schedule.earliest_due()
                if self._deadline is not None:
                    wake_at = self._deadline if wake_at is None else min(wake_at, self._deadline)
                self._wake.wake_at = wake_at
                await self._wake.sleep(None if wake_at is None else wake_at - now)
        finally:
            self._wake.wake_at = None
            await self._jobs.cancel_all(also=self._listen.detach())

    def _timer_fired(self) -> None:
        """The wake-up timer: start the polls now due at once (see `Wakeup`)."""
        now = self._clock.monotonic()
        if self._deadline is None or now < self._deadline:
            self._dispatch_due(now)

    def _dispatch_due(self, now: float) -> None:
        for watch in self._schedule.pop_due(now):
            watch.in_flight = True
            self._jobs.spawn(self._poll(watch, watch.pending_reason))

    def _is_watched(self, watch: Watch) -> bool:
        return self._watches.get(watch.task_id) is watch

    # ----------------------------------------------------------------- polling

    async def _poll(self, watch: Watch, reason: str) -> None:
        source: Source = "poll" if reason == "poll" else "user"
        await self._gate.acquire()
        if self._watches.get(watch.task_id) is not watch:
            self._gate.release(None)
            watch.in_flight = False
            return
        sent_at = self._clock.monotonic()
        try:
            task = await self._adapter.get(watch.task_id, reason=reason)
        except Exception as exc:
            watch.in_flight = False
            watch.last_response_at = self._clock.monotonic()
            self._gate.release(watch.last_response_at - sent_at)
            self._poll_failed(watch, exc, source)
            return
        except BaseException:
            self._gate.release(None)
            raise
        watch.in_flight = False
        watch.last_response_at = self._clock.monotonic()
        self._gate.release(watch.last_response_at - sent_at)
        self._poll_answered(watch, task, source, sent_at)

    def _poll_failed(self, watch: Watch, exc: Exception, source: Source) -> None:
        if self._watches.get(watch.task_id) is not watch or watch.finishing:
            return
        now = self._clock.monotonic()
        if isinstance(exc, TaskUnknown):
            self._emitter.about(watch, "expired", source, detail=exc.detail)
            self._keeper.stop(watch, "expired", source)
            return
        if isinstance(exc, ProtocolViolation):
            self._schedule.plan(watch, watch.task, since=now)
            self._emitter.about(watch, "violation", source, detail=exc.reason, frame=exc.frame)
            return
        watch.errors += 1
        watch.retry_after = retry_after(exc)
        if watch.errors >= self._max_errors:
            watch.next = None
            self._emitter.failure(watch, source, exc)
            self._keeper.stop(watch, f"{watch.errors} consecutive errors", source)
            return
        self._schedule.plan(watch, watch.task, since=now)
        self._emitter.failure(watch, source, exc)

    def _poll_answered(self, watch: Watch, task: Task, source: Source, sent_at: float) -> None:
        if self._watches.get(watch.task_id) is not watch or watch.finishing:
            return
        watch.errors = 0
        watch.retry_after = None
        if overtaken(watch.task, task, pushed_at=watch.pushed_at, sent_at=sent_at):
            assert watch.task is not None
            self._schedule.plan(watch, watch.task, since=self._clock.monotonic())
            return
        illegal = illegal_transition(
            watch.task, task, cancel_requested_at=watch.cancel_requested_at, sent_at=sent_at
        )
        if illegal is not None:
            self._schedule.plan(watch, watch.task, since=self._clock.monotonic())
            self._emitter.about(watch, "violation", source, detail=illegal, frame=task.raw)
            return
        self._keeper.accept(
            watch, task, watch.source if watch.task is None else source, from_poll=True
        )

    # ----------------------------------------------------------------- inputs, progress, status

    def _on_input(self, request: InputRequest) -> None:
        """A question outside a poll: legacy server requests, or extension MRTR on a plain call.

        A watched extension task's questions are announced from its polled `inputRequests`
        instead, so they follow the transition that brought them.
        """
        watch = self._watches.get(request.task_id) if request.task_id else None
        if watch is not None:
            if request.wire == "legacy":
                self._keeper.announce(watch, request, "stream")
            return
        stray = (request.task_id, request.key)
        if stray not in self._stray_inputs:
            self._stray_inputs.add(stray)
            self._emitter.about_id(request.task_id, "input_needed", "stream", input_request=request)

    def _on_progress(self, task_id: str, params: dict[str, Any]) -> None:
        watch = self._watches.get(task_id)
        if watch is None or watch.task is None or watch.finishing:
            return
        from pydantic import ValidationError

        from app.engine.tasks.models import Progress  # loaded with the watched task

        try:
            progress = Progress(
                progress=params["progress"],
                total=params.get("total"),
                message=params.get("message"),
            )
        except (KeyError, ValidationError) as exc:
            detail = f"malformed notifications/progress: {exc}"
            self._emitter.about(watch, "violation", "notification", detail=detail, frame=params)
            return
        self._keeper.accept(
            watch,
            watch.task.model_copy(update={"progress": progress}),
            "notification",
            from_poll=False,
        )

    def _on_status(self, params: dict[str, Any]) -> None:
        wire = self._adapter.capabilities.wire
        assert wire != "none"
        try:
            task = task_from_notification(params, wire=wire)
        except ProtocolViolation as exc:
            task_id = params.get("taskId")
            watch = self._watches.get(task_id) if isinstance(task_id, str) else None
            if watch is not None:
                frame = exc.frame if exc.frame is not None else params
                self._emitter.about(
                    watch, "violation", "notification", detail=exc.reason, frame=frame
                )
            return
        watch = self._watches.get(task.task_id)
        if watch is not None:
            self._keeper.apply_pushed(watch, task, "notification")
