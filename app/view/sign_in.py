"""Where a sign-in is: what the sign-in screen and the header show while a server asks for one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

MAX_STEPS = 20


@dataclass(frozen=True, slots=True)
class SignInState:
    """The steps so far (sanitized text), the authorization URL once there is one, and how it
    ended: `done` with a token, or `failed` with the reason."""

    server: str = ""
    steps: tuple[str, ...] = ()
    url: str | None = None
    browser_opened: bool = False
    done: bool = False
    failed: str | None = None

    def of_server(self, server: str) -> SignInState:
        """This state, naming the server that asked."""
        return replace(self, server=server)

    def step(self, text: str) -> SignInState:
        """This state with one more step (the oldest drop beyond `MAX_STEPS`)."""
        return replace(self, steps=(*self.steps, text)[-MAX_STEPS:])

    def waiting_at(self, url: str, *, browser_opened: bool) -> SignInState:
        """This state waiting for the person at the authorization URL `url`."""
        return replace(self, url=url, browser_opened=browser_opened, done=False, failed=None)

    def finished(self) -> SignInState:
        """This state with a token received."""
        return replace(self, done=True, failed=None)

    def failing(self, reason: str) -> SignInState:
        """This state ended without a token, for `reason`."""
        return replace(self, failed=reason, done=False)

    @property
    def note(self) -> str | None:
        """The header's line: the newest step while the sign-in is under way."""
        if self.done:
            return None
        if self.failed is not None:
            return f"sign-in failed: {self.failed}"
        return f"signing in: {self.steps[-1]}" if self.steps else None


SignInListener = Callable[[SignInState], None]
"""Who hears each change of a sign-in (the App, through a message)."""
