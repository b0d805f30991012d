"""A small MCP server built on the official SDK, for the connection tests.

Dual-era by default (answers `server/discover` and `initialize`); `--legacy-only` makes it a
2025-11-25-only server the way real legacy servers behave, so era negotiation has to fall back.
`--auth` (HTTP and SSE) puts it behind the SDK's own authorization middleware and routes, with
the demo's in-memory authorization server (which approves every sign-in) as the provider.
Run: python -m tests.support.servers.sdk_server --transport stdio|http|sse [--port N]
[--legacy-only] [--auth]
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import RequestParams
from pydantic import BaseModel

if TYPE_CHECKING:
    from app.demo.auth_server import DemoAuthProvider


class Name(BaseModel):
    name: str


def build_server(*, legacy_only: bool, auth: dict[str, Any] | None = None) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        "conn-test", version="0.1.0", instructions="connection test server", **(auth or {})
    )

    @server.tool(description="Echo the text back")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Ask the client for a name (legacy: elicitation/create on the call)")
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Please enter your name.", Name)
        if answer.action == "accept" and answer.data is not None:
            return f"Hello, {answer.data.name}!"
        return f"no name ({answer.action})"

    if legacy_only:

        async def discover_not_found(ctx: Any, params: RequestParams) -> dict[str, Any]:
            raise MCPError(-32601, "Method not found")

        server._lowlevel_server.add_request_handler(
            "server/discover", RequestParams, discover_not_found
        )
    return server


async def serve_legacy_stdio(server: MCPServer[Any]) -> None:
    lowlevel = server._lowlevel_server
    async with lowlevel.lifespan(lowlevel) as state, stdio_server() as (read, write):
        await serve_loop(
            lowlevel,
            read,
            write,
            lifespan_state=state,
            init_options=lowlevel.create_initialization_options(),
        )


def protection(
    port: int, transport: str, provider: DemoAuthProvider | None = None
) -> dict[str, Any]:
    """`MCPServer` arguments that require a token from `provider`, by default the demo's
    authorization server."""
    from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions

    from app.demo.auth_server import SCOPE, DemoAuthProvider

    base = f"http://127.0.0.1:{port}"
    provider = provider or DemoAuthProvider(token_ttl_s=3600)
    settings = AuthSettings(
        issuer_url=base,  # type: ignore[arg-type]
        resource_server_url=f"{base}/{'sse' if transport == 'sse' else 'mcp'}",  # type: ignore[arg-type]
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
        ),
        required_scopes=[SCOPE],
        validate_token_resource=True,
    )
    return {"auth": settings, "auth_server_provider": provider}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["stdio", "http", "sse"], default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--legacy-only", action="store_true")
    parser.add_argument("--auth", action="store_true")
    args = parser.parse_args()
    auth = protection(args.port, args.transport) if args.auth else None
    server = build_server(legacy_only=args.legacy_only, auth=auth)
    if args.transport == "stdio":
        if args.legacy_only:
            anyio.run(serve_legacy_stdio, server)
        else:
            server.run("stdio")
        return
    app = server.streamable_http_app() if args.transport == "http" else server.sse_app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
