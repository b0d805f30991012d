"""Authorization for one HTTP server: the token each request carries, and what a refusal starts.

The SDK's provider is an httpx2 auth flow: a generator that yields the requests it needs and is
sent their responses. This module drives it around taskscope's own transport: the MCP request
itself is represented by a probe that never goes on the wire (the transport sends the real one,
then hands back the 401 it got); every other request of the flow (discovery, registration, token)
goes out through httpx2 and is reported, redacted. One flow runs at a time; a request refused
while another already signed in just goes again with the new token. A sign-in that failed is not
tried again on the same connection: its other requests (the era probe's `initialize` after
`server/discover`, a poll) fail at once with the same reason; a new connection, or signing out,
tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING

from app.engine.oauth.browser import BrowserObserver
from app.engine.oauth.exchanges import exchange_of, learn_from_request, purpose_of, request_kind
from app.engine.oauth.loopback import LoopbackReceiver, SignInDenied
from app.engine.oauth.providers import build_provider, restore_expiry
from app.engine.oauth.refresh_budget import MIN_REFRESH_INTERVAL_S, RefreshBudget
from app.engine.oauth.settings import OAuthSettings
from app.engine.oauth.steps import AuthExchange, AuthObserver, AuthStep, StepKind
from app.engine.oauth.store import CredentialStore, UnsendableToken
from app.engine.rpc.targets import HttpTarget, Target
from app.engine.safety.redact import Redactor, learn_secrets

if TYPE_CHECKING:
    import httpx2
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult

SIGN_IN_TIMEOUT_S = 300.0
"""How long a browser sign-in may take before the flow gives up."""
EXCHANGE_TIMEOUT_S = 30.0
MAX_RESPONSE_BYTES = 1 << 20
MAX_ROUNDS = 3
"""Authorizations in a row that the server still refuses before taskscope stops trying."""
EXPIRED = 1.0
"""A token expiry in the distant past: forces the next flow to refresh first."""
_REDACTOR = Redactor()


class AuthorizationFailed(Exception):
    """A sign-in or refresh that ended without a token the server takes; the text says why."""


class Authorizer:
    """Signs in to one server as `settings` say, remembers the credentials, hands out the token."""

    def __init__(
        self,
        server_url: str,
        settings: OAuthSettings,
        observer: AuthObserver,
        *,
        store: CredentialStore | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        learn_secrets(*settings.secrets)
        self.server_url = server_url
        self.settings = settings
        self._observer = observer
        self._hold: Callable[[], contextlib.AbstractContextManager[None]] = contextlib.nullcontext
        self._on_exchange: Callable[[AuthExchange], None] = _ignore
        self.store = store or CredentialStore(server_url)
        self._provider: OAuthClientProvider | None = None
        self._loopback: LoopbackReceiver | None = None
        self._lock = asyncio.Lock()
        self._loaded = False
        self._rounds = 0
        self._failure: str | None = None
        """Why the last sign-in on this connection failed: the next refusal fails at once."""
        self._told: str | None = None
        """The store's problem last told, so it is told once."""
        self._refreshes = RefreshBudget(clock)
        """The refreshes a refusal may still make (`refresh_budget`)."""

    def attach(
        self,
        hold: Callable[[], contextlib.AbstractContextManager[None]],
        report: Callable[[AuthExchange], None],
    ) -> None:
        """Work for the connection in use: `hold` stops its request clocks while it authorizes
        (a refresh, a sign-in), `report` shows each OAuth exchange beside its frames. A new
        connection may sign in again, whatever became of the last one's sign-in."""
        self._hold = hold
        self._on_exchange = report
        self._failure = None

    async def authorization(self) -> str | None:
        """The `Authorization` value the next request carries, refreshed first when expired."""
        if not self._loaded:
            self._loaded = True
            stored = self.store.status()
            if stored is not None and stored.has_access_token:
                with self._hold():
                    await self._ready()
        provider = self._provider
        if provider is None:
            return None
        context = provider.context
        if not context.is_token_valid() and context.can_refresh_token():
            async with self._authorizing():
                if not context.is_token_valid() and context.can_refresh_token():
                    await self._refresh(provider)
        tokens = context.current_tokens
        if tokens is not None:
            learn_secrets(tokens.access_token)  # in use: the last to be forgotten
        return self.current()

    async def challenged(
        self,
        status: int,
        headers: Mapping[str, str],
        body: bytes,
        sent: str | None,
        request_headers: Mapping[str, str],
    ) -> bool:
        """A request that carried `sent` was refused (401, or 403 `insufficient_scope`): refresh
        or sign in. True when it should go again with `authorization()`; raises
        `AuthorizationFailed` when that cannot be. The connection's request clocks stand still
        meanwhile: the authorization's own exchanges are bounded, and a request waiting behind
        it has not yet been answered for want of a token, not of the server."""
        async with self._authorizing():
            current = self.current()
            if current is not None and current != sent:
                return True
            if self._failure is not None:
                raise AuthorizationFailed(self._failure)
            if self._rounds >= MAX_ROUNDS:
                raise AuthorizationFailed(
                    f"the server still refused the token after {MAX_ROUNDS} authorizations in a "
                    f"row (HTTP {status}); stopped"
                )
            provider = await self._ready()
            refreshable = status == 401 and sent is not None
            if refreshable and provider.context.can_refresh_token():
                self._refresh_allowed(status)
            self._rounds += 1
            if refreshable and provider.context.can_refresh_token():
                provider.context.token_expiry_time = EXPIRED
                await self._refresh(provider)
                if self.current() not in (None, sent):
                    return True
            self._step("challenged", f"the server answered HTTP {status}: authorizing")
            self._tell_store_problem()
            try:
                await self._drive(provider, (status, headers, body), request_headers)
            except AuthorizationFailed as exc:
                self._failure = str(exc)
                raise
            if self.current() is None:
                self._failure = "no authorization was obtained"
            return self.current() is not None

    @contextlib.asynccontextmanager
    async def _authorizing(self) -> AsyncIterator[None]:
        """One authorization at a time, the connection's request clocks held meanwhile."""
        with self._hold():
            async with self._lock:
                yield

    def _refresh_allowed(self, status: int) -> None:
        """Raise `AuthorizationFailed` when the refreshes of the last `MIN_REFRESH_INTERVAL_S`
        already fill the life the server gives its tokens: the refusal is the request's failure,
        not a new refresh (nor a sign-in)."""
        since = self._refreshes.refused_since()
        if since is not None:
            raise AuthorizationFailed(
                f"the server refused (HTTP {status}) a token refreshed {since:.0f} s ago; it is "
                f"not refreshed again within {MIN_REFRESH_INTERVAL_S:.0f} s, nor signed in "
                "again: try again later, or sign in afresh (taskscope oauth logout)"
            )

    async def sign_out(self) -> bool:
        """Forget the sign-in: the stored credentials go, and the next request the server
        refuses signs in afresh (a new registration too); whether anything was stored."""
        async with self._lock:
            removed = self.store.remove()
            await self.close()
            self._provider = None
            self._loopback = None
            self._loaded = False
            self._rounds = 0
            self._failure = None
            self._refreshes.clear()
            return removed

    def accepted(self) -> None:
        """The server took the token: the next refusal starts counting again."""
        self._rounds = 0

    async def close(self) -> None:
        if self._loopback is not None:
            await self._loopback.close()

    # -- the flow ---------------------------------------------------------------------------------

    def current(self) -> str | None:
        """The `Authorization` value of the token held now, if any."""
        tokens = self._provider.context.current_tokens if self._provider is not None else None
        return f"Bearer {tokens.access_token}" if tokens and tokens.access_token else None

    async def _ready(self) -> OAuthClientProvider:
        """The SDK provider, built (and its storage read) on first need. The SDK logs its flow's
        failures with tracebacks; taskscope reports them itself, so that log goes nowhere."""
        if self._provider is not None:
            return self._provider
        sdk_log = logging.getLogger("mcp.client.auth")
        sdk_log.propagate = False
        sdk_log.addHandler(logging.NullHandler())
        redirect_uri = None
        if self.settings.mode == "interactive":
            self._loopback = await self._reserved_loopback()
            redirect_uri = self._loopback.redirect_uri
        self._provider = build_provider(
            self.server_url,
            self.settings,
            self.store,
            redirect_uri,
            self._on_redirect,
            self._on_callback,
            lambda variant: self._step("registered", variant),
        )
        await self._provider._initialize()
        return self._provider

    async def _reserved_loopback(self) -> LoopbackReceiver:
        """The loopback for the redirect: on the port the stored registration was made with (the
        redirect must match; it listens only once a sign-in starts), else on a fresh port, which
        the registration about to be made will name."""
        receiver = LoopbackReceiver()
        info = await self.store.get_client_info()
        for uri in info.redirect_uris or [] if info is not None else []:
            if uri.host == "127.0.0.1" and uri.port:
                receiver.port = uri.port
                return receiver
        await receiver.open()
        return receiver

    async def _refresh(self, provider: OAuthClientProvider) -> None:
        """Refresh the token; a refresh the server refuses drops the stored tokens."""
        before = self.current()
        with contextlib.suppress(AuthorizationFailed):
            await self._drive(provider, None, {})
        after = self.current()
        if after is not None and after != before:
            tokens = provider.context.current_tokens
            self._refreshes.refreshed(tokens.expires_in if tokens is not None else None)
            self._step("refreshed", "access token refreshed")
        else:
            provider.context.clear_tokens()
            self.store.forget_tokens()

    async def _drive(
        self,
        provider: OAuthClientProvider,
        challenge: tuple[int, Mapping[str, str], bytes] | None,
        request_headers: Mapping[str, str],
    ) -> None:
        """Run the SDK flow until it hands back the MCP request (the probe), answering the probe
        once with `challenge` when given; every other request it makes is sent here."""
        import httpx2

        version = {
            name: value
            for name, value in request_headers.items()
            if name.lower() == "mcp-protocol-version"
        }
        probe = httpx2.Request("POST", self.server_url, headers=version)
        answer = (
            httpx2.Response(
                challenge[0], headers=dict(challenge[1]), content=challenge[2], request=probe
            )
            if challenge is not None
            else None
        )
        flow = provider.async_auth_flow(probe)
        try:
            async with httpx2.AsyncClient(timeout=EXCHANGE_TIMEOUT_S) as client:
                request = await flow.__anext__()
                while True:
                    if request is probe:
                        if answer is None:
                            return
                        response, answer = answer, None
                    else:
                        response = await self._send(client, request)
                    request = await flow.asend(response)
        except StopAsyncIteration:
            return
        except AuthorizationFailed as exc:
            self._step("failed", str(exc))
            raise
        except UnsendableToken as exc:
            provider.context.clear_tokens()
            self._step("failed", str(exc))
            raise AuthorizationFailed(str(exc)) from None
        except Exception as exc:
            reason = _describe(exc)
            self._step("failed", reason)
            raise AuthorizationFailed(reason) from None
        finally:
            await flow.aclose()
            restore_expiry(provider, self.store)
            self._tell_store_problem()

    async def _send(self, client: httpx2.AsyncClient, request: httpx2.Request) -> httpx2.Response:
        """Send one request of the flow, read its (bounded) answer, and report the exchange."""
        import httpx2

        body = await request.aread()
        url = str(request.url)
        learn_from_request({name.lower(): value for name, value in request.headers.items()}, body)
        started, clock = time.time(), time.monotonic()
        response_body = b""
        try:
            response = await client.send(request, stream=True, follow_redirects=False)
            try:
                async for chunk in response.aiter_bytes():
                    response_body += chunk
                    if len(response_body) > MAX_RESPONSE_BYTES:
                        raise AuthorizationFailed(
                            f"{purpose_of(request.method, url, body)}: {_REDACTOR.text(url)} "
                            f"answered more than {MAX_RESPONSE_BYTES} bytes"
                        )
            finally:
                await response.aclose()
        except httpx2.HTTPError as exc:
            self._report(
                request, body, None, {}, b"", str(exc) or type(exc).__name__, started, clock
            )
            raise AuthorizationFailed(
                f"{purpose_of(request.method, url, body)}: {_REDACTOR.text(url)} could not be "
                f"reached ({type(exc).__name__})"
            ) from None
        self._report(
            request,
            body,
            response.status_code,
            response.headers,
            response_body,
            None,
            started,
            clock,
        )
        final = httpx2.Response(
            response.status_code, headers=response.headers, content=response_body, request=request
        )
        final.next_request = response.next_request
        self._note(request, body, final)
        return final

    def _report(
        self,
        request: httpx2.Request,
        body: bytes,
        status: int | None,
        headers: Mapping[str, str],
        response_body: bytes,
        error: str | None,
        started: float,
        clock: float,
    ) -> None:
        self._on_exchange(
            exchange_of(
                request.method,
                str(request.url),
                {name.lower(): value for name, value in request.headers.items()},
                body,
                status=status,
                response_headers={name.lower(): value for name, value in headers.items()},
                response_body=response_body,
                error=error,
                started_at=started,
                latency_ms=(time.monotonic() - clock) * 1000,
            )
        )

    def _note(self, request: httpx2.Request, body: bytes, response: httpx2.Response) -> None:
        """Name the step a successful answer completes."""
        if response.status_code >= 300:
            return
        kind = request_kind(request.method, body)
        host = request.url.host
        if kind == "metadata":
            purpose = purpose_of(request.method, str(request.url), body).removeprefix("OAuth: ")
            self._step("discovered", f"{purpose} from {host}", str(request.url))
        elif kind == "registration":
            self._step("registered", f"registered as a client of {host}")
        else:
            self._step("token", f"token received from {host}")

    async def _on_redirect(self, authorization_url: str) -> None:
        """The SDK's redirect handler: the person signs in at `authorization_url`."""
        assert self._loopback is not None
        await self._loopback.open(self._loopback.port)
        self._step("browser", "waiting for the sign-in in the browser", authorization_url)
        await self._observer.sign_in(authorization_url)

    async def _on_callback(self) -> AuthorizationCodeResult:
        """The SDK's callback handler: the code the browser brought back to the loopback (the
        request clocks are held by the authorization this wait is part of)."""
        from mcp.shared.auth import AuthorizationCodeResult

        assert self._loopback is not None
        try:
            async with asyncio.timeout(SIGN_IN_TIMEOUT_S):
                redirect = await self._loopback.wait()
        except TimeoutError:
            raise AuthorizationFailed(
                f"no sign-in came back from the browser within {SIGN_IN_TIMEOUT_S:.0f} s"
            ) from None
        finally:
            await self._loopback.close()
        if redirect.error is not None:
            raise SignInDenied(
                f"the authorization server refused: {_bounded(redirect.error)}"
                + (
                    f" ({_bounded(redirect.error_description)})"
                    if redirect.error_description
                    else ""
                )
            )
        if redirect.code is None:
            raise AuthorizationFailed("the browser came back without an authorization code")
        learn_secrets(redirect.code, redirect.state)
        return AuthorizationCodeResult(code=redirect.code, state=redirect.state, iss=redirect.iss)

    def _step(self, kind: StepKind, text: str, url: str | None = None) -> None:
        self._observer.on_step(AuthStep(kind, _REDACTOR.text(text), url))

    def _tell_store_problem(self) -> None:
        """Say why the stored credentials are not used, once per problem."""
        problem = self.store.problem
        if problem is not None and problem != self._told:
            self._step("untrusted", problem)
        self._told = problem


def _ignore(exchange: AuthExchange) -> None:
    return None


def _describe(error: BaseException) -> str:
    """An error of the flow in words: its own message, or its type when it has none."""
    text = str(error).strip()
    name = type(error).__name__
    return f"{name}: {_bounded(text)}" if text else name


def _bounded(text: str, limit: int = 300) -> str:
    """Server-given text made one bounded line of printable characters, its secrets hidden
    first (cut first, a secret it echoes would be left half shown)."""
    printable = "".join(ch if ch.isprintable() else " " for ch in _REDACTOR.text(text))
    return printable if len(printable) <= limit else printable[:limit] + "…"


def authorizer_for(target: Target, observer: AuthObserver | None) -> Authorizer | None:
    """The authorizer of `target`: for an HTTP server (Streamable HTTP or HTTP+SSE) that the
    user gave no credentials for, unless `--auth-mode none`."""
    if not isinstance(target, HttpTarget):
        return None
    if target.oauth.mode == "none" or target.bearer:
        return None
    if any(name.lower() == "authorization" for name in target.headers):
        return None
    return Authorizer(target.url, target.oauth, observer or BrowserObserver())
