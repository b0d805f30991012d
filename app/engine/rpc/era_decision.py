"""The written record of an era negotiation: each request and what answered it, the era it
settled on and why, and the error a failed one raises."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.engine.rpc.era import EraPreference
from app.engine.rpc.transports.base import Era, TransportError
from app.engine.safety import deep_json


@dataclass(frozen=True, slots=True)
class EraStep:
    """One request of the dance and, in words, what answered it."""

    method: str
    protocol_version: str
    answer: str

    def as_json(self) -> dict[str, str]:
        return {
            "method": self.method,
            "protocolVersion": self.protocol_version,
            "answer": self.answer,
        }


@dataclass(frozen=True, slots=True)
class EraDecision:
    """How the era was decided: what was asked for, each request and its answer, and why."""

    preference: EraPreference
    era: Era
    protocol_version: str
    reason: str
    steps: tuple[EraStep, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "preference": self.preference,
            "settled": self.era,
            "protocolVersion": self.protocol_version,
            "reason": self.reason,
            "tried": [step.as_json() for step in self.steps],
        }

    def summary(self) -> str:
        """One line for a header: `auto → legacy: <reason>`."""
        return f"{self.preference} → {self.era}: {self.reason}"


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
    decision: EraDecision


class NegotiationError(Exception):
    """The server answered in a way no era can work with; `steps` say what was tried."""

    def __init__(self, message: str, steps: tuple[EraStep, ...] = ()) -> None:
        super().__init__(message)
        self.steps = steps


def era_steps(error: BaseException) -> tuple[EraStep, ...]:
    """The requests a failed dance sent and what answered each (empty when none ran)."""
    steps = getattr(error, "era_steps", ())
    return steps if isinstance(steps, tuple) else ()


def describe_failure(error: BaseException) -> str:
    """A failed handshake request in words: the JSON-RPC error (with its HTTP status and an
    unusual id), the HTTP status, the timeout."""
    code = getattr(error, "code", None)
    if isinstance(code, int) and hasattr(error, "message"):
        text = f"JSON-RPC error {code} {str(error.message)[:200]!r}"
        status = getattr(error, "http_status", None)
        if status is not None:
            text = f"HTTP {status}, {text}"
        frame = getattr(error, "frame", None)
        if isinstance(frame, dict) and not isinstance(frame.get("id"), int):
            text += f" (id {deep_json.dumps(frame.get('id'))})"
        return text
    if isinstance(error, TransportError):
        if error.kind == "timeout":
            return "no answer in time"
        return error.message[:300]
    return str(error)[:300]
