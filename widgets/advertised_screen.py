"""The palette's "Advertised capabilities": what taskscope tells one server it can do as a
client, a toggle for each (`✓` on, blank off: readable without colour), and what the next
requests carry. Dismisses with the names to withhold, or None (escape).

On the modern era every request carries the capabilities, so each one can change; on the legacy
era they were declared once at `initialize`, so only tasks (whether `params.task` is sent) can.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import SelectionList, Static

from app.engine.rpc.advertised import ClientCapabilities
from app.engine.safety.sanitize import one_line
from widgets.css_paths import MODALS_CSS
from widgets.json_text import json_line
from widgets.toggles import MarkedSelectionList

KEYS = "space toggles · enter applies · esc cancels"
SENT_MAX_CHARS = 400
"""The object shown is cut here (a `--client-capabilities` one may be long)."""
MEANINGS = {
    "tasks": "the tasks extension, declared on each request",
    "elicitation": "answers form and URL questions",
    "sampling": "answers sampling requests",
    "roots": "answers roots/list from --root",
}
LEGACY_TASKS = "params.task on task-augmented calls"
MODERN_ABOUT = "What taskscope tells this server it can do, from its next request on."
LEGACY_ABOUT = (
    "A legacy server was told the rest at initialize (--withhold changes it for a connection); "
    "here, tasks decides whether calls ask for a task, from the next one on."
)
WITHOUT_TASKS = (
    "Without tasks the server answers tools/call at once or with -32021, and refuses polls with "
    "-32021: a watched task refused a few times in a row is no longer polled (adopt it again)."
)


class AdvertisedScreen(ModalScreen[frozenset[str] | None]):
    """A toggle per capability the server can be told of; enter applies, escape cancels."""

    CSS_PATH = MODALS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="advertised-cancel"),
        Binding("enter,ctrl+s", "apply", "Apply", priority=True, id="advertised-apply"),
    ]

    def __init__(self, capabilities: ClientCapabilities, *, legacy: bool, server: str) -> None:
        super().__init__()
        self._capabilities = capabilities
        self._legacy = legacy
        self._server = server
        offered = capabilities.offered
        self._toggles = tuple(name for name in offered if not legacy or name == "tasks")

    def compose(self) -> ComposeResult:
        title = f"Advertised capabilities · {one_line(self._server, 50)}"
        with Vertical(id="advertised-body", classes="small-modal-body"):
            yield Static(Text(title, style="bold"), classes="small-modal-title")
            yield Static(Text(LEGACY_ABOUT if self._legacy else MODERN_ABOUT))
            yield MarkedSelectionList(
                *(
                    (self._prompt(name), name, name not in self._capabilities.withheld)
                    for name in self._toggles
                ),
                id="advertised-list",
            )
            yield Static(id="advertised-sent")
            yield Static(KEYS, classes="small-modal-keys")

    def on_mount(self) -> None:
        self._show_sent()
        self.query_one(MarkedSelectionList).focus()

    @on(SelectionList.SelectedChanged)
    def _show_sent(self) -> None:
        """What the chosen capabilities make the next requests carry."""
        chosen = self._chosen()
        sent = Text()
        if self._legacy:
            plain = "sent plain" if not chosen.declares_tasks else "with params.task"
            sent.append(f"Calls as a task: {plain}\n", style="bold")
            sent.append("Declared at initialize: ", style="bold")
            sent.append_text(json_line(chosen.legacy(), SENT_MAX_CHARS))
        else:
            sent.append("Next requests carry: ", style="bold")
            sent.append_text(json_line(chosen.modern(), SENT_MAX_CHARS))
            if not chosen.declares_tasks:
                sent.append(f"\n{WITHOUT_TASKS}")
        self.query_one("#advertised-sent", Static).update(sent)

    def action_apply(self) -> None:
        self.dismiss(self._chosen().withheld)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _chosen(self) -> ClientCapabilities:
        """The capabilities as the toggles stand (names without a toggle keep their state)."""
        selected = set(self.query_one(MarkedSelectionList).selected)
        kept = self._capabilities.withheld - set(self._toggles)
        return self._capabilities.withholding(kept | (set(self._toggles) - selected))

    def _prompt(self, name: str) -> Text:
        meaning = LEGACY_TASKS if self._legacy and name == "tasks" else MEANINGS[name]
        prompt = Text(f"{name:<12}", style="bold")
        prompt.append(meaning)
        return prompt
