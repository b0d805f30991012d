"""A lean HTTP/1.1 client: a bounded asyncio keep-alive pool per origin (`http11_connection`).

httpx, httpcore and anyio cost about a millisecond of CPU per request; this pool costs a small
fraction of that, so a thousand polls a second fit in a fraction of a core. Requests wait for a
free connection in FIFO order; an exchange that stays open (an SSE stream, a blocking call) leaves
the bounded set after `DETACH_AFTER_S`, so long-lived streams never starve short requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import ssl
from collections import deque
from collections.abc import Coroutine, Mapping
from types import TracebackType
from urllib.parse import quote, urlsplit

from app.engine.polling.gate import DEFAULT_CAP
from app.engine.rpc.transports.http11_connection import (
    READ_CHUNK,
    ConnectError,
    ConnectTimeout,
    Http11Connection,
    Http11Response,
    HttpError,
    LocalProtocolError,
    NotSent,
    PoolClosed,
    ReadError,
    RemoteProtocolError,
)
from app.engine.rpc.transports.http_framing import FramingError, encode_request
from app.engine.safety.limits import Limits, configured

__all__ = [
    "ConnectError",
    "ConnectTimeout",
    "Http11Client",
    "Http11Response",
    "HttpError",
    "Limits",
    "LocalProtocolError",
    "PoolClosed",
    "ReadError",
    "RemoteProtocolError",
]

MAX_CONNECTIONS = DEFAULT_CAP
"""Connections per origin: as many as the poller may have polls in flight, so a poll it admitted
never queues again for a connection (a queue below the poller would make polls late, unseen by
the frames, which are stamped when the transport takes a message). Connections open on demand and
idle ones expire; a 1,000-task watch of the demo server at a 1 s hint keeps about 100 open,
because the single-process server queues its answers."""
MAX_DETACHED = 100
DETACH_AFTER_S = 1.0
USER_AGENT = "taskscope"
ACCEPT_ENCODING = "gzip, deflate"
"""What the client decodes (zlib, in bounded pieces: see `http_framing.ContentDecoder`)."""
_PATH_SAFE = "/%:@!$&'()*+,;=~-._"
_QUERY_SAFE = _PATH_SAFE + "?"
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


class _Route:
    """What a URL means to the pool: its origin's pool, the request target and the Host (a
    URL's userinfo never gets here: targets turn it into an Authorization header)."""

    __slots__ = ("host_header", "pool", "target")

    def __init__(self, pool: _OriginPool, target: bytes, host: str):
        self.pool = pool
        self.target = target
        self.host_header = host


class _OriginPool:
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


_Opened = tuple[_OriginPool, Http11Connection, Http11Response]


class _Exchange:
    """`async with client.stream(...) as response`: the response, then the connection's fate."""

    __slots__ = ("_connection", "_opening", "_pool", "_response")

    def __init__(self, opening: Coroutine[None, None, _Opened]) -> None:
        self._opening = opening
        self._pool: _OriginPool | None = None
        self._connection: Http11Connection | None = None
        self._response: Http11Response | None = None

    async def __aenter__(self) -> Http11Response:
        self._pool, self._connection, self._response = await self._opening
        return self._response

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._pool is not None and self._connection is not None
        response = self._response
        reusable = exc_type is None and response is not None and self._connection.reusable()
        self._pool.release(self._connection, reusable)


