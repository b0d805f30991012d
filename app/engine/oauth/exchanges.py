"""Each HTTP exchange of an OAuth flow as the RPC log shows it: named, bounded, secrets hidden.

Secrets the authorization server hands out (tokens, a registered client secret) are learned by
every redactor before the exchange that carried them is reported, and those a request carries
(client secret, code, verifier, refresh token, assertion) before it is sent, so an answer that
echoes them hides them too; secret fields of the requests are also replaced field by field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import parse_qsl, quote, urlsplit

from app.engine.oauth.steps import AuthExchange
from app.engine.safety.redact import REDACTED, Redactor, learn_secrets, secret_values

BODY_EXCERPT_CHARS = 4000
SECRET_FIELDS = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "registration_access_token",
        "code",
        "code_verifier",
        "client_assertion",
        "assertion",
        "subject_token",
        "password",
    }
)
"""Fields of OAuth request and response bodies whose values are secrets."""
_REDACTOR = Redactor()
"""Hides what every redactor hides: `Authorization` headers and the learned secrets."""


RequestKind = Literal["metadata", "registration", "token"]


def request_kind(method: str, body: bytes) -> RequestKind:
    """What a request of the flow is for: the flow GETs metadata and POSTs a registration (JSON)
    or a token request (a form with `grant_type`)."""
    if method != "POST":
        return "metadata"
    return "token" if b"grant_type=" in body else "registration"


def purpose_of(method: str, url: str, body: bytes) -> str:
    """Why the flow sent this request, in words."""
    kind = request_kind(method, body)
    if kind == "token":
        grant = dict(parse_qsl(body.decode("utf-8", "replace"))).get("grant_type", "")
        return f"OAuth: token request ({grant or 'no grant type'})"
    if kind == "registration":
        return "OAuth: client registration (RFC 7591)"
    path = urlsplit(url).path
    if "/.well-known/oauth-protected-resource" in path:
        return "OAuth: protected resource metadata (RFC 9728)"
    if "/.well-known/oauth-authorization-server" in path:
        return "OAuth: authorization server metadata (RFC 8414)"
    if "/.well-known/openid-configuration" in path:
        return "OAuth: OpenID provider metadata"
    return "OAuth: metadata"


def learn_from_request(headers: Mapping[str, str], body: bytes) -> None:
    """Learn every secret a request of the flow carries (a form's code, PKCE verifier, refresh
    token, assertion or client secret; a `Basic` client secret) before it is sent, so an
    authorization server that echoes the request shows none of them. `headers` are named in
    lower case."""
    learn_secrets(*secret_values(headers))
    if "x-www-form-urlencoded" not in headers.get("content-type", ""):
        return
    form = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
    learn_secrets(*(value for key, value in form if key in SECRET_FIELDS))


def learn_from_response(body: bytes) -> None:
    """Learn every secret a JSON answer of the authorization server holds."""
    try:
        document = json.loads(body)
    except ValueError:
        return
    if isinstance(document, dict):
        learn_secrets(
            *(
                value
                for key, value in document.items()
                if key in SECRET_FIELDS and isinstance(value, str)
            )
        )


def shown_body(body: bytes, content_type: str) -> str | None:
    """A request or response body as the log shows it: secret fields replaced, bounded."""
    if not body:
        return None
    text = body.decode("utf-8", "replace")
    if "x-www-form-urlencoded" in content_type:
        pairs = parse_qsl(text, keep_blank_values=True)
        text = "&".join(
            f"{quote(key)}={REDACTED if key in SECRET_FIELDS else quote(value)}"
            for key, value in pairs
        )
    elif "json" in content_type:
        try:
            document: Any = json.loads(text)
        except ValueError:
            pass
        else:
            if isinstance(document, dict):
                document = {
                    key: REDACTED if key in SECRET_FIELDS else value
                    for key, value in document.items()
                }
            text = json.dumps(document, ensure_ascii=False)
    text = _REDACTOR.text(text)
    if len(text) > BODY_EXCERPT_CHARS:
        text = text[:BODY_EXCERPT_CHARS] + f"… ({len(text)} characters)"
    return text


def exchange_of(
    method: str,
    url: str,
    request_headers: Mapping[str, str],
    request_body: bytes,
    *,
    status: int | None,
    response_headers: Mapping[str, str],
    response_body: bytes,
    error: str | None,
    started_at: float,
    latency_ms: float | None,
) -> AuthExchange:
    """The exchange as reported: secrets learned from the answer first, then hidden everywhere."""
    learn_from_response(response_body)
    return AuthExchange(
        method=method,
        url=_REDACTOR.text(url),
        purpose=purpose_of(method, url, request_body),
        status=status,
        request_headers=_REDACTOR.headers(request_headers),
        response_headers=_REDACTOR.headers(response_headers),
        request_body=shown_body(request_body, request_headers.get("content-type", "")),
        response_body=shown_body(response_body, response_headers.get("content-type", "")),
        error=_REDACTOR.text(error) if error is not None else None,
        started_at=started_at,
        latency_ms=latency_ms,
    )
