"""The pacing rule: the largest requested delay wins, named by its term, never below the floor."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.polling.pacing import BACKOFF_CAP_S, FLOOR_S, backoff_s, next_delay


@pytest.mark.parametrize(
    ("server", "user", "retry_after", "errors", "expected"),
    [
        # No hint, no user minimum: the 1000 ms default, named "user".
        (None, None, None, 0, (1.0, "user")),
        # The server's hint alone sets the pace, even when it is faster than the default.
        (500, None, None, 0, (0.5, "server")),
        (5000, None, None, 0, (5.0, "server")),
        # The user's minimum only raises the delay above the server's hint.
        (500, 2000, None, 0, (2.0, "user")),
        (3000, 2000, None, 0, (3.0, "server")),
        # Ties name the server.
        (2000, 2000, None, 0, (2.0, "server")),
        (2000, None, 2.0, 0, (2.0, "server")),
        # A user minimum replaces the default when the server gives no hint.
        (None, 300, None, 0, (0.3, "user")),
        # Nothing below 250 ms.
        (100, None, None, 0, (FLOOR_S, "floor")),
        (0, None, None, 0, (FLOOR_S, "floor")),
        (None, 10, None, 0, (FLOOR_S, "floor")),
        (-5, None, None, 0, (FLOOR_S, "floor")),
        # Retry-After wins when it is the longest, uncapped.
        (1000, None, 30.0, 1, (30.0, "retry-after")),
        (1000, None, 600.0, 1, (600.0, "retry-after")),
        (1000, None, 0.0, 0, (1.0, "server")),
        # Backoff 1, 2, 4, 8 … 60 s; it beats the default on ties.
        (None, None, None, 1, (1.0, "backoff")),
        (None, None, None, 2, (2.0, "backoff")),
        (None, None, None, 3, (4.0, "backoff")),
        (None, None, None, 7, (60.0, "backoff")),
        (None, None, None, 500, (60.0, "backoff")),
        # A server's hint above the backoff cap is honoured as is.
        (120_000, None, None, 9, (120.0, "server")),
        (500, None, None, 2, (2.0, "backoff")),
    ],
)
def test_table(
    server: int | None,
    user: int | None,
    retry_after: float | None,
    errors: int,
    expected: tuple[float, str],
) -> None:
    delay, term = next_delay(
        server_hint_ms=server,
        user_min_ms=user,
        retry_after_s=retry_after,
        consecutive_errors=errors,
    )
    assert delay == pytest.approx(expected[0])
    assert term == expected[1]


def test_backoff_doubles_until_cap() -> None:
    assert [backoff_s(n) for n in range(9)] == [None, 1, 2, 4, 8, 16, 32, 60, 60]


optional_ms = st.none() | st.integers(min_value=-1000, max_value=10_000_000)
optional_s = st.none() | st.floats(min_value=-10, max_value=100_000, allow_nan=False)


@given(
    server=optional_ms,
    user=optional_ms,
    retry_after=optional_s,
    errors=st.integers(min_value=0, max_value=10_000),
)
def test_delay_is_at_least_every_term_and_names_the_largest(
    server: int | None, user: int | None, retry_after: float | None, errors: int
) -> None:
    delay, term = next_delay(
        server_hint_ms=server,
        user_min_ms=user,
        retry_after_s=retry_after,
        consecutive_errors=errors,
    )
    terms: dict[str, float] = {"floor": FLOOR_S}
    if server is not None:
        terms["server"] = server / 1000
    if user is not None:
        terms["user"] = user / 1000
    if server is None and user is None:
        terms["user"] = 1.0
    if retry_after is not None:
        terms["retry-after"] = retry_after
    backoff = backoff_s(errors)
    if backoff is not None:
        terms["backoff"] = backoff
        assert backoff <= BACKOFF_CAP_S

    assert delay >= FLOOR_S
    assert all(delay >= value for value in terms.values())
    assert delay == pytest.approx(terms[term])
    if server is not None and server / 1000 == delay:
        assert term == "server"
