"""What an earlier run last saw of a task, kept with its id in the known-task store (and in a
recording's `restored` action), so a row this session cannot see still reads its age, its last
change and its TTL from the server's own `createdAt`, `lastUpdatedAt` and `ttl`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.engine.record.recording import LATEST_MOMENT

if TYPE_CHECKING:  # annotations only
    from app.engine.tasks.models import Task

MAX_TTL_MS = 10 * 365 * 86_400_000
"""A remembered TTL above ten years is read as unknown (a hand-edited or hostile file)."""
WIRES = frozenset({"legacy", "extension"})
STATUSES = frozenset({"working", "input_required", "completed", "failed", "cancelled"})


@dataclass(frozen=True, slots=True)
class LastSeen:
    """The server's times and status of a task as an earlier run last saw them (None: unknown)."""

    wire: str | None = None
    status: str | None = None
    created_at: float | None = None
    last_updated_at: float | None = None
    ttl_ms: int | None = None
    """None: no TTL (unlimited), when `created_at` is known; else unknown."""

    @property
    def expires_at(self) -> float | None:
        """`createdAt + ttl` in seconds since the epoch (None: no TTL, or no creation time)."""
        if self.created_at is None or self.ttl_ms is None:
            return None
        return self.created_at + self.ttl_ms / 1000

    def as_json(self) -> dict[str, Any]:
        """The fields as the store and recordings keep them (unknown ones left out)."""
        fields = {
            "wire": self.wire,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.last_updated_at,
            "ttl": self.ttl_ms,
        }
        return {key: value for key, value in fields.items() if value is not None}


NOTHING_SEEN = LastSeen()


def last_seen_of(task: Task) -> LastSeen:
    """What to remember of a task the server just showed."""
    created = task.created_at
    updated = task.last_updated_at
    return LastSeen(
        wire=task.wire,
        status=task.status,
        created_at=created.timestamp() if created is not None else None,
        last_updated_at=updated.timestamp() if updated is not None else None,
        ttl_ms=task.ttl_ms,
    )


def last_seen_from_json(value: Any) -> LastSeen | None:
    """The remembered fields of a store entry or recording (None: it has none); a field of the
    wrong type, an unknown word or a time no clock shows is read as unknown, never an error."""
    if not isinstance(value, dict):
        return None
    wire = value.get("wire")
    status = value.get("status")
    ttl = value.get("ttl")
    seen = LastSeen(
        wire=wire if wire in WIRES else None,
        status=status if status in STATUSES else None,
        created_at=_moment(value.get("createdAt")),
        last_updated_at=_moment(value.get("lastUpdatedAt")),
        ttl_ms=ttl if _whole_ttl(ttl) else None,
    )
    return None if seen == NOTHING_SEEN else seen


def _whole_ttl(value: Any) -> bool:
    """A TTL in whole milliseconds from none to `MAX_TTL_MS`."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TTL_MS


def _moment(value: Any) -> float | None:
    """A number of seconds since the epoch between 1970 and `LATEST_MOMENT` (else None)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) and 0 <= number <= LATEST_MOMENT else None
