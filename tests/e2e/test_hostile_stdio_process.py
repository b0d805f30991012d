"""The stdio server as a process: over-long lines, an exit that leaves a child, a stubborn server.

The CLI runs as a subprocess against the hostile server's `long-line` and `orphan` modes; a real
Connection closes a server that ignores both the end of stdin and SIGTERM. Every assertion is on
what was shown, kept or left running, never on elapsed time.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from app.demo.hostile_io import ORPHAN_EXIT_CODE
from app.demo.hostile_transport_modes import LONG_LINE_CHARS
from app.engine.rpc.connection import Connection
from app.engine.rpc.targets import StdioTarget
from app.engine.rpc.transports import stdio
from app.engine.safety.limits import MAX_LINE_BYTES
from tests.support.demo_servers import SUPPORT_SERVERS
from tests.support.hostile_cli import on_stdio, watch_job
from tests.support.processes import end, wait_gone

pytestmark = [
    pytest.mark.timeout(90),
    pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc"),
]

WIRES = ["legacy", "extension"]


@pytest.mark.parametrize("wire", WIRES)
def test_a_line_over_the_limit_fails_that_poll_at_once(wire: str, tmp_path: Path) -> None:
    """The second poll's answer is one line just over 64 MiB: that poll fails at once naming the
    limit, its frame keeps the line's beginning, and the next poll reads the stream in step."""
    assert LONG_LINE_CHARS > MAX_LINE_BYTES
    trace = tmp_path / "frames.ndjson"
    run = watch_job(on_stdio(wire, "long-line"), "--trace-frames", str(trace))
    assert run.code == 0, run.stderr[-2000:]
    assert run.document["outcome"] == "completed"
    (failed,) = run.lines("request failed:")
    assert "line longer than the stdio line limit (67,108,864 bytes, TASKSCOPE_MAX_LINE)" in failed
    assert "no answer" not in failed
    assert run.lines("→ completed")
    frames = [json.loads(text) for text in trace.read_text().splitlines()]
    (skipped,) = [f for f in frames if "stdio line limit" in (f["error"] or "")]
    assert skipped["direction"] == "in" and skipped["raw"].startswith('{"jsonrpc": "2.0"')
    assert len(skipped["raw"]) <= stdio.SKIPPED_HEAD_BYTES + 1


@pytest.mark.parametrize("wire", WIRES)
def test_a_server_that_exits_leaving_a_child_is_noticed_and_the_child_ended(wire: str) -> None:
    """The server exits at the second poll while its forked child keeps stdout open: the watch
    ends as unreachable with the exit code (no endless 30 s polls), and the child is ended."""
    run = watch_job(on_stdio(wire, "orphan"), "--reconnect-attempts", "0")
    found = re.search(r"orphan pid (\d+)", run.stderr)
    assert found is not None, run.stderr[-2000:]
    child = int(found.group(1))
    try:
        assert run.code == 1
        assert run.document["outcome"] == "unreachable"
        detail = run.document["detail"]
        assert f"server process exited with code {ORPHAN_EXIT_CODE}" in detail
        assert "still holds its stdout open" in detail
        assert run.document["task"]["statusMessage"] == "step 1"
        assert not run.lines("no answer")
        assert wait_gone(child)
    finally:
        end(child)


async def test_close_ends_a_server_that_ignores_stdin_and_sigterm_and_its_child() -> None:
    """Closing escalates to SIGKILL on the whole process group, each step bounded by its grace."""
    command = [sys.executable, str(SUPPORT_SERVERS / "stubborn_stdio.py")]
    connection = Connection(StdioTarget(command), era="legacy")
    await connection.open()
    pids = await connection.request("test/pids")
    try:
        await connection.close()
        assert connection.state == "closed"
        assert wait_gone(pids["server"]) and wait_gone(pids["child"])
    finally:
        end(pids["server"])
        end(pids["child"])
