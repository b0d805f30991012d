"""The measured process of the scale and memory benchmarks: the real `TaskscopeApp` on a live
source, driven through Pilot, watching N `bench_churn` tasks. Run by `bench.scale`/`bench.memory`:

    python -m bench.scale_child --url URL | --stdio-wire WIRE  --tasks N --seconds S --out FILE
    python -m bench.scale_child --servers 10 --tasks N --seconds S --out FILE

With `--servers K` the App watches K stdio demo servers at once (legacy and extension in turn,
behind the `MultiSource` of `taskscope --config`), N/K tasks each. With `--idle-servers` the stdio
servers run at idle CPU priority (`bench.idle_priority`), so they never take a core from the App.

It creates the tasks through the source (as the `n` key would, minus a toast per task), waits until
every row is shown, settles, then measures for S seconds: CPU seconds of this process, RSS, table
repaints, key-press-to-screen latency and poll pacing. Figures go to FILE as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.engine.record.recorder import Recorder, redactor_for
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import HttpTarget, StdioTarget, Target
from app.engine.safety.redact import Redactor
from app.tui.app import TaskscopeApp
from app.tui.collector import settle_gc
from app.tui.config import TuiConfig
from app.tui.live import LiveSource
from app.tui.multi import MultiSource
from app.view.source import SourceUnavailable, TaskSource
from bench.app_probe import FrameMeter, key_latency
from bench.common import (
    REPO_ROOT,
    cpu_seconds,
    peak_rss_mib,
    percentile,
    proc_rss_mib,
    stdio_demo_command,
)
from bench.idle_priority import idle_command
from bench.pacing_probe import PacingProbe
from bench.servers import Wire, churn_arguments

CREATE_CONCURRENCY = 32
SCREEN_SIZE = (160, 48)
KEY_GAP_S = 0.2


class ProbingRecorder(Recorder):
    """The App's in-memory recorder (as `run_tui` makes it) that also shows each frame to the
    pacing probe; the recorder is how a source reports its frames."""

    def __init__(self, probe: Callable[[Frame], None], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._probe = probe

    def frame(self, frame: Frame) -> None:
        self._probe(frame)
        super().frame(frame)

    def probing(
        self, name: str, redactor: Redactor, probe: Callable[[Frame], None]
    ) -> ProbingRecorder:
        """This session's recorder for the server `name`, feeding its frames to `probe`."""
        child = self.for_server(name, redactor)
        assert isinstance(child, ProbingRecorder)
        child._probe = probe
        return child


async def _wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def _create_tasks(source: TaskSource, count: int, period_s: float, steps: int | None) -> None:
    gate = asyncio.Semaphore(CREATE_CONCURRENCY)

    async def create(index: int) -> None:
        arguments: dict[str, Any] = dict(churn_arguments(index, period_s))
        if steps is not None:
            arguments["steps"] = steps
        async with gate:
            await source.create("bench_churn", arguments, ttl_ms=None, as_task=True)

    await asyncio.gather(*(create(index) for index in range(count)))


async def scenario(targets: list[Target], options: argparse.Namespace) -> None:
    """Run the App on `targets` (several behind a `MultiSource`), load the tasks, measure, write
    the figures to `options.out`."""
    probe = PacingProbe()
    names = [f"server-{index}" for index in range(len(targets))] if len(targets) > 1 else []
    # one session journal, with a recorder per server when several, as `LiveLoader.load` does
    session_redactor = redactor_for(None if names else targets[0])
    session = ProbingRecorder(probe, session_redactor, None, face="tui", servers=names)
    recorders = (
        [
            session.probing(name, redactor_for(target), _renamed(probe, index))
            for index, (name, target) in enumerate(zip(names, targets, strict=True))
        ]
        if names
        else [session]
    )
    sources = [
        LiveSource(target, recorder=recorder)
        for target, recorder in zip(targets, recorders, strict=True)
    ]
    source: TaskSource = sources[0]
    if names:
        entries: list[tuple[str, LiveSource | str]] = list(zip(names, sources, strict=True))
        source = MultiSource(entries, label="bench", readonly=False)
    settle_gc()  # as `LiveLoader.load` does once the sources are built
    history = session.history
    app = TaskscopeApp(source, config=TuiConfig(), remember_tasks=False, history=history)
    share = options.tasks // len(sources)
    figures: dict[str, Any] = {"tasks": share * len(sources), "servers": len(sources)}
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        await _wait_until(lambda: _connected(app, source), 60, "the connections")
        started = time.perf_counter()
        await asyncio.gather(
            *(
                _create_tasks(_server(source, index), share, options.period, options.steps)
                for index in range(len(sources))
            )
        )
        await _wait_until(
            lambda: len(app.table.order) >= share * len(sources),
            120 + options.tasks / 20,
            "the rows",
        )
        figures["load_s"] = time.perf_counter() - started
        await asyncio.sleep(options.settle)
        meter = FrameMeter(app)
        probe.reset()
        gc.collect()
        figures.update(await _measure_load(app, probe, meter, options))
        if options.keys:
            figures.update(
                await _measure_keys(pilot, meter, options.seconds / 2, options.min_presses)
            )
        figures["watched"] = len(app.tasks)
        _write(options.out, figures)
        # Leave without the App's teardown: the figures are written, and a stdio server sees
        # its stdin close and exits on its own.
        os._exit(0)


