"""taskscope as the client under test of the official MCP conformance suite.

`conformance client --requirements REV` runs every client scenario of a requirement set in
parallel, each against its own mock server, with tests/conformance/client_adapter.py (which only
drives taskscope's headless CLI) as the client. No scored scenario may fail, the authorization
ones included (expected-failures.yml is empty); the run must exit 0, and the unscored
client-credentials scenarios must pass as well. On top of the suite's own verdict, each scored
non-auth scenario must have passed at least one check (a client that does nothing "passes"
`initialize` and `http-standard-headers`), and `http-standard-headers` must have exercised every
verb taskscope has.

`json-schema-2020-12-preservation` is run but not scored in both sets; it is run once more on
its own at each version, where any FAILURE or WARNING fails.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.conformance.harness import (
    ADAPTER,
    EXPECTED_FAILURES,
    describe_check,
    read_runs,
    report,
    run_bounded,
)

pytestmark = [pytest.mark.conformance, pytest.mark.slow]

SCORED_NON_AUTH = {
    "2025-11-25": ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"],
    "2026-07-28": [
        "tools_call",
        "request-metadata",
        "sep-2322-client-request-state",
        "http-standard-headers",
        "http-custom-headers",
        "http-invalid-tool-headers",
        "json-schema-ref-no-deref",
    ],
}
UNSCORED_REQUIRED = "json-schema-2020-12-preservation"
CLIENT_CREDENTIALS = ["auth/client-credentials-basic", "auth/client-credentials-jwt"]
"""Unscored extension scenarios of the 2026-07-28 run that must pass too (taskscope in CI)."""
STATELESS_UNUSED = ("_initialize", "_notifications_initialized")
"""http-standard-headers checks that stay SKIPPED on the stateless 2026-07-28 wire (no
initialize there); every other method of that scenario must have been exercised."""

SUITE_TIMEOUT_S = 300.0
SCENARIO_TIMEOUT_S = 120.0
CLIENT_TIMEOUT_S = 100.0
"""The suite's time for one scenario's client (its `--timeout`; 30 s by default). A requirement
set runs every scenario at once: 25 auth scenarios each start a taskscope that loads the OAuth
client, which on two cores took over 20 s of waiting for the CPU."""


def client_command() -> str:
    """The `--command` the suite runs through `sh -c` (the mock server's URL is appended to it);
    `exec`, so the suite's SIGTERM on a timeout reaches the adapter, not just the shell."""
    return f"exec {shlex.quote(sys.executable)} {shlex.quote(str(ADAPTER))}"


def client_env(tmp_path: Path) -> dict[str, str]:
    """This process's environment, with the adapter writing each step's frame trace and given
    the suite's client timeout (less a margin) for a scenario."""
    return {
        **os.environ,
        "TASKSCOPE_CONFORMANCE_TRACE_DIR": str(tmp_path / "traces"),
        "TASKSCOPE_CONFORMANCE_DEADLINE_S": str(CLIENT_TIMEOUT_S - 4),
    }


@pytest.mark.timeout(SUITE_TIMEOUT_S + 120)
@pytest.mark.parametrize("revision", sorted(SCORED_NON_AUTH))
def test_client_requirements(conformance_cli: list[str], revision: str, tmp_path: Path) -> None:
    out = tmp_path / "results"
    argv = [
        *conformance_cli,
        "client",
        "--command",
        client_command(),
        "--requirements",
        revision,
        "--timeout",
        str(int(CLIENT_TIMEOUT_S * 1000)),
        "--expected-failures",
        str(EXPECTED_FAILURES),
        "-o",
        str(out),
    ]
    run = run_bounded(argv, SUITE_TIMEOUT_S, client_env(tmp_path))
    runs = read_runs(out) if out.is_dir() else {}
    required = [*SCORED_NON_AUTH[revision], UNSCORED_REQUIRED]
    if revision == "2026-07-28":
        required += CLIENT_CREDENTIALS
    problems = []
    if run.timed_out:
        problems.append(f"the suite did not finish within {SUITE_TIMEOUT_S:.0f} s")
    elif run.returncode != 0:
        problems.append(f"the suite exited {run.returncode} (unexpected failures or stale entries)")
    for name in required:
        scenario = runs.get(name)
        if scenario is None or scenario.failed() or scenario.count("SUCCESS") == 0:
            problems.append(f"{name}: did not pass")
    standard = runs.get("http-standard-headers")
    if standard is not None:
        skipped = [
            check
            for check in standard.checks
            if check.get("status") == "SKIPPED"
            and not str(check.get("name", "")).endswith(STATELESS_UNUSED)
        ]
        problems.extend(f"http-standard-headers: {describe_check(check)}" for check in skipped)
    if problems:
        auth = sorted(name for name in runs if name.startswith("auth/"))
        pytest.fail(
            f"conformance client --requirements {revision}:\n  "
            + "\n  ".join(problems)
            + "\n\nper scenario:\n"
            + report(runs, required)
            + f"\n\n({len(auth)} auth scenarios ran)"
            + f"\n\nsuite output:\n{run.summary()}"
            + f"\n\nresults: {out}\nCLI traces: {tmp_path / 'traces'}",
            pytrace=False,
        )


@pytest.mark.timeout(SCENARIO_TIMEOUT_S + 60)
@pytest.mark.parametrize("revision", sorted(SCORED_NON_AUTH))
def test_schema_preservation(conformance_cli: list[str], revision: str, tmp_path: Path) -> None:
    out = tmp_path / "results"
    argv = [
        *conformance_cli,
        "client",
        "--command",
        client_command(),
        "--scenario",
        UNSCORED_REQUIRED,
        "--spec-version",
        revision,
        "--timeout",
        str(int(CLIENT_TIMEOUT_S * 1000)),
        "-o",
        str(out),
    ]
    run = run_bounded(argv, SCENARIO_TIMEOUT_S, client_env(tmp_path))
    runs = read_runs(out) if out.is_dir() else {}
    scenario = runs.get(UNSCORED_REQUIRED)
    passed = scenario is not None and not scenario.failed() and scenario.count("SUCCESS") > 0
    if run.returncode != 0 or not passed:
        pytest.fail(
            f"{UNSCORED_REQUIRED} at {revision}: exit {run.returncode}\n"
            + report(runs, [UNSCORED_REQUIRED])
            + f"\n\nsuite output:\n{run.summary()}",
            pytrace=False,
        )
