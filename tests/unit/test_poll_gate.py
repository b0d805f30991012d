"""The poller's in-flight gate in virtual time: floor, cap, a limit that follows demand, FIFO
admission and slots that survive cancellation; and the poller keeping pace through slow round
trips that a fixed limit of 32 could not carry."""

from __future__ import annotations

import asyncio
from itertools import pairwise

from app.engine.polling.clock import LoopClock, run_in_virtual_time
from app.engine.polling.gate import DEFAULT_CAP, HEADROOM, WINDOW_S, PollGate
from app.engine.polling.poller import Poller
from tests.support.fake_adapter import FakeAdapter, Recorder, make_task


async def _hold(gate: PollGate, admitted: list[int], index: int, rtt: float) -> None:
    await gate.acquire()
    admitted.append(index)
    await asyncio.sleep(rtt)
    gate.release(rtt)


def test_the_floor_admits_that_many_and_the_next_waits_its_turn() -> None:
    async def main() -> None:
        gate = PollGate(LoopClock(), floor=3, cap=10)
        admitted: list[int] = []
        jobs = [asyncio.create_task(_hold(gate, admitted, n, 1.0)) for n in range(5)]
        await asyncio.sleep(0.5)
        assert admitted == [0, 1, 2]
        assert gate.in_flight == 3
        await asyncio.gather(*jobs)
        assert admitted == [0, 1, 2, 3, 4]  # first come, first served
        assert gate.in_flight == 0

    run_in_virtual_time(main())


def test_the_limit_follows_rate_times_worst_round_trip_within_floor_and_cap() -> None:
    async def main() -> None:
        gate = PollGate(LoopClock(), floor=4, cap=1000)
        admitted: list[int] = []
        jobs = []
        for n in range(3000):  # 1,000 polls a second, each taking 50 ms
            jobs.append(asyncio.create_task(_hold(gate, admitted, n, 0.05)))
            await asyncio.sleep(0.001)
        assert abs(gate.limit - HEADROOM * 1000 * 0.05) <= 2
        await asyncio.gather(*jobs)
        await asyncio.sleep(3 * WINDOW_S)
        jobs = [asyncio.create_task(_hold(gate, admitted, n, 0.05)) for n in range(2)]
        await asyncio.gather(*jobs)
        await asyncio.sleep(WINDOW_S)
        await _hold(gate, admitted, -1, 0.0)
        assert gate.limit == 4  # demand gone: back to the floor

    run_in_virtual_time(main())


def test_the_cap_holds_however_high_the_demand() -> None:
    async def main() -> None:
        gate = PollGate(LoopClock(), floor=2, cap=8)
        admitted: list[int] = []
        jobs = []
        for n in range(2000):
            jobs.append(asyncio.create_task(_hold(gate, admitted, n, 0.5)))
            await asyncio.sleep(0.001)
            assert gate.in_flight <= 8
        assert gate.limit == 8
        await asyncio.gather(*jobs)

    run_in_virtual_time(main())


def test_a_cancelled_waiter_leaves_the_queue_and_an_admitted_one_hands_its_slot_on() -> None:
    async def main() -> None:
        gate = PollGate(LoopClock(), floor=1, cap=1)
        admitted: list[int] = []
        first = asyncio.create_task(_hold(gate, admitted, 0, 1.0))
        waiting = asyncio.create_task(_hold(gate, admitted, 1, 1.0))
        last = asyncio.create_task(_hold(gate, admitted, 2, 1.0))
        await asyncio.sleep(0.1)
        waiting.cancel()
        await asyncio.sleep(1.5)
        assert admitted == [0, 2]
        await last
        await first
        assert gate.in_flight == 0

        await gate.acquire()
        granted_then_cancelled = asyncio.create_task(gate.acquire())
        after = asyncio.create_task(_hold(gate, admitted, 5, 1.0))
        await asyncio.sleep(0)
        gate.release(None)  # admits the first waiter, which is cancelled before it resumes
        granted_then_cancelled.cancel()
        await after
        assert granted_then_cancelled.cancelled()
        assert admitted[-1] == 5
        assert gate.in_flight == 0

    run_in_virtual_time(main())


def _intervals_after_warm_up(cap: int) -> list[float]:
    """1,000 tasks at a 1 s hint whose round trips take 60 ms: each task's poll intervals."""
    adapter = FakeAdapter()
    ids = [f"task-{n}" for n in range(1000)]
    for task_id in ids:
        adapter.script(task_id, make_task(task_id=task_id, hint=1000))
        adapter.latency[task_id] = 0.06

    async def main() -> None:
        poller = Poller(adapter, Recorder(), duration_s=10.0, max_in_flight=cap)
        for task_id in ids:
            poller.watch(make_task(task_id=task_id, hint=1000))
        await poller.run_until_idle()

    run_in_virtual_time(main())
    assert adapter.most_in_flight <= cap
    intervals: list[float] = []
    for task_id in ids:
        times = [t for t in adapter.poll_times(task_id) if t > 4.0]
        intervals.extend(b - a for a, b in pairwise(times))
    return intervals


def test_polls_keep_pace_when_round_trips_are_slow() -> None:
    intervals = _intervals_after_warm_up(cap=DEFAULT_CAP)
    assert intervals
    assert min(intervals) >= 1.06 - 1e-9  # never sooner than the hint after the answer
    assert max(intervals) <= 1.06 + 1e-6  # and never held back for a slot


def test_a_low_cap_still_bounds_concurrency_and_polls_fall_behind() -> None:
    intervals = _intervals_after_warm_up(cap=32)
    assert min(intervals) >= 1.06 - 1e-9
    assert max(intervals) > 1.5  # 32 slots carry ~530 polls/s, not the 1,000 asked for
