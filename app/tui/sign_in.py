"""How the full-screen UI signs in when the server asks: the browser opens to the authorization
URL, and each step becomes a `SignInState` for the header and the sign-in screen."""

from __future__ import annotations

from app.engine.oauth.browser import open_browser
from app.engine.oauth.steps import AuthStep
from app.engine.safety.sanitize import clean_text
from app.view.sign_in import SignInListener, SignInState


class SignInNote:
    """The UI's `AuthObserver`: keeps where the sign-in is and tells its listener each change."""

    def __init__(self) -> None:
        self.state = SignInState()
        self._listener: SignInListener | None = None

    def listen(self, listener: SignInListener) -> None:
        """Tell `listener` every change from now on (the App posts it as a message)."""
        self._listener = listener

    def on_step(self, step: AuthStep) -> None:
        text = clean_text(step.text)
        if step.kind == "challenged":
            self._set(SignInState().step(text))
        elif step.kind in ("token", "refreshed"):
            self._set(self.state.step(text).finished())
        elif step.kind == "failed":
            self._set(self.state.step(f"failed: {text}").failing(text))
        elif step.kind != "browser":
            self._set(self.state.step(text))

    async def sign_in(self, authorization_url: str) -> None:
        waiting = self.state.step("waiting for the sign-in in the browser")
        self._set(waiting.waiting_at(authorization_url, browser_opened=False))
        opened = await open_browser(authorization_url)
        self._set(self.state.waiting_at(authorization_url, browser_opened=opened))

    def _set(self, state: SignInState) -> None:
        self.state = state
        if self._listener is not None:
            self._listener(state)
