"""A hostile MCP tasks server for robustness tests: `python -m app.demo.hostile --mode MODE`.

It speaks a minimal tasks flow on either wire (`hostile_core`) and misbehaves in the ways the
chosen modes describe (`hostile_modes`): escape sequences, huge or deep payloads, broken UTF-8,
wrong types, numbers out of range, odd ids, illegal states, garbage, over-long lines, dropped
connections, rate limits, silence, an exit that leaves a child holding the pipes. Written on raw
JSON-RPC (no SDK) so it can send what a well-behaved library never would.

    python -m app.demo.hostile --wire legacy --transport stdio --mode escapes
    python -m app.demo.hostile --wire extension --transport http --port 8770 --mode rate-limit
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from app.demo.hostile_core import HostileServer
from app.demo.hostile_frames import Outgoing
from app.demo.hostile_io import serve_http, serve_stdio
from app.demo.hostile_modes import MODES


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The server's flags; a mode that needs HTTP is refused on stdio."""
    parser = argparse.ArgumentParser(prog="python -m app.demo.hostile", description=__doc__)
    parser.add_argument("--wire", choices=["legacy", "extension"], default="legacy")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8770)
    parser.add_argument(
        "--mode", action="append", default=[], choices=sorted(MODES), help="repeatable"
    )
    parser.add_argument("--work-polls", type=int, default=3, help="polls before `job` completes")
    parser.add_argument("--poll-interval-ms", type=int, default=300)
    args = parser.parse_args(argv)
    for name in args.mode:
        if MODES[name].http_only and args.transport != "http":
            parser.error(f"mode {name} needs --transport http")
        if MODES[name].stdio_only and args.transport != "stdio":
            parser.error(f"mode {name} needs --transport stdio")
    return args


def server_factory(
    args: argparse.Namespace,
) -> Callable[[Callable[[Outgoing], None]], HostileServer]:
    """Builds the core with the chosen modes once the transport offers its frame sink."""

    def build(sink: Callable[[Outgoing], None]) -> HostileServer:
        modes = [MODES[name] for name in dict.fromkeys(args.mode)]
        server = HostileServer(
            args.wire,
            sink,
            perturbs=[mode.perturb for mode in modes],
            work_polls=args.work_polls,
            poll_interval_ms=args.poll_interval_ms,
        )
        for mode in modes:
            if mode.setup is not None:
                mode.setup(server)
        return server

    return build


def main(argv: Sequence[str] | None = None) -> None:
    """Run the hostile server until stdin ends (stdio) or it is killed (HTTP)."""
    args = parse_args(argv)
    factory = server_factory(args)
    if args.transport == "stdio":
        serve_stdio(factory)
    else:
        serve_http(factory, args.host, args.port)


if __name__ == "__main__":
    main()
