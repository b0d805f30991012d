"""Demo servers for benchmarks: the engine target for a wire and transport, with `--bench` tools.

HTTP servers run in their own process on a free port; a stdio server is spawned by the client
itself, so in both cases the server's CPU is never counted against the process being measured.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Literal

from app.engine.rpc.targets import HttpTarget, StdioTarget, Target
from bench.common import REPO_ROOT, start_http_demo, stdio_demo_command

Wire = Literal["legacy", "extension"]
TransportName = Literal["stdio", "http"]


@contextmanager
def demo_target(
    wire: Wire, transport: TransportName, *extra: str, poll_interval_ms: int = 1000
) -> Iterator[Target]:
    """A target for a `--bench` demo server of `wire`; an HTTP one runs until the block ends."""
    args: Sequence[str] = ("--bench", "--poll-interval-ms", str(poll_interval_ms), *extra)
    if transport == "stdio":
        yield StdioTarget(command=stdio_demo_command(wire, *args), cwd=str(REPO_ROOT))
        return
    with start_http_demo(wire, *args) as (url, _process):
        yield HttpTarget(url=url)


def churn_arguments(index: int, period_s: float = 4.0) -> dict[str, float]:
    """`bench_churn` arguments that spread tasks evenly over the period (a quarter per second
    with the default 4 s period)."""
    return {"period_s": period_s, "offset_s": float(index % max(int(period_s), 1))}
