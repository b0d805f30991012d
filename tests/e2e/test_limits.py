"""The bounds on what taskscope buffers, and how the environment sets them."""

from __future__ import annotations

import shlex
import sys

import pytest

from app.engine.safety.limits import MAX_BODY_BYTES, Limits, LimitsError, from_environment
from tests.support.cli_helpers import clean_env, run_cli
from tests.support.demo_servers import SUPPORT_SERVERS


def test_the_defaults_hold_when_nothing_is_set() -> None:
    assert from_environment({}) == Limits()
    assert Limits().body_bytes == MAX_BODY_BYTES


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1000", 1000),
        ("256M", 256 * 1024**2),
        ("2 GiB", 2 * 1024**3),
        ("64k", 65536),
        ("8KB", 8192),
    ],
)
def test_sizes_take_a_unit(text: str, value: int) -> None:
    assert from_environment({"TASKSCOPE_MAX_BODY": text}).body_bytes == value


@pytest.mark.parametrize("text", ["0", "-1", "lots", "1T", "9" * 40])
def test_a_value_that_is_not_a_positive_size_is_refused_by_name(text: str) -> None:
    with pytest.raises(LimitsError, match="TASKSCOPE_MAX_LINE"):
        from_environment({"TASKSCOPE_MAX_LINE": text})


def test_the_cli_refuses_a_bad_bound_before_connecting() -> None:
    run = run_cli(
        "tasks", "capabilities", "--demo", "legacy", env=clean_env(TASKSCOPE_MAX_HEAD="x")
    )
    assert run.code == 2
    assert run.error["code"] == "USAGE" and "TASKSCOPE_MAX_HEAD" in run.error["message"]


def test_a_bound_set_in_the_environment_applies_and_is_named_when_hit() -> None:
    run = run_cli("tools", "list", "--demo", "legacy", env=clean_env(TASKSCOPE_MAX_LINE="1K"))
    assert run.code == 1
    assert "stdio line limit (1,024 bytes, TASKSCOPE_MAX_LINE)" in run.stderr


# -- listings --------------------------------------------------------------------------------------

LISTINGS = [
    (("resources", "list"), "resources/list"),
    (("prompts", "list"), "prompts/list"),
    (("tools", "list"), "tools/list"),
    (("tasks", "list"), "tasks/list"),
]


def paging_server(pages: int, page_bytes: int) -> list[str]:
    """`--command` for the paging server: `pages` pages of about `page_bytes` bytes each."""
    server = [sys.executable, str(SUPPORT_SERVERS / "paging_stdio.py")]
    return [
        "--command",
        shlex.join([*server, "--pages", str(pages), "--page-bytes", str(page_bytes)]),
    ]


@pytest.mark.parametrize(("verb", "method"), LISTINGS)
def test_a_listing_past_its_character_bound_stops_with_a_clear_error(
    verb: tuple[str, str], method: str
) -> None:
    run = run_cli(*verb, *paging_server(20, 100_000), env=clean_env(TASKSCOPE_MAX_LISTING="256K"))
    assert run.code == 1 and run.stdout == ""
    assert run.error["code"] == "LIST_TOO_LONG"
    message = run.error["message"]
    assert message.startswith(f"{method} stopped after 3 pages (")  # ~300,000 characters
    assert message.endswith(
        "its pages passed 262,144 characters together (the listing bound, TASKSCOPE_MAX_LISTING)"
    )
    assert run.error["details"]["pages"] == 3


def test_a_listing_that_pages_on_stops_at_the_page_bound() -> None:
    run = run_cli(
        "resources",
        "list",
        *paging_server(50, 500),
        env=clean_env(TASKSCOPE_MAX_LISTING_PAGES="10"),
    )
    assert run.code == 1
    assert run.error["code"] == "LIST_TOO_LONG"
    assert run.error["message"].endswith(
        "it did not end within 10 pages (the listing bound, TASKSCOPE_MAX_LISTING_PAGES)"
    )


def test_a_listing_within_the_bounds_prints_every_page() -> None:
    """150 pages: past the 100 at which `resources list` once stopped without a word."""
    run = run_cli("resources", "list", *paging_server(150, 300))
    assert run.code == 0, run.stderr
    names = [resource["name"] for resource in run.document["resources"]]
    assert names[0] == "resources-0-0" and names[-1].startswith("resources-149-")
    assert len({name.split("-")[1] for name in names}) == 150
