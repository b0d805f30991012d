"""The task model's words that need no pydantic: the wires, the statuses, the kinds of question and
the protocol-violation error. The engine's idle path (connect, wait, poll nothing) uses only these,
so the models, and pydantic with them, load with the first task (`tasks/models`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

Wire = Literal["legacy", "extension"]
"""The two tasks wires: experimental 2025-11-25 tasks, and the SEP-2663 extension."""

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
"""The statuses the protocol defines; anything else is a protocol violation."""

KNOWN_STATUSES: frozenset[str] = frozenset(
    {"working", "input_required", "completed", "failed", "cancelled"}
)
TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled"})


class ProtocolViolation(Exception):
    """A server sent something the protocol does not allow; the frame is kept for display."""

    def __init__(self, reason: str, frame: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.frame = frame


class InputKind(StrEnum):
    """What a pending input request asks the user for."""

    FORM = "form"
    URL = "url"
    SAMPLING = "sampling"
    ROOTS = "roots"
    UNKNOWN = "unknown"
