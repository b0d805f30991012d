"""Smoke test: the `check` benchmark (taskscope check beside the suite's tasks-* scenarios) runs
end to end and produces its figures. No timing is asserted (`python -m bench check` does that)."""

from __future__ import annotations

import pytest

from bench import check

pytestmark = [pytest.mark.conformance, pytest.mark.slow]


@pytest.mark.timeout(900)
def test_check_benchmark_runs_quick() -> None:
    report = check.run(quick=True)
    assert [figure.verdict in ("PASS", "MISS", "info") for figure in report.figures] == [True, True]
    ratio = report.figures[0]
    assert ratio.value == ratio.value and ratio.value > 0
