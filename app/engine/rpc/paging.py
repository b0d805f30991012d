"""Every paginated list (`tools/list`, `resources/list`, `prompts/list`, `tasks/list`, …) walked
page by page within one bound on the pages and characters gathered together.

A server can page forever, or send a few pages of many megabytes each: everything gathered is
kept until the whole list is shown, and kept as Python objects it weighs several times its text.
So a listing stops with `ListingTooLong` once its pages together pass the bound
(`Limits.listing_chars`, `Limits.listing_pages`), or once the server hands out a cursor it
handed out before (the list would never end). Nothing of a stopped listing is shown.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from app.engine.safety.limits import ENVIRONMENT, Limits, configured


class Pageable(Protocol):
    """What walking a list needs: the request, and how many characters have come in so far."""

    received_chars: int

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, reason: str = "user"
    ) -> dict[str, Any]: ...


class ListingTooLong(Exception):
    """A paginated list passed its bound, or would never end; `str()` says which, plainly."""

    def __init__(self, method: str, reason: str, *, pages: int, chars: int) -> None:
        counted = f"{pages:,} page{'s' if pages != 1 else ''} ({chars:,} characters)"
        super().__init__(f"{method} stopped after {counted}: {reason}")
        self.method = method
        self.reason = reason
        self.pages = pages
        self.chars = chars


async def pages(
    connection: Pageable, method: str, *, reason: str = "user", limits: Limits | None = None
) -> AsyncIterator[dict[str, Any]]:
    """Each page of `method` as the server sent it, from the first until one names no next
    cursor; raises ListingTooLong past the bound or at a cursor handed out before."""
    bound = limits or configured()
    cursors: set[str] = set()
    cursor: str | None = None
    chars = 0
    for number in range(1, bound.listing_pages + 1):
        before = connection.received_chars
        page = await connection.request(method, {"cursor": cursor} if cursor else {}, reason=reason)
        chars += connection.received_chars - before
        if chars > bound.listing_chars:
            raise ListingTooLong(
                method,
                f"its pages passed {bound.listing_chars:,} characters together "
                f"(the listing bound, {ENVIRONMENT['listing_chars']})",
                pages=number,
                chars=chars,
            )
        yield page
        next_cursor = page.get("nextCursor")
        if not isinstance(next_cursor, str) or not next_cursor:
            return
        if next_cursor in cursors:
            raise ListingTooLong(
                method,
                f"the server handed out cursor {next_cursor[:80]!r} twice, so the list would "
                "never end",
                pages=number,
                chars=chars,
            )
        cursors.add(next_cursor)
        cursor = next_cursor
    raise ListingTooLong(
        method,
        f"it did not end within {bound.listing_pages:,} pages "
        f"(the listing bound, {ENVIRONMENT['listing_pages']})",
        pages=bound.listing_pages,
        chars=chars,
    )
