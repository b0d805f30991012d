"""A stdio MCP server that will not go quietly (plain Python, no SDK).

It ignores SIGTERM and the end of stdin, and forks a child that ignores SIGTERM too (the ignored
disposition survives exec), so only SIGKILL sent to the whole process group ends both. It speaks
`initialize` and `test/pids`, which answers with its own pid and the child's; the child sleeps at
most `CHILD_SECONDS`, so nothing outlives a failed test for long.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

CHILD_SECONDS = 120


def main() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen(
        [sys.executable, "-c", f"import time; time.sleep({CHILD_SECONDS})"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    for line in sys.stdin:
        message = json.loads(line)
        result: dict[str, Any]
        if message.get("method") == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "stubborn", "version": "1"},
            }
        elif message.get("method") == "test/pids":
            result = {"server": os.getpid(), "child": child.pid}
        else:
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}))
        sys.stdout.write("\n")
        sys.stdout.flush()
    time.sleep(CHILD_SECONDS)  # stdin ended: linger, as some servers do


if __name__ == "__main__":
    main()
