"""The pure parts of MCP authorization: settings checks, the credential file, the loopback
redirect, learned secrets, how OAuth exchanges are shown, and request clocks held for a person."""

from __future__ import annotations

import asyncio
import base64
import json
import stat
from pathlib import Path

import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from app.engine.oauth.exchanges import (
    exchange_of,
    learn_from_request,
    learn_from_response,
    shown_body,
)
from app.engine.oauth.loopback import LoopbackReceiver
from app.engine.oauth.settings import OAuthSettings
from app.engine.oauth.store import CredentialStore
from app.engine.rpc.correlation import Correlator
from app.engine.rpc.frame_report import FrameReporter
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.transports.base import TransportError
from app.engine.rpc.transports.http_auth import challenge_of
from app.engine.safety.redact import MAX_LEARNED_SECRETS, REDACTED, Redactor, learn_secrets
from app.view.exchanges import FrameBuffer
from widgets.frame_exchange import describe_latency

SERVER = "https://mcp.example/mcp"


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        (OAuthSettings(), None),
        (OAuthSettings(mode="client_credentials"), "needs --client-id"),
        (OAuthSettings(mode="client_credentials", client_id="c"), "needs --client-secret"),
        (OAuthSettings(mode="client_credentials", client_id="c", client_secret="s"), None),
        (OAuthSettings(private_key="KEY"), "only applies to --auth-mode client_credentials"),
        (OAuthSettings(client_secret="s"), "--client-secret needs --client-id"),
        (OAuthSettings(signing_algorithm="none"), "--client-signing-alg must be one of"),
        (OAuthSettings(client_metadata_url="http://x/y"), "must be an https:// URL"),
    ],
)
def test_settings_problems(settings: OAuthSettings, problem: str | None) -> None:
    found = settings.problem()
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_settings_never_show_their_secrets() -> None:
    shown = repr(OAuthSettings(client_id="c", client_secret="hunter2-secret", private_key="PEM"))
    assert "hunter2-secret" not in shown and "PEM" not in shown


async def test_credentials_round_trip_in_a_private_file(tmp_path: Path) -> None:
    store = CredentialStore(SERVER, tmp_path / "oauth")
    assert store.status() is None
    await store.set_client_info(
        OAuthClientInformationFull(
            client_id="client-1",
            client_secret="client-secret-value",
            redirect_uris=["http://127.0.0.1:5000/callback"],  # type: ignore[list-item]
            issuer="https://as.example",
        )
    )
    await store.set_tokens(
        OAuthToken(access_token="access-value", refresh_token="refresh-value", expires_in=60)
    )
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    tokens = await store.get_tokens()
    assert tokens is not None and tokens.access_token == "access-value"
    status = store.status()
    assert status is not None and status.issuer == "https://as.example"
    assert status.client_id == "client-1" and status.has_refresh_token
    assert status.expires_at is not None
    assert "access-value" not in repr(status) and "client-secret-value" not in repr(status)
    store.forget_tokens()
    assert await store.get_tokens() is None
    assert await store.get_client_info() is not None
    assert store.remove() and not store.remove()


async def test_a_broken_or_foreign_file_reads_as_empty(tmp_path: Path) -> None:
    store = CredentialStore(SERVER, tmp_path)
    store.path.write_text("{not json")
    store.path.chmod(0o600)
    assert store.status() is None and await store.get_tokens() is None
    store.path.write_text(json.dumps({"server": "https://other/mcp", "tokens": {}}))
    assert store.status() is None


