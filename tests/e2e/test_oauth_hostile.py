"""MCP authorization against hostile sign-in servers (tests/support/servers/hostile_auth.py) and
a credential folder someone else planted: nothing secret shown, nothing unsendable kept, no
crash on absurd expiries, no refresh storm, one sign-in attempt per connection, and credentials
never read from or written into a place another user controls."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qsl

import httpx
import pytest

from app.engine.oauth.authorizer import AuthorizationFailed, Authorizer, authorizer_for
from app.engine.oauth.refresh_budget import MIN_REFRESH_INTERVAL_S
from app.engine.oauth.steps import AuthStep
from app.engine.oauth.store import MAX_TOKEN_LIFE_S, credentials_path
from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import HttpTarget
from tests.support.auth_browser import browser_command, visit
from tests.support.cli_helpers import Run, clean_env, run_cli
from tests.support.demo_servers import serving, start_http_demo
from tests.support.manual_clock import ManualClock
from tests.support.servers.hostile_auth import SLOW_TOKEN_S

pytestmark = pytest.mark.timeout(180)

OTHER_USER = 65534
"""`nobody`: the owner of what "another user" planted (the tests run as root)."""
SECRET_PIECE = 24
"""Characters of a secret that must not appear anywhere, even cut from the rest."""


def cli(data: Path, *args: str, browser: str | None = None) -> Run:
    env = clean_env(TASKSCOPE_DATA_DIR=str(data), BROWSER=browser or browser_command())
    return run_cli(*args, env=env, timeout=90)


@pytest.fixture
def hostile(request: pytest.FixtureRequest) -> Iterator[str]:
    """The base URL of the hostile sign-in server in the mode the test names (`param`)."""
    with serving("tests.support.servers.hostile_auth", "--mode", request.param) as base:
        yield base


def pieces(secret: str) -> set[str]:
    """Every `SECRET_PIECE`-character piece of `secret`."""
    return {secret[at : at + SECRET_PIECE] for at in range(len(secret) - SECRET_PIECE + 1)}


@pytest.mark.parametrize("hostile", ["echo-form"], indirect=True)
def test_a_token_endpoint_echoing_the_request_shows_no_verifier(
    hostile: str, tmp_path: Path
) -> None:
    """The 400 repeats the form (code, PKCE verifier): neither shows, whole or in part, on
    stderr, in `--record` or in `--trace-frames`."""
    trace, record = tmp_path / "trace.ndjson", tmp_path / "run.ndjson"
    run = cli(
        tmp_path / "data",
        *("tools", "list", "--url", f"{hostile}/mcp"),
        *("--trace-frames", str(trace), "--record", str(record)),
    )
    assert run.code == 1 and "invalid_grant" in run.stderr
    forms = [dict(parse_qsl(form)) for form in httpx.get(f"{hostile}/seen").json()]
    assert forms and all(len(form["code_verifier"]) >= 43 for form in forms)
    written = "\n".join([run.stdout, run.stderr, trace.read_text(), record.read_text()])
    assert "bad request: grant_type=authorization_code" in written  # the echo is shown ...
    for secret in (form[field] for form in forms for field in ("code_verifier", "code")):
        assert not any(piece in written for piece in pieces(secret))  # ... its secrets are not


@pytest.mark.parametrize("hostile", ["endless"], indirect=True)
def test_a_token_said_to_live_1e20_seconds_is_kept_a_year(hostile: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    url = f"{hostile}/mcp"
    signed = cli(data, "tools", "list", "--url", url)
    assert signed.code == 0, signed.stderr
    status = cli(data, "oauth", "status", "--url", url)
    assert status.code == 0, status.stderr
    assert status.document["signedIn"] is True and status.document["expired"] is False
    (stored,) = (data / "oauth").iterdir()
    document = json.loads(stored.read_text())
    assert document["tokens"]["expires_in"] == MAX_TOKEN_LIFE_S
    expires = datetime.fromisoformat(status.document["expiresAt"]).timestamp()
    assert expires == pytest.approx(document["saved_at"] + MAX_TOKEN_LIFE_S)
    again = cli(data, "tools", "list", "--url", url)
    assert again.code == 0 and "oauth:" not in again.stderr


@pytest.mark.parametrize("hostile", ["crlf"], indirect=True)
def test_a_token_no_header_can_carry_is_refused_not_kept(hostile: str, tmp_path: Path) -> None:
    """The sign-in fails saying why; nothing is stored, so the next run signs in afresh instead
    of failing on the kept token."""
    data = tmp_path / "data"
    url = f"{hostile}/mcp"
    first = cli(data, "tools", "list", "--url", url)
    assert first.code == 1
    assert "issued an access token that cannot be sent in an HTTP header" in first.stderr
    assert "X-Injected" not in first.stderr
    status = cli(data, "oauth", "status", "--url", url)
    assert status.document == {"server": url, "signedIn": False}
    again = cli(data, "tools", "list", "--url", url)
    assert "illegal value for header" not in again.stderr
    assert "oauth: the server answered HTTP 401: authorizing" in again.stderr


class Person:
    """A sign-in observer that is the person at the browser: says no to the first `denials`
    sign-ins, yes to the rest."""

    def __init__(self, denials: int = 0) -> None:
        self.denials = denials
        self.sign_ins = 0
        self.steps: list[AuthStep] = []
        self._visits: set[asyncio.Future[None]] = set()

    def on_step(self, step: AuthStep) -> None:
        self.steps.append(step)

    async def sign_in(self, authorization_url: str) -> None:
        self.sign_ins += 1
        deny = self.sign_ins <= self.denials
        visiting = asyncio.ensure_future(asyncio.to_thread(visit, authorization_url, deny))
        self._visits.add(visiting)
        visiting.add_done_callback(self._visits.discard)


REQUESTS = 20
REQUEST_TIMEOUT_S = 2.0
"""Shorter than the slow token endpoint takes; long enough for a request to a local server."""


@pytest.mark.parametrize("hostile", ["instant"], indirect=True)
async def test_60_kb_tokens_that_expire_at_once_do_not_refresh_on_every_request(
    hostile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each token says `expires_in: -5`: it counts as living `MIN_TOKEN_LIFE_S`, so twenty
    requests in a row go out with the token of the sign-in, none refreshing it."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    heard = Person()
    authorizer = authorizer_for(HttpTarget(f"{hostile}/mcp"), heard)
    assert authorizer is not None
    frames: list[Frame] = []
    try:
        connection = Connection(HttpTarget(f"{hostile}/mcp"), authorizer=authorizer)
        connection.add_frame_listener(frames.append)
        async with connection:
            for _ in range(REQUESTS):
                await connection.request("tools/list", {})
    finally:
        await authorizer.close()
    answered = [f for f in frames if f.method == "tools/list" and f.direction == "in"]
    assert len(answered) == REQUESTS and all(f.http_status == 200 for f in answered)
    purposes = [frame.purpose for frame in frames if frame.direction == "out"]
    assert "OAuth: token request (authorization_code)" in purposes
    assert "OAuth: token request (refresh_token)" not in purposes
    assert [step.kind for step in heard.steps].count("token") == 1


def test_a_refused_sign_in_is_tried_once_per_command(tmp_path: Path) -> None:
    """`server/discover` meets 401 and the person says no: `initialize`, the era's fallback,
    fails at once with the same reason instead of opening the browser again."""
    with start_http_demo("extension", "--auth") as (url, _process):
        run = cli(
            tmp_path / "data", "tools", "list", "--url", url, browser=browser_command(deny=True)
        )
    assert run.code == 1
    assert run.stderr.count("oauth: the server answered HTTP 401: authorizing") == 1
    assert run.stderr.count("sign in at 127.0.0.1") == 1
    tried = run.error["details"]["era"]["tried"]
    assert [attempt["method"] for attempt in tried] == ["server/discover", "initialize"]
    assert all("access_denied (the user said no)" in attempt["answer"] for attempt in tried)


async def test_after_a_refused_sign_in_a_new_connection_or_signing_out_tries_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failure is the connection's: the next connection signs in (the person says yes
    this time); signing out lets a refusal on the same connection sign in again too."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    with start_http_demo("extension", "--auth") as (url, _process):
        target = HttpTarget(url)
        person = Person(denials=1)
        authorizer = authorizer_for(target, person)
        assert authorizer is not None
        try:
            with pytest.raises(Exception, match="access_denied"):
                async with Connection(target, authorizer=authorizer):
                    pass
            assert person.sign_ins == 1
            async with Connection(target, authorizer=authorizer) as connection:
                await connection.request("tools/list", {})
            assert person.sign_ins == 2

            person.denials = 3
            await authorizer.sign_out()
            with pytest.raises(AuthorizationFailed, match="access_denied"):
                await authorizer.challenged(401, {}, b"", None, {})
            with pytest.raises(AuthorizationFailed, match="access_denied"):
                await authorizer.challenged(401, {}, b"", None, {})
            assert person.sign_ins == 3
            await authorizer.sign_out()
            person.denials = 0
            assert await authorizer.challenged(401, {}, b"", None, {})
            assert person.sign_ins == 4
        finally:
            await authorizer.close()


def planted_folder(data: Path) -> Path:
    """`<data>/oauth` made by another user, open for anyone to write in."""
    folder = data / "oauth"
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    os.chown(folder, OTHER_USER, OTHER_USER)
    return folder


@pytest.mark.skipif(os.geteuid() != 0, reason="planting another user's folder needs root")
def test_a_credential_folder_of_another_user_is_never_used(tmp_path: Path) -> None:
    """The sign-in works for the run, saying why nothing is kept and how to put it right;
    nothing is written into the folder, and `oauth status` and `logout` say why too."""
    data = tmp_path / "data"
    folder = planted_folder(data)
    with start_http_demo("extension", "--auth") as (url, _process):
        run = cli(data, "tools", "list", "--url", url)
        assert run.code == 0, run.stderr
        assert "lookup_weather" in run.stdout
        said = [line for line in run.stderr.splitlines() if "belongs to user" in line]
        assert len(said) == 1 and said[0].startswith("oauth: the credential folder")
        assert f"chown {os.geteuid()} {folder}" in said[0]
        assert not any(folder.iterdir())
        status = cli(data, "oauth", "status", "--url", url)
        logout = cli(data, "oauth", "logout", "--url", url)
    assert status.document["signedIn"] is False
    assert "belongs to user 65534" in status.document["problem"]
    assert logout.document["removed"] is False
    assert "nothing was removed" in logout.document["problem"]


def heard(base: str) -> dict[str, list[str | None]]:
    """What the hostile sign-in server heard: each MCP request's `Authorization`, each token
    request's `grant_type`."""
    document: dict[str, list[str | None]] = httpx.get(f"{base}/heard").json()
    return document


