"""Which server a new task, an adopted id or a check goes to, when several are watched: a list of
the servers with their state, enter picks one, escape picks none.

Server names and states are shown as plain text; nothing here parses markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from app.engine.safety.sanitize import one_line
from widgets.choice_picker import ChoicePicker

NAME_MAX = 40
STATE_MAX = 60


class ServerPicker(ChoicePicker):
    """Dismisses with the chosen server's name, or None."""

    def __init__(self, title: str, servers: Sequence[tuple[str, str]]) -> None:
        """`servers`: each name with its state in words ("connected", "failed: …")."""
        choices = []
        for name, state in servers:
            label = Text(one_line(name, NAME_MAX), style="bold")
            label.append(f"  {one_line(state, STATE_MAX)}", style="dim")
            choices.append((name, label))
        super().__init__(title, choices, list_id="server-picker-list")
