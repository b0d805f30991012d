"""Signing in to a server taskscope's authors did not write: the TypeScript SDK's example server
behind the SDK's own authorization server, from the command line and from the full-screen App,
with `tests/support/auth_browser.py` as the person clicking "allow"."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from app.engine.rpc.targets import HttpTarget
from tests.interop.catalog import BY_NAME, running_protected
from tests.support.auth_browser import browser_command, visit
from tests.support.cli_helpers import Run, clean_env, run_cli
from tests.support.tui_helpers import SIZE, connected, live_app, only_task, wait_for
from widgets.arguments_form import CreateRequest
from widgets.sign_in_screen import SignInScreen

pytestmark = pytest.mark.timeout(180)
FORM = BY_NAME["ts-sdk-simpleStreamableHttp"].form
VARIANT = (
    "oauth: the registration came with a client secret but no token_endpoint_auth_method: "
    "using client_secret_post"
)


@pytest.fixture(scope="module")
def protected_url() -> Iterator[str]:
    with running_protected(strict=False) as url:
        yield url


def cli(data: Path, *args: str) -> Run:
    env = clean_env(TASKSCOPE_DATA_DIR=str(data), BROWSER=browser_command())
    return run_cli(*args, env=env, timeout=120)


def stored_secrets(data: Path) -> list[str]:
    (path,) = (data / "oauth").iterdir()
    document = json.loads(path.read_text())
    return [document["tokens"]["access_token"], document["client"]["client_secret"]]


def test_sign_in_then_a_task_asks_and_finishes(protected_url: str, tmp_path: Path) -> None:
    """The call meets 401, registers (the secret-without-method variant named), signs in, and
    the task's question is answered; the token and the client secret show nowhere."""
    assert FORM is not None
    data, answers, trace = tmp_path / "data", tmp_path / "answers.json", tmp_path / "trace.ndjson"
    answers.write_text(json.dumps(list(FORM.answers)))
    call = cli(
        data,
        "tools",
        "call",
        "--url",
        protected_url,
        "--tool-name",
        FORM.tool,
        "--tool-args",
        json.dumps(FORM.arguments),
        "--answers",
        str(answers),
        "--task",
        "--task-watch",
        "--yes",
        "--trace-frames",
        str(trace),
    )
    assert call.code == 0, call.stderr
    assert call.document["outcome"] == "completed"
    assert FORM.expect in json.dumps(call.document["task"]["result"])
    assert VARIANT in call.stderr.splitlines()

    status = cli(data, "oauth", "status", "--url", protected_url)
    assert status.document["signedIn"] is True
    assert status.document["scopes"] == ["mcp:tools"]
    assert status.document["issuer"].startswith("http://localhost:")

    again = cli(data, "tools", "list", "--url", protected_url)
    assert again.code == 0 and "greet" in again.stdout
    assert "oauth:" not in again.stderr  # the stored token is used as it is

    for secret in stored_secrets(data):
        for text in (call.stdout, call.stderr, status.stdout, again.stdout, trace.read_text()):
            assert secret not in text


def test_a_strict_server_gets_a_token_for_its_own_resource(tmp_path: Path) -> None:
    """`--oauth-strict` refuses tokens without its resource (RFC 8707): taskscope sends it."""
    with running_protected(strict=True) as url:
        run = cli(
            tmp_path / "data",
            "tools",
            "call",
            "--url",
            url,
            "--tool-name",
            "greet",
            "--tool-args",
            '{"name": "Ada"}',
        )
    assert run.code == 0, run.stderr
    assert "Ada" in run.stdout


async def test_the_app_signs_in_and_watches_a_task(
    protected_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sign-in screen names the variant among its steps; once the person has been at the
    authorization URL, the App connects and a task runs to the end."""
    monkeypatch.setenv("BROWSER", "true")
    app = live_app(HttpTarget(url=protected_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SignInScreen) and app.screen.state.url is not None
        )
        screen = app.screen
        assert isinstance(screen, SignInScreen) and screen.state.url is not None
        steps = screen.query_one("#sign-in-steps", Static)
        await wait_for(  # the screen draws its steps after it opens
            pilot, lambda: "no token_endpoint_auth_method" in str(steps.render()).replace("\n", " ")
        )
        await asyncio.to_thread(visit, screen.state.url, False)
        await connected(pilot)
        await app.create_task(CreateRequest("delay", {"duration": 300}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        await wait_for(pilot, lambda: only_task(app).status == "completed", timeout=60)
        purposes = [frame.purpose for frame in app.frames]
        assert "OAuth: client registration (RFC 7591)" in purposes
        assert "OAuth: token request (authorization_code)" in purposes