async def fetch(port: int, target: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return answer


async def test_loopback_takes_the_one_redirect() -> None:
    receiver = LoopbackReceiver()
    await receiver.open()
    assert receiver.redirect_uri == f"http://127.0.0.1:{receiver.port}/callback"
    other = await fetch(receiver.port, "/favicon.ico")
    assert other.startswith(b"HTTP/1.1 404")
    page = await fetch(receiver.port, "/callback?code=abc&state=s1&iss=https%3A%2F%2Fas")
    assert page.startswith(b"HTTP/1.1 200") and b"abc" not in page
    redirect = await receiver.wait()
    assert (redirect.code, redirect.state, redirect.iss, redirect.error) == (
        "abc",
        "s1",
        "https://as",
        None,
    )
    await receiver.close()


async def test_loopback_reports_a_refusal() -> None:
    receiver = LoopbackReceiver()
    await receiver.open()
    await fetch(receiver.port, "/callback?error=access_denied&error_description=no&state=s")
    redirect = await receiver.wait()
    assert redirect.code is None and redirect.error == "access_denied"
    await receiver.close()


def test_learned_secrets_are_hidden_by_every_redactor() -> None:
    secret = "learned-token-4d3f2a"
    assert Redactor().text(f"Bearer {secret}") == f"Bearer {secret}"
    learn_secrets(secret, None, "")
    assert Redactor().text(f'{{"t": "{secret}"}}') == f'{{"t": "{REDACTED}"}}'
    assert Redactor.build(["x-key"]).value({"k": [secret]}) == {"k": [REDACTED]}


def test_a_lasting_secret_outlives_any_number_of_refreshed_tokens() -> None:
    """A value a config took from the environment stays hidden however many tokens a long run
    refreshes; the tokens themselves are kept only as the latest `MAX_LEARNED_SECRETS`."""
    learn_secrets("from-env-7c1e", lasting=True)
    tokens = [f"refreshed-token-{number:04d}" for number in range(MAX_LEARNED_SECRETS + 1)]
    for token in tokens:
        learn_secrets(token)
    assert Redactor().text("from-env-7c1e") == REDACTED
    assert Redactor().text(tokens[-1]) == REDACTED and Redactor().text(tokens[0]) == tokens[0]


def test_exchange_bodies_hide_their_secret_fields() -> None:
    form = b"grant_type=authorization_code&code=c0de-value&code_verifier=v&client_id=me"
    shown = shown_body(form, "application/x-www-form-urlencoded")
    assert shown == (
        f"grant_type=authorization_code&code={REDACTED}&code_verifier={REDACTED}&client_id=me"
    )
    answer = b'{"access_token": "fresh-access-9f8e", "token_type": "Bearer"}'
    learn_from_response(answer)
    assert "fresh-access-9f8e" not in (shown_body(answer, "application/json") or "")
    assert "fresh-access-9f8e" not in Redactor().text("echo fresh-access-9f8e")


@pytest.mark.parametrize(
    ("status", "headers", "asks"),
    [
        (401, {}, True),
        (403, {"WWW-Authenticate": 'Bearer error="insufficient_scope", scope="a b"'}, True),
        (403, {"www-authenticate": 'Bearer error="invalid_token"'}, False),
        (403, {}, False),
        (404, {}, False),
    ],
)
def test_which_answers_ask_for_authorization(
    status: int, headers: dict[str, str], asks: bool
) -> None:
    assert challenge_of(status, headers) is asks


async def test_request_clocks_wait_while_a_person_signs_in() -> None:
    sent: list[dict[str, object]] = []

    async def send(message: dict[str, object], reason: str, headers: object) -> None:
        sent.append(message)

    requests = Correlator(send, lambda rpc_id: None)
    with requests.holding_clocks():
        call = asyncio.ensure_future(
            requests.call("tools/list", None, reason="user", timeout=0.01, headers=None)
        )
        await asyncio.sleep(0.1)
        assert sent and not call.done()
    with pytest.raises(TransportError, match="got no answer within"):
        await call


def test_an_oauth_exchange_keeps_its_request_in_the_log() -> None:
    """The two frames of an OAuth exchange pair up like a JSON-RPC request and its response,
    so the exchange view shows the request, not "older than the frames kept"."""
    frames: list[Frame] = []
    reporter = FrameReporter(Redactor())
    reporter.add(frames.append)
    reporter.http_exchange(
        exchange_of(
            "POST",
            "https://as.example/token",
            {"content-type": "application/x-www-form-urlencoded"},
            b"grant_type=refresh_token&refresh_token=r-5d4c3b",
            status=200,
            response_headers={"content-type": "application/json"},
            response_body=b'{"access_token": "a-6e5d4c"}',
            error=None,
            started_at=0.0,
            latency_ms=12.0,
        )
    )
    kept = FrameBuffer(30)
    kept.add(frames)
    request, response = frames
    exchange = kept.exchange(response)
    assert (exchange.request, exchange.response) == (request, response)
    assert kept.exchange(request) == exchange
    assert describe_latency(exchange) == "12 ms"


def test_a_token_request_teaches_its_secrets_before_it_is_sent() -> None:
    """A server may echo the request in its error: the verifier, code, refresh token and
    assertion of the form, and the client secret of a `Basic` credential, are hidden then."""
    form = (
        b"grant_type=authorization_code&code=code-8a7b6c&code_verifier=verifier-1a2b3c4d"
        b"&client_id=me&client_assertion=assertion-9f8e7d&refresh_token=refresh-2b3c4d"
    )
    basic = "Basic " + base64.b64encode(b"me:basic-secret-5e6f").decode()
    learn_from_request(
        {"content-type": "application/x-www-form-urlencoded", "authorization": basic}, form
    )
    echoed = Redactor().text(f"bad request: {form.decode()} with me:basic-secret-5e6f")
    for secret in ("code-8a7b6c", "verifier-1a2b3c4d", "assertion-9f8e7d", "refresh-2b3c4d"):
        assert secret not in echoed
    assert "basic-secret-5e6f" not in echoed and "client_id=me" in echoed
