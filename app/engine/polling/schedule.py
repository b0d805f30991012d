"""When each watched task's next poll is due: a heap of due times with lazily dropped stale entries.

Regular delays come from `pacing.next_delay`, measured from the end of the previous poll, so no
poll is planned sooner than the server asked; only `plan_now` (a user's request) may come early.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.engine.polling.pacing import next_delay
from app.engine.polling.watch_state import Watch
from app.engine.tasks.events import NextPoll

if TYPE_CHECKING:
    from app.engine.tasks.models import Task


class PollSchedule:
    """The due times of the poller's watches; a watch's `next` and `heap_seq` mirror its entry.

    `is_watched` tells whether a watch is still the current one for its task id (entries of
    forgotten watches are skipped); `on_change(due)` is called with every new due time set.
    """

    def __init__(
        self,
        *,
        user_min_ms: int | None,
        is_watched: Callable[[Watch], bool],
        on_change: Callable[[float], None],
    ) -> None:
        self.paused = False
        self._user_min_ms = user_min_ms
        self._is_watched = is_watched
        self._on_change = on_change
        self._heap: list[tuple[float, int, Watch]] = []
        self._seq = 0

    def plan(self, watch: Watch, task: Task | None, *, since: float) -> None:
        """Plan the next regular poll `since` the end of the last poll (none when paused)."""
        if self.paused:
            self.clear(watch)
            return
        delay, term = next_delay(
            server_hint_ms=task.poll_interval_ms if task is not None else None,
            user_min_ms=self._user_min_ms,
            retry_after_s=watch.retry_after,
            consecutive_errors=watch.errors,
        )
        self._set_due(watch, NextPoll(due=since + delay, delay=delay, term=term), "poll")

    def plan_now(self, watch: Watch, reason: str, *, now: float) -> None:
        """Plan a poll at once for `reason` (a user's request; it may beat the server's hint)."""
        self._set_due(watch, NextPoll(due=now, delay=0.0, term="user"), reason)

    def defer_for_hint(self, watch: Watch, task: Task) -> None:
        """A pushed state may carry a longer hint: move the pending poll later, never sooner."""
        if watch.next is None or watch.pending_reason != "poll":
            return
        since = watch.last_response_at
        if since is None:
            since = watch.next.due - watch.next.delay
        delay, term = next_delay(
            server_hint_ms=task.poll_interval_ms,
            user_min_ms=self._user_min_ms,
            retry_after_s=watch.retry_after,
            consecutive_errors=watch.errors,
        )
        if since + delay > watch.next.due:
            self._set_due(watch, NextPoll(due=since + delay, delay=delay, term=term), "poll")

    @staticmethod
    def clear(watch: Watch) -> None:
        """Drop the watch's planned poll (its heap entry becomes stale)."""
        watch.next = None
        watch.heap_seq = -1

    def pop_due(self, now: float) -> list[Watch]:
        """Take every watch whose poll is due by `now`, clearing its plan; in due-time order."""
        due: list[Watch] = []
        while self._heap and self._heap[0][0] <= now:
            _, seq, watch = heapq.heappop(self._heap)
            if not self._is_current(seq, watch):
                continue
            self.clear(watch)
            due.append(watch)
        return due

    def earliest_due(self) -> float | None:
        """The earliest planned due time, or None when nothing is planned."""
        while self._heap and not self._is_current(self._heap[0][1], self._heap[0][2]):
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    def _set_due(self, watch: Watch, next_poll: NextPoll, reason: str) -> None:
        self._seq += 1
        watch.next = next_poll
        watch.pending_reason = reason
        watch.heap_seq = self._seq
        heapq.heappush(self._heap, (next_poll.due, self._seq, watch))
        self._on_change(next_poll.due)

    def _is_current(self, seq: int, watch: Watch) -> bool:
        return watch.heap_seq == seq and self._is_watched(watch)
