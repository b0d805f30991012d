"""Whether processes a test started (directly or through the App) are still running, read from
/proc: a process's descendants, and a bounded wait for one to be gone."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def is_gone(pid: int) -> bool:
    """The process has exited (a zombie waiting for its reaper counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def wait_gone(pid: int, attempts: int = 50) -> bool:
    """Whether `pid` is gone, looking up to `attempts` times 0.1 s apart."""
    for _ in range(attempts):
        if is_gone(pid):
            return True
        time.sleep(0.1)
    return False


def end(pid: int) -> None:
    """Clean up after a failed test: kill `pid` if it still runs."""
    if not is_gone(pid):
        os.kill(pid, signal.SIGKILL)


def descendants(root: int) -> set[int]:
    """Every running process below `root` (its children, theirs, and so on)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return {pid for pid in found if not is_gone(pid)}
