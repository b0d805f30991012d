"""Runs a command at idle CPU priority: `python -m bench.idle_priority COMMAND [ARGS...]`.

The scale benchmark starts its stdio demo servers through this when it compares ten servers with
one. On a 2-core machine the ten server processes share the cores with the App, and a server that
a request wakes is run at once, ahead of the App; the App's loop then stands still while it holds
callbacks, and key presses wait. Under Linux's `SCHED_IDLE` policy a server runs only on a core
nothing else wants, so what remains is the App's own work. Elsewhere the command runs at the
lowest `nice` priority, which is weaker; `POLICY` names which one was used.
"""

from __future__ import annotations

import os
import sys

POLICY = "SCHED_IDLE" if hasattr(os, "SCHED_IDLE") else "nice 19"
"""The priority the servers get on this platform, as the benchmark reports it."""


def lower_priority() -> None:
    """Put this process at idle priority (or the lowest nice one where there is no SCHED_IDLE)."""
    if hasattr(os, "SCHED_IDLE"):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.nice(19)


def idle_command(command: list[str]) -> list[str]:
    """`command`, started through this module at idle priority."""
    return [sys.executable, "-m", "bench.idle_priority", *command]


def main(argv: list[str]) -> None:
    """Lower this process's priority and become `argv`."""
    if not argv:
        raise SystemExit("usage: python -m bench.idle_priority COMMAND [ARGS...]")
    lower_priority()
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
