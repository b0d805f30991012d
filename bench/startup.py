"""Benchmark 4 — start-up: launch to first interactive frame of `taskscope demo` and of
`taskscope --url` (a running server), start-to-exit of `taskscope tasks capabilities`, and idle
memory, each against a floor measured in the same run.

Frames are detected the same way for taskscope and the floor: the program runs under a
pseudo-terminal (160x48), and the clock stops at the last byte of the burst of output that wrote
the table's "Message" column header (the burst ends when the terminal stays quiet 0.1 s). Idle
memory is the process's RSS two seconds after that frame (a `taskscope demo` server child is
not counted). Repeats alternate taskscope and floor; medians are compared.

The project's modules are byte-compiled first (as installing the package does), so no run pays
for compiling taskscope's sources while the floor's libraries load from their installed bytecode —
which would happen in a checkout run with `PYTHONDONTWRITEBYTECODE` set.

Targets: first frame ≤ 1.2x the minimal Textual app's; `tasks capabilities` ≤ 1.5x a bare httpx
script that connects, asks and exits; idle memory ≤ 1.7x the minimal Textual app's.
"""

from __future__ import annotations

import compileall
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence

from bench.common import REPO_ROOT, Figure, Report, proc_rss_mib, start_http_demo

FRAME_TARGET = 1.2
CAPABILITIES_TARGET = 1.5
MEMORY_TARGET = 1.7
MARKER = b"Message"
"""A heading the task table always draws (Next poll, Prog and Marks hide while empty)."""
QUIET_S = 0.1
"""A frame is complete when the terminal has been quiet this long after its last byte."""
IDLE_S = 2.0
TIMEOUT_S = 30.0
TASKSCOPE = [sys.executable, "-m", "app.cli.main"]


def first_frame(command: Sequence[str]) -> tuple[float, float]:
    """Seconds from launch to the first frame showing the table, and the RSS (MiB) when idle."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "48"}
    env.pop("TEXTUAL", None)
    start = time.perf_counter()
    process = subprocess.Popen(
        list(command),
        stdin=follower,
        stdout=follower,
        stderr=follower,  # Textual draws on stderr
        cwd=REPO_ROOT,
        env=env,
        start_new_session=True,
    )
    os.close(follower)
    try:
        elapsed = _read_until_frame(leader, start)
        _drain(leader, IDLE_S)
        rss = proc_rss_mib(process.pid)
        return elapsed, rss
    finally:
        _stop(process)
        os.close(leader)


def _read_until_frame(leader: int, start: float) -> float:
    """Read until the marker has been written and the burst of output holding it ended; the
    time the burst's last byte arrived."""
    seen = b""
    last_at = start
    while time.perf_counter() - start < TIMEOUT_S:
        quiet = MARKER in seen
        ready, _, _ = select.select([leader], [], [], QUIET_S if quiet else 0.5)
        if not ready:
            if quiet:
                return last_at - start
            continue
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        last_at = time.perf_counter()
        seen += chunk
    raise TimeoutError("no frame with the task table appeared")


def _drain(leader: int, seconds: float) -> None:
    """Keep reading (so the program never blocks on a full terminal) for `seconds`."""
    end = time.perf_counter() + seconds
    while (left := end - time.perf_counter()) > 0:
        ready, _, _ = select.select([leader], [], [], left)
        if ready:
            try:
                os.read(leader, 65536)
            except OSError:
                return


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


def run_to_exit(command: Sequence[str]) -> float:
    """Seconds from launch to exit of a command whose output is discarded (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(list(command), cwd=REPO_ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _medians(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs)


def compile_project() -> None:
    """Byte-compile taskscope's packages, as `pip install` does for an installed copy."""
    for package in ("app", "widgets", "bench"):
        compileall.compile_dir(REPO_ROOT / package, quiet=1)


def run(quick: bool) -> Report:
    """Alternate taskscope and its floor `repeats` times per figure; compare medians."""
    report = Report("startup")
    compile_project()
    repeats = 1 if quick else 7
    floor_app = [sys.executable, "-m", "bench.floor_app"]
    with start_http_demo("extension") as (url, _process):
        floors, demos, urls = [], [], []
        for _ in range(repeats):
            floors.append(first_frame(floor_app))
            demos.append(first_frame([*TASKSCOPE, "demo"]))
            urls.append(first_frame([*TASKSCOPE, "--url", url]))
        floor_s, floor_mib = _medians(floors)
        for label, runs in (("taskscope demo", demos), ("taskscope --url", urls)):
            frame_s, idle_mib = _medians(runs)
            report.add(
                Figure(
                    f"{label}: first frame ÷ minimal Textual app",
                    frame_s / floor_s,
                    "x",
                    FRAME_TARGET,
                    note=f"{frame_s:.3f} s vs {floor_s:.3f} s",
                )
            )
            report.add(
                Figure(
                    f"{label}: idle RSS ÷ minimal Textual app",
                    idle_mib / floor_mib,
                    "x",
                    MEMORY_TARGET,
                    note=f"{idle_mib:.0f} MiB vs {floor_mib:.0f} MiB",
                )
            )
        capabilities, bare = [], []
        for _ in range(repeats):
            bare.append(run_to_exit([sys.executable, "-m", "bench.floor_httpx", url]))
            capabilities.append(run_to_exit([*TASKSCOPE, "tasks", "capabilities", "--url", url]))
        ours, floor = statistics.median(capabilities), statistics.median(bare)
        report.add(
            Figure(
                "tasks capabilities: start-to-exit ÷ bare httpx script",
                ours / floor,
                "x",
                CAPABILITIES_TARGET,
                note=f"{ours:.3f} s vs {floor:.3f} s",
            )
        )
    return report
