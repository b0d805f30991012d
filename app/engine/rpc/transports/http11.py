"""A lean HTTP/1.1 client over a bounded asyncio keep-alive pool per origin (`http11_pool`).

It replaces httpx on the request path because httpx, httpcore and anyio cost far more CPU per
request. Requests wait for a free connection in FIFO order; an exchange that stays open (an SSE
stream, a blocking call) leaves the bounded set, so long-lived streams never starve short requests.
"""

from __future__ import annotations

import os
import re
import ssl
from collections.abc import Coroutine, Mapping
from types import TracebackType
from urllib.parse import quote, urlsplit

from app.engine.polling.gate import DEFAULT_CAP
from app.engine.rpc.transports.http11_connection import (
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
from app.engine.rpc.transports.http11_pool import OriginPool
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
idle ones expire."""
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

    def __init__(self, pool: OriginPool, target: bytes, host: str):
        self.pool = pool
        self.target = target
        self.host_header = host


_Opened = tuple[OriginPool, Http11Connection, Http11Response]


class _Exchange:
    """`async with client.stream(...) as response`: the response, then the connection's fate."""

    __slots__ = ("_connection", "_opening", "_pool", "_response")

    def __init__(self, opening: Coroutine[None, None, _Opened]) -> None:
        self._opening = opening
        self._pool: OriginPool | None = None
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
        self._pools: dict[tuple[str, str, int], OriginPool] = {}
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
            pool = OriginPool(
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
