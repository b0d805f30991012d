"""What the server pane says about a server: who it is, how it is reached and spoken to, its
tasks wire and verbs, the connection's state, the last problem and the stored sign-in (and why
it is not used, when its folder or file cannot be trusted).

Every value is server or user text made one safe line (`one_line`): the pane shows it plainly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.engine.safety.sanitize import one_line
from app.view.formatting import era_tag, format_duration, verbs_text

if TYPE_CHECKING:
    from app.engine.oauth.store import StoredStatus
    from app.engine.record.recording import SessionInfo
    from app.engine.rpc.advertised import ClientCapabilities
    from app.view.source import ConnectionState

VALUE_MAX_CHARS = 300
LABEL_MAX_CHARS = 40
"""A row's label: ours, or a server's name from a config file."""


@dataclass(frozen=True, slots=True)
class ServerFacts:
    """One server in the pane: a title and its rows of (label, value)."""

    title: str
    rows: tuple[tuple[str, str], ...]


def server_facts(
    info: SessionInfo | None,
    connection: ConnectionState,
    *,
    note: str | None,
    problem: str | None,
    sign_in: StoredStatus | None,
    signs_in: bool,
    now: float,
    advertised: ClientCapabilities | None = None,
) -> ServerFacts:
    """The facts of the server `info` describes (None: not connected yet); `signs_in` says
    whether taskscope would sign in to it (an HTTP server with no credentials given),
    `advertised` what taskscope tells it it can do as a client."""
    rows: list[tuple[str, str]] = []
    state = connection + (f": {note}" if note else "")
    if info is None:
        rows.append(("Connection", state))
        return ServerFacts("Server (not connected yet)", _bounded(rows))
    name = f"{info.server_name or 'unnamed server'} {info.server_version}".strip()
    rows.append(("Reached at", f"{info.label} ({info.transport})"))
    era = info.era
    decided = f", {era_tag(era)}: {era.get('reason', '')}" if era else ""
    rows.append(("Protocol", f"{info.protocol_version}{decided}"))
    capabilities = info.capabilities
    wire = capabilities.wire
    rows.append(("Tasks wire", wire if wire == "none" else f"{wire} ({verbs_text(capabilities)})"))
    rows.append(("Connection", state))
    if advertised is not None:
        rows.append(("Advertised", advertised.describe()))
    if info.readonly:
        rows.append(("Read-only", "creating, cancelling and answering are refused"))
    if problem:
        rows.append(("Last problem", problem))
    if signs_in or sign_in is not None:
        rows.append(("Sign-in", _sign_in_text(sign_in, now)))
    if sign_in is not None and sign_in.problem:
        rows.append(("Credentials", sign_in.problem))
    return ServerFacts(one_line(name, VALUE_MAX_CHARS), _bounded(rows))


def several_servers_facts(
    servers: list[tuple[str, SessionInfo | None, str]],
) -> ServerFacts:
    """The facts of several servers, a row each: its state (or why it cannot be used), then who
    it is and which tasks wire it speaks, once connected."""
    rows: list[tuple[str, str]] = []
    for name, info, state in servers:
        if info is None:
            rows.append((name, state))
            continue
        wire = info.capabilities.wire
        spoken = wire if wire == "none" else f"{wire} wire ({verbs_text(info.capabilities)})"
        who = f"{info.server_name} {info.server_version}".strip() or "unnamed server"
        rows.append(
            (name, f"{state} · {who} · {info.transport} · {info.protocol_version} · {spoken}")
        )
    return ServerFacts(f"{len(servers)} servers", _bounded(rows))


def _sign_in_text(status: StoredStatus | None, now: float) -> str:
    """The stored sign-in in words, never a token."""
    if status is None or not status.has_access_token:
        return "none stored (the server is signed in to when it asks)"
    parts = [f"at {status.issuer or 'an unnamed issuer'}"]
    if status.client_id:
        parts.append(f"client {status.client_id}")
    if status.scopes:
        parts.append(f"scopes {status.scopes}")
    if status.expires_at is not None:
        left = status.expires_at - now
        parts.append(f"token expires in {format_duration(left)}" if left > 0 else "token expired")
    if status.has_refresh_token:
        parts.append("refreshable")
    return ", ".join(parts)


def _bounded(rows: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (one_line(label, LABEL_MAX_CHARS), one_line(value, VALUE_MAX_CHARS))
        for label, value in rows
    )
