"""Benchmark 2 — scale: N tasks watched at once, a quarter changing state every second.

Each run is a separate process (`bench.scale_child`) holding the real App, so its CPU and RSS are
the App's alone; the demo server runs in its own process (HTTP) or as the App's child (stdio),
never counted. Targets at 1,000 tasks: ≤ 0.6 CPU seconds per second, ≤ 300 MB RSS, ≤ 4 table
repaints per second, key-press-to-screen p95 ≤ 100 ms; 100 and 10,000 tasks show the growth.
The same 1,000 tasks spread over 10 stdio servers (100 each, both wires) must meet the same
targets, and its key-press latency (p50 and p95) must stay within 1.5x of one legacy stdio
server's with 1,000 tasks in the same run; those two runs press at least `COMPARED_PRESSES`
times, so their p95 is not the third-slowest of a few dozen. The pair then runs again with the
servers at idle CPU priority (`bench.idle_priority`), reported beside it: on two cores the ten
servers, each woken by a request, are run ahead of the App, and that wait is the machine's, not
the App's work. Pacing under this load is reported here too (benchmark 3's figures).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, Figure, Report, start_http_demo
from bench.idle_priority import POLICY
from bench.servers import TransportName, Wire

CPU_TARGET = 0.6
RSS_TARGET_MB = 300.0
REPAINT_TARGET = 4.0
KEY_P95_TARGET_MS = 100.0
PACING_P99_TARGET = 1.1
SEVERAL_KEY_RATIO_TARGET = 1.5
COMPARED_PRESSES = 150
"""Key presses, at least, of the two runs whose latencies are compared (about 90 s of pressing
each, at the 1.7 presses a second a loaded App allows)."""
CHILD_TIMEOUT_S = 1800


def run_child(
    wire: Wire,
    transport: TransportName,
    tasks: int,
    seconds: float,
    *extra: str,
    poll_interval_ms: int = 1000,
    servers: int = 0,
) -> dict[str, Any]:
    """Run `bench.scale_child` against a fresh `--bench` demo server (or `servers` stdio ones
    of both wires); its figures."""
    server_args = ("--bench", "--poll-interval-ms", str(poll_interval_ms))
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "figures.json"
        child = [
            sys.executable,
            "-m",
            "bench.scale_child",
            "--tasks",
            str(tasks),
            "--seconds",
            str(seconds),
            "--out",
            str(out),
            *extra,
        ]
        if servers:
            subprocess.run(
                [*child, "--servers", str(servers), "--poll-interval-ms", str(poll_interval_ms)],
                cwd=REPO_ROOT,
                check=True,
                timeout=CHILD_TIMEOUT_S,
            )
        elif transport == "http":
            with start_http_demo(wire, *server_args) as (url, _process):
                subprocess.run(
                    [*child, "--url", url], cwd=REPO_ROOT, check=True, timeout=CHILD_TIMEOUT_S
                )
        else:
            subprocess.run(
                [*child, "--stdio-wire", wire, "--poll-interval-ms", str(poll_interval_ms)],
                cwd=REPO_ROOT,
                check=True,
                timeout=CHILD_TIMEOUT_S,
            )
        figures: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return figures


def add_figures(report: Report, label: str, figures: dict[str, Any], *, targets: bool) -> None:
    """The scale figures of one run (with targets only for the 1,000-task runs)."""

    def target(value: float) -> float | None:
        return value if targets else None

    report.add(Figure(f"{label}: CPU s per wall s", figures["cpu_per_s"], "", target(CPU_TARGET)))
    report.add(Figure(f"{label}: peak RSS", figures["peak_rss_mib"], " MiB", target(RSS_TARGET_MB)))
    report.add(
        Figure(f"{label}: table repaints per s", figures["repaints_per_s"], "", REPAINT_TARGET)
    )
    if "key_p95_ms" in figures:
        report.add(Figure(f"{label}: key-to-screen p50", figures["key_p50_ms"], " ms"))
        report.add(
            Figure(
                f"{label}: key-to-screen p95",
                figures["key_p95_ms"],
                " ms",
                target(KEY_P95_TARGET_MS),
                note=f"{figures['key_presses']} presses",
            )
        )
    report.add(
        Figure(
            f"{label}: pacing p99 (measured ÷ intended)",
            figures["pacing_p99"],
            "",
            target(PACING_P99_TARGET),
            note=f"p50 {figures['pacing_p50']:.3f}, {figures['polls']} polls",
        )
    )
    report.add(Figure(f"{label}: early polls", figures["early_polls"], "", 0))
    report.add(Figure(f"{label}: polls per s", figures["polls_per_s"], ""))


RUNS_FULL: tuple[tuple[Wire, TransportName, int, bool], ...] = (
    ("extension", "http", 1000, True),
    ("legacy", "stdio", 1000, True),
    ("extension", "http", 100, False),
    ("legacy", "stdio", 100, False),
    ("extension", "http", 10_000, False),
    ("legacy", "stdio", 10_000, False),
)
RUNS_QUICK: tuple[tuple[Wire, TransportName, int, bool], ...] = (
    ("extension", "http", 20, False),
    ("legacy", "stdio", 20, False),
)
SEVERAL_SERVERS = 10
"""The servers of the several-servers run: as many tasks as the largest targeted run, shared."""


def run(quick: bool, sizes: tuple[int, ...] | None = None) -> Report:
    """Each configuration in turn; `sizes` limits the task counts (e.g. the smoke test's)."""
    report = Report("scale")
    runs = RUNS_QUICK if quick else RUNS_FULL
    seconds = 3.0 if quick else 20.0
    extra = ("--settle", "1") if quick else ()
    tasks = 20 if quick else 1000
    compared = () if quick else ("--min-presses", str(COMPARED_PRESSES))
    for wire, transport, count, targets in runs:
        if sizes is not None and count not in sizes:
            continue
        is_compared = (wire, transport, count) == ("legacy", "stdio", tasks)
        figures = run_child(
            wire, transport, count, seconds, *extra, *(compared if is_compared else ())
        )
        add_figures(report, f"{count} tasks, {wire}/{transport}", figures, targets=targets)
        if is_compared:  # the ten servers right after, so both see the same machine
            several = run_child(
                "legacy", "stdio", tasks, seconds, *extra, *compared, servers=SEVERAL_SERVERS
            )
            label = f"{tasks} tasks on {SEVERAL_SERVERS} servers, both wires/stdio"
            add_figures(report, label, several, targets=not quick)
            add_several_ratios(report, several, figures, "", targets=not quick)
            idle = (*extra, *compared, "--idle-servers")
            one_idle = run_child("legacy", "stdio", tasks, seconds, *idle)
            several_idle = run_child(
                "legacy", "stdio", tasks, seconds, *idle, servers=SEVERAL_SERVERS
            )
            add_several_ratios(
                report, several_idle, one_idle, f", servers at {POLICY}", targets=False
            )
    return report


def add_several_ratios(
    report: Report, several: dict[str, Any], one: dict[str, Any], how: str, *, targets: bool
) -> None:
    """Key-press latency on ten servers ÷ on one legacy stdio server, same task count and run;
    `how` names how the servers ran."""
    for quantile in ("p50", "p95"):
        key = f"key_{quantile}_ms"
        if key not in several or key not in one:
            continue
        report.add(
            Figure(
                f"{SEVERAL_SERVERS} servers ÷ 1 server{how}: key-to-screen {quantile}",
                several[key] / one[key],
                "x",
                SEVERAL_KEY_RATIO_TARGET if targets else None,
                note=f"{several[key]:.1f} vs {one[key]:.1f} ms, "
                f"{several['key_presses']} and {one['key_presses']} presses",
            )
        )
