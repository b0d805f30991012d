"""A FastMCP 4 server with `fastmcp-tasks` (SEP-2663 extension wire), for the interop suite.

Runs in its own virtualenv (fastmcp==4.1.4, fastmcp-tasks==4.1.4), never in taskscope's.
stdio by default; `--http --port N` serves Streamable HTTP at 127.0.0.1:N/mcp.
"""

from __future__ import annotations

import argparse
import asyncio

import mcp_types as t
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp_tasks import TasksExtension

mcp = FastMCP("interop-fastmcp4")
mcp.add_extension(TasksExtension())


@mcp.tool(task=True)
async def slow(seconds: float = 1.0) -> str:
    """Sleep for `seconds`, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}s"


@mcp.tool(task=True)
async def ask_name(ctx: Context, greeting: str = "Hello") -> str | t.InputRequiredResult:
    """Ask for a name (form elicitation), then greet."""
    answer = (ctx.input_responses or {}).get("name")
    if answer is None:
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string", "title": "Name"}},
            "required": ["name"],
        }
        return t.InputRequiredResult(
            input_requests={
                "name": t.ElicitRequest(
                    params=t.ElicitRequestFormParams(
                        message="What is your name?", requested_schema=schema
                    )
                )
            }
        )
    data = answer if isinstance(answer, dict) else answer.model_dump(exclude_none=True)
    if data.get("action") != "accept":
        return f"{greeting}, stranger ({data.get('action')})"
    return f"{greeting}, {(data.get('content') or {}).get('name')}!"


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
        mcp.run(transport="http", host="127.0.0.1", port=options.port, path="/mcp")
    else:
        mcp.run(transport="stdio", show_banner=False)
