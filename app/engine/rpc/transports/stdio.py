"""stdio transport: spawn the server and exchange newline-delimited JSON over its pipes.

The server runs in a session of its own, so closing signals its whole process group: the children
it forked end with it. The process exiting closes the channel, even while a child it forked holds
stdout open (no end of file ever comes then). stderr is drained continuously (a full pipe would
stall the server) and its last lines are kept so a crash can be explained. Every stdout line is
bounded (`limits.MAX_LINE_BYTES`, or `TASKSCOPE_MAX_LINE`); a longer one is skipped whole and
fails what was pending at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections import deque
from collections.abc import Mapping
from typing import Any

from app.engine.rpc.targets import StdioTarget
from app.engine.rpc.transports.base import (
    Era,
    Inbound,
    TransportError,
    TransportKind,
    TransportSink,
    classify,
    encode_message,
)
from app.engine.safety.limits import ENVIRONMENT, configured

log = logging.getLogger(__name__)

STDERR_LINES_KEPT = 20
STDERR_LINE_CHARS = 2000
"""Each kept stderr line is cut to this many characters."""
SKIPPED_HEAD_BYTES = 200
"""How much of a line over the limit its frame shows."""
STDIN_CLOSE_GRACE_SECONDS = 1.0
"""After stdin closes, how long a server has to exit by itself before SIGTERM: servers built on
the Python SDK exit 0.1-0.7 s after end of file, some (server-everything) never do, and SIGTERM is
still a request to exit, followed by KILL_GRACE_SECONDS before SIGKILL."""
KILL_GRACE_SECONDS = 2.0
"""After SIGTERM (then SIGKILL), how long to wait for the server's process group to be gone."""
GROUP_POLL_SECONDS = 0.05
"""How often to look whether processes the server left behind in its group are gone yet."""
EXIT_WAIT_SECONDS = 1.0
"""After stdout ends, how long to wait for the exit code before reporting the channel closed
(a server may close stdout and linger)."""
EXIT_DRAIN_SECONDS = 1.0
"""After the process exits, how long its last lines may take to be read before the channel is
reported closed (stdout never ends while a child the server forked holds it open)."""


class _ServerProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's stream protocol for a subprocess, telling at once when the process exits:
    `Process.wait()` also waits for every pipe to close, which a forked child can delay forever."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


