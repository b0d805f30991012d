"""Start the built-in demo servers (either wire) as real subprocesses for tests.

`start_http_demo("legacy", "--speed", "20")` runs `python -m app.demo` over Streamable HTTP on a
free port and yields its URL once the port accepts connections; `stdio_demo_command(...)` is the
command line a stdio client spawns. `hostile_command` / `start_http_hostile` do the same for the
hostile server (`app.demo.hostile`) with its misbehaviour modes. The server's stderr goes to a
temporary file and is shown when start-up fails, so a crash is never silent. `SharedServers`
keeps one server per command line for a whole session (conftest.py's shared fixtures);
`serving` runs one of the test servers of tests/support/servers; `demo_children` and `until`
let reconnect tests find the demo processes a connection spawned and wait on the event loop.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Literal

Wire = Literal["legacy", "extension"]

REPO_ROOT = Path(__file__).resolve().parents[2]
SUPPORT_SERVERS = Path(__file__).resolve().parent / "servers"
"""The misbehaving test servers, run as scripts by path or as `tests.support.servers.*` modules."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class PortTaken(RuntimeError):
    """The chosen port was taken by another process (another xdist worker's server) first."""


def wait_for_port(
    port: int,
    host: str = "127.0.0.1",
    timeout: float = 20.0,
    process: subprocess.Popen[bytes] | None = None,
) -> None:
    """Block until `host:port` accepts a connection; with `process`, until *that process* (or a
    child of it) listens there, and fail early if it exits first — a port another worker's server
    took between `free_port` and the bind must not pass for ours."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            if listener_pids(port):
                raise PortTaken(f"port {port} was taken by another process")
            raise RuntimeError(f"server exited with code {process.returncode} before listening")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                if process is None or _owned_by(process.pid, listener_pids(port)):
                    return
        except OSError:
            pass
        time.sleep(0.05)
    who = "nothing" if process is None else "our server"
    raise TimeoutError(f"{who} listened on {host}:{port} within {timeout} s")


def listener_pids(port: int) -> set[int]:
    """Process ids holding a listening TCP socket on `port` (read from /proc)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and inodes:
            try:
                if any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir()):
                    pids.add(int(entry.name))
            except OSError:
                continue
    return pids


def _owned_by(root: int, pids: set[int]) -> bool:
    """Whether any of `pids` is `root` or descends from it."""
    for pid in pids:
        while pid > 1:
            if pid == root:
                return True
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                break
            pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


def stdio_demo_command(wire: Wire, *extra_args: str) -> list[str]:
    """The command line of a demo server of `wire` speaking over stdio."""
    return [sys.executable, "-m", "app.demo", "--wire", wire, "--transport", "stdio", *extra_args]


def http_demo_command(wire: Wire, port: int, *extra_args: str) -> list[str]:
    """The command line of a demo server of `wire` on Streamable HTTP at 127.0.0.1:`port`."""
    return [
        sys.executable,
        "-m",
        "app.demo",
        "--wire",
        wire,
        "--transport",
        "http",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *extra_args,
    ]


