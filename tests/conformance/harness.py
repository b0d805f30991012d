"""Running the MCP conformance suite (`@modelcontextprotocol/conformance`) from the tests.

The suite's CLI runs on the pinned Node of tests/support/node_tools.py with
tests/support/node/bind-localhost.cjs preloaded, so every mock server it starts listens on 127.0.0.1
only. Results are read from the `checks.json` files it writes under `-o DIR` (one folder per
scenario run).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.demo_servers import REPO_ROOT, stop_process
from tests.support.node_tools import node_command, package_bin

CONFORMANCE_PACKAGE = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
"""The one pin of the conformance suite (name@exact-version)."""

HERE = Path(__file__).resolve().parent
ADAPTER = HERE / "client_adapter.py"
EXPECTED_FAILURES = HERE / "expected-failures.yml"

FAILED = frozenset({"FAILURE", "WARNING"})
"""Statuses the suite counts as failed in a baseline (a WARNING fails a baseline too)."""
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_RUN_FOLDER = re.compile(r"^(?:server-)?(?P<name>.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$")


def conformance_command() -> list[str]:
    """`node --require bind-localhost.cjs <conformance CLI>`, installing Node and the suite."""
    name, _, version = CONFORMANCE_PACKAGE.rpartition("@")
    return node_command(package_bin(name, version))


@dataclass
class Completed:
    """What one bounded run printed and how it ended."""

    argv: list[str]
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False

    def summary(self, chars: int = 6000) -> str:
        """The suite's closing summary (from its last `=== … SUMMARY ===`), else the output's
        tail; colours removed."""
        stdout = _ANSI.sub("", self.stdout).strip()
        start = max(stdout.rfind("=== SUITE SUMMARY ==="), stdout.rfind("=== SUMMARY ==="))
        text = stdout[start:] if start >= 0 else stdout
        stderr = _ANSI.sub("", self.stderr).strip()
        if stderr:
            text += "\n--- stderr ---\n" + stderr[-1500:]
        return text if len(text) <= chars else "…" + text[-chars:]


def run_bounded(
    argv: Sequence[str],
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: Path = REPO_ROOT,
) -> Completed:
    """Run `argv` in its own process group for at most `timeout` seconds.

    Whatever happens, the process is stopped, and so is anything it left in its group (the
    clients the suite spawns), by that group's id.
    """
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    timed_out = False
    stdout = stderr = b""
    try:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _stop_group(process)
            stdout, stderr = process.communicate(timeout=30)
    finally:
        _stop_group(process)
    return Completed(
        list(argv),
        process.returncode,
        stdout.decode(errors="replace"),
        stderr.decode(errors="replace"),
        timed_out,
    )


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop `process`, then kill whatever is left in its process group (by the group's id)."""
    stop_process(process)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


@dataclass
class ScenarioRun:
    """One scenario's checks, as the suite wrote them."""

    name: str
    folder: Path
    checks: list[dict[str, Any]] = field(default_factory=list)

    def count(self, *statuses: str) -> int:
        return sum(1 for check in self.checks if check.get("status") in statuses)

    def failed(self) -> list[dict[str, Any]]:
        return [check for check in self.checks if check.get("status") in FAILED]

    def verdict(self) -> str:
        failed = self.failed()
        if failed:
            return "FAIL " + ", ".join(sorted({str(check.get("id")) for check in failed}))
        passed = self.count("SUCCESS")
        return f"pass ({passed} checks)" if passed else f"no check passed ({len(self.checks)} rows)"

    def client_log(self, chars: int = 3000) -> str:
        """The tail of what the client under test printed on stderr (client runs only)."""
        try:
            text = (self.folder / "stderr.txt").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        text = text.strip()
        return text if len(text) <= chars else "…" + text[-chars:]


def read_runs(out_dir: Path) -> dict[str, ScenarioRun]:
    """Every scenario run under `out_dir` (`auth/x` runs are in a sub-folder), by name."""
    runs: dict[str, ScenarioRun] = {}
    for checks_file in sorted(out_dir.rglob("checks.json")):
        folder = checks_file.parent
        match = _RUN_FOLDER.match(folder.name)
        if match is None:
            continue
        parent = folder.parent.relative_to(out_dir)
        name = str(parent / match["name"]) if parent.parts else match["name"]
        try:
            checks = json.loads(checks_file.read_text(encoding="utf-8"))
        except ValueError:
            checks = [{"id": "checks.json", "status": "FAILURE", "errorMessage": "unreadable"}]
        runs[name] = ScenarioRun(name, folder, checks if isinstance(checks, list) else [])
    return runs


def describe_check(check: Mapping[str, Any]) -> str:
    """One line about a check: status, id, name and the reason the suite gave."""
    reason = check.get("errorMessage") or check.get("description") or ""
    name = check.get("name")
    label = f"{check.get('id')}" + (f" ({name})" if name and name != check.get("id") else "")
    return f"{check.get('status')} {label}: {' '.join(str(reason).split())[:400]}"


def report(runs: Mapping[str, ScenarioRun], names: Sequence[str], with_logs: bool = True) -> str:
    """A readable account of the named scenarios: verdicts, failed checks and client logs."""
    lines = []
    for name in names:
        run = runs.get(name)
        if run is None:
            lines.append(f"{name}: no checks.json (the scenario did not run)")
            continue
        lines.append(f"{name}: {run.verdict()}")
        failed = run.failed()
        lines.extend(f"    {describe_check(check)}" for check in failed)
        if failed and with_logs:
            log = run.client_log()
            if log:
                lines.append("    client log:")
                lines.extend(f"      {line}" for line in log.splitlines())
    return "\n".join(lines)
