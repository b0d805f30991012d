"""Settings shared by both demo servers (`taskscope demo-server`, `python -m app.demo`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server
    from starlette.types import ASGIApp


@dataclass(frozen=True)
class DemoOptions:
    """How a demo server runs; the defaults make a pleasant interactive demo."""

    wire: Literal["legacy", "extension"] = "legacy"
    transport: Literal["stdio", "http"] = "stdio"
    host: str = "127.0.0.1"
    port: int = 8765
    speed: float = 1.0
    """Demo-time factor: 10 makes every job ten times faster (tests use it)."""
    poll_interval_ms: int = 1000
    """The `pollInterval` / `pollIntervalMs` hint put on every task."""
    ttl_ms: int = 600_000
    """Legacy: the TTL used when the client asks for none, and the maximum; extension: the TTL."""
    page_size: int = 5
    """Legacy `tasks/list` page size."""
    elicit_channel: Literal["result", "standalone", "call"] = "result"
    """Legacy: where questions are sent — the `tasks/result` stream (the spec's way), the standalone
    stream, or the `tools/call` stream before the task is created."""
    rate_limit_every: int = 0
    """HTTP: answer every Nth `tasks/get` with 429 and `Retry-After` (0 = never)."""
    retry_after_s: float = 1.0
    bench: bool = False
    """Also list the bench-only tools (`bench_churn`); for `python -m bench` only."""
    conformance: bool = False
    """Also list the MCP conformance suite's fixture tools (`app.demo.conformance_tools`)."""
    auth: bool = False
    """HTTP: require MCP authorization, with an authorization server of its own (auth_server.py)."""
    token_ttl_s: int = 3600
    """With `auth`: how long an access token lives (short ones exercise refresh)."""

    def http_app(self, server: Server[Any]) -> ASGIApp:
        """The SDK's Streamable HTTP app of `server`, behind authorization with `auth`."""
        if not self.auth:
            return server.streamable_http_app(host=self.host)
        from app.demo.auth_server import protected_app

        return protected_app(server, self.host, self.port, self.token_ttl_s)


def parse_demo_options(argv: Sequence[str] | None = None) -> DemoOptions:
    """Parse demo-server flags into `DemoOptions`."""
    parser = argparse.ArgumentParser(
        prog="taskscope demo-server", description="Run a built-in MCP Tasks demo server."
    )
    parser.add_argument("--wire", choices=["legacy", "extension"], default="legacy")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--poll-interval-ms", type=int, default=1000)
    parser.add_argument("--ttl-ms", type=int, default=600_000)
    parser.add_argument("--page-size", type=int, default=5)
    parser.add_argument(
        "--elicit-channel", choices=["result", "standalone", "call"], default="result"
    )
    parser.add_argument("--rate-limit-every", type=int, default=0)
    parser.add_argument("--retry-after", type=float, default=1.0, dest="retry_after_s")
    parser.add_argument(
        "--bench", action="store_true", help="also list the bench-only tools (benchmarks)"
    )
    parser.add_argument(
        "--conformance",
        action="store_true",
        help="also list the MCP conformance suite's fixture tools (greet, slow_compute, ...)",
    )
    parser.add_argument(
        "--auth",
        action="store_true",
        help="HTTP: require OAuth sign-in, with a built-in authorization server that approves it",
    )
    parser.add_argument(
        "--token-ttl",
        type=int,
        default=3600,
        dest="token_ttl_s",
        metavar="S",
        help="with --auth: access token lifetime in seconds",
    )
    options = DemoOptions(**vars(parser.parse_args(argv)))
    if options.auth and options.transport != "http":
        parser.error("--auth needs --transport http")
    return options