def spawn_http_demo(wire: Wire, port: int, *extra_args: str) -> subprocess.Popen[bytes]:
    """Start a demo server on 127.0.0.1:`port` (not waiting for it to listen): for a test that
    must bring a server up on a port it already named."""
    return subprocess.Popen(
        http_demo_command(wire, port, *extra_args),
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop_process(process: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """Terminate `process`, killing it if it does not exit within `grace` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=grace)


def hostile_command(wire: Wire, *modes: str, extra_args: Sequence[str] = ()) -> list[str]:
    """The command line of the hostile server (`app.demo.hostile`) over stdio with `modes` on."""
    flags = [part for mode in modes for part in ("--mode", mode)]
    return [sys.executable, "-m", "app.demo.hostile", "--wire", wire, *flags, *extra_args]


def http_hostile_command(
    wire: Wire, port: int, *modes: str, extra_args: Sequence[str] = ()
) -> list[str]:
    """The hostile server's command line on HTTP at 127.0.0.1:`port`."""
    transport = ["--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    return [*hostile_command(wire, *modes, extra_args=extra_args), *transport]


@contextmanager
def start_http_hostile(
    wire: Wire, *modes: str, extra_args: Sequence[str] = (), timeout: float = 20.0
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run the hostile server over HTTP on a free port; yield `(url, process)`, then stop it."""
    with start_http_server(
        lambda port: (http_hostile_command(wire, port, *modes, extra_args=extra_args), None),
        "hostile",
        timeout,
    ) as running:
        yield running


@contextmanager
def start_http_demo(
    wire: Wire, *extra_args: str, timeout: float = 20.0
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run a `wire` demo server over HTTP on a free port; yield `(url, process)`, then stop it."""
    with start_http_server(
        lambda port: (http_demo_command(wire, port, *extra_args), None), wire, timeout
    ) as running:
        yield running


PORT_ATTEMPTS = 3
"""How many free ports a server start tries when another process takes the first one."""


@contextmanager
def start_http_server(
    launch: Callable[[int], tuple[list[str], Mapping[str, str] | None]],
    name: str,
    timeout: float,
    *,
    path: str = "/mcp",
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start `launch(port)`'s command line (with its environment, None for ours) on a free port,
    wait until it listens there, yield `(url, process)`, then stop it; a port taken by someone
    else first is retried on a new one."""
    for attempt in range(PORT_ATTEMPTS):
        port = free_port()
        command, env = launch(port)
        with tempfile.TemporaryFile() as stderr:
            process = subprocess.Popen(
                command,
                cwd=REPO_ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env=None if env is None else dict(env),
            )
            try:
                try:
                    wait_for_port(port, timeout=timeout, process=process)
                except PortTaken:
                    if attempt + 1 < PORT_ATTEMPTS:
                        continue
                    raise
                except (RuntimeError, TimeoutError) as error:
                    stop_process(process)
                    stderr.seek(0)
                    log = stderr.read().decode(errors="replace")[-4000:]
                    raise RuntimeError(f"{name} server did not start: {error}\n{log}") from error
                yield f"http://127.0.0.1:{port}{path}", process
                return
            finally:
                stop_process(process)


@contextmanager
def violating_relay(mode: str) -> Iterator[str]:
    """The extension demo with the suite's fixtures behind the violating relay
    (tests/support/servers/violating.py) in `mode`, over Streamable HTTP; yields its URL."""
    command = [sys.executable, "-m", "tests.support.servers.violating", "--wire", "extension"]
    with start_http_server(
        lambda port: (
            [*command, "--violate", mode, "--port", str(port), "--", "--conformance"],
            None,
        ),
        f"violating relay ({mode})",
        40.0,
    ) as (url, _process):
        yield url


@contextmanager
def serving(module: str, *args: str) -> Iterator[str]:
    """Run `python -m module --port N *args` until it listens; yield its base URL, then stop it."""
    command = [sys.executable, "-m", module]
    with start_http_server(
        lambda port: ([*command, "--port", str(port), *args], None), module, 20.0, path=""
    ) as (url, _process):
        yield url


class SharedServers:
    """Servers started on first use and stopped when closed, one per command line: the session's
    HTTP servers that tests only read from and add tasks to, never kill or reconfigure."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._urls: dict[tuple[str, ...], str] = {}

    def demo(self, wire: Wire, *extra_args: str) -> str:
        """The URL of a demo server of `wire` on Streamable HTTP started with `extra_args`."""
        key = ("app.demo", wire, *extra_args)
        if key not in self._urls:
            url, _process = self._stack.enter_context(start_http_demo(wire, *extra_args))
            self._urls[key] = url
        return self._urls[key]

    def module(self, module: str, *args: str) -> str:
        """The base URL of `python -m module --port N *args` (a server of tests/support/servers)."""
        key = (module, *args)
        if key not in self._urls:
            self._urls[key] = self._stack.enter_context(serving(module, *args))
        return self._urls[key]

    def close(self) -> None:
        self._stack.close()


async def until(predicate: Callable[[], object], timeout: float = 20.0) -> None:
    """Wait (on the event loop) until `predicate()` is true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {predicate}")
        await asyncio.sleep(0.05)


def demo_children() -> list[int]:
    """Process ids of this process's stdio demo-server children (not the session's shared HTTP
    servers, which are children too)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"app.demo" in cmdline and b"--port" not in cmdline:
            found.append(int(entry.name))
    return found
