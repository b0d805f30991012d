"""MCP authorization as the Streamable HTTP transport applies it: the token on each request,
and the decision what to do with an answer that asks for authorization."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from app.engine.rpc.transports.base import TransportError
from app.engine.rpc.transports.http_bodies import body_text, http_failure, plain_headers
from app.engine.rpc.transports.http_client import HttpResponse

if TYPE_CHECKING:
    from app.engine.oauth.authorizer import Authorizer


class AuthGate:
    """Puts the authorizer's token on requests and turns a refusal into a retry or a failure."""

    def __init__(self, authorizer: Authorizer) -> None:
        self._authorizer = authorizer

    def current(self) -> str | None:
        """The `Authorization` value held now (for the GET and DELETE of a session)."""
        return self._authorizer.current()

    async def stamp(self, headers: dict[str, str]) -> str | None:
        """Put the token (refreshed when due) on `headers`; the value sent, if any."""
        value = await self._authorizer.authorization()
        if value is not None:
            headers["Authorization"] = value
        return value

    def refuses(self, response: HttpResponse, sent: str | None) -> bool:
        """Whether `response` asks for authorization (401, 403 `insufficient_scope`); any other
        answer to a request that carried a token counts as the server taking it."""
        if challenge_of(response.status_code, response.headers):
            return True
        if sent is not None and response.status_code < 400:
            self._authorizer.accepted()
        return False

    async def again(
        self,
        response: HttpResponse,
        body: bytes,
        sent: str | None,
        request_headers: Mapping[str, str],
    ) -> TransportError | None:
        """Authorize after the refusal `response`: None when the request should go again, else
        the failure to report (the refusal, with why no authorization came of it)."""
        from app.engine.oauth.authorizer import AuthorizationFailed

        try:
            if await self._authorizer.challenged(
                response.status_code, plain_headers(response), body, sent, request_headers
            ):
                return None
            reason = "no authorization was obtained"
        except AuthorizationFailed as exc:
            reason = f"authorization failed: {exc}"
        failure = http_failure(response, body_text(body))
        failure.message = f"{failure.message} ({reason})"
        failure.args = (failure.message,)
        return failure


def challenge_of(status: int, headers: Mapping[str, str]) -> bool:
    """Whether an HTTP answer asks for authorization: 401, or 403 with `insufficient_scope`."""
    if status == 401:
        return True
    if status != 403:
        return False
    challenge = next(
        (value for name, value in headers.items() if name.lower() == "www-authenticate"), ""
    )
    return "insufficient_scope" in challenge