class StdioTransport:
    """One server subprocess, one JSON message per line in each direction."""

    kind: TransportKind = "stdio"

    def __init__(self, target: StdioTarget) -> None:
        self._target = target
        self._process: asyncio.subprocess.Process | None = None
        self._pipes: asyncio.SubprocessTransport | None = None
        self._exited: asyncio.Future[None] | None = None
        self._sink: TransportSink | None = None
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES_KEPT)
        self._tasks: list[asyncio.Task[None]] = []
        self._write_lock = asyncio.Lock()
        self._closing = False
        self._ending: asyncio.Future[None] | None = None
        self._closed = False
        self._stdout_held = False

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines the server wrote to stderr."""
        return list(self._stderr)

    async def start(self, sink: TransportSink) -> None:
        self._sink = sink
        env = {**os.environ, **self._target.env}
        loop = asyncio.get_running_loop()
        protocol: _ServerProtocol | None = None

        def make_protocol() -> _ServerProtocol:
            nonlocal protocol
            protocol = _ServerProtocol(configured().line_bytes, loop)
            return protocol

        try:
            self._pipes, _ = await loop.subprocess_exec(
                make_protocol,
                *self._target.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=self._target.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            self._closed = True
            raise TransportError(
                "closed", f"cannot start {self._target.command[0]!r}: {exc.strerror or exc}"
            ) from exc
        assert protocol is not None
        self._process = asyncio.subprocess.Process(self._pipes, protocol, loop)
        self._exited = protocol.exited
        self._tasks = [
            asyncio.create_task(self._read_stdout(), name="stdio-stdout"),
            asyncio.create_task(self._read_stderr(), name="stdio-stderr"),
            asyncio.create_task(self._watch_exit(), name="stdio-exit"),
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
        data = encode_message(message) + b"\n"
        try:
            async with self._write_lock:
                process.stdin.write(data)
                await process.stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise TransportError("closed", self._closed_message()) from exc

    async def close(self) -> None:
        """End the server and its process group; every caller waits on the same ending, and a
        caller cancelled meanwhile (a handshake given up) leaves it running to its end."""
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._end())
        await asyncio.shield(self._ending)

    async def _end(self) -> None:
        self._closing = True
        process = self._process
        if process is not None:
            await self._end_process_group(process)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._pipes is not None:
            self._pipes.close()  # our ends of the pipes, even if an escaped process holds theirs
        self._closed = True

    # -- ending the server ----------------------------------------------------------------------

    async def _end_process_group(self, process: asyncio.subprocess.Process) -> None:
        """Close stdin and give the server `STDIN_CLOSE_GRACE_SECONDS` to exit; then SIGTERM and
        at last SIGKILL its whole process group, each followed by `KILL_GRACE_SECONDS`. Every step
        is bounded, and processes it left behind in its group are ended too."""
        if not self._has_exited():
            if process.stdin is not None:
                with contextlib.suppress(Exception):
                    process.stdin.close()
            await self._wait_exited(STDIN_CLOSE_GRACE_SECONDS)
        for signal_number in (signal.SIGTERM, signal.SIGKILL):
            if self._has_exited() and not self._group_alive(process.pid):
                return
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal_number)
            await self._wait_gone(process.pid, KILL_GRACE_SECONDS)

    def _has_exited(self) -> bool:
        return self._exited is not None and self._exited.done()

    async def _wait_exited(self, seconds: float) -> None:
        if self._exited is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._exited), seconds)

    async def _wait_gone(self, group: int, seconds: float) -> None:
        """Wait up to `seconds` for the server to exit and every process of its group to go."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        await self._wait_exited(seconds)
        # Polled: no event tells when processes that are not our children end.
        while self._group_alive(group) and loop.time() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(GROUP_POLL_SECONDS)

    @staticmethod
    def _group_alive(group: int) -> bool:
        """Whether any process we may signal is left in the server's process group."""
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    # -- reading --------------------------------------------------------------------------------

    async def _read_stdout(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None and self._sink is not None
        while True:
            line, whole = await _next_line(process.stdout)
            if not whole:
                self._line_too_long(line)
                continue
            if not line:
                break
            text = line.decode("utf-8", errors="replace").strip()
            if text:
                self._deliver(text)
        await self._wait_exited(EXIT_WAIT_SECONDS)
        await self._report_closed()

    async def _watch_exit(self) -> None:
        """Close the channel when the process exits, once its last lines are read or, when a
        child holds stdout open, after `EXIT_DRAIN_SECONDS`."""
        assert self._exited is not None
        await asyncio.shield(self._exited)
        reader = self._tasks[0]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reader), EXIT_DRAIN_SECONDS)
        self._stdout_held = not reader.done()
        await self._report_closed()

    async def _report_closed(self) -> None:
        """Tell the sink, once, that the channel is closed (not when we closed it ourselves)."""
        if self._closed:
            return
        self._closed = True
        # Let stderr finish so the exit message carries the server's last words.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._tasks[1]), 1.0)
        if not self._closing:
            assert self._sink is not None
            self._sink.on_closed(TransportError("closed", self._closed_message()))

    def _deliver(self, text: str) -> None:
        """Hand one line to the sink; a failure there must not stop the reader."""
        assert self._sink is not None
        try:
            self._sink.on_incoming(classify(text))
        except Exception:
            log.exception("dropped a message the client could not handle")

    def _line_too_long(self, head: bytes) -> None:
        """Report a skipped line over the line limit as a frame, and fail what was pending."""
        assert self._sink is not None
        reason = (
            f"the server sent a line longer than the stdio line limit "
            f"({configured().line_bytes:,} bytes, {ENVIRONMENT['line_bytes']}); "
            "it was skipped unread"
        )
        shown = head.decode("utf-8", errors="replace") + "…"
        try:
            self._sink.on_incoming(Inbound(message=None, raw=shown, error=reason))
            self._sink.on_message_lost(TransportError("malformed", reason))
        except Exception:
            log.exception("could not report a line over the limit")

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
            if len(text) > STDERR_LINE_CHARS:
                text = text[:STDERR_LINE_CHARS] + "…"
            if text:
                self._stderr.append(text)

    def _closed_message(self) -> str:
        process = self._process
        code = process.returncode if process is not None else None
        message = "server process exited" if code is not None else "server connection closed"
        if code is not None:
            message += f" with code {code}"
        if self._stdout_held:
            message += " (a process it started still holds its stdout open)"
        if self._stderr:
            message += "; stderr:\n" + "\n".join(self._stderr)
        return message


async def _next_line(stream: asyncio.StreamReader) -> tuple[bytes, bool]:
    """The next line and True (b"" and True at the end); for a line over the stream's limit, its
    first `SKIPPED_HEAD_BYTES` and False once all of it has been skipped. Never buffers more
    than the limit: the line is read past in pieces."""
    try:
        return await stream.readuntil(b"\n"), True
    except asyncio.IncompleteReadError as exc:
        return exc.partial, True
    except asyncio.LimitOverrunError as exc:
        head = (await stream.readexactly(exc.consumed))[:SKIPPED_HEAD_BYTES]
    while True:
        try:
            await stream.readuntil(b"\n")
        except asyncio.IncompleteReadError:
            return head, False
        except asyncio.LimitOverrunError as exc:
            await stream.readexactly(exc.consumed)
            continue
        return head, False
