"""The long-lived engine loop: polls every watched task at its own pace and turns what it learns
into one stream of TaskEvents, which the headless commands and the TUI both consume.

Pacing comes from `pacing.next_delay`, measured from the end of the previous poll, so no poll comes
sooner than the server asked. Server notifications update a task at once but never pull a poll
earlier; only a user's explicit `poll_now` may come early, and it is marked as the user's. How
many polls may be in flight at once follows the demand the server set (`poll_gate.PollGate`,
between `min_in_flight` and `max_in_flight`), so a due poll does not wait for a slot.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from pydantic import ValidationError

from app.engine.polling.clock import Clock, LoopClock
from app.engine.polling.gate import DEFAULT_CAP, DEFAULT_FLOOR, PollGate
from app.engine.polling.outcome import (
    carry_over,
    describe,
    error_frame,
    event_kind,
    illegal_transition,
    overtaken,
    retry_after,
    task_error,
)
from app.engine.polling.schedule import PollSchedule
from app.engine.polling.watch_state import Watch
from app.engine.rpc.roots import RootsAnswer, send_roots
from app.engine.tasks.contract import TasksAdapter, TaskUnknown
from app.engine.tasks.events import EventKind, NextPoll, Source, TaskEvent
from app.engine.tasks.models import InputRequest, Progress, ProtocolViolation, Task
from app.engine.tasks.normalize import task_from_notification

log = logging.getLogger(__name__)

EventSink = Callable[[TaskEvent], None]


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
        self._sink = emit
        self._max_errors = max(1, max_consecutive_errors)
        self._duration_s = duration_s
        self._max_input_rounds = max_input_rounds
        self._clock: Clock = clock or LoopClock()
        self._gate = PollGate(self._clock, floor=min_in_flight, cap=max_in_flight)

        self._watches: dict[str, Watch] = {}
        self._wake = asyncio.Event()
        self._wake_at: float | None = None
        """When the sleeping loop wakes by itself; a poll planned later need not wake it."""
        self._schedule = PollSchedule(
            user_min_ms=user_min_ms, is_watched=self._is_watched, on_change=self._planned
        )
        self._jobs: set[asyncio.Task[None]] = set()
        self._deadline: float | None = None
        self._stray_inputs: set[tuple[str | None, str]] = set()
        self._listen_job: asyncio.Task[None] | None = None
        self._listen_dirty = False
        self._listen_off = adapter.capabilities.wire != "extension"

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
        self._accept(watch, task, source, from_poll=True)
        self._announce_pending_inputs(watch)
        self._request_listen()
        return True

    def adopt(self, task_id: str) -> bool:
        """Start watching a bare task id: it is polled at once, and "created" follows its answer."""
        if task_id in self._watches:
            return False
        watch = Watch(task_id=task_id, task=None, source="user")
        self._watches[task_id] = watch
        self._schedule.plan_now(watch, "user", now=self._clock.monotonic())
        self._request_listen()
        return True

    def forget(self, task_id: str) -> bool:
        """Stop watching a task at the user's request; emits "stopped" with detail "forgotten"."""
        watch = self._watches.get(task_id)
        if watch is None:
            return False
        self._stop(watch, "forgotten", "user")
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
            self._apply_pushed(watch, cancelled, "user")

    def cancel_requested(self, task_id: str) -> bool:
        """Whether the user asked to cancel this watched task."""
        watch = self._watches.get(task_id)
        return watch is not None and watch.cancel_requested_at is not None

    async def answer(self, request: InputRequest, response: dict[str, Any]) -> bool:
        """Send one answer through the adapter; emits "input_answered", or "error" if it failed."""
        owner = self._owner(request)
        try:
            await self._adapter.answer(request, response)
        except Exception as exc:
            self._emit_for(owner, "error", "user", detail=describe(exc), frame=error_frame(exc))
            return False
        self._emit_for(owner, "input_answered", "user", input_request=request)
        return True

    async def answer_roots(
        self, request: InputRequest, roots: Sequence[dict[str, str]]
    ) -> RootsAnswer | None:
        """Answer a `roots/list` at once from the configured roots (see `app.engine.rpc.roots`);
        emits "input_answered" saying what was sent (returned too), or "error" (None) if it
        failed."""
        owner = self._owner(request)
        try:
            answer = await send_roots(self._adapter, request, roots)
        except Exception as exc:
            self._emit_for(owner, "error", "user", detail=describe(exc), frame=error_frame(exc))
            return None
        self._emit_for(
            owner,
            "input_answered",
            "user",
            detail=answer.summary,
            input_request=request,
        )
        return answer

    async def reject(self, request: InputRequest) -> bool:
        """Decline a legacy server request with a JSON-RPC error; emits "input_answered".

        False (nothing sent, nothing emitted) on a wire where a request cannot be rejected: it
        stays pending. A failure emits "error" and raises.
        """
        owner = self._owner(request)
        try:
            rejected = await self._adapter.reject(request)
        except Exception as exc:
            self._emit_for(owner, "error", "user", detail=describe(exc), frame=error_frame(exc))
            raise
        if rejected:
            self._emit_for(
                owner,
                "input_answered",
                "user",
                detail="declined with an error reply",
                input_request=request,
            )
        return rejected

    async def answer_many(self, task_id: str, responses: dict[str, dict[str, Any]]) -> bool:
        """Send several answers for one task at once (one `tasks/update` on the extension wire)."""
        try:
            await self._adapter.answer_many(task_id, responses)
        except Exception as exc:
            self._emit_for(task_id, "error", "user", detail=describe(exc), frame=error_frame(exc))
            return False
        watch = self._watches.get(task_id)
        known = {r.key: r for r in watch.task.input_requests} if watch and watch.task else {}
        for key in responses:
            self._emit_for(
                task_id, "input_answered", "user", detail=key, input_request=known.get(key)
            )
        return True

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
                        self._stop(watch, "timeout", "poll")
                    return
                if until_idle and not self._watches and not self._jobs:
                    return
                self._dispatch_due(now)
                wake_at = self._schedule.earliest_due()
                if self._deadline is not None:
                    wake_at = self._deadline if wake_at is None else min(wake_at, self._deadline)
                self._wake_at = wake_at
                await self._sleep_or_wake(None if wake_at is None else wake_at - now)
        finally:
            self._wake_at = None
            await self._cancel_jobs()

    def _planned(self, due: float) -> None:
        """A poll was planned: wake the loop only if it would otherwise sleep past `due`."""
        if self._wake_at is None or due < self._wake_at:
            self._wake.set()

    async def _sleep_or_wake(self, timeout: float | None) -> None:
        if timeout is None:
            await self._wake.wait()
            return
        if isinstance(self._clock, LoopClock):
            # The loop's own clock: one timer wakes us, no sleeper task per wake-up.
            timer = asyncio.get_running_loop().call_later(max(timeout, 0.0), self._timer_fired)
            try:
                await self._wake.wait()
            finally:
                timer.cancel()
            return
        waiter = asyncio.ensure_future(self._wake.wait())
        sleeper = asyncio.ensure_future(self._clock.sleep(max(timeout, 0.0)))
        try:
            await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            sleeper.cancel()

    def _timer_fired(self) -> None:
        """The wake-up timer: start the polls now due at once, a loop turn sooner than the woken
        loop could (a turn may hold a long repaint), then wake the loop to plan the next one."""
        now = self._clock.monotonic()
        if self._deadline is None or now < self._deadline:
            self._dispatch_due(now)
        self._wake.set()

    async def _cancel_jobs(self) -> None:
        jobs = [*self._jobs, *([self._listen_job] if self._listen_job else [])]
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)
        self._jobs.clear()
        self._listen_job = None

    def _dispatch_due(self, now: float) -> None:
        for watch in self._schedule.pop_due(now):
            watch.in_flight = True
            self._spawn(self._poll(watch, watch.pending_reason))

    def _is_watched(self, watch: Watch) -> bool:
        return self._watches.get(watch.task_id) is watch

    def _spawn(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._jobs.add(task)
        task.add_done_callback(self._job_done)

    def _job_done(self, task: asyncio.Task[None]) -> None:
        self._jobs.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("poller job failed", exc_info=task.exception())
        if not self._jobs:
            self._wake.set()  # `run_until_idle` may be done

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
            self._emit(watch, "expired", source, detail=exc.detail)
            self._stop(watch, "expired", source)
            return
        if isinstance(exc, ProtocolViolation):
            self._schedule.plan(watch, watch.task, since=now)
            self._emit(watch, "violation", source, detail=exc.reason, frame=exc.frame)
            return
        watch.errors += 1
        watch.retry_after = retry_after(exc)
        if watch.errors >= self._max_errors:
            watch.next = None
            self._emit(watch, "error", source, detail=describe(exc), frame=error_frame(exc))
            self._stop(watch, f"{watch.errors} consecutive errors", source)
            return
        self._schedule.plan(watch, watch.task, since=now)
        self._emit(watch, "error", source, detail=describe(exc), frame=error_frame(exc))

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
            self._emit(watch, "violation", source, detail=illegal, frame=task.raw)
            return
        self._accept(watch, task, watch.source if watch.task is None else source, from_poll=True)

    # ----------------------------------------------------------------- applying a state

    def _accept(self, watch: Watch, task: Task, source: Source, *, from_poll: bool) -> None:
        """Adopt a good state: schedule, emit what changed, announce inputs, apply bounds."""
        old = watch.task
        if old is not None:
            task = carry_over(old, task)
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

        self._emit(
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
                self._stop(watch, "input rounds", source)
                return
        for request in task.input_requests:
            self._announce(watch, request, source)
        if task.is_terminal and self._watches.get(watch.task_id) is watch:
            self._finish(watch, source)

    def _apply_pushed(self, watch: Watch, task: Task, source: Source) -> None:
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
            self._emit(watch, "violation", source, detail=illegal, frame=task.raw)
            return
        if watch.finishing:
            return
        watch.pushed_at = self._clock.monotonic()
        self._accept(watch, task, source, from_poll=False)

    def _finish(self, watch: Watch, source: Source) -> None:
        """A terminal status: make the result known (fetching it once on legacy), then stop."""
        task = watch.task
        assert task is not None
        watch.finishing = True
        if task.wire == "legacy" and task.result is None and task.error is None:
            self._spawn(self._fetch_result(watch, task, source))
            return
        if task.result is not None or task.error is not None:
            self._emit(watch, "result", source)
        self._stop(watch, task.status, source)

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
                self._emit(watch, "error", source, detail=describe(exc), frame=error_frame(exc))
                self._stop(watch, task.status, source)
                return
            final = task.model_copy(update={"error": error})
        else:
            if self._watches.get(watch.task_id) is not watch:
                return
            final = task.model_copy(update={"result": result, "result_source": "fetched"})
        watch.task = final
        self._emit(watch, "result", source)
        self._stop(watch, task.status, source)

    def _stop(self, watch: Watch, detail: str, source: Source) -> None:
        if self._watches.get(watch.task_id) is not watch:
            return
        del self._watches[watch.task_id]
        self._schedule.clear(watch)
        self._wake.set()
        self._emit(watch, "stopped", source, detail=detail)

    # ----------------------------------------------------------------- inputs, progress, status

    def _announce(self, watch: Watch, request: InputRequest, source: Source) -> None:
        if request.key in watch.announced or self._watches.get(watch.task_id) is not watch:
            return
        watch.announced.add(request.key)
        self._emit(watch, "input_needed", source, input_request=request)

    def _announce_pending_inputs(self, watch: Watch) -> None:
        for request in self._adapter.pending_inputs():
            if request.task_id == watch.task_id and request.wire == "legacy":
                self._announce(watch, request, "stream")

    def _owner(self, request: InputRequest) -> str | None:
        """The task a request belongs to: its own related task, or the task a question asked on
        the `tools/call` stream turned out to belong to (the broker attached it when the call
        answered with that task), so its answer lands on the task's row and timeline."""
        if request.task_id is not None or request.wire != "legacy":
            return request.task_id
        for pending in self._adapter.pending_inputs():
            if pending.key == request.key and pending.wire == "legacy" and pending.task_id:
                return pending.task_id
        return None

    def _on_input(self, request: InputRequest) -> None:
        """A question outside a poll: legacy server requests, or extension MRTR on a plain call.

        A watched extension task's questions are announced from its polled `inputRequests`
        instead, so they follow the transition that brought them.
        """
        watch = self._watches.get(request.task_id) if request.task_id else None
        if watch is not None:
            if request.wire == "legacy":
                self._announce(watch, request, "stream")
            return
        stray = (request.task_id, request.key)
        if stray not in self._stray_inputs:
            self._stray_inputs.add(stray)
            self._emit_for(request.task_id, "input_needed", "stream", input_request=request)

    def _on_progress(self, task_id: str, params: dict[str, Any]) -> None:
        watch = self._watches.get(task_id)
        if watch is None or watch.task is None or watch.finishing:
            return
        try:
            progress = Progress(
                progress=params["progress"],
                total=params.get("total"),
                message=params.get("message"),
            )
        except (KeyError, ValidationError) as exc:
            detail = f"malformed notifications/progress: {exc}"
            self._emit(watch, "violation", "notification", detail=detail, frame=params)
            return
        self._accept(
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
                self._emit(watch, "violation", "notification", detail=exc.reason, frame=frame)
            return
        watch = self._watches.get(task.task_id)
        if watch is not None:
            self._apply_pushed(watch, task, "notification")

    # ----------------------------------------------------------------- listen (extension)

    def _request_listen(self) -> None:
        """Ask for one `subscriptions/listen` stream covering the watched tasks (extension only)."""
        if self._listen_off:
            return
        self._listen_dirty = True
        if self._listen_job is None or self._listen_job.done():
            self._listen_job = asyncio.get_running_loop().create_task(self._listen())

    async def _listen(self) -> None:
        while self._listen_dirty and not self._listen_off:
            self._listen_dirty = False
            task_ids = sorted(self._watches)
            if not task_ids:
                return
            try:
                accepted = await self._adapter.start_listening(task_ids)
            except Exception:
                log.warning("subscriptions/listen failed; polling only", exc_info=True)
                accepted = False
            if not accepted:
                self._listen_off = True

    # ----------------------------------------------------------------- emitting

    def _emit(
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

    def _emit_for(
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
            self._emit(watch, kind, source, detail=detail, input_request=input_request, frame=frame)
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
