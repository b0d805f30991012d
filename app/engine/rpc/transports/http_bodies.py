"""What an HTTP response carries: its body as text and JSON-RPC messages, and an error response
(or a redirect) as a TransportError."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.engine.rpc.transports.base import (
    Inbound,
    TransportError,
    classify_value,
    parse_retry_after,
)
from app.engine.rpc.transports.http_client import HttpResponse
from app.engine.safety import deep_json

BODY_EXCERPT = 500


def excerpt(text: str) -> str:
    """The start of an HTTP body, for error messages."""
    text = text.strip()
    return text if len(text) <= BODY_EXCERPT else text[:BODY_EXCERPT] + "…"


def body_text(body: bytes) -> str:
    """A body as text: UTF-8 (bad bytes replaced), without the byte order mark some servers put
    before their JSON."""
    if body[:3] == b"\xef\xbb\xbf":
        body = body[3:]
    return body.decode("utf-8", errors="replace")


def http_failure(response: HttpResponse, body: str) -> TransportError:
    """An HTTP error response (or a redirect, with its `Location`) that carried no JSON-RPC
    answer."""
    status = response.status_code
    summary = f"HTTP {status} {response.reason_phrase}".strip()
    if 300 <= status < 400:
        location = response.headers.get("location")
        summary += (
            f": the server redirects to {excerpt(location)}; taskscope does not follow "
            "redirects (they would carry the credentials), so connect to that URL if you trust it"
            if location
            else ": a redirect without a Location"
        )
    elif body.strip():
        summary += f": {excerpt(body)}"
    return TransportError(
        "http",
        summary,
        http_status=status,
        retry_after=parse_retry_after(response.headers.get("retry-after")),
        body=excerpt(body),
    )


def failure_inbound(
    failure: TransportError, body: str, headers: Mapping[str, str], answers: str | int | None
) -> Inbound:
    """An HTTP error response without a JSON-RPC answer as the frame that says so: its body's
    excerpt and the failure, answering the request `answers` (when it was one)."""
    return Inbound(
        message=None,
        raw=excerpt(body) or None,
        error=failure.message,
        http_status=failure.http_status,
        headers=headers,
        retry_after=failure.retry_after,
        answers=answers,
    )


def plain_headers(response: HttpResponse) -> Mapping[str, str]:
    """The response's headers as a plain mapping by lower-case name, shared by its messages."""
    headers = response.headers
    return headers if type(headers) is dict else dict(headers)


def inbound_from_body(
    text: str, status: int, headers: Mapping[str, str], retry_after: float | None
) -> list[Inbound]:
    """The messages of a JSON body (one message or a batch), each with the response's details."""
    if not text.strip():
        return []
    try:
        value = deep_json.loads(text)
    except ValueError:
        return [Inbound(message=None, raw=excerpt(text), error="malformed JSON body")]
    items = []
    batch = value if isinstance(value, list) else [value]
    share = len(text) // max(1, len(batch))
    for item in batch:
        parsed = classify_value(item, "", share)
        if parsed.message is None:  # only a rejected item needs its text
            parsed = classify_value(item, deep_json.dumps(item))
        items.append(replace(parsed, http_status=status, headers=headers, retry_after=retry_after))
    return items


def adopt_lone_error(items: list[Inbound], rpc_id: str | int | None) -> list[Inbound]:
    """Mark the one error response of a POST's JSON body as the answer to the POST's request
    when no message names that request (an error with `id` null, a string or another number)."""
    if rpc_id is None:
        return items
    messages = [item.message for item in items if item.message is not None]
    if any(answers(message, rpc_id) for message in messages):
        return items
    errors = [i for i, item in enumerate(items) if _is_error_response(item.message)]
    if len(errors) != 1:
        return items
    adopted = list(items)
    adopted[errors[0]] = replace(items[errors[0]], answers=rpc_id)
    return adopted


def _is_error_response(message: Mapping[str, Any] | None) -> bool:
    return (
        message is not None and "method" not in message and isinstance(message.get("error"), dict)
    )


def answers(message: Mapping[str, Any], rpc_id: str | int | None) -> bool:
    """Whether `message` is the response to our request `rpc_id`."""
    return rpc_id is not None and "method" not in message and message.get("id") == rpc_id
