"""Row keys of several servers (`server_keys`): the server and its own id, both ways."""

from __future__ import annotations

from app.engine.tasks.server_keys import bare_id, row_key, server_name, split_key


def test_a_key_splits_back_into_its_server_and_id_even_when_the_id_holds_the_separator() -> None:
    key = row_key("github", "odd · id")
    assert key == "github · odd · id"
    assert split_key(key, {"github", "linear"}) == ("github", "odd · id")
    assert bare_id(key, "github") == "odd · id"


def test_a_key_of_no_known_server_is_none_and_one_server_keys_are_ids() -> None:
    assert split_key("jira · 7", {"github"}) is None
    assert split_key("plain-id", {"github"}) is None
    assert bare_id("plain · id", None) == "plain · id"


def test_config_names_cannot_hold_the_separator() -> None:
    assert server_name("a · b") == "a - b"
    assert server_name("") == "unnamed"
    assert server_name(" · · ") == " - - "  # one pass would leave " - · "
    assert server_name("a · · b") == server_name(server_name("a · · b"))
