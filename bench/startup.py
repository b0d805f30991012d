"""Benchmark 4 — start-up: launch to first interactive frame of `taskscope demo` and of
`taskscope --url` (a running server with no tasks), launch to "● connected", start-to-exit of
`taskscope tasks capabilities`, and idle memory, each against a floor measured in the same run.

Frames are detected the same way for taskscope and the floor: the program runs under a
pseudo-terminal (160x48), and the clock stops at the last byte of the burst of output that wrote
the table's "Message" column header (the burst ends when the terminal stays quiet 0.1 s). The
time to connected stops at the burst that wrote the header's "connected". Idle memory is the
process's RSS three seconds after connecting (the floor: after its first frame; a `taskscope demo`
server child is not counted). Repeats alternate taskscope and floor; medians are compared. One
more run of each under `bench.idle_modules` lists the modules taskscope has imported at idle that
the floor has not (project modules counted, others named), so a regression names its module.

The project's modules are byte-compiled first (as installing the package does), so no run pays
for compiling taskscope's sources while the floor's libraries load from their installed bytecode —
which would happen in a checkout run with `PYTHONDONTWRITEBYTECODE` set.

Targets: first frame ≤ 1.1x the minimal Textual app's; `tasks capabilities` ≤ 1.5x a bare httpx
script that connects, asks and exits; idle memory ≤ 1.2x the minimal Textual app's.
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
import tempfile
import termios
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.common import (
    REPO_ROOT,
    Figure,
    Report,
    proc_rss_mib,
    process_cpu_seconds,
    start_http_demo,
)

FRAME_TARGET = 1.1
CAPABILITIES_TARGET = 1.5
MEMORY_TARGET = 1.2
MARKER = b"Message"
"""A heading the task table always draws (Next poll, Prog and Marks hide while empty)."""
CONNECTED = b"connected"
"""What the header says once the server answered ("● connected")."""
QUIET_S = 0.1
"""A frame is complete when the terminal has been quiet this long after its last byte."""
IDLE_S = 3.0
TIMEOUT_S = 30.0
TASKSCOPE = [sys.executable, "-m", "app.cli.main"]


@dataclass(frozen=True)
class Launch:
    """One measured start: seconds to the first frame and the CPU seconds spent by then (which a
    loaded machine stretches less), seconds to "connected" (None for the floor, which connects
    to nothing), and the RSS (MiB) when idle."""

    frame_s: float
    frame_cpu_s: float
    connected_s: float | None
    idle_mib: float


def first_frame(
    command: Sequence[str], *, connects: bool, modules_to: Path | None = None
) -> Launch:
    """Launch `command` under a pseudo-terminal and measure it (see `Launch`). With `modules_to`
    the command runs under `bench.idle_modules` and its modules at idle are written there."""
    if modules_to is not None:
        command = [sys.executable, "-m", "bench.idle_modules", str(modules_to), *command[2:]]
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
        frame_s = _read_until(leader, start, MARKER)
        frame_cpu_s = process_cpu_seconds(process.pid)
        connected_s = _read_until(leader, start, CONNECTED) if connects else None
        _drain(leader, IDLE_S)
        rss = proc_rss_mib(process.pid)
        if modules_to is not None:
            _ask_for_modules(process.pid, modules_to, leader)
        return Launch(frame_s, frame_cpu_s, connected_s, rss)
    finally:
        _stop(process)
        os.close(leader)


def _read_until(leader: int, start: float, marker: bytes) -> float:
    """Read until `marker` has been written and the burst of output holding it ended; seconds
    from `start` to the burst's last byte."""
    seen = b""
    last_at = start
    while time.perf_counter() - start < TIMEOUT_S:
        quiet = marker in seen
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
    raise TimeoutError(f"the terminal never showed {marker.decode()!r}")


def _ask_for_modules(pid: int, path: Path, leader: int) -> None:
    """Signal `bench.idle_modules` to write its module list, and wait (bounded) until it has."""
    os.kill(pid, signal.SIGUSR1)
    deadline = time.perf_counter() + TIMEOUT_S
    while time.perf_counter() < deadline and not path.exists():
        _drain(leader, 0.05)


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


def compile_project() -> None:
    """Byte-compile taskscope's packages, as `pip install` does for an installed copy."""
    for package in ("app", "widgets", "bench"):
        compileall.compile_dir(REPO_ROOT / package, quiet=1)


def run(quick: bool) -> Report:
    """Alternate taskscope and its floor `repeats` times per figure; compare medians."""
    report = Report("startup")
    compile_project()
    repeats = 1 if quick else 5
    floor_app = [sys.executable, "-m", "bench.floor_app"]
    with start_http_demo("extension") as (url, _process):
        floors: list[Launch] = []
        demos: list[Launch] = []
        urls: list[Launch] = []
        for _ in range(repeats):
            floors.append(first_frame(floor_app, connects=False))
            demos.append(first_frame([*TASKSCOPE, "demo"], connects=True))
            urls.append(first_frame([*TASKSCOPE, "--url", url], connects=True))
        for label, runs in (("taskscope demo", demos), ("taskscope --url", urls)):
            _add_launch_figures(report, label, runs, floors)
        report.notes.append(_extra_modules(floor_app, [*TASKSCOPE, "--url", url]))
        print(report.notes[-1], flush=True)
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


def _add_launch_figures(
    report: Report, label: str, runs: list[Launch], floor: list[Launch]
) -> None:
    """First frame (time and CPU) and idle RSS against the floor's medians, and the time to
    "connected"."""
    floor_s = statistics.median(launch.frame_s for launch in floor)
    floor_cpu_s = statistics.median(launch.frame_cpu_s for launch in floor)
    floor_mib = statistics.median(launch.idle_mib for launch in floor)
    frame_s = statistics.median(launch.frame_s for launch in runs)
    frame_cpu_s = statistics.median(launch.frame_cpu_s for launch in runs)
    idle_mib = statistics.median(launch.idle_mib for launch in runs)
    connected_s = statistics.median(launch.connected_s or 0.0 for launch in runs)
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
            f"{label}: CPU to first frame ÷ minimal Textual app",
            frame_cpu_s / floor_cpu_s,
            "x",
            note=f"{frame_cpu_s:.3f} s vs {floor_cpu_s:.3f} s",
        )
    )
    report.add(Figure(f"{label}: start to connected", connected_s, " s"))
    report.add(
        Figure(
            f"{label}: idle RSS ÷ minimal Textual app",
            idle_mib / floor_mib,
            "x",
            MEMORY_TARGET,
            note=f"{idle_mib:.1f} MiB vs {floor_mib:.1f} MiB",
        )
    )


def _extra_modules(floor: Sequence[str], taskscope: Sequence[str]) -> str:
    """The modules `taskscope` has imported at idle that `floor` has not: project modules
    counted, every other one named."""
    with tempfile.TemporaryDirectory() as folder:
        floor_list, ours_list = Path(folder, "floor"), Path(folder, "taskscope")
        first_frame(floor, connects=False, modules_to=floor_list)
        first_frame(taskscope, connects=True, modules_to=ours_list)
        extra = set(ours_list.read_text().split()) - set(floor_list.read_text().split())
    own = sorted(name for name in extra if name.split(".")[0] in ("app", "widgets"))
    others = sorted(extra.difference(own))
    return (
        f"  modules at idle beyond the floor's: {len(own)} of taskscope's own, and "
        f"{len(others)} others: {' '.join(others) or 'none'}"
    )
