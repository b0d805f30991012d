"""What became of a task the server answers "not found" for: the one rule the inspector's rows and
every export of a task's life name it by (the poller calls them all "expired")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from app.engine.rpc.reconnect import LOST_WITH_OLD_SESSION

if TYPE_CHECKING:  # annotations only
    from app.engine.tasks.last_seen import LastSeen

GoneKind = Literal["expired", "forgotten", "not found", "not visible"]

NOT_VISIBLE_REASON = (
    "not visible to this session (legacy tasks are bound to the session that created them)"
)
"""The one explanation of "not visible", wherever it is shown."""
NOT_FOUND_DETAIL = "the server does not know this id"
"""What "not found" says of the id."""


def seen_on_legacy(seen: LastSeen | None, session_wire: str | None) -> bool:
    """Whether an earlier run watched the task on the legacy wire: by the wire it remembered,
    else (a store written before wires were kept, or an entry with nothing remembered) by the
    wire this session speaks to the same server."""
    wire = seen.wire if seen is not None and seen.wire is not None else session_wire
    return wire == "legacy"


def gone_kind(
    at: float,
    expires_at: float | None,
    *,
    seen_here: bool,
    known_before: bool,
    legacy_before: bool,
    detail: str | None,
) -> GoneKind:
    """Why the server answered "not found" at `at`: `not found` for an id never seen alive (not
    here, `seen_here`, nor by an earlier run, `known_before`); `expired` once `createdAt + ttl`
    (`expires_at`) has passed; `not visible` for a legacy task another session made (one an
    earlier run saw on the legacy wire and this session never saw, `legacy_before`, or one the
    session before a reconnect took along); else `forgotten` (purged before its TTL)."""
    if not seen_here and not known_before:
        return "not found"
    if expires_at is not None and at >= expires_at:
        return "expired"
    if (detail or "").startswith(LOST_WITH_OLD_SESSION) or (legacy_before and not seen_here):
        return "not visible"
    return "forgotten"


_EXPLAINED: dict[str, str] = {"not found": NOT_FOUND_DETAIL, "not visible": NOT_VISIBLE_REASON}


def gone_detail(kind: GoneKind, detail: str | None) -> str | None:
    """The detail a step or timeline entry of `kind` reads: what `not found` and `not visible`
    mean, with the server's own words after it."""
    explained = _EXPLAINED.get(kind)
    if explained is None:
        return detail
    return f"{explained} ({detail})" if detail else explained
