"""URL-mode elicitation: show the full URL and its host, open it only when asked, accept as consent.

The URL is never opened by itself. `o` opens it in a browser through an injectable `opener`
(`webbrowser.open` by default) and only for http and https links. Accept sends
`{"action": "accept"}`, which tells the server the user consents to the interaction.
"""

from __future__ import annotations

import asyncio
import webbrowser
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import urlsplit

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Static

from app.engine.forms.input_text import describe_host
from app.engine.safety.sanitize import clean_text
from app.engine.tasks.models import InputRequest
from widgets.input_modal import ACCEPT, AnswerModal, Submit

Opener = Callable[[str], object]
"""Opens a URL in a browser (`webbrowser.open`); injectable so tests never launch one."""

URL_MAX_CHARS = 2000
OPENABLE_SCHEMES = frozenset({"http", "https"})
URL_BUTTONS = [
    ("Open (o)", "url-open", "default"),
    ("Accept", "input-accept", "primary"),
    ("Decline", "input-decline", "default"),
    ("Cancel", "input-cancel", "default"),
    ("Later", "input-later", "default"),
]
URL_KEYS = "o open · ctrl+s accept (consent) · esc later"


def url_scheme(url: str) -> str:
    """The URL's scheme in lower case, or "" when it has none or cannot be parsed."""
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:
        return ""


class InputUrl(AnswerModal):
    """Consent to a URL-mode elicitation: the message, the full URL, its host decoded and raw."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open_url", "Open in browser", id="input-open-url"),
    ]

    def __init__(
        self,
        request: InputRequest,
        submit: Submit,
        *,
        server: str = "",
        opener: Opener = webbrowser.open,
    ) -> None:
        super().__init__(request, submit, server=server)
        self.url = request.url or ""
        self._opener = opener

    def compose(self) -> ComposeResult:
        with Vertical(id="input-body", classes="input-url"):
            yield from self.compose_header()
            url_line = Text.assemble(("URL:  ", "bold"))
            url_line.append(clean_text(self.url, max_len=URL_MAX_CHARS) or "(none given)")
            yield Static(url_line, id="url-full", classes="url-line")
            host_line = Text.assemble(("Host: ", "bold"))
            host_line.append(describe_host(self.url))
            yield Static(host_line, id="url-host")
            yield Static(Text(self._notice()), id="url-notice", classes="url-warning")
            yield from self.compose_footer(URL_BUTTONS, URL_KEYS)

    def on_mount(self) -> None:
        self.query_one("#input-decline", Button).focus()
        self.query_one("#url-open", Button).disabled = not self.openable

    @property
    def openable(self) -> bool:
        return url_scheme(self.url) in OPENABLE_SCHEMES

    def _notice(self) -> str:
        consent = "Accept tells the server you consent; taskscope never opens the link by itself."
        if self.openable:
            return f"{consent} Press o to open it in your browser."
        scheme = url_scheme(self.url) or "unknown"
        return f"{consent} Only http and https links can be opened from here (this is {scheme})."

    def accept_response(self) -> dict[str, Any] | None:
        return dict(ACCEPT)

    @on(Button.Pressed, "#url-open")
    def action_open_url(self) -> None:
        """Open the URL in a browser, only because the user asked."""
        if not self.openable:
            self.show_status("This link is not http or https; it is not opened.", error=True)
            return
        self._open()

    @work(exclusive=True, group="input-open-url", exit_on_error=False)
    async def _open(self) -> None:
        try:
            opened = await asyncio.to_thread(self._opener, self.url)
        except Exception as error:  # a broken browser setup must not end the modal
            self.show_status(f"Could not open a browser: {clean_text(error)}", error=True)
            return
        if opened is False:
            self.show_status("No browser could be started; copy the URL instead.", error=True)
        else:
            self.show_status("Opened in your browser. Accept once you consent.")
