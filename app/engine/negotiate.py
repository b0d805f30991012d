"""The era dance: decide whether a server speaks legacy (2025-11-25) or modern (2026-07-28) MCP.

`auto` probes `server/discover` and falls back to `initialize` on any non-modern error, on an HTTP
400/404/405 without a modern JSON-RPC body, and on a probe timeout (silent legacy stdio servers).
A modern error (-32022 and kin) means modern: retry at a version the server named, never fall back.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from app.engine.protocol_keys import TASKS_EXTENSION
from app.engine.transports.base import Era, TransportError, TransportKind

MODERN_VERSION = "2026-07-28"
LEGACY_VERSION = "2025-11-25"
MODERN_VERSIONS: tuple[str, ...] = (MODERN_VERSION,)
HANDSHAKE_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", LEGACY_VERSION)

UNSUPPORTED_VERSION_CODES: frozenset[int] = frozenset({-32022, -32004})
MODERN_ERROR_CODES: frozenset[int] = frozenset({-32022, -32021, -32020, -32004, -32003, -32001})
FALLBACK_HTTP_STATUSES: frozenset[int] = frozenset({400, 404, 405})

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

EraPreference = Literal["auto", "legacy", "modern"]


class RpcFailure(Protocol):
    """What negotiation needs to know about a JSON-RPC error (rpc_types.RpcError)."""

    code: int
    message: str
    data: Any


def client_capabilities(*, declare_tasks: bool) -> dict[str, Any]:
    """What taskscope can do for a server: answer elicitations, sampling and roots requests."""
    capabilities: dict[str, Any] = {
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {},
    }
    if declare_tasks:
        capabilities["extensions"] = {TASKS_EXTENSION: {}}
    return capabilities


def stamp_modern(
    params: Mapping[str, Any] | None,
    *,
    version: str,
    client_info: Mapping[str, str],
    declare_tasks: bool,
) -> dict[str, Any]:
    """`params` with the per-request modern `_meta` envelope merged in; caller keys are kept."""
    stamped = dict(params or {})
    meta = dict(stamped.get("_meta") or {})
    meta[META_PROTOCOL_VERSION] = version
    meta.setdefault(META_CLIENT_INFO, dict(client_info))
    meta.setdefault(META_CLIENT_CAPABILITIES, client_capabilities(declare_tasks=declare_tasks))
    stamped["_meta"] = meta
    return stamped


@dataclass(frozen=True, slots=True)
class Negotiated:
    """The outcome of the dance: the era, the version spoken, and the server's self-description."""

    era: Era
    protocol_version: str
    result: dict[str, Any]
    name: str
    version: str
    capabilities: dict[str, Any]
    instructions: str | None


class HandshakeChannel(Protocol):
    """The few connection operations negotiation drives."""

    transport_kind: TransportKind

    def use_era(self, era: Era, protocol_version: str) -> None: ...

    async def handshake_request(
        self, method: str, params: dict[str, Any], *, timeout: float | None
    ) -> dict[str, Any]: ...

    async def handshake_notify(self, method: str, params: dict[str, Any] | None) -> None: ...

    def is_rpc_error(self, error: BaseException) -> bool: ...


class NegotiationError(Exception):
    """The server answered in a way no era can work with."""


async def negotiate(
    channel: HandshakeChannel,
    preference: EraPreference,
    *,
    client_info: Mapping[str, str],
    probe_timeout: float,
    request_timeout: float,
) -> Negotiated:
    """Run the era dance on a freshly started transport and return what was agreed."""
    if preference == "legacy":
        return await initialize(channel, client_info=client_info, timeout=request_timeout)
    timeout = probe_timeout if preference == "auto" else request_timeout
    try:
        return await discover(channel, MODERN_VERSION, client_info=client_info, timeout=timeout)
    except Exception as error:
        version = _modern_retry_version(channel, error)
        if version is not None:
            return await discover(
                channel, version, client_info=client_info, timeout=request_timeout
            )
        if preference == "modern" or not _falls_back(channel, error):
            raise
    return await initialize(channel, client_info=client_info, timeout=request_timeout)


