"""Where taskscope keeps what outlives a run (known task ids, OAuth credentials)."""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "TASKSCOPE_DATA_DIR"


def data_dir() -> Path:
    """`$TASKSCOPE_DATA_DIR`, else `$XDG_DATA_HOME/taskscope`, else `~/.local/share/taskscope`."""
    explicit = os.environ.get(DATA_DIR_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "taskscope"
