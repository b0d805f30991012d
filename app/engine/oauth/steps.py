"""What a sign-in reports as it goes: its steps, and each HTTP exchange it made (redacted)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

StepKind = Literal[
    "challenged",
    "discovered",
    "registered",
    "browser",
    "token",
    "refreshed",
    "failed",
    "untrusted",
]
"""`untrusted`: the stored credentials are not used (a folder or file someone else could have
planted or can read); the text says why and how to put it right."""


@dataclass(frozen=True, slots=True)
class AuthStep:
    """One step of an authorization: what happened, in words, and the URL it concerns."""

    kind: StepKind
    text: str
    url: str | None = None


@dataclass(frozen=True, slots=True)
class AuthExchange:
    """One HTTP exchange of the OAuth flow (discovery, registration, token), secrets replaced."""

    method: str
    url: str
    purpose: str
    status: int | None
    request_headers: Mapping[str, str] = field(default_factory=dict)
    response_headers: Mapping[str, str] = field(default_factory=dict)
    request_body: str | None = None
    response_body: str | None = None
    error: str | None = None
    started_at: float = 0.0
    latency_ms: float | None = None


class AuthObserver(Protocol):
    """Who hears of a sign-in: the command line prints it, the full-screen UI shows it (the
    HTTP exchanges go to the RPC log as frames instead)."""

    def on_step(self, step: AuthStep) -> None: ...

    async def sign_in(self, authorization_url: str) -> None:
        """Let the person sign in at `authorization_url` (open the browser, or show the URL);
        returns at once, the redirect is awaited elsewhere."""
