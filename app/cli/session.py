"""One command's connection: open it, resolve the wire, check `--wire`, trace frames, close it.

The adapter is wrapped in the engine's guard, which journals mutating verbs to the `--record`
recorder and refuses them under `--readonly`.

Every headless command runs on exactly one connection (legacy servers bind tasks to the session).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

from app.cli.args import flag, option, options
from app.cli.errors import cli_error
from app.cli.output import CONNECTION_FAILED, TASKS_WIRE_MISMATCH, CliError
from app.cli.record import open_recorder
from app.cli.target import target_from_args
from app.cli.trace import FrameTrace
from app.engine.adapter import TasksCapabilities
from app.engine.adapters import WireAdapter, make_adapter
from app.engine.connection import Connection, RpcError, ServerInfo, TransportError
from app.engine.guard import GuardedAdapter
from app.engine.recorder import Recorder, session_info

CLOSE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Session:
    """An open connection, the server it reached and the tasks wire it speaks."""

    connection: Connection
    adapter: WireAdapter
    info: ServerInfo
    recorder: Recorder | None = None
    readonly: bool = False

    @property
    def capabilities(self) -> TasksCapabilities:
        return self.adapter.capabilities

    @property
    def wire(self) -> str:
        return self.adapter.capabilities.wire


@asynccontextmanager
async def open_session(namespace: argparse.Namespace) -> AsyncIterator[Session]:
    """Connect to the target the flags name, and close the connection however the command ends."""
    target = target_from_args(namespace)
    trace_path = option(namespace, "trace_frames")
    trace = FrameTrace(trace_path) if trace_path else None
    recorder = open_recorder(namespace, target, "cli")
    readonly = flag(namespace, "readonly")
    era = option(namespace, "era") or "auto"
    connection = Connection(
        target,
        era="legacy" if era == "legacy" else "modern" if era == "modern" else "auto",
        redact=options(namespace, "redact"),
    )
    if trace is not None:
        connection.add_frame_listener(trace.write)
    if recorder is not None:
        connection.add_frame_listener(recorder.frame)
    try:
        try:
            info = await connection.open()
        except (RpcError, TransportError, OSError) as exc:
            raise CliError(
                CONNECTION_FAILED,
                f"could not connect to {target.label}",
                {"reason": str(exc), **_details(exc)},
            ) from exc
        adapter = GuardedAdapter(make_adapter(connection), readonly=readonly, recorder=recorder)
        if recorder is not None:
            recorder.opened(session_info(info, adapter.capabilities, target, readonly=readonly))
        try:
            session = Session(connection, adapter, info, recorder, readonly)
            check_wire(option(namespace, "wire"), session)
            yield session
        finally:
            with suppress(Exception):
                await asyncio.wait_for(asyncio.shield(adapter.close()), CLOSE_TIMEOUT_S)
    finally:
        with suppress(Exception):
            await asyncio.wait_for(asyncio.shield(connection.close()), CLOSE_TIMEOUT_S)
        if trace is not None:
            trace.close()
        if recorder is not None:
            recorder.close()


def check_wire(expected: str | None, session: Session) -> None:
    """`--wire` is an assertion: on another wire the command stops before sending anything."""
    if expected is None or session.wire == expected:
        return
    raise CliError(
        TASKS_WIRE_MISMATCH,
        f"expected the {expected} tasks wire, but the server speaks {session.wire}",
        {
            "expected": expected,
            "actual": session.wire,
            "server": session.info.name,
            "protocolVersion": session.info.protocol_version,
        },
    )


def _details(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, RpcError | TransportError):
        return dict(cli_error(exc).details or {})
    return {}
