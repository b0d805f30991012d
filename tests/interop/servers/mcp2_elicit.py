"""A server on the Python SDK 2.x (`mcp==2.3.0`, MCPServer), for the interop suite: dual-era,
with a tool that asks its question through `ctx.elicit`. A 2026-07-28 connection gives the
server no back-channel, so there the question cannot be asked; a 2025-11-25 connection carries
it on the call.

Runs in its own virtualenv; stdio by default, `--http --port N` for Streamable HTTP at
127.0.0.1:N/mcp.
"""

from __future__ import annotations

import argparse

from mcp.server.mcpserver import AcceptedElicitation, Context, MCPServer
from pydantic import BaseModel

mcp = MCPServer("interop-mcp2")


class Confirmation(BaseModel):
    confirm: bool


@mcp.tool()
async def deploy(ctx: Context, service: str = "web") -> str:
    """Ask for a confirmation (ctx.elicit), then deploy."""
    answer = await ctx.elicit(f"Deploy '{service}' to production?", Confirmation)
    if isinstance(answer, AcceptedElicitation) and answer.data.confirm:
        return f"Deployed '{service}'"
    return f"Deployment of '{service}' cancelled ({answer.action})"


@mcp.tool()
def echo(text: str) -> str:
    """Asks nothing."""
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    if options.http:
        mcp.run("streamable-http", host="127.0.0.1", port=options.port, streamable_http_path="/mcp")
    else:
        mcp.run("stdio")
