"""Where taskscope connects: a stdio command or an HTTP URL, from flags or a client config file.

The CLI parses the flags; this module turns them (and Claude Desktop / Cursor / VS Code config
files) into frozen `Target` values and raises `TargetError` with a message fit for a usage error.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

BEARER_ENV = "TASKSCOPE_BEARER"
HttpTransportKind = Literal["streamable", "sse"]


class TargetError(ValueError):
    """A bad target flag or config entry; the message says what to fix."""


@dataclass(frozen=True)
class StdioTarget:
    """A server spawned as a subprocess and spoken to over its stdin/stdout."""

    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    label: str = ""

    def __post_init__(self) -> None:
        if not self.command:
            raise TargetError("the server command is empty")
        if not self.label:
            object.__setattr__(self, "label", shlex.join(self.command))


@dataclass(frozen=True)
class HttpTarget:
    """A server reached over Streamable HTTP, or the deprecated HTTP+SSE transport."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    bearer: str | None = None
    transport: HttpTransportKind = "streamable"
    label: str = ""

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^/\s]+", self.url):
            raise TargetError(f"not an http(s) URL: {self.url!r}")
        if self.transport not in ("streamable", "sse"):
            raise TargetError(f"unknown HTTP transport {self.transport!r} (streamable or sse)")
        if not self.label:
            object.__setattr__(self, "label", self.url)


Target = StdioTarget | HttpTarget


def parse_header(text: str) -> tuple[str, str]:
    """Split a `--header 'K: V'` flag into name and value."""
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not name or any(ch.isspace() for ch in name):
        raise TargetError(f"bad header {text!r}: expected 'Name: value'")
    return name, value.strip()


def parse_env(text: str) -> tuple[str, str]:
    """Split a `--env K=V` flag into name and value."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise TargetError(f"bad environment assignment {text!r}: expected NAME=value")
    return name.strip(), value


def command_target(
    command_line: str, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> StdioTarget:
    """A stdio target from a `--command 'cmd args'` flag (shell-style split, no shell)."""
    try:
        argv = shlex.split(command_line)
    except ValueError as exc:
        raise TargetError(f"cannot split --command {command_line!r}: {exc}") from exc
    if not argv:
        raise TargetError("--command is empty")
    return StdioTarget(command=argv, env=dict(env or {}), cwd=cwd)


def url_target(
    url: str,
    headers: Sequence[str] | Mapping[str, str] = (),
    bearer: str | None = None,
    transport: HttpTransportKind = "streamable",
) -> HttpTarget:
    """An HTTP target from `--url`, `--header` flags and `--bearer` (or `TASKSCOPE_BEARER`)."""
    parsed = dict(headers) if isinstance(headers, Mapping) else dict(map(parse_header, headers))
    token = bearer if bearer is not None else os.environ.get(BEARER_ENV) or None
    return HttpTarget(url=url, headers=parsed, bearer=token, transport=transport)


def demo_target(wire: Literal["legacy", "extension"]) -> StdioTarget:
    """The built-in demo server for one tasks wire, spawned over stdio with this interpreter."""
    if wire not in ("legacy", "extension"):
        raise TargetError(f"unknown demo wire {wire!r} (legacy or extension)")
    command = [sys.executable, "-m", "app.demo", "--wire", wire, "--transport", "stdio"]
    return StdioTarget(command=command, label=f"demo ({wire})")


_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _expand(value: str, where: str) -> str:
    """Expand `${NAME}`, `${env:NAME}` and `${NAME:-default}` from the environment."""

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = os.environ.get(name)
        if found is not None:
            return found
        if default is not None:
            return default
        raise TargetError(f"{where}: environment variable {name} is not set")

    return _VARIABLE.sub(substitute, value)


def _strings(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TargetError(f"{where} must be an object of strings")
    return {str(key): _expand(str(item), f"{where}.{key}") for key, item in value.items()}


def _entry_target(name: str, entry: Any, path: str) -> Target:
    where = f"{path}: server {name!r}"
    if not isinstance(entry, dict):
        raise TargetError(f"{where} is not an object")
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    url = entry.get("url") or entry.get("serverUrl")
    if url is not None or kind in ("http", "sse", "streamable-http", "streamablehttp"):
        if not isinstance(url, str):
            raise TargetError(f"{where} has no 'url'")
        transport: HttpTransportKind = "sse" if kind == "sse" else "streamable"
        headers = _strings(entry.get("headers"), f"{where} headers")
        return HttpTarget(url=_expand(url, where), headers=headers, transport=transport, label=name)
    if kind not in ("", "stdio"):
        raise TargetError(f"{where} has unknown type {kind!r}")
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise TargetError(f"{where} needs a 'command' or a 'url'")
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise TargetError(f"{where} 'args' must be a list")
    argv = [_expand(command, where), *(_expand(str(arg), where) for arg in args)]
    cwd = entry.get("cwd")
    return StdioTarget(
        command=argv,
        env=_strings(entry.get("env"), f"{where} env"),
        cwd=_expand(cwd, where) if isinstance(cwd, str) else None,
        label=name,
    )


def load_config_target(path: str, server: str) -> Target:
    """The target named `server` in a standard MCP client config file.

    Reads `{"mcpServers": {...}}` (Claude Desktop, Cursor) and `{"servers": {...}}` (VS Code).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise TargetError(f"cannot read config {path}: {exc.strerror or exc}") from exc
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TargetError(f"{path} is not valid JSON: {exc}") from exc
    servers: Any = None
    if isinstance(document, dict):
        servers = document.get("mcpServers", document.get("servers"))
    if not isinstance(servers, dict):
        raise TargetError(f"{path} has no 'mcpServers' or 'servers' object")
    if server not in servers:
        known = ", ".join(sorted(servers)) or "none"
        raise TargetError(f"{path} has no server {server!r} (servers: {known})")
    return _entry_target(server, servers[server], path)
