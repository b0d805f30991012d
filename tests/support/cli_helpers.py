"""The headless CLI as a subprocess, run as a user's shell would, and what it printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from tests.demo_servers import REPO_ROOT


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
