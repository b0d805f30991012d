"""The sign-in screen: a server asked for authorization, and this says where the sign-in is.

It shows the server, the authorization server's host (decoded and raw, as the URL-consent modal
does), the whole authorization URL and each step as it happens. `o` opens the URL in the browser
again, `y` copies it, escape hides the screen (the sign-in goes on, the header keeps its step).
Every string here is sanitized text shown as plain text; none is parsed as markup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Static

from app.engine.forms.input_text import describe_host
from app.engine.safety.sanitize import clean_text
from app.view.sign_in import SignInState
from widgets.css_paths import MODALS_CSS
from widgets.plain import toast

URL_MAX_CHARS = 2000
KEYS = "o open in the browser · y copy the URL · esc hide (the sign-in goes on)"


class SignInScreen(ModalScreen[None]):
    """Follows one sign-in; the App sets `state` as steps come and closes it when a token came."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open_url", "Open in browser", id="sign-in-open"),
        Binding("y", "copy_url", "Copy URL", id="sign-in-copy"),
        Binding("escape", "hide", "Hide", id="sign-in-hide"),
    ]

    state: reactive[SignInState] = reactive(SignInState, init=False)

    def __init__(self, server: str, state: SignInState, opener: Callable[[str], object]) -> None:
        super().__init__()
        self.server = clean_text(server)
        self._opener = opener
        self.set_reactive(SignInScreen.state, state)

    def compose(self) -> ComposeResult:
        with Vertical(id="sign-in-body", classes="small-modal-body"):
            yield Static(
                Text(f"Sign in to {self.server}", style="bold"), classes="small-modal-title"
            )
            yield Static(id="sign-in-host")
            yield Static(id="sign-in-url")
            yield Static(id="sign-in-steps")
            yield Static(id="sign-in-status")
            yield Static(KEYS, classes="small-modal-keys")

    def on_mount(self) -> None:
        self._show(self.state)

    def watch_state(self, state: SignInState) -> None:
        self._show(state)

    def _show(self, state: SignInState) -> None:
        url = state.url or ""
        host = Text.assemble(("Authorization server: ", "bold"))
        host.append(describe_host(url) if url else "(not known yet)")
        self.query_one("#sign-in-host", Static).update(host)
        line = Text.assemble(("URL: ", "bold"))
        line.append(clean_text(url, max_len=URL_MAX_CHARS) if url else "(not yet)")
        self.query_one("#sign-in-url", Static).update(line)
        self.query_one("#sign-in-steps", Static).update(
            Text("\n".join(f"· {step}" for step in state.steps))
        )
        if state.failed is not None:
            status = Text(f"The sign-in failed: {state.failed}", style="bold red")
        elif state.done:
            status = Text("Signed in.", style="bold green")
        elif state.browser_opened:
            status = Text("Finish signing in in the browser; this screen follows along.")
        else:
            status = Text("No browser opened: press o to try again, or y to copy the URL.")
        self.query_one("#sign-in-status", Static).update(status)

    def action_copy_url(self) -> None:
        if self.state.url:
            self.app.copy_to_clipboard(self.state.url)
            toast(self.app, "The authorization URL is on the clipboard.")

    def action_hide(self) -> None:
        self.dismiss(None)

    def action_open_url(self) -> None:
        if self.state.url:
            self._open(self.state.url)

    @work(exclusive=True, group="sign-in-open", exit_on_error=False)
    async def _open(self, url: str) -> None:
        try:
            opened = await asyncio.to_thread(self._opener, url)
        except Exception:
            opened = False
        if opened is False:
            toast(
                self.app, "No browser could be started; press y to copy the URL.", severity="error"
            )
