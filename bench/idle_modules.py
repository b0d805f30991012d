"""`python -m bench.idle_modules OUT MODULE [ARGS…]`: run MODULE as `python -m MODULE ARGS…` would,
and write the names of every imported module to OUT (one a line, sorted) when sent SIGUSR1.

`bench startup` runs the floor and taskscope under it once each and prints the modules taskscope
has imported at idle that the floor has not, so a start-up regression names its module.
"""

from __future__ import annotations

import os
import runpy
import signal
import sys
from types import FrameType


def main(argv: list[str]) -> None:
    """Install the SIGUSR1 handler, then hand the process to `argv[1]` with `argv[2:]`."""
    out, module, *args = argv

    def write_modules(_signum: int, _frame: FrameType | None) -> None:
        partial = f"{out}.partial"
        with open(partial, "w", encoding="utf-8") as listing:
            listing.write("\n".join(sorted(sys.modules)) + "\n")
        os.replace(partial, out)  # whole or absent: the bench waits for the file

    signal.signal(signal.SIGUSR1, write_modules)
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
