"""Smoke test: every benchmark still runs in its quickest mode with tiny sizes.

No timing is asserted here (speed is asserted by `python -m bench`, never by tests); the test
only proves each benchmark produces its figures end to end against real demo servers.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bench import memory, overhead, pacing, scale, startup, time_view
from bench.common import REPO_ROOT, Report
from bench.idle_priority import idle_command

pytestmark = pytest.mark.slow


@pytest.mark.timeout(300)
def test_every_benchmark_runs_quick() -> None:
    reports: list[Report] = [
        overhead.run(quick=True),
        scale.run(quick=True, sizes=(20,)),
        pacing.run(quick=True),
        startup.run(quick=True),
        memory.run(quick=True),
        time_view.run(quick=True),
    ]
    for report in reports:
        assert report.figures, f"{report.benchmark} produced no figures"
        for figure in report.figures:
            assert figure.value == figure.value, f"{figure.name} is NaN"
            assert figure.verdict in ("PASS", "MISS", "info")


def test_idle_priority_runs_the_command_at_idle_priority() -> None:
    """The scale benchmark's idle servers really run under SCHED_IDLE (nice 19 elsewhere)."""
    probe = (
        "import os; print(os.sched_getscheduler(0) if hasattr(os, 'SCHED_IDLE') else os.nice(0))"
    )
    shown = subprocess.run(
        idle_command([sys.executable, "-c", probe]),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    expected = os.SCHED_IDLE if hasattr(os, "SCHED_IDLE") else 19
    assert shown == str(expected)
