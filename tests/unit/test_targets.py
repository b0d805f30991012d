"""Targets from flags and from MCP client config files (Claude Desktop, Cursor, VS Code)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from app.engine.rpc.targets import (
    HttpTarget,
    StdioTarget,
    TargetError,
    command_target,
    demo_target,
    load_config_target,
    parse_env,
    parse_header,
    url_target,
)
from app.engine.safety.redact import REDACTED, Redactor, redact_headers


def write_config(tmp_path: Path, document: Any) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def test_parse_header() -> None:
    assert parse_header("X-Key:  a: b ") == ("X-Key", "a: b")
    for bad in ("no colon", ": value", "Bad Name: v"):
        with pytest.raises(TargetError):
            parse_header(bad)


def test_parse_env() -> None:
    assert parse_env("A=b=c") == ("A", "b=c")
    assert parse_env("EMPTY=") == ("EMPTY", "")
    with pytest.raises(TargetError):
        parse_env("novalue")


def test_command_target_splits_like_a_shell() -> None:
    target = command_target("node 'my server.js' --flag", env={"K": "v"}, cwd="/srv")
    assert target.command == ["node", "my server.js", "--flag"]
    assert (target.env, target.cwd) == ({"K": "v"}, "/srv")
    assert target.label == "node 'my server.js' --flag"
    for bad in ("", "unterminated 'quote"):
        with pytest.raises(TargetError):
            command_target(bad)


def test_url_target_reads_the_bearer_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TASKSCOPE_BEARER", "env-token")
    target = url_target("http://h/mcp", ["X-A: 1"])
    assert (target.bearer, target.headers, target.transport) == (
        "env-token",
        {"X-A": "1"},
        "streamable",
    )
    assert url_target("http://h/mcp", bearer="flag").bearer == "flag"
    assert url_target("http://h/sse", transport="sse").transport == "sse"
    with pytest.raises(TargetError):
        url_target("ftp://h/mcp")


def test_demo_target_runs_this_interpreter() -> None:
    target = demo_target("extension")
    assert target.command == [
        sys.executable,
        "-m",
        "app.demo",
        "--wire",
        "extension",
        "--transport",
        "stdio",
    ]
    with pytest.raises(TargetError):
        demo_target("nope")  # type: ignore[arg-type]


def test_claude_desktop_style_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TS_TEST_TOKEN", "abc")
    path = write_config(
        tmp_path,
        {
            "mcpServers": {
                "local": {
                    "command": "uvx",
                    "args": ["server", "--token", "${TS_TEST_TOKEN}"],
                    "env": {"LEVEL": "${TS_TEST_MISSING:-info}"},
                    "cwd": "/work",
                },
                "remote": {
                    "url": "https://x.example/mcp",
                    "headers": {"X-Key": "${env:TS_TEST_TOKEN}"},
                },
                "legacy-sse": {"type": "sse", "url": "https://x.example/sse"},
            }
        },
    )
    local = load_config_target(path, "local")
    assert local == StdioTarget(
        command=["uvx", "server", "--token", "abc"],
        env={"LEVEL": "info"},
        cwd="/work",
        label="local",
    )
    remote = load_config_target(path, "remote")
    assert isinstance(remote, HttpTarget)
    assert (remote.headers, remote.transport, remote.label) == (
        {"X-Key": "abc"},
        "streamable",
        "remote",
    )
    sse = load_config_target(path, "legacy-sse")
    assert isinstance(sse, HttpTarget) and sse.transport == "sse"


def test_vs_code_style_config(tmp_path: Path) -> None:
    path = write_config(
        tmp_path,
        {
            "servers": {
                "one": {"type": "stdio", "command": "python", "args": ["-m", "srv"]},
                "two": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
            }
        },
    )
    one = load_config_target(path, "one")
    assert isinstance(one, StdioTarget) and one.command == ["python", "-m", "srv"]
    two = load_config_target(path, "two")
    assert isinstance(two, HttpTarget) and two.url == "http://127.0.0.1:9/mcp"


@pytest.mark.parametrize(
    ("document", "server", "message"),
    [
        ({"mcpServers": {"a": {"command": "x"}}}, "b", "servers: a"),
        ({"other": {}}, "a", "no 'mcpServers' or 'servers'"),
        ({"servers": {"a": {"type": "ws", "url": "x"}}}, "a", "not an http"),
        ({"servers": {"a": {"type": "carrier-pigeon"}}}, "a", "unknown type"),
        ({"servers": {"a": {"args": []}}}, "a", "needs a 'command' or a 'url'"),
        (
            {"servers": {"a": {"command": "x", "env": {"K": "${TS_TEST_UNSET_VAR}"}}}},
            "a",
            "not set",
        ),
    ],
)
def test_config_errors_say_what_is_wrong(
    tmp_path: Path, document: Any, server: str, message: str
) -> None:
    path = write_config(tmp_path, document)
    with pytest.raises(TargetError, match=message.replace("(", r"\(")):
        load_config_target(path, server)


def test_unreadable_and_invalid_config_files(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="cannot read"):
        load_config_target(str(tmp_path / "missing.json"), "a")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    with pytest.raises(TargetError, match="not valid JSON"):
        load_config_target(str(bad), "a")


def test_redaction_of_headers_and_text() -> None:
    headers = {
        "Authorization": "Bearer t0k3n",
        "X-Api-Key": "key-9",
        "X-Short": "ab",
        "Accept": "x",
    }
    assert redact_headers(headers, ["x-api-key", "X-Short"]) == {
        "Authorization": REDACTED,
        "X-Api-Key": REDACTED,
        "X-Short": REDACTED,
        "Accept": "x",
    }
    redactor = Redactor.build(["X-Api-Key", "x-short"], ["t0k3n"], headers)
    assert redactor.text("got t0k3n, key-9 and ab") == f"got {REDACTED}, {REDACTED} and ab"
    assert redactor.value({"a": ["Bearer t0k3n", 1], "t0k3n": None}) == {
        "a": [REDACTED, 1],
        REDACTED: None,
    }
    assert Redactor().value({"a": "t0k3n"}) == {"a": "t0k3n"}
