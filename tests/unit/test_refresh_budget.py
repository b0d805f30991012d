"""How often a refused token may be refreshed: by the life the server gives its tokens."""

from __future__ import annotations

import pytest

from app.engine.oauth.refresh_budget import MIN_REFRESH_INTERVAL_S, RefreshBudget
from tests.support.manual_clock import ManualClock


def refreshes_in_one_window(expires_in: object) -> int:
    """How many refusals in a burst refresh before the budget says no."""
    budget = RefreshBudget(ManualClock())
    made = 0
    while budget.refused_since() is None and made < 100:
        budget.refreshed(expires_in)
        made += 1
    return made


def test_a_token_said_to_live_an_hour_is_refreshed_once_a_window() -> None:
    clock = ManualClock()
    budget = RefreshBudget(clock)
    assert budget.refused_since() is None
    budget.refreshed(3600)
    clock.now += 5
    assert budget.refused_since() == 5
    clock.now += MIN_REFRESH_INTERVAL_S
    assert budget.refused_since() is None


def test_a_token_said_to_live_a_second_is_refreshed_every_second() -> None:
    assert refreshes_in_one_window(1) == int(MIN_REFRESH_INTERVAL_S)
    assert refreshes_in_one_window(10) == 3
    clock = ManualClock()
    budget = RefreshBudget(clock)
    for _ in range(100):  # a second apart, as long as it goes on
        assert budget.refused_since() is None
        budget.refreshed(1)
        clock.now += 1.0


ABSURD_LIVES = [-5, 0, 0.001, float("nan"), "soon", None, True, 1e400, 10**400, -(10**400)]


@pytest.mark.parametrize("expires_in", ABSURD_LIVES)
def test_an_absurd_or_missing_life_bounds_the_refreshes(expires_in: object) -> None:
    made = refreshes_in_one_window(expires_in)
    assert 1 <= made <= int(MIN_REFRESH_INTERVAL_S)


def test_signing_out_forgets_the_refreshes() -> None:
    budget = RefreshBudget(ManualClock())
    budget.refreshed(3600)
    assert budget.refused_since() is not None
    budget.clear()
    assert budget.refused_since() is None
