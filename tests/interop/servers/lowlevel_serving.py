"""How the Python SDK 1.x interop servers (`mcp1_tasks.py`, `mcp126_tasks.py`) serve a low-level
`Server`: stdio by default, `--http --port N` for Streamable HTTP at 127.0.0.1:N/mcp. Imported
from the script's own folder, inside the server's virtualenv (1.26 and 1.30 share this API)."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

import anyio
from mcp.server.lowlevel import Server


def serve(server: Server) -> None:
    """Serve `server` as the command line asks."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    if options.http:
        serve_http(server, options.port)
    else:
        serve_stdio(server)


def serve_http(server: Server, port: int) -> None:
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(app=server)

    class Endpoint:  # an ASGI app instance: Starlette routes it without a /mcp/ redirect
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        async with manager.run():
            yield

    routes = [Route("/mcp", endpoint=Endpoint(), methods=["GET", "POST", "DELETE"])]
    app = Starlette(routes=routes, lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def serve_stdio(server: Server) -> None:
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
