"""The `tasks capabilities` floor: a bare httpx script that asks an extension-wire server's
`server/discover` once, prints its capabilities and exits.

    python -m bench.floor_httpx URL
"""

from __future__ import annotations

import json
import sys

import httpx

VERSION = "2026-07-28"


def main(url: str) -> None:
    """One `server/discover` POST; the capabilities on stdout."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": VERSION,
                "io.modelcontextprotocol/clientInfo": {"name": "floor", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": "server/discover",
    }
    response = httpx.post(url, json=body, headers=headers)
    print(json.dumps(response.json()["result"]["capabilities"]))


if __name__ == "__main__":
    main(sys.argv[1])
