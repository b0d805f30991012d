"""Test-wide set-up: a HOME of the session's own (tests/support/isolated_home.py), SVG snapshots
in the top-level snapshots/ folder, no cursor blinks, and the HTTP servers that tests share for
the whole session (one of each per xdist worker).

A shared server is one that tests only read from and add their own tasks to; a test that kills,
restarts or reconfigures its server starts a fresh one itself (`start_http_demo`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension
from textual.widgets import Input

from tests.support.demo_servers import SharedServers
from tests.support.isolated_home import isolate_home, remove_home

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"
ISOLATED_HOME = pytest.StashKey[Path]()
"""The session's own HOME, removed when the session ends."""
DEMO_SPEED = ("--speed", "20")
"""The shared demo servers run twenty times faster than a person would watch."""


def pytest_configure(config: pytest.Config) -> None:
    """Before any test starts a process: give the session a HOME of its own."""
    config.stash[ISOLATED_HOME] = isolate_home()


def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(ISOLATED_HOME, None)
    if home is not None:
        remove_home(home)


def _snapshot_dirname(cls: type, *, test_location: Any) -> str:
    return str(SNAPSHOT_ROOT / Path(test_location.filepath).stem)


SVGImageExtension.dirname = classmethod(_snapshot_dirname)  # type: ignore[method-assign,assignment]


@pytest.fixture(autouse=True)
def frozen_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Input cursors never blink, so screenshots do not depend on timing."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


@pytest.fixture(scope="session")
def shared_servers() -> Iterator[SharedServers]:
    """Every shared server of this session (or xdist worker), stopped at its end."""
    servers = SharedServers()
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture(scope="session")
def legacy_url(shared_servers: SharedServers) -> str:
    """A legacy-wire demo server on Streamable HTTP (`--speed 20`)."""
    return shared_servers.demo("legacy", *DEMO_SPEED)


@pytest.fixture(scope="session")
def extension_url(shared_servers: SharedServers) -> str:
    """An extension-wire demo server on Streamable HTTP (`--speed 20`)."""
    return shared_servers.demo("extension", *DEMO_SPEED)


@pytest.fixture(scope="session")
def echo_secrets_url(shared_servers: SharedServers) -> str:
    """The server that quotes back the credentials it received (tests/support/servers/
    echo_secrets.py): its base URL; the endpoint is `/mcp`, what it received is at `/seen`."""
    return shared_servers.module("tests.support.servers.echo_secrets")
