"""Recognising a plain tool call that failed because a modern connection has no back-channel for
the server's questions (Python SDK 2.x, FastMCP 4.2), and the `--era legacy` hint for it."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.rpc.back_channel import (
    INSPECTOR_ON_LEGACY,
    back_channel_hint,
    refused_for_back_channel,
    tools_call_on_legacy,
)
from app.engine.rpc.rpc_types import RpcError

MESSAGE = "Elicitation is not available: this request has no back-channel to the client"


def text_result(text: str, *, is_error: bool = True) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


@pytest.mark.parametrize(
    "failure",
    [
        RpcError(-32600, MESSAGE),
        RpcError(-32600, "No BACK CHANNEL for elicitation"),
        RpcError(-32600, "request has no backchannel"),
        text_result(f"Error executing tool ask: {MESSAGE}"),
        {"content": [{"type": "image"}, {"type": "text", "text": MESSAGE}], "isError": True},
    ],
)
def test_a_missing_back_channel_is_recognised(failure: RpcError | dict[str, Any]) -> None:
    assert refused_for_back_channel(failure)


@pytest.mark.parametrize(
    "failure",
    [
        RpcError(-32603, MESSAGE),  # another code: not the SDKs' refusal
        RpcError(-32600, "invalid request"),
        text_result(MESSAGE, is_error=False),  # a tool that merely talks about back-channels
        text_result("the deploy failed"),
        {"content": "no back-channel", "isError": True},  # malformed content
        {"content": [{"type": "text", "text": 7}, None], "isError": True},
        {"isError": True},
    ],
)
def test_other_failures_are_not(failure: RpcError | dict[str, Any]) -> None:
    assert not refused_for_back_channel(failure)


def test_only_the_first_characters_of_a_huge_result_are_read() -> None:
    late = text_result("x" * 1_000_000 + " no back-channel")
    assert not refused_for_back_channel(late)


def test_the_hint_names_the_legacy_era_command_with_the_tool_quoted() -> None:
    command = tools_call_on_legacy("ask user")
    hint = back_channel_hint(RpcError(-32600, MESSAGE), "2026-07-28", command)
    assert hint is not None and "legacy era" in hint
    assert "taskscope tools call --era legacy --tool-name 'ask user'" in hint


def test_the_inspector_gets_the_same_sentence_with_its_own_command() -> None:
    hint = back_channel_hint(text_result(MESSAGE), "2026-07-28", INSPECTOR_ON_LEGACY)
    assert hint is not None and "the server's questions need the legacy era" in hint
    assert "`taskscope --era legacy`" in hint


def test_no_hint_on_the_legacy_era() -> None:
    assert back_channel_hint(RpcError(-32600, MESSAGE), "2025-11-25", INSPECTOR_ON_LEGACY) is None
