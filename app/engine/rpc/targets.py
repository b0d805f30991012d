"""Where taskscope connects: a stdio command or an HTTP URL, from flags or a client config file.

The CLI parses the flags; this module turns them (and Claude Desktop / Cursor / VS Code config
files) into frozen `Target` values and raises `TargetError` with a message fit for a usage error.
"""

from __future__ import annotations

import base64
import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

from app.engine.oauth.settings import OAuthSettings
from app.engine.safety import deep_json
from app.engine.safety.redact import learn_secrets

BEARER_ENV = "TASKSCOPE_BEARER"
MAX_CONFIG_BYTES = 4 * 1024 * 1024
"""A client config file larger than this is refused: one of a hundred servers takes some 20 KB."""
MAX_CONFIG_LEVELS = 32
"""A client config nesting deeper than this is refused: a real one nests four levels (the file,
its servers, an entry, its headers)."""
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
    """A server reached over Streamable HTTP, or the deprecated HTTP+SSE transport.

    Built, it holds no `user:password@` in `url` or `label` (the pair travels only as an
    `Authorization: Basic` header), no surrounding whitespace in the bearer or a header value, and
    no header the transport owns (`check_header`).
    """

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    bearer: str | None = None
    transport: HttpTransportKind = "streamable"
    label: str = ""
    oauth: OAuthSettings = field(default_factory=OAuthSettings)
    """How to authorize when the server answers 401 (only without a bearer or Authorization)."""

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^/\s]+", self.url):
            raise TargetError(f"not an http(s) URL: {without_userinfo(self.url)!r}")
        if self.transport not in ("streamable", "sse"):
            raise TargetError(f"unknown HTTP transport {self.transport!r} (streamable or sse)")
        headers = {name: value.strip() for name, value in self.headers.items()}
        for name, value in headers.items():
            check_header(name, value)
        bearer = self.bearer.strip() if self.bearer else None
        if bearer and any(ch.isspace() or not ch.isprintable() for ch in bearer):
            raise TargetError(
                "the bearer token holds a space or a control character: give the token alone"
            )
        authorization = any(name.lower() == "authorization" for name in headers)
        if bearer and authorization:
            raise TargetError("give the token with --bearer or an Authorization header, not both")
        basic = basic_from_userinfo(self.url)
        if basic is not None:
            if bearer or authorization:
                raise TargetError(
                    "the URL's user:password and a bearer token or Authorization header "
                    "both give credentials: keep one"
                )
            headers["Authorization"] = basic
        url = without_userinfo(self.url)
        object.__setattr__(self, "url", url)
        object.__setattr__(self, "headers", headers)
        object.__setattr__(self, "bearer", bearer or None)
        object.__setattr__(self, "label", without_userinfo(self.label) if self.label else url)


Target = StdioTarget | HttpTarget


def parse_header(text: str) -> tuple[str, str]:
    """Split a `--header 'K: V'` flag into name and value (surrounding whitespace stripped).

    A malformed flag is named by its first word only: the rest may be a credential.
    """
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not name or any(ch.isspace() for ch in name):
        first = text.split(None, 1)[0].partition(":")[0] if text.strip() else ""
        raise TargetError(f"bad header starting {first!r}: expected 'Name: value'")
    return name, value.strip()


FRAMING_HEADERS: frozenset[str] = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "proxy-connection",
        "upgrade",
        "te",
        "trailer",
        "expect",
        "content-encoding",
    }
)
"""Headers that frame the HTTP message: the client writes them, a second copy would contradict."""
TRANSPORT_HEADERS: frozenset[str] = frozenset(
    {
        "accept",
        "accept-encoding",
        "content-type",
        "last-event-id",
        "mcp-session-id",
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
    }
)
"""Headers the MCP transport sets on each request (`Mcp-Param-*` too): overriding them breaks it."""
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")


def check_header(name: str, value: str) -> None:
    """Refuse a user header taskscope cannot send as given: a name that is not an HTTP token, a
    control character in the value (it would split the request), or a header it sets itself."""
    if not _TOKEN.match(name):
        raise TargetError(f"bad header name {name!r}: letters, digits and !#$%&'*+-.^_`|~ only")
    lowered = name.lower()
    if lowered in FRAMING_HEADERS:
        raise TargetError(
            f"header {name!r} cannot be set: taskscope frames each request itself "
            "(Host from the URL, Content-Length, Transfer-Encoding, Connection, …)"
        )
    if lowered in TRANSPORT_HEADERS or lowered.startswith("mcp-param-"):
        raise TargetError(f"header {name!r} cannot be set: the MCP transport sets it per request")
    if _CONTROL.search(value):
        raise TargetError(f"header {name!r}: the value holds a control character (CR, LF, NUL…)")


_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@")


def without_userinfo(url: str) -> str:
    """`url` without a `user:password@` part, so it can be shown, recorded and used as a key."""
    return _USERINFO.sub(r"\1", url, count=1)


