"""The App against the demo server behind MCP authorization (`demo-server --auth`): it signs in
through the loopback redirect (tests/support/auth_browser.py plays the browser), creates and
watches a task while its 1 s access tokens expire and are refreshed, and the RPC log shows the
OAuth exchanges beside the JSON-RPC frames, with no token in any of them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from app.engine.oauth.store import CredentialStore
from app.engine.safety.redact import REDACTED
from tests.support.auth_browser import browser_command, visit
from tests.support.demo_servers import start_http_demo
from tests.support.tui_helpers import (
    SIZE,
    connected,
    http_target,
    live_app,
    only_task,
    server_pane_text,
    wait_for,
)
from widgets.arguments_form import CreateRequest
from widgets.confirm import ConfirmModal
from widgets.sign_in_screen import SignInScreen

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))
    monkeypatch.setenv("BROWSER", browser_command())
    return tmp_path / "data"


@pytest.fixture
def protected_url() -> Iterator[str]:
    with start_http_demo("extension", "--auth", "--token-ttl", "1") as (url, _):
        yield url


async def test_sign_in_then_watch_through_token_refreshes(
    protected_url: str, data_dir: Path
) -> None:
    app = live_app(http_target(protected_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("build_report", {"quarter": "Q3"}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        await wait_for(pilot, lambda: only_task(app).status == "completed", timeout=60)
        done = only_task(app)
        assert done.task is not None and "Q3" in str(done.task.result)
        purposes = [frame.purpose for frame in app.frames]
        assert "OAuth: token request (authorization_code)" in purposes
        assert "OAuth: token request (refresh_token)" in purposes
        (stored,) = (data_dir / "oauth").iterdir()
        tokens = json.loads(stored.read_text())["tokens"]
        shown = "\n".join(
            json.dumps([frame.message, frame.raw, frame.headers, frame.error])
            for frame in app.frames
        )
        assert tokens["access_token"] not in shown and tokens["refresh_token"] not in shown
        authorizations = [
            value
            for frame in app.frames
            for name, value in frame.headers.items()
            if name.lower() == "authorization"
        ]
        assert authorizations and set(authorizations) == {REDACTED}
        await pilot.press("s")
        await wait_for(pilot, lambda: "Sign-in at http://127.0.0.1" in server_pane_text(app))
        pane = server_pane_text(app)
        assert "refreshable" in pane and "scopes tasks" in pane
        assert tokens["access_token"] not in pane and tokens["refresh_token"] not in pane


async def test_the_sign_in_screen_follows_the_steps(
    protected_url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No browser comes back by itself: the sign-in screen shows the authorization server and
    URL, `y` copies the URL, and once the person has been there the screen closes, signed in."""
    monkeypatch.setenv("BROWSER", "true")
    app = live_app(http_target(protected_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SignInScreen) and app.screen.state.url is not None
        )
        screen = app.screen
        assert isinstance(screen, SignInScreen)
        url = screen.state.url
        assert url is not None and url.startswith(protected_url.removesuffix("/mcp"))

        def shown(selector: str) -> str:
            found = screen.query(selector)
            return str(found.only_one(Static).render()) if found else ""

        await wait_for(pilot, lambda: "127.0.0.1" in shown("#sign-in-host"))
        await wait_for(pilot, lambda: "registered as a client" in shown("#sign-in-steps"))
        assert url in shown("#sign-in-url").replace("\n", "")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.clipboard == url)
        await asyncio.to_thread(visit, url, False)
        await connected(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, SignInScreen))
        assert app.sign_in is None


async def test_a_scope_challenge_signs_in_again_and_the_call_goes_through(
    protected_url: str, data_dir: Path
) -> None:
    """`migrate_database` needs the admin scope: the call is answered 403 insufficient_scope, the
    App signs in again with the union of the scopes, and the task is created."""
    app = live_app(http_target(protected_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        await app.create_task(CreateRequest("migrate_database", {}, None, True))
        await wait_for(pilot, lambda: len(app.tasks) == 1, timeout=30)
        assert only_task(app).tool_name == "migrate_database"
        grants = [
            frame
            for frame in app.frames
            if frame.direction == "in"
            and frame.purpose == "OAuth: token request (authorization_code)"
        ]
        assert len(grants) == 2
        assert any(frame.http_status == 403 for frame in app.frames)
        (stored,) = (data_dir / "oauth").iterdir()
        assert json.loads(stored.read_text())["tokens"]["scope"].split() == ["tasks", "admin"]


async def test_after_logout_the_next_start_signs_in_again(
    protected_url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Signed in once, the App starts again without a sign-in; after `taskscope oauth logout`
    (the store's `remove`) it asks for one again."""
    target = http_target(protected_url)
    first = live_app(target, remember_tasks=False)
    async with first.run_test(size=SIZE) as pilot:
        await connected(pilot)
    monkeypatch.setenv("BROWSER", "true")
    again = live_app(target, remember_tasks=False)
    async with again.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert again.sign_in is None
    assert CredentialStore(protected_url).remove()
    after = live_app(target, remember_tasks=False)
    async with after.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(after.screen, SignInScreen))


async def test_sign_out_from_the_palette_then_the_next_call_signs_in_again(
    protected_url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Sign out" in the palette asks first, removes the stored sign-in, and the next request
    the server refuses brings the sign-in screen back; after it, the call goes through."""
    app = live_app(http_target(protected_url), remember_tasks=False)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot)
        assert any((data_dir / "oauth").iterdir())
        monkeypatch.setenv("BROWSER", "true")
        await pilot.press("ctrl+p")
        await pilot.press(*"sign out")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")
        await wait_for(pilot, lambda: not any((data_dir / "oauth").iterdir()))
        create = asyncio.ensure_future(
            app.create_task(CreateRequest("build_report", {"quarter": "Q4"}, None, True))
        )
        await wait_for(
            pilot, lambda: isinstance(app.screen, SignInScreen) and app.screen.state.url is not None
        )
        screen = app.screen
        assert isinstance(screen, SignInScreen) and screen.state.url is not None
        await asyncio.to_thread(visit, screen.state.url, False)
        await create
        await wait_for(pilot, lambda: len(app.tasks) == 1)
        await wait_for(pilot, lambda: only_task(app).status == "completed", timeout=60)
        sent = [frame.purpose for frame in app.frames if frame.direction == "out"]
        assert sent.count("OAuth: client registration (RFC 7591)") == 2
