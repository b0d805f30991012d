"""OAuth credentials per server, in the data folder, readable by the user alone (mode 0600).

One JSON file per server URL under `<data dir>/oauth/`: the client registration (with the
issuer it is bound to) and the newest tokens, with the time they were saved so a later run knows
when they expire. Every secret read or written here is learned by the redactors first. A broken
file reads as empty: the next sign-in rewrites it.

The folder and the file are checked on every use (`private_files`): a folder that is not the
user's own, or that others can write, is not used at all (the credentials are kept for this run
only), and a file that is not the user's own, or that others can read, is ignored (the next
sign-in replaces it); `problem` says which, and how to put it right. What a server says about a
token is kept within reason: its life within `MIN_TOKEN_LIFE_S`..`MAX_TOKEN_LIFE_S`, and a token
that no HTTP header can carry is refused.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.engine.oauth.private_files import (
    FileSignature,
    Untrusted,
    private_folder,
    read_private,
    remove_private,
    write_private,
)
from app.engine.paths import data_dir
from app.engine.rpc.transports.http_framing import sendable_header_value
from app.engine.safety.redact import learn_secrets

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

FOLDER = "oauth"
MAX_FILE_BYTES = 1 << 20
MIN_TOKEN_LIFE_S = 30
"""A token that says it expires sooner (or at once, or in the past) counts as living this long:
so it is refreshed at most this often, however often it is used (a server answering
`expires_in: -5` made every request refresh). A server that refuses it earlier gets a refresh
then, as for any refused token."""
MAX_TOKEN_LIFE_S = 365 * 24 * 3600
"""A token that says it lives longer (`expires_in: 1e20`) counts as living a year."""


class UnsendableToken(Exception):
    """The authorization server issued an access token no HTTP header can carry; not stored."""


def credentials_path(server_url: str, folder: Path | None = None) -> Path:
    """The file that holds `server_url`'s credentials."""
    digest = hashlib.sha256(server_url.encode("utf-8")).hexdigest()[:24]
    return (folder or data_dir() / FOLDER) / f"{digest}.json"


def token_life(expires_in: object) -> int | None:
    """How long a token lives by the `expires_in` a server gave, kept within
    `MIN_TOKEN_LIFE_S`..`MAX_TOKEN_LIFE_S`; None when it gave no number."""
    if isinstance(expires_in, bool) or not isinstance(expires_in, int | float):
        return None
    if isinstance(expires_in, float) and math.isnan(expires_in):
        return None
    return int(min(max(expires_in, MIN_TOKEN_LIFE_S), MAX_TOKEN_LIFE_S))


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
    problem: str | None = None
    """Why the stored credentials are not used (and how to put it right), if so."""


class CredentialStore:
    """The SDK's `TokenStorage` for one server, written through to its file at once."""

    def __init__(self, server_url: str, folder: Path | None = None) -> None:
        self.server_url = server_url
        self.path = credentials_path(server_url, folder)
        self.problem: str | None = None
        """Why the last use of the folder or file could not trust it, and the fix; None when
        it could."""
        self._read_as: tuple[FileSignature, dict[str, Any]] | None = None
        """The document last read, with the file's signature then: a sign-in asks for several
        of its parts at once, and the file is parsed again only when it changed."""
        self._kept: dict[str, Any] = {}
        """The credentials of this run while the folder cannot be trusted."""

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
        return token if sendable_header_value(token.access_token) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Keep `tokens`, their life within reason; raises `UnsendableToken` (keeping nothing)
        for an access token no HTTP header can carry."""
        learn_secrets(tokens.access_token, tokens.refresh_token)
        if not sendable_header_value(tokens.access_token):
            raise UnsendableToken(
                "the authorization server issued an access token that cannot be sent in an "
                "HTTP header (it holds a line break, a NUL or text that is not UTF-8); it was "
                "not stored"
            )
        document = self._read()
        saved = tokens.model_dump(mode="json", exclude_none=True)
        life = token_life(tokens.expires_in)
        if life is not None:
            saved["expires_in"] = life
        document["tokens"] = saved
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
        """When the stored access token expires (seconds since the epoch), if it said: its life
        kept within reason, from when it was saved (unknown when that is not a time gone by)."""
        document = self._read()
        tokens, saved_at = document.get("tokens"), document.get("saved_at")
        if not isinstance(tokens, dict) or isinstance(saved_at, bool):
            return None
        if not isinstance(saved_at, int | float) or not 0 <= saved_at <= time.time():
            return None
        life = token_life(tokens.get("expires_in"))
        return None if life is None else float(saved_at) + life

    def status(self) -> StoredStatus | None:
        """What is stored for the server, without a secret; None when nothing is and nothing
        is wrong."""
        document = self._read()
        if not document and self.problem is None:
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
            problem=self.problem,
        )

    def forget_tokens(self) -> None:
        """Drop the tokens but keep the registration (a refresh the server refused)."""
        document = self._read()
        if document.pop("tokens", None) is not None:
            document.pop("saved_at", None)
            self._write(document)

    def remove(self) -> bool:
        """Delete everything stored for the server (not in a folder it cannot trust); whether
        there was anything."""
        self._read_as = None
        had_kept, self._kept = bool(self._kept), {}
        try:
            with private_folder(self.path.parent) as folder:
                self.problem = None
                return remove_private(folder, self.path.name) or had_kept
        except Untrusted as refused:
            self.problem = f"{refused}; nothing was removed from it"
            return had_kept

    def _read(self) -> dict[str, Any]:
        try:
            with private_folder(self.path.parent) as folder:
                document = self._read_file(folder)
        except Untrusted as refused:
            self.problem = f"{refused}; credentials are kept for this run only"
            return dict(self._kept)
        return dict(document)

    def _read_file(self, folder: int) -> dict[str, Any]:
        """The document of the file (empty when there is none, or it is broken or ignored)."""
        cached = self._read_as
        try:
            found = read_private(
                folder, self.path.name, MAX_FILE_BYTES, cached[0] if cached else None
            )
        except Untrusted as refused:
            self.problem = (
                f"ignored the credential file {self.path}: {refused}; the next sign-in replaces it"
            )
            return {}
        self.problem = None
        if found is None:
            return {}
        signature, raw = found
        if raw is None and cached is not None and cached[0] == signature:
            return cached[1]
        document = self._parse(raw)
        self._read_as = (signature, document)
        return document

    def _parse(self, raw: bytes | None) -> dict[str, Any]:
        if raw is None:
            return {}
        try:
            document = json.loads(raw)
        except ValueError:
            return {}
        if not isinstance(document, dict) or document.get("server") != self.server_url:
            return {}
        return document

    def _write(self, document: dict[str, Any]) -> None:
        """Replace the file atomically, 0600 in a 0700 folder; in a folder that cannot be trusted
        nothing is written and the credentials are kept for this run only."""
        document["server"] = self.server_url
        self._read_as = None
        try:
            with private_folder(self.path.parent) as folder:
                write_private(folder, self.path.name, json.dumps(document).encode("utf-8"))
        except Untrusted as refused:
            self.problem = f"{refused}; credentials are kept for this run only"
            self._kept = document
            return
        self.problem = None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
