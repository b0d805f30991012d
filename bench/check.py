"""`taskscope check` beside the official conformance suite's ten `tasks-*` server scenarios, on the
same extension demo (with the suite's fixtures, over HTTP), in the same run: wall time of each
(median of the rounds), and the ratio check ÷ suite.

The two do not do the same work: the suite polls every 200 ms whatever the server asks, and
taskscope never polls sooner than the server's `pollIntervalMs`; the note beside the ratio says
how many requests each sent.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import REPO_ROOT, Figure, Report, start_http_demo
from tests.conformance.harness import conformance_command, read_runs, run_bounded
from tests.conformance.test_server_suite import SCENARIO_TIMEOUT_S, TASKS_SCENARIOS

TARGET_RATIO = 1.0
"""Aim to be no slower than the suite on the same server."""


def suite_once(url: str) -> tuple[float, int]:
    """Seconds for the ten scenarios, and how many checks they reported."""
    cli = conformance_command()
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        for scenario in TASKS_SCENARIOS:
            run_bounded(
                [*cli, "server", "--url", url, "--scenario", scenario, "-o", out],
                SCENARIO_TIMEOUT_S,
            )
        elapsed = time.perf_counter() - started
        checks = sum(len(run.checks) for run in read_runs(Path(out)).values())
    return elapsed, checks


def check_once(url: str) -> tuple[float, int, int]:
    """Seconds for `taskscope check`, its checks, and the requests it sent."""
    with tempfile.NamedTemporaryFile(suffix=".ndjson") as trace:
        started = time.perf_counter()
        done = subprocess.run(
            [
                *(sys.executable, "-m", "app.cli.main", "check", "--url", url),
                *("--format", "json", "--trace-frames", trace.name),
            ],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        elapsed = time.perf_counter() - started
        frames = [json.loads(line) for line in Path(trace.name).read_text().splitlines() if line]
    sent = sum(1 for frame in frames if frame.get("direction") == "out")
    checks = len(json.loads(done.stdout)["checks"]) if done.stdout.strip() else 0
    return elapsed, checks, sent


def run(quick: bool) -> Report:
    """Alternate the two on one server, `rounds` times each; medians."""
    report = Report("check")
    rounds = 1 if quick else 3
    suite_times: list[float] = []
    check_times: list[float] = []
    suite_checks = check_checks = sent = 0
    with start_http_demo("extension", "--conformance") as (url, _process):
        for _ in range(rounds):
            seconds, suite_checks = suite_once(url)
            suite_times.append(seconds)
            seconds, check_checks, sent = check_once(url)
            check_times.append(seconds)
    suite, check = statistics.median(suite_times), statistics.median(check_times)
    report.add(
        Figure(
            "check ÷ the suite's tasks-* scenarios, extension demo over HTTP",
            check / suite,
            "x",
            TARGET_RATIO,
            note=f"{check:.1f} s vs {suite:.1f} s; {check_checks} vs {suite_checks} checks",
        )
    )
    report.add(Figure("requests sent by check", sent, "", note="never sooner than pollIntervalMs"))
    return report
