"""Benchmark 3 — pacing accuracy: for every poll, measured interval ÷ intended interval (p50,
p99) and the number of polls sooner than the server asked. Targets: p99 ≤ 1.1, zero early polls.

Cases: hints of 250 ms, 1 s and 5 s; a server answering every 7th `tasks/get` with HTTP 429 and
`Retry-After: 2`; and the scale load (1,000 churning tasks) on the engine alone. The App under
the same load is measured by the scale benchmark. Each case runs the real `Poller` on a real
connection to a `--bench` demo server over Streamable HTTP; the probe reads the wire's frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass

from app.engine.polling.poller import Poller
from app.engine.rpc.connection import Connection
from app.engine.tasks.events import TaskEvent
from app.engine.tasks.factory import make_adapter
from bench.common import Figure, Report, cpu_seconds
from bench.pacing_probe import PacingProbe
from bench.servers import TransportName, Wire, churn_arguments, demo_target

P99_TARGET = 1.1
CREATE_CONCURRENCY = 32


@dataclass(frozen=True)
class Case:
    """One pacing scenario."""

    label: str
    wire: Wire
    transport: TransportName
    hint_ms: int
    tasks: int
    seconds: float
    server_args: tuple[str, ...] = ()


def cases(quick: bool) -> list[Case]:
    """The scenarios; quick ones are short and small."""
    if quick:
        return [
            Case("hint 250 ms", "extension", "http", 250, 3, 2.0),
            Case("Retry-After", "legacy", "http", 250, 3, 3.0, ("--rate-limit-every", "7")),
        ]
    return [
        Case("hint 250 ms", "extension", "http", 250, 20, 20.0),
        Case("hint 250 ms", "legacy", "stdio", 250, 20, 20.0),
        Case("hint 1 s", "extension", "http", 1000, 20, 30.0),
        Case("hint 1 s", "legacy", "stdio", 1000, 20, 30.0),
        Case("hint 5 s", "extension", "http", 5000, 20, 60.0),
        Case("hint 5 s", "legacy", "stdio", 5000, 20, 60.0),
        Case(
            "Retry-After 2 s (429 every 7th get)",
            "legacy",
            "http",
            250,
            20,
            30.0,
            ("--rate-limit-every", "7", "--retry-after", "2"),
        ),
        Case(
            "Retry-After 2 s (429 every 7th get)",
            "extension",
            "http",
            250,
            20,
            30.0,
            ("--rate-limit-every", "7", "--retry-after", "2"),
        ),
        Case("scale load, engine only", "extension", "http", 1000, 1000, 20.0),
        Case("scale load, engine only", "legacy", "stdio", 1000, 1000, 20.0),
    ]


async def measure(case: Case) -> tuple[PacingProbe, float]:
    """Watch `case.tasks` churning tasks for `case.seconds`; the probe and CPU s per wall s."""
    with demo_target(
        case.wire, case.transport, *case.server_args, poll_interval_ms=case.hint_ms
    ) as target:
        connection = Connection(target)
        probe = PacingProbe()
        connection.add_frame_listener(probe)
        await connection.open()
        try:
            adapter = make_adapter(connection)
            poller = Poller(adapter, _ignore)
            gate = asyncio.Semaphore(CREATE_CONCURRENCY)

            async def create(index: int) -> None:
                async with gate:
                    outcome = await adapter.create("bench_churn", churn_arguments(index))
                if outcome.task is not None:
                    poller.watch(outcome.task)

            runner = asyncio.create_task(poller.run_forever())
            await asyncio.gather(*(create(index) for index in range(case.tasks)))
            await asyncio.sleep(min(case.hint_ms / 1000 * 2, 3.0))
            probe.reset()
            cpu_start, wall_start = cpu_seconds(), time.perf_counter()
            await asyncio.sleep(case.seconds)
            cpu = (cpu_seconds() - cpu_start) / (time.perf_counter() - wall_start)
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
            return probe, cpu
        finally:
            await connection.close()


def _ignore(_event: TaskEvent) -> None:
    """The engine-only cases consume no events."""


def run(quick: bool) -> Report:
    """Every case: p50, p99 and the count of early polls."""
    report = Report("pacing")
    for case in cases(quick):
        probe, cpu = asyncio.run(measure(case))
        label = f"{case.label}, {case.wire}/{case.transport}"
        report.add(
            Figure(
                f"{label}: p99 interval ratio",
                probe.p(0.99),
                "",
                P99_TARGET,
                note=f"p50 {probe.p(0.5):.3f}, {probe.polls} polls, {cpu:.2f} CPU s/s",
            )
        )
        report.add(Figure(f"{label}: early polls", probe.early, "", 0))
    return report
