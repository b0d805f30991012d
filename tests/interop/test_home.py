"""The suite never writes into the user's home: a FastMCP server that saves its version cache
under `~/.local/share/fastmcp` saves it under the tests' own HOME instead."""

from __future__ import annotations

import os
import pwd
import time
from pathlib import Path

from tests.interop.catalog import FASTMCP4, SERVER_SCRIPTS, START_TIMEOUT_S
from tests.support.demo_servers import start_http_server
from tests.support.node_tools import node_env
from tests.support.python_tools import venv_python

CACHE_WAIT_S = 30.0
"""How long the server may take to write its version cache after it listens."""


def test_a_fastmcp_server_writes_its_version_cache_into_the_tests_home() -> None:
    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()
    home = Path(os.environ["HOME"]).resolve()
    assert home != real_home and real_home not in home.parents
    python = venv_python("fastmcp4", FASTMCP4)
    script = SERVER_SCRIPTS / "fastmcp4_tasks.py"

    def launch(port: int) -> tuple[list[str], dict[str, str]]:
        # Update checks left on (no QUIET_FASTMCP): the server writes its version cache.
        return [str(python), str(script), "--http", "--port", str(port)], node_env()

    cache = home / ".local" / "share" / "fastmcp" / "version_cache.json"
    with start_http_server(launch, "fastmcp4-home", START_TIMEOUT_S):
        deadline = time.monotonic() + CACHE_WAIT_S
        while not cache.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    assert cache.exists()
