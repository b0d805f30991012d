"""Headless start-up stays light: each verb imports only what it uses.

Each check runs the real command path (`app.cli.main.main`) in a fresh interpreter against a demo
server over Streamable HTTP, then reports which modules that process loaded. `tasks capabilities`
and `tools list` must not load pydantic, the models, the wire adapters, the poller or the prompts;
a one-shot task verb loads the adapters but not the poller or the prompts.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.demo_servers import REPO_ROOT, SharedServers

ADAPTER_MODULES = (
    "pydantic",
    "app.engine.tasks.models",
    "app.engine.tasks.factory",
    "app.engine.tasks.normalize",
)
"""What only a verb that drives tasks may load."""
WATCH_MODULES = (
    "app.engine.polling.poller",
    "app.cli.watch",
    "app.cli.prompts",
    "app.cli.responder",
)
"""What only a verb that watches or answers input may load."""
NEVER = ("mcp", "textual")

PROBE = """\
import json, sys
from app.cli.main import main

code = main(sys.argv[1:])
sys.stderr.write("\\n" + json.dumps({"code": code, "modules": sorted(sys.modules)}) + "\\n")
"""


def loaded_by(*argv: str) -> tuple[int, str, set[str]]:
    """Run `taskscope ARGV` in a fresh interpreter: its exit code, stdout and loaded modules."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], done.stdout, set(report["modules"])


@pytest.fixture(scope="module", params=["legacy", "extension"])
def server(request: pytest.FixtureRequest, shared_servers: SharedServers) -> tuple[str, str]:
    """A demo server of each wire over Streamable HTTP: (wire, url)."""
    return request.param, shared_servers.demo(request.param)


def test_capabilities_loads_neither_pydantic_nor_the_adapters(server: tuple[str, str]) -> None:
    wire, url = server
    code, stdout, modules = loaded_by("tasks", "capabilities", "--url", url)
    assert code == 0
    assert json.loads(stdout)["wire"] == wire
    assert modules.isdisjoint((*ADAPTER_MODULES, *WATCH_MODULES, *NEVER))
    assert "app.engine.record.recorder" in modules  # the session's journal hook is cheap to import


def test_tools_list_loads_neither_pydantic_nor_the_adapters(server: tuple[str, str]) -> None:
    _wire, url = server
    code, stdout, modules = loaded_by("tools", "list", "--url", url)
    assert code == 0
    assert "build_report" in {tool["name"] for tool in json.loads(stdout)["tools"]}
    assert modules.isdisjoint((*ADAPTER_MODULES, *WATCH_MODULES, *NEVER))


def test_a_task_verb_loads_the_adapters_but_not_the_poller_or_prompts(
    server: tuple[str, str],
) -> None:
    _wire, url = server
    code, _stdout, modules = loaded_by("tasks", "get", "--task-id", "no-such-task", "--url", url)
    assert code == 1  # unknown task: the verb ran through the adapter and reported it
    assert {"pydantic", "app.engine.tasks.factory"} <= modules
    assert modules.isdisjoint((*WATCH_MODULES, *NEVER))
