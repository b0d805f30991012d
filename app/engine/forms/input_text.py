"""How any face presents and answers an `InputRequest`: sampling message text, a URL's host,
`roots/list` entries, the sampling result a person's reply becomes, and the error a declined
server request is answered with.

Shared by the CLI prompts and the TUI modals so both show and send exactly the same thing. Every
server string that comes out of here is sanitized.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app.engine.safety.sanitize import clean_text

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest

REJECT_CODE = -1
"""The JSON-RPC error code a declined server request is answered with, as the TS SDK answers a
declined `sampling/createMessage`: the protocol has no result meaning "no"."""


def message_text(message: dict[str, Any]) -> str:
    """The text of a sampling message's content (non-text blocks shown by type), sanitized."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else [content]
    parts = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(clean_text(block.get("text", ""), allow_newlines=True))
        elif isinstance(block, dict):
            parts.append(f"<{clean_text(block.get('type'))} content>")
    return " ".join(parts)


def describe_host(url: str) -> str:
    """The URL's host, shown decoded and raw when it is (or contains) punycode."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return "(not a valid URL)"
    if not host:
        return "(none)"
    try:
        decoded = host.encode("ascii").decode("idna") if host.isascii() else host
        raw = host if host.isascii() else host.encode("idna").decode("ascii")
    except (UnicodeError, ValueError):
        return clean_text(host)
    if decoded == raw:
        return clean_text(host)
    return f"{clean_text(decoded)} (raw: {clean_text(raw)})"


def root_entries(paths: Sequence[str]) -> list[dict[str, str]]:
    """`--root` paths as `roots/list` entries with `file://` URIs."""
    entries = []
    for path in paths:
        resolved = Path(path).expanduser().resolve()
        entries.append({"uri": resolved.as_uri(), "name": resolved.name or str(resolved)})
    return entries


def sampling_result(reply: str, model: str, stop_reason: str = "endTurn") -> dict[str, Any]:
    """The CreateMessageResult for an assistant reply a person typed."""
    return {
        "role": "assistant",
        "content": {"type": "text", "text": reply},
        "model": model,
        "stopReason": stop_reason,
    }


def rejection_message(request: InputRequest) -> str:
    """The error message a declined request is answered with, e.g. "User rejected sampling
    request" (the TS SDK's words)."""
    from app.engine.tasks.models import InputKind

    names = {InputKind.SAMPLING: "sampling", InputKind.ROOTS: "roots"}
    return f"User rejected {names.get(request.kind, request.method)} request"
