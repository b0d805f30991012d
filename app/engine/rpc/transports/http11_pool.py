"""The connections to one origin: at most `limit` attached (waiters served in FIFO order), idle
ones reused LIFO, and an exchange that stays open detached from the bound after `DETACH_AFTER_S`."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections import deque

from app.engine.rpc.transports.http11_connection import (
    READ_CHUNK,
    ConnectError,
    ConnectTimeout,
    Http11Connection,
    PoolClosed,
)
from app.engine.safety.limits import Limits

MAX_DETACHED = 100
DETACH_AFTER_S = 1.0


class OriginPool:
    """Connections to one scheme://host:port: at most `limit` attached, idle ones reused LIFO."""

    def __init__(
        self,
        host: str,
        port: int,
        ssl_context: ssl.SSLContext | None,
        *,
        limit: int,
        connect_timeout: float,
        write_timeout: float,
        limits: Limits,
    ) -> None:
        self._host = host
        self._port = port
        self._ssl = ssl_context
        self._limit = limit
        self._limits = limits
        self._connect_timeout = connect_timeout
        self.write_timeout = write_timeout
        self._idle: list[Http11Connection] = []
        self._attached = 0
        self._detached = 0
        self._waiters: deque[asyncio.Future[Http11Connection | None]] = deque()
        self._open: set[Http11Connection] = set()
        self._closed = False

    @property
    def open_connections(self) -> int:
        """Connections open to this origin."""
        return len(self._open)

    async def acquire(self) -> Http11Connection:
        """An idle live connection, a new one, or (when `limit` are busy) the next one freed."""
        if self._closed:
            raise PoolClosed("the HTTP client is closed")
        now = asyncio.get_running_loop().time()
        while self._idle:
            connection = self._idle.pop()
            if connection.alive(now):
                return connection
            self._drop(connection)
        if self._attached < self._limit:
            self._attached += 1
        else:
            handed = await self._wait()
            if handed is not None:
                return handed
        try:
            return await self._connect()
        except BaseException:
            self._attached -= 1
            self._free_slot()
            raise

    def start(self, connection: Http11Connection, long_lived: bool) -> None:
        """An exchange begins on `connection`: long-lived ones leave the bounded set at once."""
        if long_lived:
            self._detach(connection)
        else:
            loop = asyncio.get_running_loop()
            connection.timer = loop.call_later(DETACH_AFTER_S, self._detach, connection)

    def release(self, connection: Http11Connection, reusable: bool) -> None:
        """An exchange ended: keep the connection for the next request, or close it."""
        if connection.timer is not None:
            connection.timer.cancel()
            connection.timer = None
        if connection.detached:
            connection.detached = False
            self._detached -= 1
            if not reusable or self._closed or self._attached >= self._limit:
                self._close(connection)
                return
            self._attached += 1
        if not reusable or self._closed:
            self._drop(connection)
            return
        connection.reused = True
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return
        connection.idle_since = asyncio.get_running_loop().time()
        self._idle.append(connection)

    async def aclose(self) -> None:
        """Close every connection and fail every waiting request."""
        self._closed = True
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(PoolClosed("the HTTP client is closed"))
        connections = list(self._open)
        self._idle.clear()
        for connection in connections:
            self._close(connection)
        for connection in connections:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                await connection.writer.wait_closed()

    async def _wait(self) -> Http11Connection | None:
        waiter: asyncio.Future[Http11Connection | None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                handed = waiter.result()
                if handed is None:
                    self._attached -= 1
                    self._free_slot()
                else:
                    self.release(handed, reusable=True)
            raise

    async def _connect(self) -> Http11Connection:
        try:
            async with asyncio.timeout(self._connect_timeout):
                reader, writer = await asyncio.open_connection(
                    self._host,
                    self._port,
                    ssl=self._ssl,
                    server_hostname=self._host if self._ssl is not None else None,
                    limit=READ_CHUNK,
                )
        except TimeoutError:
            raise ConnectTimeout(
                f"connecting to {self._host}:{self._port} took over {self._connect_timeout:g} s"
            ) from None
        except OSError as exc:
            raise ConnectError(str(exc) or type(exc).__name__) from exc
        connection = Http11Connection(reader, writer, self._limits)
        self._open.add(connection)
        return connection

    def _detach(self, connection: Http11Connection) -> None:
        connection.timer = None
        if connection.detached or self._detached >= MAX_DETACHED:
            return
        connection.detached = True
        self._detached += 1
        self._attached -= 1
        self._free_slot()

    def _drop(self, connection: Http11Connection) -> None:
        """Close an attached connection and give its slot to the next waiter."""
        self._close(connection)
        self._attached -= 1
        self._free_slot()

    def _close(self, connection: Http11Connection) -> None:
        self._open.discard(connection)
        connection.close()

    def _free_slot(self) -> None:
        while self._waiters and self._attached < self._limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._attached += 1
                waiter.set_result(None)
                return
