"""Benchmark 1 — engine overhead: time per `tasks/get` through the engine versus a bare loop.

Baseline: `Connection.request("tasks/get", {"taskId": …})` awaited in a loop on the very
connection the engine uses. It is the lowest layer taskscope itself has (numbering, envelope,
`_meta` stamping, correlation, transport); the `mcp` SDK's `ClientSession` would measure a
different client stack rather than what the engine adds on top of ours.

Engine: a real `Poller` over the wire adapter (normalizer, pacing, events) watching the same task.
Its clock jumps over every pacing sleep, so polls follow each other at once and what is timed is
the request plus the engine's own work. Rounds alternate baseline and engine; the figure is the
median of per-round ratios. Target ≤ 1.3x. Beside it, for information: the client's CPU time per
bare `tasks/get` (what the transport and connection cost, which the ratio does not show).
"""

from __future__ import annotations

import asyncio
import statistics
import time

from app.engine.polling.poller import Poller
from app.engine.rpc.connection import Connection
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.factory import make_adapter
from bench.common import Figure, Report, cpu_seconds
from bench.servers import TransportName, Wire, demo_target

TARGET_RATIO = 1.3
COMBINATIONS: tuple[tuple[Wire, TransportName], ...] = (
    ("legacy", "stdio"),
    ("legacy", "http"),
    ("extension", "stdio"),
    ("extension", "http"),
)


class FastForwardClock:
    """Monotonic time that jumps over every sleep instead of waiting (the poller's pacing is
    honoured in its own time, but no wall time passes)."""

    def __init__(self) -> None:
        self._offset = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self._offset

    def wall(self) -> float:
        return time.time() + self._offset

    async def sleep(self, seconds: float) -> None:
        self._offset += max(seconds, 0.0)
        await asyncio.sleep(0)


async def _bare_loop(connection: Connection, task_id: str, count: int) -> tuple[float, float]:
    """Wall seconds and CPU seconds of `count` sequential bare `tasks/get`."""
    start, cpu = time.perf_counter(), cpu_seconds()
    for _ in range(count):
        await connection.request("tasks/get", {"taskId": task_id}, reason="poll")
    return time.perf_counter() - start, cpu_seconds() - cpu


async def _engine_loop(poller: Poller, counter: _PollCounter, task_id: str, count: int) -> float:
    counter.reset(count)
    start = time.perf_counter()
    runner = asyncio.create_task(poller.run_forever())
    await counter.done.wait()
    elapsed = time.perf_counter() - start
    runner.cancel()
    await asyncio.gather(runner, return_exceptions=True)
    return elapsed


class _PollCounter:
    """Counts answered polls of the watched task and signals after `count` of them."""

    def __init__(self) -> None:
        self.done = asyncio.Event()
        self._left = 0

    def reset(self, count: int) -> None:
        self._left = count
        self.done.clear()

    def __call__(self, event: TaskEvent) -> None:
        if event.source == "poll" and event.kind in ("polled", "changed", "transition"):
            self._left -= 1
            if self._left <= 0:
                self.done.set()


async def measure(
    wire: Wire, transport: TransportName, count: int, rounds: int
) -> tuple[float, float]:
    """Median over `rounds` of (engine time ÷ bare time) for `count` sequential `tasks/get`, and
    the median client CPU milliseconds per bare `tasks/get`."""
    with demo_target(wire, transport) as target:
        connection = Connection(target)
        await connection.open()
        try:
            adapter = make_adapter(connection)
            outcome = await adapter.create("bench_churn", {"period_s": 3600.0})
            assert outcome.task is not None, "bench_churn did not create a task"
            task = outcome.task
            counter = _PollCounter()
            poller = Poller(adapter, counter, clock=FastForwardClock())
            poller.watch(task)
            await _engine_loop(poller, counter, task.task_id, max(count // 4, 5))  # warm-up
            await _bare_loop(connection, task.task_id, max(count // 4, 5))
            ratios, cpu_ms = [], []
            for _ in range(rounds):
                bare, bare_cpu = await _bare_loop(connection, task.task_id, count)
                engine = await _engine_loop(poller, counter, task.task_id, count)
                ratios.append(engine / bare)
                cpu_ms.append(1000 * bare_cpu / count)
            return statistics.median(ratios), statistics.median(cpu_ms)
        finally:
            await connection.close()


def run(quick: bool) -> Report:
    """Every wire x transport combination; one ratio figure each."""
    report = Report("overhead")
    count, rounds = (40, 2) if quick else (300, 5)
    for wire, transport in COMBINATIONS:
        ratio, cpu_ms = asyncio.run(measure(wire, transport, count, rounds))
        report.add(
            Figure(
                f"tasks/get engine ÷ bare, {wire} over {transport}",
                ratio,
                "x",
                TARGET_RATIO,
                note=f"{rounds} rounds x {count}",
            )
        )
        report.add(Figure(f"client CPU per bare tasks/get, {wire} over {transport}", cpu_ms, " ms"))
    return report
