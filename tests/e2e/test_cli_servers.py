"""`taskscope servers`: every server of a client config file connected side by side, each with its
state and tasks wire; failures named one by one, never the whole command's."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from app.engine.tasks.models import Wire
from tests.support.auth_browser import browser_command
from tests.support.cli_helpers import Run, clean_env, run_cli
from tests.support.demo_servers import start_http_demo, stdio_demo_command

HEADER_SECRET = "config-header-secret-5678"


def stdio_demo(wire: Wire) -> dict[str, Any]:
    command, *args = stdio_demo_command(wire)
    return {"command": command, "args": args}


def servers(data: Path, config: Path, *flags: str) -> Run:
    env = clean_env(TASKSCOPE_DATA_DIR=str(data), BROWSER="false")
    return run_cli("servers", "--config", str(config), *flags, env=env)


def write_config(path: Path, entries: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"mcpServers": entries}))
    return path


def test_every_server_is_listed_and_each_failure_named(extension_url: str, tmp_path: Path) -> None:
    silent = [sys.executable, "-c", "import time; time.sleep(120)"]
    with start_http_demo("extension", "--auth") as (protected, _process):
        config = write_config(
            tmp_path / "mcp.json",
            {
                "legacy-stdio": stdio_demo("legacy"),
                "extension-http": {
                    "url": extension_url,
                    "headers": {"X-Api-Key": HEADER_SECRET},
                },
                "silent": {"command": silent[0], "args": silent[1:]},
                "protected": {"url": protected},
                "broken": {"args": ["no command"]},
            },
        )
        # long enough for a stdio demo to start on a loaded machine; the silent one waits it out
        run = servers(tmp_path / "data", config, "--timeout", "20")
    assert run.code == 0, run.stderr
    listed = {entry["name"]: entry for entry in run.document["servers"]}
    assert list(listed) == ["legacy-stdio", "extension-http", "silent", "protected", "broken"]

    legacy, extension = listed["legacy-stdio"], listed["extension-http"]
    assert legacy["state"] == "connected" and legacy["wire"] == "legacy"
    assert legacy["transport"] == "stdio" and legacy["list"] is True
    assert legacy["era"]["settled"] == "legacy"
    assert extension["state"] == "connected" and extension["wire"] == "extension"
    assert extension["server"]["name"] == "taskscope-demo-extension"
    assert extension["transport"] == "streamable" and extension["update"] is True

    assert listed["silent"]["state"] == "failed"
    assert "no answer within 20 s" in listed["silent"]["error"]["details"]["reason"]
    protected_error = listed["protected"]["error"]
    assert listed["protected"]["state"] == "failed"
    assert "needs a sign-in: run taskscope oauth login" in protected_error["details"]["reason"]
    assert listed["broken"]["state"] == "invalid"
    assert "needs a 'command' or a 'url'" in listed["broken"]["error"]["message"]
    assert HEADER_SECRET not in run.stdout + run.stderr


def test_chosen_servers_in_the_order_given_and_a_stored_sign_in_used(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with start_http_demo("legacy", "--auth") as (protected, _process):
        config = write_config(
            tmp_path / "mcp.json",
            {"a": stdio_demo("extension"), "b": stdio_demo("legacy"), "signed": {"url": protected}},
        )
        login = run_cli(
            "oauth",
            "login",
            "--config",
            str(config),
            "--server",
            "signed",
            env=clean_env(TASKSCOPE_DATA_DIR=str(data), BROWSER=browser_command()),
        )
        assert login.code == 0, login.stderr
        run = servers(data, config, "--server", "signed", "--server", "a")
    assert run.code == 0, run.stderr
    listed = run.document["servers"]
    assert [entry["name"] for entry in listed] == ["signed", "a"]
    assert [entry["state"] for entry in listed] == ["connected", "connected"]
    assert [entry["wire"] for entry in listed] == ["legacy", "extension"]


def test_an_unknown_server_name_is_a_usage_error(tmp_path: Path) -> None:
    config = write_config(tmp_path / "mcp.json", {"a": stdio_demo("legacy")})
    run = servers(tmp_path / "data", config, "--server", "zed")
    assert run.code == 2
    assert run.error["message"].endswith("has no server 'zed' (servers: a)")
