"""The SDK's OAuth client for each way of signing in, built only when a server asks for it.

`interactive` is `OAuthClientProvider` (authorization code with PKCE, dynamic registration or a
Client ID Metadata Document or a pre-registered client); `client_credentials` is the SDK's
`ClientCredentialsOAuthProvider`, or `PrivateKeyJWTOAuthProvider` with a key. Where the SDK falls
short, this module fills in: the token endpoint auth method of a pre-registered client, and of a
registration answered with a secret but no method (the TypeScript SDK's authorization server does
that), is chosen from the authorization server's metadata (the SDK would send no secret at all),
and tokens get the expiry the store keeps for them (the SDK forgets it on reading them back, so a
stored token would never refresh, and takes a server's `expires_in` as it comes).
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from app.engine.oauth.settings import OAuthSettings
from app.engine.oauth.store import CredentialStore

if TYPE_CHECKING:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult

CLIENT_NAME = "taskscope"
RedirectHandler = Callable[[str], Awaitable[None]]
VariantHandler = Callable[[str], None]
CallbackHandler = Callable[[], Awaitable["AuthorizationCodeResult"]]


def build_provider(
    server_url: str,
    settings: OAuthSettings,
    store: CredentialStore,
    redirect_uri: str | None,
    redirect_handler: RedirectHandler,
    callback_handler: CallbackHandler,
    on_variant: VariantHandler,
) -> OAuthClientProvider:
    """The SDK provider for `settings`; `redirect_uri` is the loopback listener's (interactive);
    `on_variant` hears, in words, of an authorization server that strayed from the RFCs."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

    if settings.mode == "client_credentials":
        return _machine_provider(server_url, settings, store)
    assert redirect_uri is not None
    metadata = OAuthClientMetadata(
        redirect_uris=[redirect_uri],  # type: ignore[list-item]
        client_name=CLIENT_NAME,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )
    pre_registered = (
        OAuthClientInformationFull(
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            redirect_uris=[redirect_uri],  # type: ignore[list-item]
            token_endpoint_auth_method="client_secret_basic" if settings.client_secret else "none",
        )
        if settings.client_id
        else None
    )

    class TaskscopeProvider(OAuthClientProvider):
        """The SDK's provider, with a pre-registered client and stored expiry filled in."""

        async def _initialize(self) -> None:
            await super()._initialize()
            restore_expiry(self, store)
            if pre_registered is not None:
                self.context.client_info = pre_registered

        async def _perform_authorization(self) -> Any:
            info = self.context.client_info
            if pre_registered is not None:
                _pick_auth_method(self)
            elif info is not None and info.client_secret and not info.token_endpoint_auth_method:
                chosen = _pick_auth_method(self) or "none (no secret method is listed)"
                await store.set_client_info(info)
                on_variant(
                    "the registration came with a client secret but no "
                    f"token_endpoint_auth_method: using {chosen}"
                )
            return await super()._perform_authorization()

    return TaskscopeProvider(
        server_url=server_url,
        client_metadata=metadata,
        storage=store,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=settings.client_metadata_url,
    )


def _machine_provider(
    server_url: str, settings: OAuthSettings, store: CredentialStore
) -> OAuthClientProvider:
    """Client credentials: a secret sent with HTTP Basic, or a signed `private_key_jwt`."""
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )
    from mcp.shared.exceptions import MCPDeprecationWarning

    assert settings.client_id is not None
    with warnings.catch_warnings():
        # Without `issuer` the SDK takes whichever authorization server discovery yields, which
        # is what a command line that names only the MCP server means.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if settings.private_key:
            assertion = SignedJWTParameters(
                issuer=settings.client_id,
                subject=settings.client_id,
                signing_key=settings.private_key,
                signing_algorithm=settings.signing_algorithm,
            ).create_assertion_provider()
            provider: OAuthClientProvider = PrivateKeyJWTOAuthProvider(
                server_url=server_url,
                storage=store,
                client_id=settings.client_id,
                assertion_provider=assertion,
            )
        else:
            assert settings.client_secret is not None
            provider = ClientCredentialsOAuthProvider(
                server_url=server_url,
                storage=store,
                client_id=settings.client_id,
                client_secret=settings.client_secret,
            )
    return provider


def restore_expiry(provider: OAuthClientProvider, store: CredentialStore) -> None:
    """Give the tokens held the expiry the store keeps for them: read from storage, or just
    received (the SDK takes a server's `expires_in` as it comes; the store keeps it within
    reason)."""
    expires_at = store.expires_at()
    if provider.context.current_tokens is not None:
        provider.context.token_expiry_time = expires_at


def _pick_auth_method(provider: OAuthClientProvider) -> str | None:
    """A client with a secret authenticates at the token endpoint as the server's metadata
    allows: `client_secret_basic` when listed (or nothing is: RFC 7591's default), else
    `client_secret_post`; returns the method chosen, if any."""
    info = provider.context.client_info
    if info is None or not info.client_secret:
        return None
    metadata = provider.context.oauth_metadata
    supported = list(metadata.token_endpoint_auth_methods_supported or []) if metadata else []
    if not supported or "client_secret_basic" in supported:
        info.token_endpoint_auth_method = "client_secret_basic"
    elif "client_secret_post" in supported:
        info.token_endpoint_auth_method = "client_secret_post"
    return info.token_endpoint_auth_method
