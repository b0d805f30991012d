"""A task's history, step by step: the one record type an export's life and the TUI's timeline
are made of. Light on imports, so the App's view state can hold it before the engine loads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest


@dataclass(frozen=True, slots=True)
class LifeStep:
    """One reportable moment of a task: an event the poller saw or an action the user took. The
    one type of a task's history: the TUI's timeline entry extends it with its diff."""

    at: float
    kind: str
    source: str
    status: str | None = None
    detail: str | None = None
    previous_status: str | None = None
    question: InputRequest | None = None
    answer: dict[str, Any] | None = None
    arguments: dict[str, Any] | None = None