def _modern_retry_version(channel: HandshakeChannel, error: BaseException) -> str | None:
    """For -32022, the modern version to retry at; raises when the server is modern but unusable."""
    if not channel.is_rpc_error(error):
        return None
    code = getattr(error, "code", None)
    if code not in MODERN_ERROR_CODES:
        return None
    if code not in UNSUPPORTED_VERSION_CODES:
        raise error
    data = getattr(error, "data", None)
    supported = data.get("supported") if isinstance(data, dict) else None
    offered = [v for v in supported or [] if isinstance(v, str)]
    modern = [v for v in offered if v not in HANDSHAKE_VERSIONS and v != MODERN_VERSION]
    if modern:
        return max(modern)
    if any(v in HANDSHAKE_VERSIONS for v in offered):
        return None  # the versions it names are handshake versions: initialize is the way
    raise NegotiationError(
        f"server rejected protocol {MODERN_VERSION} and offered no usable version "
        f"(supported: {offered or 'none'})"
    ) from error


def _falls_back(channel: HandshakeChannel, error: BaseException) -> bool:
    """Whether a failed probe means "legacy server": any non-modern JSON-RPC error, a timeout,
    or an HTTP 400/404/405 without a JSON-RPC body."""
    if channel.is_rpc_error(error):
        return True
    if isinstance(error, TransportError):
        if error.kind == "timeout":
            return True
        return error.kind == "http" and error.http_status in FALLBACK_HTTP_STATUSES
    return isinstance(error, NegotiationError)


async def discover(
    channel: HandshakeChannel, version: str, *, client_info: Mapping[str, str], timeout: float
) -> Negotiated:
    """Probe `server/discover` at `version`; a result without a modern version is a fallback."""
    channel.use_era("modern", version)
    params = stamp_modern(None, version=version, client_info=client_info, declare_tasks=True)
    result = await channel.handshake_request("server/discover", params, timeout=timeout)
    supported = [v for v in result.get("supportedVersions") or [] if isinstance(v, str)]
    modern = [v for v in supported if v not in HANDSHAKE_VERSIONS]
    if supported and not modern:
        raise NegotiationError(f"server/discover lists no modern version: {supported}")
    chosen = version if version in supported or not supported else max(modern)
    meta = result.get("_meta")
    server = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
    channel.use_era("modern", chosen)
    return _negotiated("modern", chosen, result, server)


async def initialize(
    channel: HandshakeChannel, *, client_info: Mapping[str, str], timeout: float
) -> Negotiated:
    """The 2025-11-25 handshake: `initialize`, then `notifications/initialized`."""
    channel.use_era("legacy", LEGACY_VERSION)
    params = {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": client_capabilities(declare_tasks=False),
        "clientInfo": dict(client_info),
    }
    result = await channel.handshake_request("initialize", params, timeout=timeout)
    version = result.get("protocolVersion")
    if not isinstance(version, str) or not version:
        raise NegotiationError("initialize result has no protocolVersion")
    channel.use_era("legacy", version)
    await channel.handshake_notify("notifications/initialized", None)
    return _negotiated("legacy", version, result, result.get("serverInfo"))


def _negotiated(era: Era, version: str, result: dict[str, Any], server: Any) -> Negotiated:
    server_info = server if isinstance(server, dict) else {}
    capabilities = result.get("capabilities")
    instructions = result.get("instructions")
    return Negotiated(
        era=era,
        protocol_version=version,
        result=copy.deepcopy(result),
        name=str(server_info.get("name") or ""),
        version=str(server_info.get("version") or ""),
        capabilities=dict(capabilities) if isinstance(capabilities, dict) else {},
        instructions=instructions if isinstance(instructions, str) else None,
    )
