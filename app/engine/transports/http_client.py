"""Which HTTP client a Streamable HTTP target gets: the lean HTTP/1.1 pool, or httpx behind a proxy.

The lean pool (`http11`) speaks directly to the server. When the environment names a proxy for
the URL's scheme (httpx's `trust_env` behaviour), httpx is used instead and applies the proxy and
`NO_PROXY` rules itself. Both satisfy `HttpClient`, so the transport's code is written once.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Protocol

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
    """httpx as an `HttpClient`, for targets reached through an environment proxy."""

    def __init__(self, *, connect_timeout: float, write_timeout: float) -> None:
        import httpx

        timeout = httpx.Timeout(connect_timeout, read=None, write=write_timeout, pool=None)
        self._client = httpx.AsyncClient(timeout=timeout)
        self.errors: tuple[type[Exception], ...] = (httpx.HTTPError,)

    def stream(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        body: bytes | None = None,
        retry: bool = False,
        long_lived: bool = False,
    ) -> AbstractAsyncContextManager[httpx.Response]:
        """httpx's own stream (it keeps its own pool; `retry` and `long_lived` do not apply)."""
        return self._client.stream(method, url, content=body, headers=dict(headers))

    async def aclose(self) -> None:
        await self._client.aclose()


def environment_proxy(url: str) -> bool:
    """Whether the environment names a proxy for `url`'s scheme (or for all schemes)."""
    scheme = url.partition("://")[0].lower()
    proxies = _proxies()
    return bool(proxies.get(scheme) or proxies.get("all"))


def make_http_client(url: str, *, connect_timeout: float, write_timeout: float) -> HttpClient:
    """The client for `url`: httpx when a proxy applies, the lean HTTP/1.1 pool otherwise."""
    if environment_proxy(url):
        return HttpxClient(connect_timeout=connect_timeout, write_timeout=write_timeout)
    from app.engine.transports.http11 import Http11Client

    return Http11Client(connect_timeout=connect_timeout, write_timeout=write_timeout)


def _proxies() -> dict[str, str]:
    """`urllib.request.getproxies()` without importing urllib.request where only the environment
    counts (it costs ~30 ms of start-up); macOS and Windows also consult system settings."""
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
