"""MCP authorization end to end: the headless CLI against the demo server behind its own
authorization server (`demo-server --auth`), signing in through the loopback redirect with
tests/support/auth_browser.py as the browser; the stored credentials, a refresh without a new
sign-in, logout, and no token or client secret in anything taskscope printed or wrote."""

from __future__ import annotations

import asyncio
import json
import stat
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from app.engine.oauth.authorizer import authorizer_for
from app.engine.oauth.steps import AuthStep
from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.transports.base import Inbound, TransportError
from app.engine.rpc.transports.http_auth import AuthGate
from app.engine.rpc.transports.sse import SseTransport
from tests.support.auth_browser import browser_command, visit
from tests.support.cli_helpers import Run, clean_env, run_cli
from tests.support.demo_servers import serving, start_http_demo

NO_BROWSER = "false"
"""A `$BROWSER` that opens nothing: a run that needs a new sign-in cannot get one."""


@pytest.fixture
def protected_url() -> Iterator[str]:
    with start_http_demo("extension", "--auth", "--token-ttl", "1") as (url, _process):
        yield url


def cli(data: Path, *args: str, browser: str = NO_BROWSER, timeout: float = 60) -> Run:
    env = clean_env(TASKSCOPE_DATA_DIR=str(data), BROWSER=browser)
    return run_cli(*args, env=env, timeout=timeout)


def stored_secrets(data: Path) -> list[str]:
    """Every token and client secret taskscope stored."""
    (path,) = (data / "oauth").iterdir()
    document = json.loads(path.read_text())
    tokens, client = document["tokens"], document["client"]
    found = [tokens["access_token"], tokens.get("refresh_token"), client.get("client_secret")]
    return [value for value in found if value]


def test_sign_in_refresh_and_logout(protected_url: str, tmp_path: Path) -> None:
    data, trace, record = tmp_path / "data", tmp_path / "trace.ndjson", tmp_path / "run.ndjson"
    listed = cli(
        data,
        "tools",
        "list",
        "--url",
        protected_url,
        "--trace-frames",
        str(trace),
        "--record",
        str(record),
        browser=browser_command(),
    )
    assert listed.code == 0, listed.stderr
    assert "lookup_weather" in listed.stdout
    steps = [line for line in listed.stderr.splitlines() if line.startswith("oauth: ")]
    assert [step.split()[1] for step in steps] == [
        "the",  # the server answered HTTP 401
        "protected",
        "authorization",
        "registered",
        "sign",
        "token",
    ], steps
    (stored,) = (data / "oauth").iterdir()
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    first_secrets = stored_secrets(data)

    status = cli(data, "oauth", "status", "--url", protected_url)
    assert status.code == 0
    shown = status.document
    assert shown["signedIn"] is True and shown["refreshable"] is True
    assert shown["scopes"] == ["tasks"] and shown["issuer"].startswith("http://127.0.0.1:")

    time.sleep(1.2)  # past the 1 s token life: the next run must refresh, not sign in again
    again = cli(data, "tools", "list", "--url", protected_url, "--trace-frames", str(trace))
    assert again.code == 0, again.stderr
    assert "oauth: access token refreshed" in again.stderr
    assert "sign in" not in again.stderr
    refreshed_secrets = stored_secrets(data)
    assert refreshed_secrets[0] != first_secrets[0]

    written = [trace.read_text(), record.read_text()]
    printed = [listed.stdout, listed.stderr, status.stdout, again.stdout, again.stderr]
    for secret in {*first_secrets, *refreshed_secrets}:
        for text in [*written, *printed]:
            assert secret not in text
    assert '"purpose": "OAuth: token request (refresh_token)"' in trace.read_text()

    gone = cli(data, "oauth", "logout", "--url", protected_url)
    assert gone.document == {"server": protected_url, "removed": True}
    assert not any((data / "oauth").iterdir())
    refused = cli(data, "tools", "list", "--url", protected_url, "--auth-mode", "none")
    assert refused.code == 1
    assert refused.error["details"]["httpStatus"] == 401


def test_a_denied_sign_in_says_why(protected_url: str, tmp_path: Path) -> None:
    """The person refused: the command stops with the authorization server's reason and stores
    no token."""
    data = tmp_path / "data"
    run = cli(data, "tools", "list", "--url", protected_url, browser=browser_command(deny=True))
    assert run.code == 1
    assert run.error["code"] == "CONNECTION_FAILED"
    assert "access_denied (the user said no)" in run.error["details"]["reason"]
    status = cli(data, "oauth", "status", "--url", protected_url)
    assert status.document == {"server": protected_url, "signedIn": False}


