"""What every benchmark shares: figures with targets and PASS/MISS, percentiles, process
measurements (CPU, RSS from `/proc`), the machine description and demo-server start-up.

Figures are ratios against a baseline taken in the same run wherever the issue asks for one,
because these machines are shared and noisy and absolute times do not hold.
"""

from __future__ import annotations

import os
import platform
import resource
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.support.demo_servers import (  # noqa: E402  (the repo root must be importable first)
    free_port,
    http_demo_command,
    start_http_demo,
    stdio_demo_command,
    stop_process,
    wait_for_port,
)

__all__ = [
    "REPO_ROOT",
    "Figure",
    "Report",
    "cpu_seconds",
    "free_port",
    "http_demo_command",
    "machine",
    "peak_rss_mib",
    "percentile",
    "proc_rss_mib",
    "process_cpu_seconds",
    "start_http_demo",
    "stdio_demo_command",
    "stop_process",
    "wait_for_port",
]

Direction = Literal["max", "min"]


@dataclass(frozen=True)
class Figure:
    """One measured figure and, when it has one, its target (`value <= target` for "max")."""

    name: str
    value: float
    unit: str = ""
    target: float | None = None
    direction: Direction = "max"
    note: str = ""

    @property
    def verdict(self) -> str:
        """PASS, MISS, or "info" for figures without a target."""
        if self.target is None:
            return "info"
        ok = self.value <= self.target if self.direction == "max" else self.value >= self.target
        return "PASS" if ok else "MISS"

    def row(self) -> str:
        """One printed line: name, value, target and verdict."""
        target = ""
        if self.target is not None:
            sign = "≤" if self.direction == "max" else "≥"
            target = f"{sign} {_number(self.target)}{self.unit}"
        value = f"{_number(self.value)}{self.unit}"
        note = f"  ({self.note})" if self.note else ""
        return f"  {self.name:<52} {value:>14}  {target:>12}  {self.verdict}{note}"


@dataclass
class Report:
    """The figures one benchmark produced, printed as a block."""

    benchmark: str
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, figure: Figure) -> Figure:
        self.figures.append(figure)
        print(figure.row(), flush=True)
        return figure

    @property
    def misses(self) -> list[Figure]:
        return [figure for figure in self.figures if figure.verdict == "MISS"]


def _number(value: float) -> str:
    if value == int(value) and abs(value) >= 10:
        return str(int(value))
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def percentile(values: Sequence[float], fraction: float) -> float:
    """The `fraction` quantile (0..1), linearly interpolated; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far (children not included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds another process has used so far (`/proc/PID/stat`)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _status_kib(pid: int | str, key: str) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def proc_rss_mib(pid: int | str = "self") -> float:
    """Resident set size now (`VmRSS`), MiB."""
    return _status_kib(pid, "VmRSS") / 1024


def peak_rss_mib(pid: int | str = "self") -> float:
    """Peak resident set size (`VmHWM`), MiB."""
    return _status_kib(pid, "VmHWM") / 1024


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, for the report."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def machine() -> str:
    """A one-line description of the machine the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            lines = [line for line in info if line.startswith("model name")]
        names = [line.split(":", 1)[1].strip() for line in lines]
        if names:
            cpu = names[0]
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


@contextmanager
def stopwatch() -> Iterator[list[float]]:
    """`with stopwatch() as elapsed:` — `elapsed[0]` holds the wall seconds afterwards."""
    box: list[float] = []
    start = time.perf_counter()
    try:
        yield box
    finally:
        box.append(time.perf_counter() - start)
