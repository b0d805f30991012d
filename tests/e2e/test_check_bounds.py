"""`taskscope check` on a server it cannot connect to: the handshake is bounded by --timeout-ms,
and the run still ends in a check report (JSON, text and JUnit as asked), outcome incomplete with
the connection checks could-not-run and the reason, exit 3, never a CONNECTION_FAILED error or
a traceback. The subprocess timeouts below only guard against a hang; nothing asserts elapsed
time."""

from __future__ import annotations

import json
import shlex
import socket
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from tests.support.cli_helpers import run_cli

pytestmark = pytest.mark.slow

SILENT = shlex.join([sys.executable, "-c", "import time; time.sleep(600)"])
"""A stdio server that never answers (never reads) its handshake."""
GARBAGE = shlex.join(
    [
        sys.executable,
        "-c",
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    print('this is not JSON-RPC {', flush=True)\n",
    ]
)
"""A stdio server that answers every line of the handshake with garbage."""
HANG_GUARD_S = 90


def free_url() -> str:
    """A URL on 127.0.0.1 where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("server", [SILENT, GARBAGE], ids=["silent", "garbage"])
def test_a_server_that_never_completes_the_handshake_gives_an_incomplete_report(
    server: str, tmp_path: Path
) -> None:
    junit = tmp_path / "check.xml"
    run = run_cli(
        "check",
        "--command",
        server,
        "--format",
        "json",
        "--timeout-ms",
        "2000",
        "--junit",
        str(junit),
        timeout=HANG_GUARD_S,
    )
    assert "Traceback" not in run.stderr, run.stderr
    assert run.code == 3, (run.stdout, run.stderr)
    document = json.loads(run.stdout)
    assert document["outcome"] == "incomplete"
    found = {check["id"]: check for check in document["checks"]}
    resolvable = found["tasks-wire-resolvable"]
    assert resolvable["verdict"] == "could-not-run"
    assert "could not connect" in resolvable["reason"]
    assert {check["verdict"] for check in document["checks"]} == {"could-not-run"}
    assert "could not connect" in document["incompleteReason"]
    assert document["server"]["transport"] == "stdio"
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("errors") == str(len(document["checks"]))


def test_a_silent_handshake_names_the_timeout_it_waited() -> None:
    run = run_cli(
        "check",
        "--command",
        SILENT,
        "--format",
        "json",
        "--timeout-ms",
        "2000",
        timeout=HANG_GUARD_S,
    )
    assert run.code == 3, run.stderr
    reason = json.loads(run.stdout)["checks"][0]["reason"]
    assert "no answer" in reason and "--timeout-ms 2000" in reason, reason


def test_an_unreachable_url_gives_an_incomplete_text_report() -> None:
    url = free_url()
    run = run_cli(
        "check", "--url", url, "--format", "text", "--timeout-ms", "2000", timeout=HANG_GUARD_S
    )
    assert "Traceback" not in run.stderr, run.stderr
    assert run.code == 3, (run.stdout, run.stderr)
    assert "? could-not-run" in run.stdout and "tasks-wire-resolvable" in run.stdout
    assert "could not connect" in run.stdout
    assert "outcome: INCOMPLETE" in run.stdout
    assert '"CONNECTION_FAILED"' not in run.stderr


def test_an_unreachable_server_with_a_wire_lists_that_wires_checks() -> None:
    run = run_cli(
        "check",
        "--url",
        free_url(),
        "--wire",
        "extension",
        "--format",
        "json",
        "--timeout-ms",
        "2000",
        timeout=HANG_GUARD_S,
    )
    assert run.code == 3, run.stderr
    document = json.loads(run.stdout)
    assert document["wire"] == "extension"
    ids = {check["id"] for check in document["checks"]}
    assert "tasks-inline-result" in ids and "tasks-legacy-list" not in ids
