"""One command's engine session, built from the command line: target, `--era`, `--wire`,
`--redact`, `--readonly`, `--record`, `--trace-frames`, `--reconnect-attempts`, `--withhold` and
`--client-capabilities`.

The engine's `EngineSession` does the work (connect, resolve and assert the wire, guard the adapter,
hook the recorder, reconnect); this module turns its failures into the CLI's error documents and
reports connection events as lines on stderr. It gives the command's `Output` the session's redactor
before connecting, and sends the engine's log warnings through it too, so no line on either stream
holds a secret.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from app.cli.errors import cli_error
from app.cli.options import Options
from app.cli.output import CONNECTION_FAILED, TASKS_WIRE_MISMATCH, CliError, Output
from app.cli.record import open_recorder
from app.cli.sign_in import CliSignIn
from app.cli.target import target_from_args
from app.cli.trace import FrameTrace
from app.engine.forms.input_text import root_entries
from app.engine.record.recorder import redactor_for
from app.engine.rpc.advertised import ClientCapabilities
from app.engine.rpc.era_decision import NegotiationError, era_steps
from app.engine.rpc.reconnect import ConnectionEvent, ReconnectPolicy
from app.engine.rpc.rpc_types import RpcError
from app.engine.rpc.session import EngineSession, WireMismatch
from app.engine.rpc.targets import HttpTarget, Target
from app.engine.rpc.transports.base import TransportError
from app.engine.safety.sanitize import clean_text

Session = EngineSession
"""What every command runs on (kept as the CLI's name for the engine session)."""


@asynccontextmanager
async def open_session(
    options: Options,
    out: Output | None = None,
    *,
    request_timeout: float = 30.0,
    handshake: tuple[float, float] | None = None,
) -> AsyncIterator[EngineSession]:
    """Connect to the target the flags name, and close the session however the command ends
    (`handshake`: the era dance's probe and request timeouts, when not the defaults)."""
    target = target_from_args(options.target)
    flags = options.session
    log_lines: OutputLog | None = None
    if out is not None:
        out.redactor = redactor_for(target, flags.redact)
        log_lines = OutputLog(out)
        logging.getLogger("app").addHandler(log_lines)
    trace = FrameTrace(flags.trace_frames) if flags.trace_frames else None
    recorder = open_recorder(flags, target, "cli", options.command)
    session = EngineSession(
        target,
        era=flags.era,
        expected_wire=flags.wire,
        redact=flags.redact,
        readonly=flags.readonly,
        recorder=recorder,
        policy=ReconnectPolicy(attempts=flags.reconnect_attempts),
        request_timeout=request_timeout,
        handshake=handshake,
        roots=root_entries(flags.roots),
        advertised=ClientCapabilities(flags.client_capabilities, frozenset(flags.withhold)),
        auth_observer=CliSignIn(out or Output(), browser=_opens_browser(target)),
    )
    if trace is not None:
        session.add_frame_listener(trace.write)
    if recorder is not None:
        session.add_frame_listener(recorder.frame)
    if out is not None:
        session.add_connection_listener(lambda event: out.note(connection_line(event)))
    try:
        try:
            await session.open()
        except WireMismatch as mismatch:
            raise wire_mismatch_error(mismatch) from mismatch
        except CONNECT_ERRORS as exc:
            raise connection_failure(target, exc) from exc
        yield session
    finally:
        await session.close()
        if trace is not None:
            trace.close()
        if recorder is not None:
            recorder.close()
        if log_lines is not None:
            logging.getLogger("app").removeHandler(log_lines)


CONNECT_ERRORS = (RpcError, TransportError, OSError, NegotiationError)
"""What a failed `EngineSession.open()` raises (besides `WireMismatch`)."""


def connection_failure(target: Target, exc: BaseException) -> CliError:
    """The `CONNECTION_FAILED` error of a connection to `target` that `exc` ended."""
    return CliError(
        CONNECTION_FAILED,
        f"could not connect to {target.label}",
        {"reason": str(exc), **_details(exc), **_era_details(exc)},
    )


class OutputLog(logging.Handler):
    """Writes taskscope's log warnings (which may quote a server's answer) as redacted, sanitized
    lines on the command's stderr, where Python's last-resort handler would print them raw."""

    def __init__(self, out: Output) -> None:
        super().__init__(logging.WARNING)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        self.out.note(clean_text(self.format(record), allow_newlines=True))


def connection_line(event: ConnectionEvent) -> str:
    """The stderr line of a connection event (server text made safe for a terminal)."""
    return clean_text(event.describe())


def wire_mismatch_error(mismatch: WireMismatch) -> CliError:
    """`--wire` is an assertion: on another wire the command stops before sending anything."""
    return CliError(
        TASKS_WIRE_MISMATCH,
        str(mismatch),
        {
            "expected": mismatch.expected,
            "actual": mismatch.actual,
            "server": mismatch.info.name,
            "protocolVersion": mismatch.info.protocol_version,
        },
    )


def _era_details(exc: BaseException) -> dict[str, Any]:
    """The next thing to try, and what the era dance tried before it failed."""
    details: dict[str, Any] = {}
    hint = getattr(exc, "hint", None)
    if isinstance(hint, str):
        details["hint"] = hint
    steps = era_steps(exc)
    if steps:
        details["era"] = {"tried": [step.as_json() for step in steps]}
    return details


def _opens_browser(target: Target) -> bool:
    """Whether a sign-in opens the browser (not with `--no-browser`)."""
    return not isinstance(target, HttpTarget) or target.oauth.open_browser


def _details(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, RpcError | TransportError):
        return dict(cli_error(exc).details or {})
    return {}
