"""Smoke test: every benchmark still runs in its quickest mode with tiny sizes.

No timing is asserted here (speed is asserted by `python -m bench`, never by tests); the test
only proves each benchmark produces its figures end to end against real demo servers.
"""

from __future__ import annotations

import pytest

from bench import memory, overhead, pacing, scale, startup, time_view
from bench.common import Report

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
