"""The headless CLI run against the hostile server: a real subprocess, and what it printed."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from app.engine.safety import deep_json
from tests.support.demo_servers import REPO_ROOT, hostile_command


@dataclass
class Run:
    """A finished CLI run."""

    code: int
    stdout: str
    stderr: str

    @property
    def document(self) -> Any:
        return deep_json.loads(self.stdout)

    @property
    def error(self) -> dict[str, Any]:
        return dict(json.loads(self.stderr.strip().splitlines()[-1])["error"])

    def lines(self, fragment: str) -> list[str]:
        return [line for line in self.stderr.splitlines() if fragment in line]


def taskscope(*args: str, timeout: float = 60) -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="strict",
        cwd=REPO_ROOT,
        timeout=timeout,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def on_stdio(wire: str, *modes: str) -> list[str]:
    return ["--command", shlex.join(hostile_command(wire, *modes))]


def watch_job(target: list[str], *extra: str, tool: str = "job") -> Run:
    return taskscope(
        "tools", "call", *target, "--tool-name", tool, "--task", "--task-watch", *extra
    )