def test_a_scope_challenge_steps_up(tmp_path: Path) -> None:
    """`migrate_database` needs the admin scope: the call meets 403 insufficient_scope, signs in
    again with the union of the scopes, and goes through; the stored grant has both scopes."""
    data = tmp_path / "data"
    with start_http_demo("extension", "--auth") as (url, _process):
        call = cli(
            data,
            "tools",
            "call",
            "--url",
            url,
            "--tool-name",
            "migrate_database",
            "--task",
            browser=browser_command(),
        )
        assert call.code == 0, call.stderr
        assert call.document["status"] == "task_created"
        assert "oauth: the server answered HTTP 403: authorizing" in call.stderr
        assert "Traceback" not in call.stderr
        status = cli(data, "oauth", "status", "--url", url)
    assert status.document["scopes"] == ["tasks", "admin"]


def test_sign_in_over_the_deprecated_sse_transport(tmp_path: Path) -> None:
    """HTTP+SSE behind the SDK's authorization middleware: the GET of the stream meets 401,
    taskscope signs in and opens the stream again with the token; the next run reuses it, and a
    refused sign-in ends the wait for the endpoint with the reason instead of a timeout."""
    with serving("tests.support.servers.sdk_server", "--transport", "sse", "--auth") as base:
        url = f"{base}/sse"
        flags = ["--url", url, "--transport", "sse"]
        echo = ["tools", "call", *flags, "--tool-name", "echo", "--tool-args", '{"text": "hi"}']
        data = tmp_path / "data"
        signed = cli(data, *echo, browser=browser_command())
        assert signed.code == 0, signed.stderr
        assert signed.document["content"][0]["text"] == "hi"
        assert "oauth: token received from 127.0.0.1" in signed.stderr
        again = cli(data, *echo)
        assert again.code == 0 and "oauth:" not in again.stderr
        status = cli(data, "oauth", "status", *flags)
        assert status.document["signedIn"] is True and status.document["scopes"] == ["tasks"]
        for secret in stored_secrets(data):
            assert secret not in signed.stdout + signed.stderr + again.stdout + status.stdout

        denied = cli(tmp_path / "other", *echo, browser=browser_command(deny=True))
    assert denied.code == 1
    assert "access_denied" in denied.error["details"]["reason"]


class Heard:
    """A sign-in observer that lets the test be the person: it only notes the URL."""

    def __init__(self) -> None:
        self.url: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_step(self, step: AuthStep) -> None:
        return None

    async def sign_in(self, authorization_url: str) -> None:
        self.url.set_result(authorization_url)


class Sink:
    """Where the SSE transport reports: the inbound answers, and the refusal it met."""

    def __init__(self) -> None:
        self.inbound: list[Inbound] = []

    def on_outgoing(self, message: dict[str, Any], headers: Mapping[str, str]) -> None:
        return None

    def on_incoming(self, inbound: Inbound) -> None:
        self.inbound.append(inbound)

    def on_request_failed(self, rpc_id: str | int, error: TransportError) -> None:
        return None

    def on_message_lost(self, error: TransportError) -> None:
        return None

    def on_closed(self, error: TransportError) -> None:
        return None


ENDPOINT_WAIT_S = 3.0


async def test_a_slow_sign_in_outlasts_the_wait_for_the_sse_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person takes longer than the endpoint wait: it does not count while they sign in."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    with serving("tests.support.servers.sdk_server", "--transport", "sse", "--auth") as base:
        target = HttpTarget(url=f"{base}/sse", transport="sse")
        heard = Heard()
        authorizer = authorizer_for(target, heard)
        assert authorizer is not None
        # long enough for the endpoint to come after the sign-in on a loaded machine
        transport = SseTransport(target, AuthGate(authorizer), endpoint_timeout=ENDPOINT_WAIT_S)
        sink = Sink()
        started = asyncio.ensure_future(transport.start(sink))
        url = await asyncio.wait_for(heard.url, 30)
        await asyncio.sleep(ENDPOINT_WAIT_S + 1)  # the person takes longer than the wait
        assert not started.done()
        await asyncio.to_thread(visit, url, False)
        try:
            await asyncio.wait_for(started, 30)
            assert sink.inbound[0].http_status == 401
        finally:
            await transport.close()
            await authorizer.close()
