"""A stdio MCP server (plain Python, no SDK) whose lists page on and on, each page large.

`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list` and (declared)
`tasks/list` each answer `--pages` pages of about `--page-bytes` bytes, every page but the last
naming a next cursor; then the list ends, so the server stops by itself. Items are small and
many, as in a real catalogue. Anything else gets "method not found"; stdin closing ends it.
Run: python tests/support/servers/paging_stdio.py --pages 50 --page-bytes 4000000
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

ITEM_PADDING = 80
"""Characters of description per item: about 200 bytes an item with its other fields."""


def item(kind: str, page: int, index: int) -> dict[str, Any]:
    """One small entry of a list of `kind`, unique across pages."""
    name = f"{kind}-{page}-{index}"
    text = f"{name} " + "x" * ITEM_PADDING
    if kind == "tools":
        return {"name": name, "description": text, "inputSchema": {"type": "object"}}
    if kind == "resources":
        return {"uri": f"file:///data/{name}.txt", "name": name, "description": text}
    if kind == "resourceTemplates":
        return {"uriTemplate": f"file:///data/{name}/{{id}}", "name": name, "description": text}
    if kind == "tasks":
        return {"taskId": name, "status": "working", "statusMessage": text}
    return {"name": name, "description": text}


LISTS = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
    "tasks/list": "tasks",
}


def page(kind: str, number: int, pages: int, page_bytes: int) -> dict[str, Any]:
    """Page `number` (0-based) of `kind`: items until about `page_bytes` bytes."""
    per_item = len(json.dumps(item(kind, number, 0))) + 2
    items = [item(kind, number, index) for index in range(max(1, page_bytes // per_item))]
    result: dict[str, Any] = {kind: items}
    if number + 1 < pages:
        result["nextCursor"] = f"page-{number + 1}"
    return result


def answer(message: dict[str, Any], pages: int, page_bytes: int) -> dict[str, Any]:
    method = message.get("method")
    if method == "initialize":
        capabilities = {name: {} for name in ("tools", "resources", "prompts")}
        capabilities["tasks"] = {"list": {}}
        return {
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "serverInfo": {"name": "paging", "version": "1"},
            }
        }
    if method in LISTS:
        cursor = (message.get("params") or {}).get("cursor") or "page-0"
        number = int(cursor.removeprefix("page-"))
        return {"result": page(LISTS[method], number, pages, page_bytes)}
    return {"error": {"code": -32601, "message": f"method not found: {method}"}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--page-bytes", type=int, default=4_000_000)
    options = parser.parse_args()
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # a notification, or an answer to nothing we asked
        reply = {"jsonrpc": "2.0", "id": message["id"], **answer(message, **vars(options))}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
