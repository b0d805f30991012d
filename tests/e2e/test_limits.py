"""The bounds on what taskscope buffers, and how the environment sets them."""

from __future__ import annotations

import pytest

from app.engine.safety.limits import MAX_BODY_BYTES, Limits, LimitsError, from_environment
from tests.support.cli_helpers import clean_env, run_cli


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
