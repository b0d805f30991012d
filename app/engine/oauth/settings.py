"""How taskscope authorizes with a server that asks for it: the `--auth-mode` and client flags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

AuthMode = Literal["interactive", "client_credentials", "none"]
AUTH_MODES: tuple[AuthMode, ...] = ("interactive", "client_credentials", "none")
CLIENT_SECRET_ENV = "TASKSCOPE_CLIENT_SECRET"
SIGNING_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "ES512", "EdDSA")


@dataclass(frozen=True)
class OAuthSettings:
    """What to do on an HTTP 401: sign in through the browser (`interactive`), exchange client
    credentials (`client_credentials`, for CI), or stop at the 401 (`none`).

    A pre-registered client gives `client_id` (and `client_secret` for a confidential one);
    `client_metadata_url` is a Client ID Metadata Document, used where the server supports it;
    otherwise the client registers dynamically. `private_key` (PEM text) signs a `private_key_jwt`
    assertion instead of sending a secret. Secrets never show in a repr.
    """

    mode: AuthMode = "interactive"
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    client_metadata_url: str | None = None
    private_key: str | None = field(default=None, repr=False)
    signing_algorithm: str = "RS256"
    scopes: str | None = None
    open_browser: bool = True

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values no output may show."""
        return tuple(value for value in (self.client_secret, self.private_key) if value)

    def problem(self) -> str | None:
        """What is missing or contradictory in these settings, as a usage error; None when fine."""
        if self.mode == "client_credentials":
            if not self.client_id:
                return "--auth-mode client_credentials needs --client-id"
            if not self.client_secret and not self.private_key:
                return (
                    "--auth-mode client_credentials needs --client-secret (or "
                    f"{CLIENT_SECRET_ENV}) or --client-private-key"
                )
            if self.client_secret and self.private_key:
                return "give --client-secret or --client-private-key, not both"
        elif self.private_key:
            return "--client-private-key only applies to --auth-mode client_credentials"
        if self.client_secret and not self.client_id:
            return "--client-secret needs --client-id"
        if self.signing_algorithm not in SIGNING_ALGORITHMS:
            return f"--client-signing-alg must be one of {', '.join(SIGNING_ALGORITHMS)}"
        if self.client_metadata_url is not None and not self.client_metadata_url.startswith(
            "https://"
        ):
            return "--client-metadata-url must be an https:// URL with a path"
        return None
