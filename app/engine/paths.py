"""Where taskscope keeps what outlives a run (known task ids, OAuth credentials), and how it writes
a report the user asked for."""

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


def write_private(path: str | Path, text: str) -> Path:
    """Write a report file (`~` expanded) as the user's own (0600, also when it existed), never
    through a symlink; returns where it went. Raises `OSError` when it cannot."""
    target = Path(path).expanduser()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(target, flags, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(text)
    return target.resolve()