@pytest.mark.parametrize("hostile", ["flaky"], indirect=True)
async def test_a_server_refusing_every_other_request_gets_one_refresh_per_interval(
    hostile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every other `tools/list` is refused 401 with a good, refreshable token: the first
    refusal refreshes it; the next ones, before `MIN_REFRESH_INTERVAL_S` has passed on the
    authorizer's clock, fail saying why, refreshing nothing and signing in again neither; once
    the interval has passed, one refresh more."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    person, clock = Person(), ManualClock()
    target = HttpTarget(f"{hostile}/mcp")
    authorizer = Authorizer(target.url, target.oauth, person, clock=clock)
    outcomes: list[str] = []
    try:
        async with Connection(target, authorizer=authorizer) as connection:
            for _ in range(REQUESTS):
                try:
                    await connection.request("tools/list", {})
                    outcomes.append("ok")
                except Exception as exc:  # the refused request, said in words
                    outcomes.append(str(exc))
            assert heard(hostile)["grants"] == ["authorization_code", "refresh_token"]
            clock.now += MIN_REFRESH_INTERVAL_S
            for _ in range(2):  # one of them refused, refreshed and sent again
                await connection.request("tools/list", {})
    finally:
        await authorizer.close()
    assert heard(hostile)["grants"] == ["authorization_code", "refresh_token", "refresh_token"]
    assert person.sign_ins == 1
    refused = [outcome for outcome in outcomes if outcome != "ok"]
    assert outcomes[0] == "ok" and len(refused) == REQUESTS // 2
    assert all("HTTP 401" in text for text in refused)
    assert all(
        f"not refreshed again within {MIN_REFRESH_INTERVAL_S:.0f} s, nor signed in again" in text
        for text in refused
    ), refused[0]


PLANTED_ACCESS = "planted-access-token-NOVEMBER8812"
PLANTED_REFRESH = "planted-refresh-token-OSCAR2291"


def planted_file(data: Path, url: str, *, owner: int, mode: int) -> Path:
    """A credential file for `url` in the user's own private folder, holding a fresh token and
    a refresh token, owned by `owner` with `mode`."""
    folder = data / "oauth"
    folder.mkdir(parents=True, mode=0o700)
    path = credentials_path(url, folder)
    tokens = {"access_token": PLANTED_ACCESS, "token_type": "Bearer", "expires_in": 3600}
    tokens["refresh_token"] = PLANTED_REFRESH
    path.write_text(json.dumps({"server": url, "tokens": tokens, "saved_at": time.time()}))
    path.chmod(mode)
    os.chown(path, owner, owner)
    return path


@pytest.mark.parametrize(
    ("owner", "mode", "why"),
    [
        pytest.param(
            OTHER_USER,
            0o600,
            f"it belongs to user {OTHER_USER}",
            marks=pytest.mark.skipif(os.geteuid() != 0, reason="planting needs root"),
            id="another-user",
        ),
        pytest.param(os.geteuid(), 0o644, "others may read or change it (mode 0644)", id="0644"),
    ],
)
@pytest.mark.parametrize("hostile", ["plain"], indirect=True)
def test_a_credential_file_planted_in_the_users_folder_is_ignored_and_replaced(
    hostile: str, tmp_path: Path, owner: int, mode: int, why: str
) -> None:
    """The planted token is never sent, nor its refresh token used: the command signs in,
    saying once on stderr that the file was ignored and why, succeeds (exit 0), and the
    user's own credentials replace the file, which the next run uses without a sign-in."""
    data, url = tmp_path / "data", f"{hostile}/mcp"
    path = planted_file(data, url, owner=owner, mode=mode)
    run = cli(data, "tools", "list", "--url", url)
    assert run.code == 0, run.stderr
    assert "echo" in run.stdout
    said = [line for line in run.stderr.splitlines() if "ignored the credential file" in line]
    assert len(said) == 1, run.stderr
    assert said[0].startswith(f"oauth: ignored the credential file {path}: {why}")
    assert "the next sign-in replaces it" in said[0]
    assert "oauth: the server answered HTTP 401: authorizing" in run.stderr
    assert PLANTED_ACCESS not in run.stdout + run.stderr
    found = path.stat()
    assert (found.st_uid, stat.S_IMODE(found.st_mode)) == (os.geteuid(), 0o600)
    assert PLANTED_ACCESS not in path.read_text()
    again = cli(data, "tools", "list", "--url", url)
    assert again.code == 0 and "oauth:" not in again.stderr
    sent = heard(hostile)
    assert not any(PLANTED_ACCESS in (value or "") for value in sent["authorizations"])
    assert sent["grants"] == ["authorization_code"]
    assert sent["authorizations"][-1] is not None  # the second run sent its own token


@pytest.mark.parametrize("hostile", ["slow"], indirect=True)
async def test_no_request_times_out_while_the_connection_authorizes(
    hostile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token endpoint slower than the request timeout (as on a machine starved of CPU) does
    not time out the request that is waiting for the sign-in: its clock stands still until the
    token comes, then the request goes and is answered."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    assert SLOW_TOKEN_S > REQUEST_TIMEOUT_S
    person = Person()
    target = HttpTarget(f"{hostile}/mcp")
    authorizer = Authorizer(target.url, target.oauth, person)
    try:
        async with Connection(
            target, authorizer=authorizer, request_timeout=REQUEST_TIMEOUT_S
        ) as connection:
            listed = await connection.request("tools/list", {})
    finally:
        await authorizer.close()
    assert listed["tools"]
    assert person.sign_ins == 1
    assert heard(hostile)["grants"] == ["authorization_code"]
