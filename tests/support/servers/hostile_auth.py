"""An MCP server behind an authorization server whose token endpoint misbehaves, for the OAuth
hostile-input tests (the conn-test server of sdk_server.py, with the demo's in-memory
authorization server underneath, which approves every sign-in).

`--mode` picks the misbehaviour:
- `echo-form`: every token request is answered 400 `invalid_grant` whose `error_description`
  repeats the form it was sent (code, PKCE verifier and all), as some servers' debug modes do;
- `endless`: tokens say `expires_in: 1e20`;
- `instant`: 60 KB tokens that say they expire at once (`expires_in: -5`), accepted anyway;
- `crlf`: an access token holding CR LF, which no HTTP header can carry;
- `plain`: nothing amiss (for a client whose own stored credentials are the hostile part);
- `flaky`: every other `tools/list` is refused 401 `invalid_token` whatever token it carries
  (the tokens are good and refreshable), as a flapping gateway might;
- `slow`: each token request is answered after `SLOW_TOKEN_S`, as a loaded authorization
  server (or a client starved of CPU) takes its time.

In every mode `GET /heard` lists the `Authorization` of each MCP request received and the
`grant_type` of each token request, so a test knows which token went out and how often the
client refreshed.

Run: python -m tests.support.servers.hostile_auth --port N --mode MODE
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
from urllib.parse import parse_qsl

import uvicorn
from mcp.server.auth.provider import AccessToken, RefreshToken
from mcp.shared.auth import OAuthToken
from starlette.types import ASGIApp, Receive, Scope, Send

from app.demo.auth_server import DemoAuthProvider
from app.demo.http_guard import read_body, replay
from tests.support.servers.sdk_server import build_server, protection

MODES = ("echo-form", "endless", "instant", "crlf", "plain", "flaky", "slow")
SLOW_TOKEN_S = 4.0
"""How long the `slow` mode's token endpoint takes to answer."""
HUGE_TOKEN_CHARS = 60 * 1024
ENDLESS_EXPIRES_IN = 10**20
"""`1e20` as the SDK's `OAuthToken` carries it (an int)."""
INSTANT_EXPIRES_IN = -5


class HostileAuthProvider(DemoAuthProvider):
    """The demo's authorization server, issuing the tokens `mode` calls for; the MCP endpoint
    takes every token it issued, whatever the token said about its expiry."""

    def __init__(self, mode: str) -> None:
        super().__init__(token_ttl_s=3600)
        self.mode = mode

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        size = HUGE_TOKEN_CHARS if self.mode == "instant" else 32
        access, refresh = _token(size), _token(size)
        if self.mode == "crlf":
            access = f"{access}\r\nX-Injected: yes"
        self.access_tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=None, resource=resource
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        expires_in = {"endless": ENDLESS_EXPIRES_IN, "instant": INSTANT_EXPIRES_IN}
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=expires_in.get(self.mode, 3600),
            refresh_token=refresh,
            scope=" ".join(scopes),
        )


def _token(size: int) -> str:
    """A random URL-safe token of `size` characters."""
    return secrets.token_urlsafe(size)[:size]


class EchoingTokenEndpoint:
    """ASGI: every POST to `/token` is answered 400 `invalid_grant`, the form echoed back;
    `GET /seen` lists the forms received, so a test knows the secrets it must not find."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._seen: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/seen":
            await _answer(send, 200, json.dumps(self._seen).encode())
            return
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/token":
            await self._app(scope, receive, send)
            return
        form = (await read_body(receive)).decode("utf-8", "replace")
        self._seen.append(form)
        description = {"error": "invalid_grant", "error_description": f"bad request: {form}"}
        await _answer(send, 400, json.dumps(description).encode())


async def _answer(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Heard:
    """ASGI: notes the `Authorization` of every POST to `/mcp` and the `grant_type` of every
    POST to `/token` (`GET /heard` lists them); with `flaky`, answers every other `tools/list`
    401 `invalid_token` instead of passing it on; answers each token request after
    `token_delay` seconds."""

    def __init__(self, app: ASGIApp, *, flaky: bool, token_delay: float = 0.0) -> None:
        self._app = app
        self._flaky = flaky
        self._token_delay = token_delay
        self._authorizations: list[str | None] = []
        self._grants: list[str] = []
        self._listings = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        if scope["path"] == "/heard":
            heard = {"authorizations": self._authorizations, "grants": self._grants}
            await _answer(send, 200, json.dumps(heard).encode())
            return
        if scope["method"] != "POST" or scope["path"] not in ("/mcp", "/token"):
            await self._app(scope, receive, send)
            return
        body = await read_body(receive)
        if scope["path"] == "/token":
            self._grants.append(
                dict(parse_qsl(body.decode("utf-8", "replace"))).get("grant_type", "")
            )
            await asyncio.sleep(self._token_delay)
        else:
            headers = {name.decode("latin-1"): value for name, value in scope["headers"]}
            authorization = headers.get("authorization")
            self._authorizations.append(authorization.decode("latin-1") if authorization else None)
            if self._flaky and authorization and _method(body) == "tools/list":
                self._listings += 1
                if self._listings % 2 == 1:
                    await _refuse(send)
                    return
        await self._app(scope, replay(body, receive), send)


def _method(body: bytes) -> object:
    try:
        message = json.loads(body)
    except ValueError:
        return None
    return message.get("method") if isinstance(message, dict) else None


async def _refuse(send: Send) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"www-authenticate", b'Bearer error="invalid_token"'),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": b'{"error": "invalid_token"}'})


def protected(port: int, mode: str) -> ASGIApp:
    """The Streamable HTTP app of the conn-test server behind the hostile authorization server."""
    auth = protection(port, "http", HostileAuthProvider(mode))
    app = build_server(legacy_only=False, auth=auth).streamable_http_app()
    if mode == "echo-form":
        app = EchoingTokenEndpoint(app)
    return Heard(app, flaky=mode == "flaky", token_delay=SLOW_TOKEN_S if mode == "slow" else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=MODES, required=True)
    args = parser.parse_args()
    uvicorn.run(
        protected(args.port, args.mode), host="127.0.0.1", port=args.port, log_level="warning"
    )


if __name__ == "__main__":
    main()
