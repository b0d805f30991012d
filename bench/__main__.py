"""`python -m bench [--quick] [name …]`: run the benchmarks (all by default) and print every
figure beside its target with PASS/MISS; the exit code is 1 when any target was missed.

Names: overhead, scale, pacing, startup, memory, time_view, check. `--quick` runs short, small
versions (a smoke run whose figures mean little); the full run takes about half an hour.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

from bench.common import Report, load_average, machine

BENCHMARKS = ("overhead", "scale", "pacing", "startup", "memory", "time_view", "check")


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks in order; 0 when every target was met."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", choices=[[], *BENCHMARKS], metavar="name")
    parser.add_argument("--quick", action="store_true", help="short smoke-run durations")
    options = parser.parse_args(argv)
    names = options.names or list(BENCHMARKS)
    print(f"machine: {machine()}")
    print(f"load average before: {load_average()}")
    reports: list[Report] = []
    for name in names:
        print(f"\n== {name}{' (quick)' if options.quick else ''}", flush=True)
        started = time.perf_counter()
        module = importlib.import_module(f"bench.{name}")
        reports.append(module.run(options.quick))
        print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)
    print(f"\nload average after: {load_average()}")
    misses = [figure for report in reports for figure in report.misses]
    print(f"{len(misses)} target(s) missed" if misses else "every target met")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
