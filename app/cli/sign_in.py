"""How a headless command signs in when the server asks: each step as a line on stderr, and the
browser opened to the authorization URL (or the URL printed, with `--no-browser`)."""

from __future__ import annotations

from urllib.parse import urlsplit

from app.cli.output import Output
from app.engine.oauth.browser import open_browser
from app.engine.oauth.steps import AuthStep
from app.engine.safety.sanitize import clean_text


class CliSignIn:
    """The command line's `AuthObserver`."""

    def __init__(self, out: Output, *, browser: bool) -> None:
        self.out = out
        self.browser = browser

    def on_step(self, step: AuthStep) -> None:
        if step.kind != "browser":
            self.out.note(clean_text(f"oauth: {step.text}"))

    async def sign_in(self, authorization_url: str) -> None:
        url = clean_text(authorization_url)
        host = clean_text(urlsplit(authorization_url).hostname or "the authorization server")
        if self.browser and await open_browser(authorization_url):
            self.out.note(f"oauth: sign in at {host} in the browser (if none opened: {url})")
        else:
            self.out.note(f"oauth: to sign in, open this URL in a browser: {url}")