def _renamed(probe: PacingProbe, index: int) -> Callable[[Frame], None]:
    """The probe fed one server's frames, its task ids kept apart from the other servers'
    (without a copy of each frame: the one-server run pays for none, so neither may this)."""
    server = str(index)
    return lambda frame: probe.observe(frame, server)


def _connected(app: TaskscopeApp, source: TaskSource) -> bool:
    if app.info is None:
        return False
    try:
        return all(source.server(name) for name in source.servers())
    except SourceUnavailable:
        return False


def _server(source: TaskSource, index: int) -> TaskSource:
    names = source.servers()
    return source.server(names[index])[0] if names else source


async def _measure_load(
    app: TaskscopeApp, probe: PacingProbe, meter: FrameMeter, options: argparse.Namespace
) -> dict[str, Any]:
    """Watch without touching anything: CPU, RSS over time, table repaints and pacing."""
    rss_samples: list[tuple[float, float]] = []
    cpu_start, wall_start = cpu_seconds(), time.perf_counter()
    end = wall_start + options.seconds
    while (now := time.perf_counter()) < end:
        rss_samples.append((now - wall_start, proc_rss_mib()))
        await asyncio.sleep(min(options.sample_every, end - now))
    wall_end = time.perf_counter()
    elapsed = wall_end - wall_start
    cpu = cpu_seconds() - cpu_start
    rss_samples.append((elapsed, proc_rss_mib()))
    return {
        "seconds": elapsed,
        "cpu_per_s": cpu / elapsed,
        "peak_rss_mib": peak_rss_mib(),
        "rss_mib": proc_rss_mib(),
        "rss_samples": rss_samples,
        "repaints_per_s": meter.repaints_between(wall_start, wall_end) / elapsed,
        "polls": probe.polls,
        "polls_per_s": probe.polls / elapsed,
        "pacing_p50": probe.p(0.5),
        "pacing_p99": probe.p(0.99),
        "early_polls": probe.early,
    }


async def _measure_keys(
    pilot: Pilot[Any], meter: FrameMeter, seconds: float, min_presses: int
) -> dict[str, Any]:
    """Press keys for `seconds`, and at least `min_presses` times (one every `KEY_GAP_S`), while
    the load goes on: latency. (Each press ends within `key_latency`'s timeout, so the loop
    ends too.)"""
    latencies: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(latencies) < min_presses:
        await asyncio.sleep(KEY_GAP_S)
        latencies.append(await key_latency(pilot, meter))
    return {
        "key_p50_ms": percentile(latencies, 0.5) * 1000,
        "key_p95_ms": percentile(latencies, 0.95) * 1000,
        "key_presses": len(latencies),
    }


def _write(path: str, figures: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(figures), encoding="utf-8")


def _parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_child")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running demo server (Streamable HTTP)")
    where.add_argument("--stdio-wire", choices=["legacy", "extension"])
    where.add_argument("--servers", type=int, help="this many stdio servers, both wires in turn")
    parser.add_argument("--poll-interval-ms", type=int, default=1000, help="stdio server hint")
    parser.add_argument(
        "--idle-servers", action="store_true", help="run stdio servers at idle CPU priority"
    )
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--period", type=float, default=4.0, help="bench_churn period (s)")
    parser.add_argument("--steps", type=int, default=None, help="bench_churn steps (forever)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--no-keys", dest="keys", action="store_false")
    parser.add_argument(
        "--min-presses", type=int, default=0, help="press at least this often (a steadier p95)"
    )
    parser.add_argument("--sample-every", type=float, default=5.0, help="RSS sample period (s)")
    parser.add_argument("--out", required=True)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Parse the options, run the scenario, write the figures."""
    options = _parse(argv)
    targets: list[Target]
    if options.url:
        targets = [HttpTarget(url=options.url)]
    elif options.servers:
        wires: tuple[Wire, Wire] = ("legacy", "extension")
        targets = [_stdio(wires[index % 2], options) for index in range(options.servers)]
    else:
        targets = [_stdio(options.stdio_wire, options)]
    asyncio.run(scenario(targets, options))


def _stdio(wire: Wire, options: argparse.Namespace) -> Target:
    command = stdio_demo_command(
        wire, "--bench", "--poll-interval-ms", str(options.poll_interval_ms)
    )
    if options.idle_servers:
        command = idle_command(command)
    return StdioTarget(command=command, cwd=str(REPO_ROOT))


if __name__ == "__main__":
    main()
