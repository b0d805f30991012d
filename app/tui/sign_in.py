"""How the full-screen UI signs in when the server asks: the browser opens to the authorization
URL, and the header says which step the sign-in is at (or the URL to open, when no browser
opened) until a token comes."""

from __future__ import annotations

from urllib.parse import urlsplit

from app.engine.oauth.steps import AuthStep, open_browser
from app.engine.safety.sanitize import clean_text

DONE_STEPS = ("token", "refreshed")


class SignInNote:
    """The UI's `AuthObserver`: keeps the line the header shows while a sign-in is under way."""

    def __init__(self) -> None:
        self.text: str | None = None

    def on_step(self, step: AuthStep) -> None:
        if step.kind in DONE_STEPS:
            self.text = None
        elif step.kind == "failed":
            self.text = clean_text(f"sign-in failed: {step.text}")
        elif step.kind != "browser":
            self.text = clean_text(f"signing in: {step.text}")

    async def sign_in(self, authorization_url: str) -> None:
        host = urlsplit(authorization_url).hostname or "the authorization server"
        if await open_browser(authorization_url):
            self.text = clean_text(f"signing in: finish in the browser ({host})")
        else:
            self.text = clean_text(f"signing in: open {authorization_url}")
