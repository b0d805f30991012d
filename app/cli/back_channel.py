"""Recognise a plain tool call that failed because the server could not ask its questions on a
2026-07-28 connection, which has no back-channel (Python SDK 2.x, FastMCP 4.2), and say that
those questions need the legacy era."""

from __future__ import annotations

import shlex
from typing import Any

from app.engine.rpc.rpc_types import RpcError
from app.engine.safety.sanitize import clean_text

INVALID_REQUEST = -32600
BACK_CHANNEL_WORDS = ("back-channel", "back channel", "backchannel")
SCANNED_CONTENT_ITEMS = 20
"""Content items of an `isError` result read for the words (a result may be huge)."""
SCANNED_CHARS = 2_000
"""Characters of each item's text (and of an error message) read for the words."""


def refused_for_back_channel(failure: RpcError | dict[str, Any]) -> bool:
    """Whether a -32600 error, or an `isError` CallToolResult, says it has no back-channel."""
    if isinstance(failure, RpcError):
        return failure.code == INVALID_REQUEST and _mentions_back_channel(failure.message)
    if failure.get("isError") is not True or not isinstance(failure.get("content"), list):
        return False
    items = failure["content"][:SCANNED_CONTENT_ITEMS]
    texts = (item.get("text") for item in items if isinstance(item, dict))
    return any(isinstance(text, str) and _mentions_back_channel(text) for text in texts)


def legacy_era_hint(tool: str) -> str:
    """What to do: call the tool on the legacy era, where the server can ask on the call."""
    command = f"taskscope tools call --era legacy --tool-name {shlex.quote(clean_text(tool))}"
    return (
        "the server's questions need the legacy era (this 2026-07-28 connection gives it no "
        f"back-channel to ask on): run `{command}` with this run's other flags"
    )


def _mentions_back_channel(text: str) -> bool:
    head = text[:SCANNED_CHARS].lower()
    return any(word in head for word in BACK_CHANNEL_WORDS)
