"""Recognise a plain tool call that failed because the server could not ask its questions on a
2026-07-28 connection, which has no back-channel (Python SDK 2.x, FastMCP 4.2), and say that
those questions need the legacy era: the one detection and wording of both faces (the CLI's
`tools call`, the inspector's `n`), each naming its own command."""

from __future__ import annotations

import shlex
from typing import Any

from app.engine.rpc.era import is_modern_version
from app.engine.rpc.rpc_types import RpcError
from app.engine.safety.sanitize import clean_text

INVALID_REQUEST = -32600
BACK_CHANNEL_WORDS = ("back-channel", "back channel", "backchannel")
SCANNED_CONTENT_ITEMS = 20
"""Content items of an `isError` result read for the words (a result may be huge)."""
SCANNED_CHARS = 2_000
"""Characters of each item's text (and of an error message) read for the words."""
INSPECTOR_ON_LEGACY = "taskscope --era legacy"
"""The inspector's command on the legacy era (the run's target flags follow it)."""


def back_channel_hint(
    failure: RpcError | dict[str, Any], protocol_version: str, command: str
) -> str | None:
    """The legacy-era hint naming `command` when `failure` (a plain call's error or result, on a
    connection of `protocol_version`) is a modern connection's refusal for want of a
    back-channel; None for any other failure or era."""
    if is_modern_version(protocol_version) and refused_for_back_channel(failure):
        return legacy_era_hint(command)
    return None


def refused_for_back_channel(failure: RpcError | dict[str, Any]) -> bool:
    """Whether a -32600 error, or an `isError` CallToolResult, says it has no back-channel."""
    if isinstance(failure, RpcError):
        return failure.code == INVALID_REQUEST and _mentions_back_channel(failure.message)
    if failure.get("isError") is not True or not isinstance(failure.get("content"), list):
        return False
    items = failure["content"][:SCANNED_CONTENT_ITEMS]
    texts = (item.get("text") for item in items if isinstance(item, dict))
    return any(isinstance(text, str) and _mentions_back_channel(text) for text in texts)


def legacy_era_hint(command: str) -> str:
    """What to do: run `command`, on the legacy era, where the server can ask on the call."""
    return (
        "the server's questions need the legacy era (this 2026-07-28 connection gives it no "
        f"back-channel to ask on): run `{command}` with this run's other flags"
    )


def tools_call_on_legacy(tool: str) -> str:
    """The CLI's command: call `tool` again on the legacy era."""
    return f"taskscope tools call --era legacy --tool-name {shlex.quote(clean_text(tool))}"


def _mentions_back_channel(text: str) -> bool:
    head = text[:SCANNED_CHARS].lower()
    return any(word in head for word in BACK_CHANNEL_WORDS)
