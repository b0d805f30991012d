"""A dual-era stdio MCP server (plain Python, no SDK) whose tool asks the user a question, as the
Python SDK 2.x and FastMCP 4.2 do: on a 2026-07-28 connection it cannot ask, so `tools/call`
fails for want of a back-channel (`--fails-with rpc-error`: a -32600 error; `is-error`: an
`isError` result); on a 2025-11-25 connection the call succeeds. stdin closing ends it.
Run: python -m tests.support.servers.no_back_channel --fails-with rpc-error
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TOOL = "confirm_deploy"
NO_BACK_CHANNEL = "Elicitation is not available: this request has no back-channel to the client"
SERVER_INFO = {"name": "no-back-channel", "version": "1"}


class Server:
    """One connection's era (settled by which handshake arrived) and the answers it gives."""

    def __init__(self, fails_with: str) -> None:
        self.fails_with = fails_with
        self.era = MODERN

    def answer(self, method: Any) -> dict[str, Any]:
        if method == "server/discover":
            return {
                "result": {
                    "supportedVersions": [MODERN, LEGACY],
                    "capabilities": {"tools": {}},
                    "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
                }
            }
        if method == "initialize":
            self.era = LEGACY
            return {
                "result": {
                    "protocolVersion": LEGACY,
                    "capabilities": {"tools": {}},
                    "serverInfo": SERVER_INFO,
                }
            }
        if method == "tools/list":
            schema = {"type": "object"}
            return {"result": {"tools": [{"name": TOOL, "inputSchema": schema}]}}
        if method == "tools/call":
            return self.call()
        return {"error": {"code": -32601, "message": f"method not found: {method}"}}

    def call(self) -> dict[str, Any]:
        if self.era == LEGACY:
            return {"result": {"content": [{"type": "text", "text": "deployed"}]}}
        if self.fails_with == "is-error":
            text = f"Error executing tool {TOOL}: {NO_BACK_CHANNEL}"
            return {"result": {"content": [{"type": "text", "text": text}], "isError": True}}
        return {"error": {"code": -32600, "message": NO_BACK_CHANNEL}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fails-with", choices=["rpc-error", "is-error"], default="rpc-error")
    server = Server(parser.parse_args().fails_with)
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # a notification, or an answer to nothing we asked
        reply = {"jsonrpc": "2.0", "id": message["id"], **server.answer(message["method"])}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
