"""The headless CLI as a subprocess, run as a user's shell would, and what it printed."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tests.support.demo_servers import REPO_ROOT


@dataclass
class Run:
    """A finished CLI run."""

    code: int
    stdout: str
    stderr: str

    @property
    def document(self) -> Any:
        return json.loads(self.stdout)

    @property
    def error(self) -> dict[str, Any]:
        return dict(json.loads(self.stderr.strip().splitlines()[-1])["error"])


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "app.cli.main", *args]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TASKSCOPE_NON_INTERACTIVE")}
    env.update(extra)
    return env


def run_cli(
    *args: str, stdin: str = "", timeout: float = 90, env: dict[str, str] | None = None
) -> Run:
    done = subprocess.run(
        cli_command(*args),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO_ROOT,
        env=env or clean_env(),
    )
    return Run(done.returncode, done.stdout, done.stderr)


class Terminal:
    """The controlling side of a pty: wait for text, type answers."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.seen = ""
        self.position = 0

    def expect(self, text: str, timeout: float = 30.0) -> None:
        """Wait until `text` appears after the previous match."""
        deadline = time.monotonic() + timeout
        while (found := self.seen.find(text, self.position)) < 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"never saw {text!r}; terminal showed:\n{self.seen}")
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"terminal closed before {text!r}:\n{self.seen}")
                self.seen += chunk.decode(errors="replace")
        self.position = found + len(text)

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")


@contextmanager
def interactive_cli(*args: str) -> Iterator[tuple[Terminal, subprocess.Popen[str]]]:
    controller, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TASKSCOPE_NON_INTERACTIVE")}
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", *args, "--interactive"],
        stdin=terminal,
        stderr=terminal,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env=env,
    )
    os.close(terminal)
    try:
        yield Terminal(controller), process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        os.close(controller)
