"""`taskscope check` and the official suite judge the same server alike.

Against the extension demo with the suite's fixtures (clean), and behind the violating relay
(tests/support/servers/violating.py) in modes that each break one rule the suite checks, the
suite's `tasks-*` scenarios and `taskscope check` run on the same server; on every check id they
share (the same id, or one our check names in `sameAs`), their verdicts agree: SUCCESS is pass,
FAILURE is fail. The one deliberate difference is `tasks-cancel-terminal-idempotent-ack`, where
the spec is silent: the suite fails a -32602, taskscope warns (SHOULD).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.harness import read_runs, run_bounded
from tests.conformance.test_server_suite import SCENARIO_TIMEOUT_S, TASKS_SCENARIOS
from tests.support.cli_helpers import run_cli
from tests.support.demo_servers import violating_relay

pytestmark = [pytest.mark.conformance, pytest.mark.slow]

SUITE_TO_OURS = {"SUCCESS": "pass", "FAILURE": "fail"}
"""The suite statuses that decide; WARNING, INFO and SKIPPED are not compared."""
SHOULD_HERE = {"tasks-cancel-terminal-idempotent-ack": {"FAILURE": "warn"}}
"""Where taskscope's level is SHOULD (the spec is silent) and the suite's FAILURE is a warning."""
BROKEN = [
    ("legacy-field-names", "tasks-wire-fields"),
    ("related-meta-inline", "tasks-wire-fields"),
    ("request-state-get", "tasks-request-state-removal"),
    ("cancel-ack-task", "tasks-lifecycle"),
    ("content-empty", "tasks-lifecycle"),
    ("tool-error-failed", "tasks-lifecycle"),
    ("removed-verbs-exist", "tasks-dispatch-and-envelope"),
    ("undeclared-accepted", "tasks-capability-negotiation"),
    ("partial-moves-on", "tasks-mrtr-input"),
    ("mcp-name-ignored", "tasks-request-headers"),
    ("required-runs-plainly", "tasks-required-task-error"),
    ("mixed-era", "tasks-capability-negotiation"),
]
"""A relay mode, and the suite scenario that judges the rule it breaks."""


def suite_statuses(
    cli: list[str], url: str, scenarios: tuple[str, ...], out: Path
) -> dict[str, str]:
    """Every check id the suite's `scenarios` emitted, with its status."""
    statuses: dict[str, str] = {}
    for scenario in scenarios:
        run_bounded(
            [*cli, "server", "--url", url, "--scenario", scenario, "-o", str(out)],
            SCENARIO_TIMEOUT_S,
        )
    for run in read_runs(out).values():
        for check in run.checks:
            statuses[str(check.get("id"))] = str(check.get("status"))
    return statuses


def our_verdicts(url: str) -> dict[str, str]:
    """`taskscope check`'s verdict by every id it answers to (its own and its `sameAs`)."""
    run = run_cli("check", "--url", url, "--format", "json", "--timeout-ms", "15000", timeout=300)
    assert "Traceback" not in run.stderr, run.stderr
    document: dict[str, Any] = json.loads(run.stdout)
    verdicts: dict[str, str] = {}
    for check in document["checks"]:
        for check_id in (check["id"], *check.get("sameAs", ())):
            verdicts[check_id] = check["verdict"]
    return verdicts


def disagreements(suite: dict[str, str], ours: dict[str, str]) -> dict[str, tuple[str, str]]:
    """The shared ids where the verdicts differ: id → (suite status, our verdict)."""
    found = {}
    for check_id, status in suite.items():
        expected = SHOULD_HERE.get(check_id, {}).get(status) or SUITE_TO_OURS.get(status)
        if check_id in ours and expected is not None and ours[check_id] != expected:
            found[check_id] = (status, ours[check_id])
    return found


def shared(suite: dict[str, str], ours: dict[str, str]) -> set[str]:
    return {check_id for check_id, status in suite.items() if status in SUITE_TO_OURS} & set(ours)


@pytest.mark.timeout(SCENARIO_TIMEOUT_S * len(TASKS_SCENARIOS) + 300)
def test_clean_demo_same_verdicts(conformance_cli: list[str], tmp_path: Path) -> None:
    with violating_relay("none") as url:
        suite = suite_statuses(conformance_cli, url, TASKS_SCENARIOS, tmp_path / "out")
        ours = our_verdicts(url)
    assert len(shared(suite, ours)) >= 25, (suite, ours)
    assert disagreements(suite, ours) == {}


@pytest.mark.timeout(SCENARIO_TIMEOUT_S + 300)
@pytest.mark.parametrize(("mode", "scenario"), BROKEN)
def test_broken_demo_same_verdicts(
    conformance_cli: list[str], mode: str, scenario: str, tmp_path: Path
) -> None:
    with violating_relay(mode) as url:
        suite = suite_statuses(conformance_cli, url, (scenario,), tmp_path / "out")
        ours = our_verdicts(url)
    assert "FAILURE" in suite.values(), suite
    assert disagreements(suite, ours) == {}
    failed_both = {check_id for check_id in shared(suite, ours) if suite[check_id] == "FAILURE"}
    assert failed_both, (mode, suite)
