"""stdio transport: spawn the server and exchange newline-delimited JSON over its pipes.

stderr is drained continuously (a full pipe would stall the server) and its last lines are kept so
a crash can be explained; the process exiting closes the transport with those lines attached.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections import deque
from collections.abc import Mapping
from typing import Any

from app.engine.targets import StdioTarget
from app.engine.transports.base import Era, TransportError, TransportKind, TransportSink, classify

log = logging.getLogger(__name__)

STDERR_LINES_KEPT = 20
LINE_LIMIT = 64 * 1024 * 1024
KILL_GRACE_SECONDS = 2.0
EXIT_WAIT_SECONDS = 1.0
"""After stdout ends, how long to wait for the exit code before reporting the channel closed
(a server may close stdout and linger)."""


class StdioTransport:
    """One server subprocess, one JSON message per line in each direction."""

    kind: TransportKind = "stdio"

    def __init__(self, target: StdioTarget) -> None:
        self._target = target
        self._process: asyncio.subprocess.Process | None = None
        self._sink: TransportSink | None = None
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES_KEPT)
        self._tasks: list[asyncio.Task[None]] = []
        self._write_lock = asyncio.Lock()
        self._closing = False
        self._closed = False

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines the server wrote to stderr."""
        return list(self._stderr)

    async def start(self, sink: TransportSink) -> None:
        self._sink = sink
        env = {**os.environ, **self._target.env}
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self._target.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=self._target.cwd,
                limit=LINE_LIMIT,
            )
        except OSError as exc:
            self._closed = True
            raise TransportError(
                "closed", f"cannot start {self._target.command[0]!r}: {exc.strerror or exc}"
            ) from exc
        self._tasks = [
            asyncio.create_task(self._read_stdout(), name="stdio-stdout"),
            asyncio.create_task(self._read_stderr(), name="stdio-stderr"),
        ]

    def set_era(self, era: Era, protocol_version: str) -> None:
        """stdio carries no per-message headers, so the era changes nothing here."""

    async def after_handshake(self) -> None:
        """stdio needs no extra channel after the handshake."""

    def abandon(self, rpc_id: str | int) -> None:
        """A late answer on the pipe is reported by the connection; nothing to stop here."""

    async def send(self, message: dict[str, Any], headers: Mapping[str, str] | None = None) -> None:
        process = self._process
        if self._closed or process is None or process.stdin is None:
            raise TransportError("closed", self._closed_message())
        assert self._sink is not None
        self._sink.on_outgoing(message, {})
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        try:
            async with self._write_lock:
                process.stdin.write(data)
                await process.stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise TransportError("closed", self._closed_message()) from exc

    async def close(self) -> None:
        self._closing = True
        process = self._process
        if process is not None and process.returncode is None:
            if process.stdin is not None:
                with contextlib.suppress(Exception):
                    process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
                try:
                    await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._closed = True

    async def _read_stdout(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None and self._sink is not None
        while True:
            try:
                line = await process.stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                self._sink.on_incoming(classify("<line longer than the read limit>"))
                continue
            if not line:
                break
            text = line.decode("utf-8", errors="replace").strip()
            if text:
                self._deliver(text)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(process.wait()), EXIT_WAIT_SECONDS)
        # Let stderr finish so the exit message carries the server's last words.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._tasks[1]), 1.0)
        self._closed = True
        if not self._closing:
            self._sink.on_closed(TransportError("closed", self._closed_message()))

    def _deliver(self, text: str) -> None:
        """Hand one line to the sink; a failure there must not stop the reader."""
        assert self._sink is not None
        try:
            self._sink.on_incoming(classify(text))
        except Exception:
            log.exception("dropped a message the client could not handle")

    async def _read_stderr(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        while True:
            try:
                line = await process.stderr.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue
            if not line:
                return
            text = line.decode("utf-8", errors="replace").rstrip()
            if text:
                self._stderr.append(text)

    def _closed_message(self) -> str:
        process = self._process
        code = process.returncode if process is not None else None
        message = "server process exited" if code is not None else "server connection closed"
        if code is not None:
            message += f" with code {code}"
        if self._stderr:
            message += "; stderr:\n" + "\n".join(self._stderr)
        return message
