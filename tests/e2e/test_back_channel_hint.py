"""A dual-era server whose tool asks a question fails a plain call on the modern era (no
back-channel): the CLI says the questions need the legacy era and gives the `--era legacy`
command; on the legacy era the same call succeeds."""

from __future__ import annotations

import shlex
import sys

import pytest

from tests.support.cli_helpers import run_cli

pytestmark = pytest.mark.slow

SERVER = (sys.executable, "-m", "tests.support.servers.no_back_channel", "--fails-with")
COMMAND = "taskscope tools call --era legacy --tool-name confirm_deploy"


def call(fails_with: str, *flags: str) -> tuple[str, ...]:
    server = shlex.join([*SERVER, fails_with])
    return ("tools", "call", "--command", server, "--tool-name", "confirm_deploy", *flags)


def test_a_back_channel_error_names_the_legacy_era_command() -> None:
    run = run_cli(*call("rpc-error"))
    assert run.code == 1, run.stderr
    error = run.error
    assert (error["code"], error["details"]["code"]) == ("RPC_ERROR", -32600)
    assert "legacy era" in error["details"]["hint"]
    assert COMMAND in error["details"]["hint"]


def test_a_back_channel_is_error_result_gets_the_hint_as_a_note() -> None:
    run = run_cli(*call("is-error"))
    assert run.code == 1, run.stderr
    assert run.document["isError"] is True
    assert COMMAND in run.stderr


def test_the_legacy_era_call_succeeds_without_a_hint() -> None:
    run = run_cli(*call("rpc-error", "--era", "legacy"))
    assert run.code == 0, run.stderr
    assert run.document["content"][0]["text"] == "deployed"
    assert "--era legacy" not in run.stderr
