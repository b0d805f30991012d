"""Benchmark 5 — memory over time: 200 tasks cycling through states for a long run; RSS of the
App process must stay flat (per-task timelines, the RPC log and the session history are capped).

Timings are compressed: a 250 ms poll hint and a 1 s churn period make every task change four
times faster than at the scale benchmark's pace, so the 200-entry timelines fill in under a
minute. RSS is sampled every few seconds; the figure is the growth from the end of the first
third of the run (caches warm, timelines full) to the end, which should be about zero.
"""

from __future__ import annotations

from bench.common import Figure, Report
from bench.scale import run_child

GROWTH_TARGET_MIB = 5.0
TASKS = 200


def run(quick: bool) -> Report:
    """One long (or, quick, very short) run of the App; RSS growth after warm-up."""
    report = Report("memory")
    tasks, seconds = (20, 6.0) if quick else (TASKS, 600.0)
    figures = run_child(
        "extension",
        "http",
        tasks,
        seconds,
        "--period",
        "1",
        "--no-keys",
        "--sample-every",
        "2" if quick else "10",
        "--settle",
        "1",
        poll_interval_ms=250,
    )
    samples: list[tuple[float, float]] = [tuple(pair) for pair in figures["rss_samples"]]
    warm = [rss for at, rss in samples if at >= seconds / 3]
    start = warm[0] if warm else samples[0][1]
    growth = samples[-1][1] - start
    report.add(
        Figure(
            f"{tasks} tasks, {seconds:.0f} s: RSS growth after the first third",
            growth,
            " MiB",
            GROWTH_TARGET_MIB,
            note=f"{start:.0f} → {samples[-1][1]:.0f} MiB, peak {figures['peak_rss_mib']:.0f} MiB",
        )
    )
    report.add(Figure(f"{tasks} tasks: CPU s per wall s", figures["cpu_per_s"], ""))
    return report
