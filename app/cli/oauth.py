"""`taskscope oauth login|status|logout --url URL`: the stored sign-in of one server.

`login` drops the stored tokens (the client registration stays), connects, and so signs in as
the server asks; `status` shows what is stored without connecting (issuer, client id, scopes,
expiry, never a token); `logout` deletes everything stored for the server. Each says, as
`problem`, why a credential folder or file it met is not used.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from app.cli.options import Options
from app.cli.output import Output, usage_error
from app.cli.session import open_session
from app.cli.target import target_from_args
from app.engine.oauth.store import CredentialStore
from app.engine.rpc.targets import HttpTarget


async def oauth_command(options: Options, out: Output) -> int:
    """Run the `oauth` verb the command line names."""
    target = target_from_args(options.target)
    if not isinstance(target, HttpTarget):
        raise usage_error("oauth needs --url of an HTTP server")
    store = CredentialStore(target.url)
    if options.verb == "logout":
        removed: dict[str, Any] = {"server": target.url, "removed": store.remove()}
        if store.problem is not None:
            removed["problem"] = store.problem
        out.result(removed)
        return 0
    if options.verb == "login":
        store.forget_tokens()
        async with open_session(options, out) as session:
            asked = session.authorizer is not None and session.authorizer.current() is not None
        if not asked:
            out.note("oauth: the server did not ask for authorization")
    out.result(status_document(store))
    return 0


def status_document(store: CredentialStore) -> dict[str, Any]:
    """What is stored for the server, as `oauth status` prints it (no secret)."""
    status = store.status()
    document: dict[str, Any] = {"server": store.server_url, "signedIn": False}
    if status is not None and status.has_access_token:
        document.update(
            signedIn=True,
            issuer=status.issuer,
            clientId=status.client_id,
            scopes=status.scopes.split() if status.scopes else [],
            refreshable=status.has_refresh_token,
        )
        if status.expires_at is not None:
            document["expiresAt"] = datetime.fromtimestamp(status.expires_at, UTC).isoformat()
            document["expired"] = status.expires_at <= time.time()
    if status is not None and status.problem is not None:
        document["problem"] = status.problem
    return document
