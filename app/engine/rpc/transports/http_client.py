"""Which HTTP client a Streamable HTTP target gets: the lean HTTP/1.1 pool, or httpx behind a proxy.

The lean pool (`http11`) speaks directly to the server. When the environment names a proxy for
the URL's scheme (httpx's `trust_env` behaviour) and `NO_PROXY` does not exclude the host, httpx
is used instead and applies the proxy itself. Both satisfy `HttpClient`, so the transport's code
is written once, and both bound a body read whole by `Limits.body_bytes`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from app.engine.rpc.transports.http11_connection import HttpError, RemoteProtocolError
from app.engine.safety.limits import Limits, configured

if TYPE_CHECKING:
    import httpx


class HttpResponse(Protocol):
    """What the transport reads of a response: status, headers and the body."""

    @property
    def status_code(self) -> int: ...

    @property
    def reason_phrase(self) -> str: ...

    @property
    def headers(self) -> Mapping[str, str]:
        """Header values by lower-case name (case-insensitive lookups for httpx's)."""

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body as it arrives."""

    async def aread(self) -> bytes:
        """The whole body."""


class HttpClient(Protocol):
    """Streams one HTTP exchange at a time; `errors` are the failures it raises below HTTP."""

    errors: tuple[type[Exception], ...]

    def stream(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        body: bytes | None = None,
        retry: bool = False,
        long_lived: bool = False,
    ) -> AbstractAsyncContextManager[HttpResponse]:
        """`async with` it for the response (see `Http11Client.stream` for the flags)."""

    async def aclose(self) -> None:
        """Close every connection."""


class HttpxClient:
    """httpx as an `HttpClient`, for targets reached through an environment proxy (and the
    HTTP+SSE transport); a body read whole is bounded as the lean pool bounds it."""

    def __init__(
        self, *, connect_timeout: float, write_timeout: float, limits: Limits | None = None
    ) -> None:
        import httpx

        timeout = httpx.Timeout(connect_timeout, read=None, write=write_timeout, pool=None)
        self._client = httpx.AsyncClient(timeout=timeout)
        self._body_limit = (limits or configured()).body_bytes
        self.errors: tuple[type[Exception], ...] = (httpx.HTTPError, HttpError)

    def stream(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        body: bytes | None = None,
        retry: bool = False,
        long_lived: bool = False,
    ) -> AbstractAsyncContextManager[HttpResponse]:
        """httpx's own stream (it keeps its own pool; `retry` and `long_lived` do not apply)."""
        return self._capped(self._client.stream(method, url, content=body, headers=dict(headers)))

    async def aclose(self) -> None:
        await self._client.aclose()

    @asynccontextmanager
    async def _capped(
        self, exchange: AbstractAsyncContextManager[httpx.Response]
    ) -> AsyncIterator[HttpResponse]:
        async with exchange as response:
            yield CappedResponse(response, self._body_limit)


class CappedResponse:
    """An httpx response whose `aread` stops at `limit` decoded bytes instead of growing."""

    __slots__ = ("_limit", "_response")

    def __init__(self, response: httpx.Response, limit: int) -> None:
        self._response = response
        self._limit = limit

    @property
    def status_code(self) -> int:
        return self._response.status_code

    @property
    def reason_phrase(self) -> str:
        return self._response.reason_phrase

    @property
    def headers(self) -> Mapping[str, str]:
        return self._response.headers

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        return self._response.aiter_bytes()

    async def aread(self) -> bytes:
        parts = []
        size = 0
        async for piece in self._response.aiter_bytes():
            size += len(piece)
            if size > self._limit:
                raise RemoteProtocolError(
                    f"the response body is over the {self._limit:,}-byte limit "
                    f"({size:,} decoded bytes read when it was stopped)"
                )
            parts.append(piece)
        return b"".join(parts)


def environment_proxy(url: str) -> bool:
    """Whether the environment names a proxy for `url`'s scheme (or for all schemes) and
    `NO_PROXY` does not exclude its host, read as httpx reads it (see `no_proxy_excludes`)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    proxies = _proxies()
    if not (proxies.get(scheme) or proxies.get("all")):
        return False
    try:
        port = parts.port
    except ValueError:
        return True  # not a URL the lean pool can use: let httpx say what is wrong
    if port == {"http": 80, "https": 443}.get(scheme):
        port = None
    host = (parts.hostname or "").lower()
    return not any(
        no_proxy_excludes(entry.strip(), scheme, host, port)
        for entry in proxies.get("no", "").split(",")
    )


def no_proxy_excludes(entry: str, scheme: str, host: str, port: int | None) -> bool:
    """Whether one `NO_PROXY` entry excludes a URL (port None when it is the scheme's default),
    as httpx reads it: `*` everything; `example.com` it and its subdomains, `.example.com` only
    its subdomains; an IP address or `localhost` only itself; `host:port` only that port;
    `scheme://host` only that scheme. Never broader than httpx, so no proxy is skipped."""
    if entry == "*":
        return True
    if not entry:
        return False
    if "://" in entry:
        entry_scheme, _, entry = entry.partition("://")
        if entry_scheme.lower() not in ("all", scheme):
            return False
    elif _is_ip_address(address := entry.partition("/")[0]):
        entry = f"[{address}]" if ":" in address else address
    elif entry.lower() != "localhost":
        entry = "*" + entry
    location = entry.partition("/")[0].lower()
    if location.startswith("["):
        pattern, _, entry_port = location[1:].partition("]")
        entry_port = entry_port.removeprefix(":")
    else:
        pattern, _, entry_port = location.partition(":")
    if entry_port and not (entry_port.isascii() and entry_port.isdigit()):
        return False
    if entry_port and int(entry_port) != port:
        return False
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    if pattern.startswith("*"):
        return host == pattern[1:] or host.endswith("." + pattern[1:])
    return host == pattern


def _is_ip_address(text: str) -> bool:
    import ipaddress  # only when NO_PROXY is read: not a start-up cost

    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def make_http_client(url: str, *, connect_timeout: float, write_timeout: float) -> HttpClient:
    """The client for `url`: httpx when a proxy applies, the lean HTTP/1.1 pool otherwise."""
    if environment_proxy(url):
        return HttpxClient(connect_timeout=connect_timeout, write_timeout=write_timeout)
    from app.engine.rpc.transports.http11 import Http11Client

    return Http11Client(connect_timeout=connect_timeout, write_timeout=write_timeout)


def _proxies() -> dict[str, str]:
    """`urllib.request.getproxies()` without importing urllib.request where only the environment
    counts (it is slow to import at start-up); macOS and Windows also consult system settings."""
    if sys.platform in ("darwin", "win32"):
        from urllib.request import getproxies

        return getproxies()
    proxies: dict[str, str] = {}
    for name, value in os.environ.items():  # any case first, then lower case wins
        if value and name[-6:].lower() == "_proxy":
            proxies[name[:-6].lower()] = value
    if "REQUEST_METHOD" in os.environ:
        proxies.pop("http", None)  # CGI: HTTP_PROXY may come from a request header
    for name, value in os.environ.items():
        if name[-6:] == "_proxy":
            if value:
                proxies[name[:-6].lower()] = value
            else:
                proxies.pop(name[:-6].lower(), None)
    return proxies