def basic_from_userinfo(url: str) -> str | None:
    """The `Basic` Authorization value of the URL's `user:password@` part, if it has one."""
    match = _USERINFO.match(url)
    if match is None:
        return None
    user, _, password = match.group(2).partition(":")
    pair = f"{unquote(user)}:{unquote(password)}"
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


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
    oauth: OAuthSettings | None = None,
) -> HttpTarget:
    """An HTTP target from `--url`, `--header` flags and `--bearer` (or `TASKSCOPE_BEARER`); the
    token and header values are taken without surrounding whitespace (a CRLF file read by
    `$(cat …)` leaves a `\\r`). `oauth`: how to sign in when the server asks (the default:
    in the browser)."""
    parsed = dict(headers) if isinstance(headers, Mapping) else dict(map(parse_header, headers))
    token = bearer if bearer is not None else os.environ.get(BEARER_ENV) or None
    return HttpTarget(
        url=url,
        headers=parsed,
        bearer=token,
        transport=transport,
        oauth=oauth or OAuthSettings(),
    )


def demo_target(wire: Literal["legacy", "extension"]) -> StdioTarget:
    """The built-in demo server for one tasks wire, spawned over stdio with this interpreter."""
    if wire not in ("legacy", "extension"):
        raise TargetError(f"unknown demo wire {wire!r} (legacy or extension)")
    command = [sys.executable, "-m", "app.demo", "--wire", wire, "--transport", "stdio"]
    return StdioTarget(command=command, label=f"demo ({wire})")


_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _expand(value: str, where: str) -> str:
    """Expand `${NAME}`, `${env:NAME}` and `${NAME:-default}` from the environment; each value
    taken from it is a secret from then on (`learn_secrets`), whatever header, URL or argument
    it lands in."""

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = os.environ.get(name)
        if found is not None:
            learn_secrets(found, lasting=True)
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
        try:
            return HttpTarget(
                url=_expand(url, where), headers=headers, transport=transport, label=name
            )
        except TargetError as exc:
            raise TargetError(f"{where}: {exc}") from exc
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


def _config_servers(path: str) -> dict[str, Any]:
    """The server entries of a standard MCP client config file, by name, in file order.

    Reads `{"mcpServers": {...}}` (Claude Desktop, Cursor) and `{"servers": {...}}` (VS Code).
    """
    document = _config_document(path)
    servers: Any = None
    if isinstance(document, dict):
        servers = document.get("mcpServers", document.get("servers"))
    if not isinstance(servers, dict):
        raise TargetError(f"{path} has no 'mcpServers' or 'servers' object")
    return servers


def _config_document(path: str) -> Any:
    """The JSON document of a client config file; a TargetError naming the file when it cannot
    be read, or is larger, deeper or holds a longer integer than any client config."""
    try:
        with Path(path).open("rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise TargetError(f"cannot read config {path}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_CONFIG_BYTES:
        raise TargetError(f"{path} is larger than {MAX_CONFIG_BYTES:,} bytes: not a client config")
    try:
        document = deep_json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TargetError(f"{path} is not UTF-8 text: {exc.reason} at byte {exc.start}") from exc
    except ValueError as exc:
        raise TargetError(f"{path} is not valid JSON: {exc}") from exc
    for value, level in deep_json.walk(document):
        if level > MAX_CONFIG_LEVELS:
            raise TargetError(
                f"{path} nests more than {MAX_CONFIG_LEVELS} levels deep: not a client config"
            )
        if isinstance(value, deep_json.LongInteger):
            raise TargetError(
                f"{path} holds an integer of {len(value.lstrip('-')):,} digits: not a client config"
            )
    return document


def _unknown_server(path: str, server: str, servers: dict[str, Any]) -> TargetError:
    known = ", ".join(sorted(servers)) or "none"
    return TargetError(f"{path} has no server {server!r} (servers: {known})")


def load_config_target(path: str, server: str) -> Target:
    """The target named `server` in a standard MCP client config file."""
    servers = _config_servers(path)
    if server not in servers:
        raise _unknown_server(path, server, servers)
    return _entry_target(server, servers[server], path)


def load_config_targets(
    path: str, names: Sequence[str] = ()
) -> list[tuple[str, Target | TargetError]]:
    """Every server of a config file (or the `names` ones, in that order), each with its target
    or why its entry cannot be used: one broken entry does not hide the others. An unknown
    name, or a file that cannot be read, raises `TargetError`."""
    servers = _config_servers(path)
    for name in names:
        if name not in servers:
            raise _unknown_server(path, name, servers)
    found: list[tuple[str, Target | TargetError]] = []
    for name in names or list(servers):
        try:
            found.append((name, _entry_target(name, servers[name], path)))
        except TargetError as exc:
            found.append((name, exc))
    return found
