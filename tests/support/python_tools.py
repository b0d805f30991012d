"""Python packages for the interop suite: pinned server SDKs, each in its own virtualenv.

The servers the interop suite runs are built on other SDK generations (`mcp` 1.x, FastMCP 2 and
4) than taskscope's own `mcp`, so each gets a virtualenv of its own in the test cache (the
folder `tests.support.node_tools.cache_dir()` names, under `venvs/`), made once, under the
same install lock and with the same marker file as the Node installs.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.support.node_tools import (
    PIP_TIMEOUT_S,
    _read_marker,
    _run_quietly,
    _write_marker,
    cache_dir,
    install_lock,
)


def venv_python(name: str, requirements: Sequence[str]) -> Path:
    """The interpreter of a virtualenv holding exactly `requirements` (`pkg==version` pins)."""
    pins = sorted(requirements)
    digest = hashlib.sha256("\n".join(pins).encode()).hexdigest()[:12]
    venv = cache_dir() / "venvs" / f"{name}-{digest}"
    python = venv / "bin" / "python"
    wanted = {"requirements": pins}
    if _read_marker(venv) == wanted and python.exists():
        return python
    with install_lock():
        if _read_marker(venv) == wanted and python.exists():
            return python
        _run_quietly(
            f"python -m venv {venv.name}",
            [sys.executable, "-m", "venv", "--clear", str(venv)],
            PIP_TIMEOUT_S,
        )
        _run_quietly(
            f"pip install {' '.join(pins)}",
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pins],
            PIP_TIMEOUT_S,
        )
        _write_marker(venv, wanted)
    return python


def imports_cleanly(python: Path, module: str) -> bool:
    """Whether `module` imports in that interpreter (a quick check before starting a server)."""
    done = subprocess.run(
        [str(python), "-c", f"import {module}"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return done.returncode == 0
