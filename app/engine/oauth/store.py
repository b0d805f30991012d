"""OAuth credentials per server, in the data folder, readable by the user alone (mode 0600).

One JSON file per server URL under `<data dir>/oauth/`: the client registration (with the
issuer it is bound to) and the newest tokens, with the time they were saved so a later run knows
when they expire. Every secret read or written here is learned by the redactors first. A broken
file reads as empty: the next sign-in rewrites it.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.engine.paths import data_dir
from app.engine.safety.redact import learn_secrets

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

FOLDER = "oauth"
MAX_FILE_BYTES = 1 << 20


def credentials_path(server_url: str, folder: Path | None = None) -> Path:
    """The file that holds `server_url`'s credentials."""
    digest = hashlib.sha256(server_url.encode("utf-8")).hexdigest()[:24]
    return (folder or data_dir() / FOLDER) / f"{digest}.json"


@dataclass(frozen=True, slots=True)
class StoredStatus:
    """What `taskscope oauth status` shows: never a token."""

    server_url: str
    issuer: str | None
    client_id: str | None
    scopes: str | None
    expires_at: float | None
    has_access_token: bool
    has_refresh_token: bool


class CredentialStore:
    """The SDK's `TokenStorage` for one server, written through to its file at once."""

    def __init__(self, server_url: str, folder: Path | None = None) -> None:
        self.server_url = server_url
        self.path = credentials_path(server_url, folder)
        self._read_as: tuple[tuple[int, int], dict[str, Any]] | None = None
        """The document last read, with the file's (mtime, size) then: a sign-in asks for
        several of its parts at once, and the file is parsed again only when it changed."""

    # -- the SDK's TokenStorage ---------------------------------------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        document = self._read()
        tokens = document.get("tokens")
        if not isinstance(tokens, dict):
            return None
        try:
            token = OAuthToken.model_validate(tokens)
        except ValueError:
            return None
        learn_secrets(token.access_token, token.refresh_token)
        return token

    async def set_tokens(self, tokens: OAuthToken) -> None:
        learn_secrets(tokens.access_token, tokens.refresh_token)
        document = self._read()
        document["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        document["saved_at"] = time.time()
        self._write(document)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        client = self._read().get("client")
        if not isinstance(client, dict):
            return None
        try:
            info = OAuthClientInformationFull.model_validate(client)
        except ValueError:
            return None
        learn_secrets(info.client_secret)
        return info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        learn_secrets(client_info.client_secret)
        document = self._read()
        document["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._write(document)

    # -- ours -------------------------------------------------------------------------------------

    def expires_at(self) -> float | None:
        """When the stored access token expires (seconds since the epoch), if it said."""
        document = self._read()
        tokens, saved_at = document.get("tokens"), document.get("saved_at")
        if not isinstance(tokens, dict) or not isinstance(saved_at, int | float):
            return None
        expires_in = tokens.get("expires_in")
        if not isinstance(expires_in, int | float) or isinstance(expires_in, bool):
            return None
        return float(saved_at) + float(expires_in)

    def status(self) -> StoredStatus | None:
        """What is stored for the server, without a secret; None when nothing is."""
        document = self._read()
        if not document:
            return None
        client = document.get("client") if isinstance(document.get("client"), dict) else {}
        tokens = document.get("tokens") if isinstance(document.get("tokens"), dict) else {}
        assert isinstance(client, dict) and isinstance(tokens, dict)
        return StoredStatus(
            server_url=self.server_url,
            issuer=_text(client.get("issuer")),
            client_id=_text(client.get("client_id")),
            scopes=_text(tokens.get("scope")) or _text(client.get("scope")),
            expires_at=self.expires_at(),
            has_access_token=bool(tokens.get("access_token")),
            has_refresh_token=bool(tokens.get("refresh_token")),
        )

    def forget_tokens(self) -> None:
        """Drop the tokens but keep the registration (a refresh the server refused)."""
        document = self._read()
        if document.pop("tokens", None) is not None:
            document.pop("saved_at", None)
            self._write(document)

    def remove(self) -> bool:
        """Delete everything stored for the server; whether there was anything."""
        self._read_as = None
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    def _read(self) -> dict[str, Any]:
        try:
            stat = self.path.stat()
        except OSError:
            return {}
        signature = (stat.st_mtime_ns, stat.st_size)
        if self._read_as is not None and self._read_as[0] == signature:
            return dict(self._read_as[1])
        document = self._parse()
        self._read_as = (signature, document)
        return dict(document)

    def _parse(self) -> dict[str, Any]:
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(MAX_FILE_BYTES + 1)
        except OSError:
            return {}
        if len(raw) > MAX_FILE_BYTES:
            return {}
        try:
            document = json.loads(raw)
        except ValueError:
            return {}
        if not isinstance(document, dict) or document.get("server") != self.server_url:
            return {}
        return document

    def _write(self, document: dict[str, Any]) -> None:
        """Replace the file atomically; it is created 0600 in a 0700 folder, never wider."""
        document["server"] = self.server_url
        self._read_as = None
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(document, handle)
            os.chmod(temporary, 0o600)
            temporary.replace(self.path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
