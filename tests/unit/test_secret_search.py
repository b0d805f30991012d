"""Finding learned secrets in text (`safety/secret_search`, `safety/redact`): the longest form
first, every echoed form, and a cost that neither the secrets' length nor how many were ever
learned makes grow (a sign-in server handing out 60 KB tokens on every request)."""

from __future__ import annotations

import secrets
import tracemalloc

from app.engine.safety.redact import MAX_LEARNED_SECRETS, REDACTED, Redactor, learn_secrets
from app.engine.safety.secret_search import SecretSearch

HUGE_TOKEN_CHARS = 60 * 1024
LEARNING_PEAK_BYTES = 2 * 1024 * 1024
"""Python memory one more 60 KB token may take to learn: its forms, and a search of heads."""


def huge_token() -> str:
    return secrets.token_urlsafe(HUGE_TOKEN_CHARS)[:HUGE_TOKEN_CHARS]


def test_the_longest_form_wins_where_several_start() -> None:
    search = SecretSearch(["abcd", "abcdefgh" * 8, "cdef"])
    text = "x abcdefgh" + "abcdefgh" * 7 + " abcdZ abcdefgX cdef"
    assert search.replace(text, "#") == "x # #Z #efgX #"
    assert search.replace("nothing here", "#") == "nothing here"
    assert not SecretSearch([]) and SecretSearch([]).replace("text", "#") == "text"
    assert SecretSearch([""]).replace("text", "#") == "text"


def test_a_long_secret_is_found_in_every_echoed_form() -> None:
    token = "tok/" + "+" * 40 + "ZETA7731"
    redactor = Redactor.build(secrets=[token])
    for echoed in (token, token.replace("/", "\\/"), "tok%2F" + "%2B" * 40 + "ZETA7731"):
        assert redactor.text(f"seen: {echoed}!") == f"seen: {REDACTED}!"
    near_miss = token[:-1] + "X"
    assert redactor.text(near_miss) == near_miss


def test_learning_a_60_kb_token_costs_the_same_however_many_came_before() -> None:
    """Each refresh of a storm learns two new tokens: the memory one more takes stays bounded
    (before, every one rebuilt a pattern of every form of every token learned so far)."""
    for _ in range(8):
        learn_secrets(huge_token())
    newest = huge_token()
    tracemalloc.start()
    try:
        learn_secrets(newest)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < LEARNING_PEAK_BYTES
    assert Redactor().text(f'{{"access_token": "{newest}"}}') == f'{{"access_token": "{REDACTED}"}}'


def test_a_secret_in_use_outlives_newer_ones() -> None:
    """The learned set is bounded; one used again (the token sent on every request) is kept
    while more than the bound of newer ones come and go."""
    in_use, forgotten = "in-use-7d6c5b", "forgotten-4a3b2c"
    learn_secrets(forgotten, in_use)
    for number in range(MAX_LEARNED_SECRETS + 10):
        learn_secrets(f"passing-secret-{number:05d}")
        learn_secrets(in_use)
    assert Redactor().text(in_use) == REDACTED
    assert Redactor().text(forgotten) == forgotten
