"""A FastMCP 2.14 server (2025-11-25 tasks through docket), for the interop suite.

FastMCP 2.14 answers a task-augmented `tools/call` with a tool result carrying the task in
`_meta["modelcontextprotocol.io/task"]`, not with a CreateTaskResult. Runs in its own virtualenv
(fastmcp==2.14.7); stdio by default, `--http --port N` for Streamable HTTP at 127.0.0.1:N/mcp.
"""

from __future__ import annotations

import argparse
import asyncio

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

mcp = FastMCP("interop-fastmcp2")


@mcp.tool(task=True)
async def slow(seconds: float = 1.0) -> str:
    """Sleep for `seconds`, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}s"


@mcp.tool(task=True)
async def fail(msg: str = "boom") -> str:
    """Raise a tool error."""
    await asyncio.sleep(0.2)
    raise ToolError(msg)


@mcp.tool
def plain_echo(text: str) -> str:
    """No task support."""
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    if options.http:
        mcp.run(
            transport="http", host="127.0.0.1", port=options.port, path="/mcp", show_banner=False
        )
    else:
        mcp.run(transport="stdio", show_banner=False)
