"""A deliberately awkward stdio MCP server for connection tests (plain Python, no SDK).

It never answers `server/discover` (like silent legacy servers), speaks `initialize`, and offers
`test/*` methods that print garbage, answer unknown ids, reply late, ask the client, or crash.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def reply(rpc_id: Any, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": rpc_id, "result": result})


def read_message() -> dict[str, Any] | None:
    line = sys.stdin.readline()
    if not line:
        return None
    return dict(json.loads(line))


def handle(message: dict[str, Any]) -> None:
    method, rpc_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if method == "initialize":
        reply(
            rpc_id,
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "9.9"},
            },
        )
    elif method == "test/echo":
        reply(rpc_id, {"params": params})
    elif method == "test/garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.write('{"not": "jsonrpc"}\n')
        send({"jsonrpc": "2.0", "id": 9999, "result": {}})
        reply(rpc_id, {"ok": True})
    elif method == "test/slow":
        time.sleep(float(params.get("delay", 1.0)))
        reply(rpc_id, {"slow": True})
    elif method == "test/ask":
        send({"jsonrpc": "2.0", "id": "srv-1", "method": params["method"], "params": {"q": 1}})
        answer = read_message()
        reply(rpc_id, {"answer": answer})
    elif method == "test/exit":
        sys.stderr.write("fatal: the hostile server gives up\n")
        sys.stderr.flush()
        sys.exit(3)
    # server/discover and everything else: silence.


def main() -> None:
    while (message := read_message()) is not None:
        handle(message)


if __name__ == "__main__":
    main()
