"""The interop suite: taskscope against independent MCP servers (installed by pinned version into
the test cache on first use), over HTTP and stdio, on the default era.

Run it alone with `python -m pytest -m interop`; leave it out with `-m "not interop"`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.interop.catalog import BY_NAME, running


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "interop: runs taskscope against independent MCP servers (installs them into the test "
        "cache on first use)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/interop/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.interop)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Known task ids go to a temporary directory; no user config is read."""
    monkeypatch.setenv("TASKSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "no-config.json"))
    return tmp_path / "data"


class Urls:
    """One running HTTP instance per server for the whole session, started on first use, and
    started again if an earlier test left it dead (so one server crash fails one test only)."""

    def __init__(self, stack: ExitStack) -> None:
        self._stack = stack
        self._running: dict[str, tuple[str, subprocess.Popen[bytes]]] = {}

    def __call__(self, name: str) -> str:
        known = self._running.get(name)
        if known is None or known[1].poll() is not None:
            self._running[name] = self._stack.enter_context(running(BY_NAME[name]))
        return self._running[name][0]


@pytest.fixture(scope="session")
def server_url() -> Iterator[Urls]:
    """`server_url(name)`: the URL of a running HTTP instance of that independent server."""
    with ExitStack() as stack:
        yield Urls(stack)
