"""Quitting ends every stdio server taskscope started, whatever state its handshake is in.

A server whose command never answers (`sh -c '…; sleep 90'`) used to outlive the inspector after
`q`, re-parented to init: its handshake was cancelled without its process being ended. The real
inspector runs on a pseudo-terminal, on the command alone, on a config entry alone and on one
beside a working demo server; the headless commands are checked too. Every assertion is on which
processes are left, each awaited with a bounded poll, never on elapsed time.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shlex
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.cli_helpers import clean_env, cli_command, run_cli
from tests.support.demo_servers import REPO_ROOT, stdio_demo_command
from tests.support.processes import descendants, end, wait_gone

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(120),
    pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc"),
]

GONE_ATTEMPTS = 200
"""How often (0.1 s apart) to look for a server process before calling it left behind: well past
the README's 6 s for closing a stdio server."""


def silent_command(pid_file: Path) -> list[str]:
    """A server that writes its pid to `pid_file` and never answers (its shell waits on a
    `sleep` child, so the whole process group must be ended)."""
    return ["sh", "-c", f"echo $$ > {shlex.quote(str(pid_file))}; sleep 90"]


def config_file(tmp_path: Path, pid_file: Path, *, beside_demo: bool) -> Path:
    """An MCP client config: the silent server, and a working demo server beside it if asked."""
    silent, *args = silent_command(pid_file)
    servers: dict[str, dict[str, object]] = {"silent": {"command": silent, "args": args}}
    if beside_demo:
        demo, *demo_args = stdio_demo_command("legacy", "--speed", "20")
        servers["demo"] = {"command": demo, "args": demo_args}
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def wait_until(predicate: Callable[[], object], attempts: int = 300) -> bool:
    """Whether `predicate()` came true, looking up to `attempts` times 0.1 s apart."""
    for _ in range(attempts):
        if predicate():
            return True
        time.sleep(0.1)
    return False


def written_pid(pid_file: Path) -> int | None:
    try:
        text = pid_file.read_text().strip()
    except FileNotFoundError:
        return None
    return int(text) if text else None


@contextmanager
def inspector(tmp_path: Path, *args: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """The full-screen inspector on a 120 by 36 pseudo-terminal (what it draws is read and thrown
    away, so it never blocks on a full terminal): the process and the terminal to type into."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    env = clean_env(
        TASKSCOPE_DATA_DIR=str(tmp_path / "data"),
        TASKSCOPE_CONFIG=str(tmp_path / "no-config.json"),
        TERM="xterm-256color",
    )
    process = subprocess.Popen(
        cli_command(*args), stdin=terminal, stdout=terminal, stderr=terminal, cwd=REPO_ROOT, env=env
    )
    os.close(terminal)

    def drain() -> None:
        while True:
            try:
                if not os.read(controller, 65536):
                    return
            except OSError:
                return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        yield process, controller
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        os.close(controller)
        reader.join(timeout=5)


def quit_and_check(process: subprocess.Popen[bytes], controller: int, servers: set[int]) -> None:
    """Press `q`, wait for the inspector to exit, then for every server process to be gone."""
    os.write(controller, b"q")
    process.wait(timeout=60)
    try:
        left = {pid for pid in servers if not wait_gone(pid, GONE_ATTEMPTS)}
        assert not left, f"still running after quitting: {sorted(left)}"
    finally:
        for pid in servers:
            end(pid)


@pytest.mark.parametrize("how", ["command", "config entry alone", "config entry beside a demo"])
def test_quitting_the_inspector_ends_a_server_that_never_answers(tmp_path: Path, how: str) -> None:
    pid_file = tmp_path / "silent.pid"
    if how == "command":
        args = ["--command", shlex.join(silent_command(pid_file))]
    else:
        config = config_file(tmp_path, pid_file, beside_demo=how.endswith("demo"))
        args = ["--config", str(config)]
    expected = 3 if how.endswith("demo") else 2  # sh and its sleep (and the demo)
    with inspector(tmp_path, *args) as (process, controller):
        assert wait_until(lambda: written_pid(pid_file) is not None), "the server never started"
        assert wait_until(lambda: len(descendants(process.pid)) >= expected)
        servers = descendants(process.pid)
        silent = written_pid(pid_file)
        assert silent in servers
        quit_and_check(process, controller, servers)


def test_servers_with_a_timeout_leaves_no_silent_server_behind(tmp_path: Path) -> None:
    pid_file = tmp_path / "silent.pid"
    config = config_file(tmp_path, pid_file, beside_demo=False)
    run = run_cli("servers", "--config", str(config), "--timeout", "1")
    assert run.code == 0, run.stderr
    [server] = run.document["servers"]
    assert server["state"] == "failed" and "no answer within 1 s" in json.dumps(server)
    silent = written_pid(pid_file)
    assert silent is not None
    try:
        assert wait_gone(silent, GONE_ATTEMPTS)
    finally:
        end(silent)


def test_interrupting_a_headless_command_mid_handshake_leaves_no_server_behind(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "silent.pid"
    command = cli_command("tools", "list", "--command", shlex.join(silent_command(pid_file)))
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO_ROOT, env=clean_env()
    )
    try:
        assert wait_until(lambda: written_pid(pid_file) is not None), "the server never started"
        silent = written_pid(pid_file)
        assert silent is not None
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        try:
            assert wait_gone(silent, GONE_ATTEMPTS)
        finally:
            end(silent)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
