"""The one walk over every paginated list: cursors followed, and one bound on pages and
characters gathered together, whichever list it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from app.engine.rpc.paging import ListingTooLong, pages
from app.engine.safety.limits import Limits, from_environment

SMALL = Limits(listing_chars=1000, listing_pages=5)


@dataclass
class PagingServer:
    """Answers page N with `{"items": [N], "nextCursor": cursor(N)}`, each `size` characters."""

    size: int = 100
    last: int | None = None
    """The last page's number (None: it pages forever)."""
    cursor: Any = None
    """How page N names the next (default "c<N+1>")."""
    received_chars: int = 0
    sent: list[dict[str, Any] | None] = field(default_factory=list)

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, reason: str = "user"
    ) -> dict[str, Any]:
        self.sent.append(params)
        number = len(self.sent)
        self.received_chars += self.size
        page: dict[str, Any] = {"items": [number]}
        if self.last is None or number < self.last:
            page["nextCursor"] = self.cursor(number) if self.cursor else f"c{number + 1}"
        return page


async def walk(server: PagingServer, limits: Limits = SMALL) -> list[int]:
    return [item async for page in pages(server, "x/list", limits=limits) for item in page["items"]]


async def test_a_list_within_the_bound_is_walked_to_its_last_page() -> None:
    server = PagingServer(last=3)
    assert await walk(server) == [1, 2, 3]
    assert server.sent == [{}, {"cursor": "c2"}, {"cursor": "c3"}]


async def test_pages_past_the_character_bound_stop_the_listing() -> None:
    server = PagingServer(size=300)
    with pytest.raises(ListingTooLong) as stopped:
        await walk(server)
    assert len(server.sent) == 4  # 1,200 characters: the fourth page passes 1,000
    assert (stopped.value.pages, stopped.value.chars) == (4, 1200)
    assert str(stopped.value) == (
        "x/list stopped after 4 pages (1,200 characters): its pages passed 1,000 characters "
        "together (the listing bound, TASKSCOPE_MAX_LISTING)"
    )


async def test_one_page_past_the_character_bound_stops_it_too() -> None:
    with pytest.raises(ListingTooLong, match=r"after 1 page \(5,000 characters\)"):
        await walk(PagingServer(size=5000, last=1))


async def test_a_list_that_pages_forever_stops_at_the_page_bound() -> None:
    server = PagingServer(size=1)
    with pytest.raises(ListingTooLong, match=r"did not end within 5 pages .*LISTING_PAGES\)"):
        await walk(server)
    assert len(server.sent) == 5


async def test_exactly_the_page_bound_is_allowed() -> None:
    assert await walk(PagingServer(size=1, last=5)) == [1, 2, 3, 4, 5]


async def test_a_cursor_handed_out_twice_stops_the_listing() -> None:
    server = PagingServer(size=1, cursor=lambda number: "again")
    with pytest.raises(ListingTooLong, match="cursor 'again' twice, so the list would never end"):
        await walk(server)
    assert server.sent == [{}, {"cursor": "again"}]


@pytest.mark.parametrize("cursor", ["", 7, None])
async def test_a_page_without_a_string_cursor_is_the_last(cursor: Any) -> None:
    server = PagingServer(cursor=lambda number: cursor)
    assert await walk(server) == [1]


def test_the_environment_sets_both_bounds() -> None:
    limits = from_environment({"TASKSCOPE_MAX_LISTING": "8M", "TASKSCOPE_MAX_LISTING_PAGES": "20"})
    assert (limits.listing_chars, limits.listing_pages) == (8 * 1024**2, 20)
    assert (Limits().listing_chars, Limits().listing_pages) == (64 * 1024**2, 1000)
