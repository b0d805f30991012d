"""A HOME and XDG folders of the test session's own, so nothing the tests start (taskscope, the
demo and interop servers, Node, pip) writes into the user's home: FastMCP, for one, saves
`~/.local/share/fastmcp/version_cache.json`.

The test cache keeps its place: `$TASKSCOPE_TEST_CACHE` is pinned to where it was before HOME
moved, so installs are made once, not once per session.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from tests.support.node_tools import CACHE_ENV, DEFAULT_CACHE

XDG_FOLDERS = {
    "XDG_DATA_HOME": ".local/share",
    "XDG_CONFIG_HOME": ".config",
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
}


def isolate_home() -> Path:
    """Point HOME and the XDG variables of this process (and so of every child) at a new
    temporary folder; return it."""
    if not os.environ.get(CACHE_ENV, "").strip():
        os.environ[CACHE_ENV] = str(DEFAULT_CACHE.expanduser())
    home = Path(tempfile.mkdtemp(prefix="taskscope-tests-home-"))
    os.environ["HOME"] = str(home)
    for variable, folder in XDG_FOLDERS.items():
        path = home / folder
        path.mkdir(parents=True, exist_ok=True)
        os.environ[variable] = str(path)
    return home


def remove_home(home: Path) -> None:
    """Delete a folder `isolate_home` made (what the servers left in it goes too)."""
    shutil.rmtree(home, ignore_errors=True)
