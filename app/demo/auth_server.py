"""`taskscope demo-server --transport http --auth`: the demo behind MCP authorization.

The SDK serves the OAuth routes (metadata, dynamic registration, authorize, token, revoke) and
the protected-resource metadata, and checks the bearer on `/mcp`; this module is the in-memory
authorization server behind them. Its "sign-in" approves at once — the browser's visit to the
authorization URL is the consent — so tests and a person try the whole flow without an account.
Access tokens live `token_ttl_s` seconds (short ones exercise refresh); refresh tokens rotate.
`migrate_database` needs the `admin` scope on top of `tasks`: a call without it is answered 403
`insufficient_scope` (`StepUpGuard`), so a client must step up.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    ProviderTokenVerifier,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.lowlevel import Server
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.demo.http_guard import read_body, replay

CODE_TTL_S = 300
SCOPE = "tasks"
ADMIN_SCOPE = "admin"
ADMIN_TOOLS = frozenset({"migrate_database"})


class DemoAuthProvider:
    """An in-memory OAuth 2.1 authorization server that approves every sign-in."""

    def __init__(self, token_ttl_s: int) -> None:
        self.token_ttl_s = token_ttl_s
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.access_tokens: dict[str, AccessToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Register the client for every scope this server has (so it may step up later)."""
        assert client_info.client_id is not None
        client_info.scope = f"{SCOPE} {ADMIN_SCOPE}"
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(32)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + CODE_TTL_S,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        code = self.codes.get(authorization_code)
        return code if code is not None and code.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        token = self.refresh_tokens.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh_tokens.pop(refresh_token.token, None)
        return self._issue(
            refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access_tokens.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access_tokens.pop(token.token, None)
        self.refresh_tokens.pop(token.token, None)

    async def exchange_identity_assertion(self, *args: Any, **kwargs: Any) -> OAuthToken:
        raise NotImplementedError("the demo authorization server has no identity assertion grant")

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        expires_at = int(time.time()) + self.token_ttl_s
        self.access_tokens[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=expires_at,
            resource=resource,
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.token_ttl_s,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )


def protected_app(server: Server[Any], host: str, port: int, token_ttl_s: int) -> ASGIApp:
    """The SDK's Streamable HTTP app of `server` behind authorization, with the step-up guard."""
    base = f"http://{host}:{port}"
    provider = DemoAuthProvider(token_ttl_s)
    settings = AuthSettings(
        issuer_url=base,  # type: ignore[arg-type]
        resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE, ADMIN_SCOPE], default_scopes=[SCOPE]
        ),
        revocation_options=RevocationOptions(enabled=True),
        required_scopes=[SCOPE],
        validate_token_resource=False,
    )
    app = server.streamable_http_app(
        host=host,
        auth=settings,
        auth_server_provider=provider,
        token_verifier=ProviderTokenVerifier(provider),
    )
    return StepUpGuard(app, provider, f"{base}/.well-known/oauth-protected-resource/mcp")


class StepUpGuard:
    """ASGI: a `tools/call` of an admin tool whose token lacks `admin` gets 403
    `insufficient_scope` naming the scopes it needs (the MCP scope challenge)."""

    def __init__(self, app: ASGIApp, provider: DemoAuthProvider, resource_metadata: str) -> None:
        self._app = app
        self._provider = provider
        self._challenge = (
            f'Bearer error="insufficient_scope", scope="{SCOPE} {ADMIN_SCOPE}", '
            f'resource_metadata="{resource_metadata}"'
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        body = await read_body(receive)
        if await self._lacks_admin(scope, body):
            response = JSONResponse(
                {"error": "insufficient_scope", "error_description": "needs the admin scope"},
                status_code=403,
                headers={"WWW-Authenticate": self._challenge},
            )
            await response(scope, receive, send)
            return
        await self._app(scope, replay(body, receive), send)

    async def _lacks_admin(self, scope: Scope, body: bytes) -> bool:
        try:
            message = json.loads(body)
        except ValueError:
            return False
        params = message.get("params") if isinstance(message, dict) else None
        if message.get("method") != "tools/call" or not isinstance(params, dict):
            return False
        if params.get("name") not in ADMIN_TOOLS:
            return False
        headers = dict(scope.get("headers", []))
        authorization = headers.get(b"authorization", b"").decode("latin-1")
        token = authorization.removeprefix("Bearer ").strip()
        access = await self._provider.load_access_token(token)
        return access is not None and ADMIN_SCOPE not in access.scopes