class Http11Client:
    """HTTP/1.1 requests over pooled keep-alive connections (http and https, no proxies);
    `limits` bound what a response may make the client buffer."""

    errors: tuple[type[Exception], ...] = (HttpError,)

    def __init__(
        self,
        *,
        connect_timeout: float,
        write_timeout: float,
        max_connections: int = MAX_CONNECTIONS,
        limits: Limits | None = None,
    ) -> None:
        self._connect_timeout = connect_timeout
        self._write_timeout = write_timeout
        self._limit = max_connections
        self._limits = limits or configured()
        self._pools: dict[tuple[str, str, int], _OriginPool] = {}
        self._routes: dict[str, _Route] = {}
        self._ssl: ssl.SSLContext | None = None

    @property
    def open_connections(self) -> int:
        """How many connections are open now, over all origins (busy, idle and detached)."""
        return sum(pool.open_connections for pool in self._pools.values())

    def stream(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        body: bytes | None = None,
        retry: bool = False,
        long_lived: bool = False,
    ) -> _Exchange:
        """`async with` it for the response; the body is read inside the block.

        `retry`: the request is idempotent, so when a reused connection turns out closed before
        any byte of the response it is sent once more on a new connection. A request found closed
        before any byte was written is always resent. `long_lived`: an SSE stream expected to
        stay open; it never counts against the pool's bound.
        """
        return _Exchange(self.open_exchange(method, url, headers, body, retry, long_lived))

    async def open_exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | None,
        retry: bool,
        long_lived: bool,
    ) -> _Opened:
        """Send the request and read the response head; the caller releases the connection."""
        route = self._route(url)
        pool = route.pool
        try:
            request = encode_request(
                method, route.target, self._request_headers(route, headers, body), body
            )
        except FramingError as exc:
            raise LocalProtocolError(str(exc)) from None
        resent = False
        while True:
            connection = await pool.acquire()
            try:
                await connection.send(request, pool.write_timeout)
                pool.start(connection, long_lived)
                status, reason, response_headers = await connection.read_head(method)
            except NotSent:
                pool.release(connection, reusable=False)
                if connection.reused:
                    continue  # an idle connection the server had closed: nothing was sent
                raise RemoteProtocolError("the server closed a new connection at once") from None
            except BaseException as exc:
                pool.release(connection, reusable=False)
                stale = connection.reused and not connection.received
                if (
                    retry
                    and not resent
                    and stale
                    and isinstance(exc, ReadError | RemoteProtocolError)
                ):
                    resent = True
                    continue
                raise
            return pool, connection, Http11Response(connection, status, reason, response_headers)

    async def aclose(self) -> None:
        """Close every pool's connections."""
        pools = list(self._pools.values())
        self._pools.clear()
        self._routes.clear()
        for pool in pools:
            await pool.aclose()

    def _request_headers(
        self, route: _Route, headers: Mapping[str, str], body: bytes | None
    ) -> list[tuple[bytes, bytes]]:
        lines = [(b"Host", route.host_header.encode("ascii"))]
        names = set()
        for name, value in headers.items():
            names.add(name.lower())
            lines.append((name.encode("utf-8"), value.encode("utf-8")))
        if body is not None:
            lines.append((b"Content-Length", str(len(body)).encode("ascii")))
        if "user-agent" not in names:
            lines.append((b"User-Agent", USER_AGENT.encode("ascii")))
        if "accept-encoding" not in names:
            lines.append((b"Accept-Encoding", ACCEPT_ENCODING.encode("ascii")))
        return lines

    def _route(self, url: str) -> _Route:
        route = self._routes.get(url)
        if route is not None:
            return route
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise LocalProtocolError(f"not an http(s) URL: {url!r}")
        try:
            explicit_port = parts.port
            host = parts.hostname.encode("idna").decode("ascii")
        except (ValueError, UnicodeError) as exc:
            raise LocalProtocolError(f"not a usable http(s) URL: {url!r} ({exc})") from None
        port = explicit_port or (443 if scheme == "https" else 80)
        key = (scheme, host, port)
        pool = self._pools.get(key)
        if pool is None:
            pool = _OriginPool(
                host,
                port,
                self._ssl_context() if scheme == "https" else None,
                limit=self._limit,
                connect_timeout=self._connect_timeout,
                write_timeout=self._write_timeout,
                limits=self._limits,
            )
            self._pools[key] = pool
        target = request_target(parts.path, parts.query)
        host_header = f"[{host}]" if ":" in host else host
        if explicit_port is not None and explicit_port != (443 if scheme == "https" else 80):
            host_header += f":{explicit_port}"
        route = _Route(pool, target.encode("ascii"), host_header)
        self._routes[url] = route
        return route

    def _ssl_context(self) -> ssl.SSLContext:
        """Verified TLS trusting what httpx trusts: SSL_CERT_FILE, SSL_CERT_DIR, else certifi."""
        if self._ssl is None:
            if os.environ.get("SSL_CERT_FILE"):
                self._ssl = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
            elif os.environ.get("SSL_CERT_DIR"):
                self._ssl = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
            else:
                import certifi

                self._ssl = ssl.create_default_context(cafile=certifi.where())
        return self._ssl


def request_target(path: str, query: str) -> str:
    """The request line's target: path and query percent-encoded as UTF-8 (spaces, non-ASCII,
    controls), keeping what is already escaped (`%XX`); a lone `%` becomes `%25`."""
    target = quote(_LONE_PERCENT.sub("%25", path or "/"), safe=_PATH_SAFE)
    if query:
        target += "?" + quote(_LONE_PERCENT.sub("%25", query), safe=_QUERY_SAFE)
    return target
