"""Every process the tests start has a HOME and XDG folders of its own, never the user's, while
installs still go to the shared test cache."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
from pathlib import Path

from tests.support.node_tools import cache_dir

XDG_VARIABLES = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def test_a_child_process_sees_the_tests_home_not_the_users() -> None:
    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()
    shown = subprocess.run(
        [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    seen = json.loads(shown.stdout)
    home = Path(seen["HOME"]).resolve()
    assert home != real_home and real_home not in home.parents
    for variable in XDG_VARIABLES:
        assert Path(seen[variable]).resolve().is_relative_to(home), variable
    assert not cache_dir().is_relative_to(home)  # installs are not repeated per session
