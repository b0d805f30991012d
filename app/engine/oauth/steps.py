"""What a sign-in reports as it goes: its steps, and each HTTP exchange it made (redacted)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

StepKind = Literal[
    "challenged", "discovered", "registered", "browser", "token", "refreshed", "failed"
]


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


class BrowserObserver:
    """Hears nothing and opens the browser for a sign-in: for callers that show no steps."""

    def on_step(self, step: AuthStep) -> None:
        return None

    async def sign_in(self, authorization_url: str) -> None:
        await open_browser(authorization_url)


async def open_browser(url: str) -> bool:
    """Open `url` in the user's browser (`$BROWSER` honoured, else as `webbrowser` picks) without
    blocking the loop and without the browser writing on this terminal (a full-screen UI draws
    there); whether a browser took it."""
    import asyncio

    return await asyncio.to_thread(launch_browser, url)


def launch_browser(url: str) -> bool:
    """Open `url` in the browser now (blocking), its output detached; whether one took it.

    `$BROWSER` is read on each call (webbrowser reads it once per process): its first entry is
    the command, `%s` standing for the URL (appended when absent); without it, webbrowser picks.
    """
    import os
    import shlex
    import subprocess
    import webbrowser

    chosen = os.environ.get("BROWSER", "").split(os.pathsep)[0].strip()
    if chosen:
        parts = shlex.split(chosen)
        command = [part.replace("%s", url) for part in parts]
        if not any("%s" in part for part in parts):
            command.append(url)
    else:
        try:
            controller = webbrowser.get()
        except webbrowser.Error:
            return False
        name, args = getattr(controller, "name", None), getattr(controller, "args", None)
        if not isinstance(name, str) or not isinstance(args, list):
            try:
                return bool(controller.open(url))
            except Exception:
                return False
        command = [name, *(arg.replace("%s", url) for arg in args)]
    try:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except (OSError, ValueError):
        return False
    return True
