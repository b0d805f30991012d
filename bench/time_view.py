"""Benchmark 6 — time view: the App showing N churning tasks as bars, against the task list.

Baseline: the same App, in the same process and under the same load, showing the task table. A
synthetic source (no server, so only the App is measured) watches N tasks and every second
changes a quarter of them: a new status message for most, a status flip (working ↔ input
needed) or a failed poll for some, so bars gain segments and marks as they go. Rounds alternate
list and time view (`t`); each measures CPU seconds per second, repaints of the shown widget and
key-press-to-screen latency. Figures: the median per-round CPU ratio (time view ÷ list, target
≤ 1.2x), the key-to-screen p95 ratio (≤ 1.5x), and the time view's repaints per second (≤ 4).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from datetime import UTC, datetime
from typing import Any

from textual.pilot import Pilot

from app.engine.record.recording import SessionInfo
from app.engine.tasks.events import EventKind, TaskEvent
from app.engine.tasks.models import Task
from app.tui.app import TaskscopeApp
from app.tui.config import TuiConfig
from app.tui.recorded import RecordedSource
from bench.app_probe import FrameMeter, key_latency
from bench.common import Figure, Report, cpu_seconds, percentile
from tests.support.tui_recording import INFO
from widgets.time_view import TimeView

CPU_RATIO_TARGET = 1.2
KEY_P95_RATIO_TARGET = 1.5
REPAINT_TARGET = 4.0
SCREEN_SIZE = (160, 48)
CHANGED_SHARE = 4
"""One task in this many changes every second."""
KEY_GAP_S = 0.2


class ChurnSource(RecordedSource):
    """Watches `count` tasks (created over the last ten minutes) and changes a quarter of them
    every second, until cancelled."""

    def __init__(self, info: SessionInfo, count: int) -> None:
        super().__init__(info)
        self.count = count
        now = time.time()
        self.tasks = [
            Task(
                task_id=f"churn-{index:05d}",
                wire="extension",
                status="working",
                status_message="step 0",
                created_at=datetime.fromtimestamp(now - 600 * index / count, tz=UTC),
                ttl_ms=900_000,
                tool_name="bench_churn",
            )
            for index in range(count)
        ]

    async def run(self) -> None:
        assert self._on_event is not None
        for task in self.tasks:
            self._on_event(TaskEvent("created", task.task_id, task, time.time(), "create"))
        beat = 0
        while True:
            await asyncio.sleep(1.0)
            beat += 1
            for index in range(beat % CHANGED_SHARE, self.count, CHANGED_SHARE):
                self._on_event(self._change(index, beat))

    def _change(self, index: int, beat: int) -> TaskEvent:
        """A message change, a status flip every fifth beat, a failed poll every seventh."""
        task = self.tasks[index]
        kind: EventKind = "changed"
        if (beat + index) % 7 == 0:
            return TaskEvent("error", task.task_id, task, time.time(), "poll", detail="timeout")
        update: dict[str, Any] = {"status_message": f"step {beat}"}
        if (beat + index) % 5 == 0:
            kind = "transition"
            update["status"] = "input_required" if task.status == "working" else "working"
        task = self.tasks[index] = task.model_copy(update=update)
        return TaskEvent(kind, task.task_id, task, time.time(), "poll")


async def _measure(
    pilot: Pilot[Any], meter: FrameMeter, seconds: float
) -> tuple[float, float, list[float]]:
    """CPU seconds per second and repaints per second while watching, then key latencies."""
    cpu_start, wall_start = cpu_seconds(), time.perf_counter()
    await asyncio.sleep(seconds)
    wall_end = time.perf_counter()
    elapsed = wall_end - wall_start
    cpu = (cpu_seconds() - cpu_start) / elapsed
    repaints = meter.repaints_between(wall_start, wall_end) / elapsed
    latencies: list[float] = []
    end = time.perf_counter() + seconds / 2
    while time.perf_counter() < end:
        await asyncio.sleep(KEY_GAP_S)
        latencies.append(await key_latency(pilot, meter))
    return cpu, repaints, latencies


async def _show(pilot: Pilot[Any], app: TaskscopeApp, time_view: bool) -> None:
    """Switch the main area to the time view (or back to the list) and let it settle."""
    if isinstance(app.shown_list, TimeView) != time_view:
        await pilot.press("t")
    await asyncio.sleep(1.0)


async def measure(count: int, rounds: int, seconds: float) -> dict[str, Any]:
    """Alternate list and time view rounds on `count` churning tasks; the figures."""
    source = ChurnSource(INFO, count)
    app = TaskscopeApp(source, config=TuiConfig(toasts=False, bell=False), remember_tasks=False)
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        deadline = time.monotonic() + 60 + count / 20
        while app.table.row_count < count:
            if time.monotonic() > deadline:
                raise TimeoutError("the rows never all showed")
            await asyncio.sleep(0.05)
        await _show(pilot, app, True)
        view = app.shown_list
        assert isinstance(view, TimeView)
        meters = {"list": FrameMeter(app), "time": FrameMeter(app, view)}
        cpu_ratios: list[float] = []
        keys: dict[str, list[float]] = {"list": [], "time": []}
        repaints: dict[str, list[float]] = {"list": [], "time": []}
        for _ in range(rounds):
            cpu: dict[str, float] = {}
            for mode in ("list", "time"):
                await _show(pilot, app, mode == "time")
                cpu[mode], shown, latencies = await _measure(pilot, meters[mode], seconds)
                repaints[mode].append(shown)
                keys[mode].extend(latencies)
            cpu_ratios.append(cpu["time"] / cpu["list"])
        list_p95 = percentile(keys["list"], 0.95)
        time_p95 = percentile(keys["time"], 0.95)
        return {
            "cpu_ratio": statistics.median(cpu_ratios),
            "key_p95_ratio": time_p95 / list_p95 if list_p95 else 0.0,
            "list_key_p95_ms": list_p95 * 1000,
            "time_key_p95_ms": time_p95 * 1000,
            "time_repaints_per_s": statistics.median(repaints["time"]),
            "list_repaints_per_s": statistics.median(repaints["list"]),
            "presses": len(keys["time"]),
        }


def run(quick: bool) -> Report:
    """1,000 tasks (100 when quick): the ratios and the time view's repaint rate."""
    report = Report("time_view")
    count, rounds, seconds = (100, 1, 2.0) if quick else (1000, 4, 6.0)
    figures = asyncio.run(measure(count, rounds, seconds))
    label = f"{count} tasks"
    report.add(
        Figure(
            f"{label}: CPU s per s, time view ÷ list",
            figures["cpu_ratio"],
            "x",
            CPU_RATIO_TARGET,
            note=f"median of {rounds} rounds x {seconds:g} s",
        )
    )
    report.add(
        Figure(
            f"{label}: key-to-screen p95, time view ÷ list",
            figures["key_p95_ratio"],
            "x",
            KEY_P95_RATIO_TARGET,
            note=(
                f"{figures['time_key_p95_ms']:.0f} ms vs {figures['list_key_p95_ms']:.0f} ms, "
                f"{figures['presses']} presses each"
            ),
        )
    )
    report.add(
        Figure(
            f"{label}: time view repaints per s",
            figures["time_repaints_per_s"],
            "",
            REPAINT_TARGET,
            note=f"list {figures['list_repaints_per_s']:.2f}",
        )
    )
    return report
