"""The protocol versions of the two eras, and the per-request `_meta` envelope that modern
requests carry in place of a session."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

MODERN_VERSION = "2026-07-28"
LEGACY_VERSION = "2025-11-25"
HANDSHAKE_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", LEGACY_VERSION)

UNSUPPORTED_VERSION_CODES: frozenset[int] = frozenset({-32022, -32004})
MODERN_ERROR_CODES: frozenset[int] = frozenset({-32022, -32021, -32020, -32004, -32003, -32001})
RATE_LIMITED = 429

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

EraPreference = Literal["auto", "legacy", "modern"]
_DATE_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def stamp_modern(
    params: Mapping[str, Any] | None,
    *,
    version: str,
    client_info: Mapping[str, str],
    capabilities: Mapping[str, Any],
) -> dict[str, Any]:
    """`params` with the per-request modern `_meta` envelope merged in (`capabilities`: the
    client's, from `advertised.ClientCapabilities.modern`); caller keys are kept."""
    stamped = dict(params or {})
    meta = dict(stamped.get("_meta") or {})
    meta[META_PROTOCOL_VERSION] = version
    meta.setdefault(META_CLIENT_INFO, dict(client_info))
    meta.setdefault(META_CLIENT_CAPABILITIES, capabilities)
    stamped["_meta"] = meta
    return stamped


def is_modern_version(version: str) -> bool:
    """A dated protocol version of the stateless era (2026-07-28 or later)."""
    return bool(_DATE_VERSION.match(version)) and version >= MODERN_VERSION
